"""What a privacy officer reads after a forget (rule 14 of docs/rules.md): the report counts everything it
took the person out of, the texts waiting to be stored included, and says where their name is still
written by people; the audit chain keeps no hash a list of names could reverse."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

import psycopg
import pytest
from forgets import forget, run_hinted
from undo_revisions import undo_0051

import beliefdb
from beliefdb import errors
from beliefdb.db import migrate

SECRET = "# Badge\nDana's badge code is 4471.\n"


def test_the_report_and_the_audit_event_count_the_queued_jobs_and_proposals_it_masked(db_url: str, cli: Any,
                                                                    postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text(SECRET, source="badge.md")
        alice.submit(text=SECRET + "The badge office is on floor 2.\n", source="badge.md")
        alice.submit(text="# Returns\nReturns within 30 days.\n", source="returns.md")
        assert bob.ingest_text(SECRET + "Floor 3 now.\n", source="badge.md").proposed
        preview = alice.forget(subject="dana", preview=True)
        assert (preview.jobs, preview.proposals) == (1, 1)
        done = alice.forget(subject="dana")
        assert (done.jobs, done.proposals) == (1, 1)
        # forgetting a source counts the jobs of it that it cleared
        alice.submit(text="# Returns\nReturns within 60 days.\n", source="returns.md")
        alice.ingest_text("# Returns\nReturns within 30 days.\n", source="returns.md")
        gone = alice.forget(source="returns.md")
        assert (gone.jobs, gone.proposals) == (2, 0)
    # rule 12: masking a text waiting to be stored or clearing a forgotten source's jobs is a change like
    # masking a stored one: the forget's audit event counts them as the report does (counts, never a name)
    postgresql.commit()
    events = [r[0] for r in postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget' order by seq")]
    assert [(e.get("jobs"), e.get("proposals")) for e in events] == [(1, 1), (2, 0)], events
    assert "Dana" not in str(events) and "returns" not in str(events)
    # the command line says so too, and --json carries both
    with beliefdb.connect(db_url, principal="alice") as alice:
        alice.ingest_text("Erin's badge code is 5512.\n", source="erin.md")
        alice.submit(text="Erin's badge code is 5512.\nMore.\n", source="erin.md")
    shown = cli("forget", "--subject", "erin", "--preview", "--as", "alice")
    assert "1 job(s)" in shown.output and "0 proposal(s)" in shown.output, shown.output
    report = json.loads(forget(cli, "--subject", "erin", "--as", "alice", "--json").stdout)
    assert (report["jobs"], report["proposals"]) == (1, 0)


def test_the_report_lists_where_people_typed_the_forgotten_name(db_url: str, cli: Any,
                                                               postgresql: psycopg.Connection[Any]) -> None:
    """A decision's title, an action's description, an outcome's note, a run's task and a step's payload
    are what people typed, not text taken from what was forgotten: forget leaves them (another's words
    about the person, as rule 14 leaves another speaker's), and its report says where the name still is,
    with how to deal with it. A word that only contains the name is not it."""
    with beliefdb.connect(db_url, principal="alice") as alice:
        badge = alice.remember("Maya's badge code is 4471.", "maya_lopez", "badge_code", "4471", "badge code is 4471",
                               source="chat-maya", text="Maya: my badge code is 4471\n").accepted[0].id
        decision = alice.decide("Give maya lopez a new badge", because=[badge]).id
        other = alice.decide("Order badges for team maya_lopezz").id  # not her name
        action = alice.act(decision, "Print a badge for Maya_Lopez").id
        outcome = alice.record_outcome(action, "disputed", note="MAYA LOPEZ said no").id
        step = alice.record_step("tool_call", {"query": "badge of maya_lopez"}, task="Help maya lopez")
        preview = alice.forget(subject="maya_lopez", preview=True)
        done = alice.forget(subject="maya_lopez")
    assert preview.mentions == done.mentions
    found = {(m.kind, m.id, m.field) for m in done.mentions}
    assert found == {("decision", decision, "title"), ("action", action, "description"),
                     ("outcome", outcome, "note"), ("run", step.run, "task"), ("step", step.step, "payload")}
    assert other not in {m.id for m in done.mentions}
    assert all(m.owner == "alice" and "typed" in m.hint for m in done.mentions)
    # left as typed: the report names them, it does not rewrite them
    assert postgresql.execute("select title from beliefdb.decision where id = %s", (decision,)).fetchone() == (
        "Give maya lopez a new badge",)
    with beliefdb.connect(db_url, principal="alice") as alice:
        alice.remember("Erin's badge code is 5512.", "erin", "badge_code", "5512", "badge code is 5512",
                       source="badges.md", text="Erin's badge code is 5512.\n")
        alice.decide("Call Erin about her badge")
    shown = cli("forget", "--subject", "erin", "--preview", "--as", "alice")
    assert "still named where forget leaves it" in shown.output and "decision " in shown.output, shown.output
    assert "hint (decision): typed by alice" in shown.output, shown.output
    report = json.loads(forget(cli, "--subject", "erin", "--as", "alice", "--json").stdout)
    [mention] = report["mentions"]
    assert (mention["kind"], mention["field"], mention["owner"]) == ("decision", "title", "alice")
    assert mention["hint"]


def test_a_name_in_cjk_script_is_found_inside_unspaced_text(bdb: beliefdb.BeliefDB) -> None:
    """Chinese, Japanese and Korean write no space around a name ("我昨天见了王小明，他说..."): a name in those
    scripts is found wherever it is written, as a Latin name is found as a word of its own; the preview
    and the forget report the same."""
    text = "王小明的电话是555-0199。\n"
    own = bdb.remember("王小明的电话是555-0199。", "王小明", "电话", "555-0199", "王小明的电话是555-0199",
                       source="电话簿.md", text=text).accepted[0].id
    diary = "我昨天见了王小明，他说李华的生日是五月三日。\n"
    said = bdb.remember("我昨天见了王小明，他说李华的生日是五月三日。", "李华", "生日", "五月三日",
                        "我昨天见了王小明，他说李华的生日是五月三日", source="日记.md", text=diary).accepted[0].id
    decision = bdb.decide("给王小明换一张新工牌", because=[own]).id
    step = bdb.record_step("tool_call", {"query": "查王小明的工牌"}, task="帮王小明补办工牌")
    other = bdb.decide("给王小换一张新工牌").id  # another name: not his
    preview = bdb.forget(subject="王小明", preview=True)
    done = bdb.forget(subject="王小明")
    assert preview.mentions == done.mentions
    assert {(m.kind, m.id, m.field) for m in done.mentions} == {
        ("belief", said, "statement"), ("decision", decision, "title"), ("run", step.run, "task"),
        ("step", step.step, "payload")}
    assert other not in {m.id for m in done.mentions}
    # Japanese (kanji, kana) and Korean names, a particle or an honorific written onto them
    for name, typed in (("田中", "昨日田中さんに会った"), ("マリア", "マリアさんの電話番号を聞く"),
                        ("김민수", "어제 김민수를 만났다")):
        bdb.remember(f"{name}: 1", name, "badge", "1", f"{name}: 1", source=f"badge-{len(typed)}.md",
                     text=f"{name}: 1\n")
        typed_id = bdb.decide(typed).id
        assert [(m.kind, m.id) for m in bdb.forget(subject=name, preview=True).mentions] == [("decision", typed_id)]


def test_a_latin_name_is_still_found_only_as_a_word_of_its_own(bdb: beliefdb.BeliefDB) -> None:
    """"Ann" is not in "Annual" nor in "Anne": a name in Latin letters is a word of its own, in any letter
    case, also beside CJK text, which has no spaces."""
    bdb.remember("Ann's badge code is 4471.", "ann", "badge_code", "4471", "badge code is 4471",
                 source="badges.md", text="Ann's badge code is 4471.\n")
    named = {bdb.decide("Call ANN about her badge").id, bdb.decide("我和Ann去了公园").id}
    for title in ("Annual badge review", "Anne's badge", "Joanna's badge", "ann_b's badge"):
        bdb.decide(title)
    preview = bdb.forget(subject="ann", preview=True)
    assert {m.id for m in preview.mentions} == named
    assert {m.id for m in bdb.forget(subject="ann").mentions} == named


def test_the_forget_event_keeps_no_digest_a_list_of_names_reverses(db_url: str, bdb: beliefdb.BeliefDB,
                                                                   postgresql: psycopg.Connection[Any]) -> None:
    """The audit event of a forget records a digest keyed by the workspace's own secret (HMAC-SHA-256),
    not the plain SHA-256 of the name anyone could compute for every name on a list; the schema's owner
    can still tell whether a name was forgotten (beliefdb._forget_events). A chain from before keeps its
    links: the events with a plain digest of a subject or a source lose their payload, and it verifies."""
    bdb.remember("Dana's badge code is 4471.", "dana", "badge_code", "4471", "badge code is 4471",
                 source="badge.md", text="Dana's badge code is 4471.\n")
    # an event as a forget before revision 0044 recorded it, in the same chain
    postgresql.execute("select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace"
                       " where name = 'default'), false)")
    plain = hashlib.sha256(b"erin").hexdigest()
    postgresql.execute("select beliefdb._audit_append((select id from beliefdb.workspace where name = 'default'),"
                       " 'forget', jsonb_build_object('target', 'subject', 'sha256', %s::text, 'beliefs', 1))",
                       (plain,))
    postgresql.commit()
    bdb.forget(subject="dana")
    events = [r[0] for r in postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget' order by seq")]
    assert events[0]["sha256"] == plain
    digest = events[1]["hmac_sha256"]
    assert "sha256" not in events[1] and "name_sha256" not in events[1]
    assert hashlib.sha256(b"dana").hexdigest() not in str(events)
    # keyed to its event (revision 0050): another forget of a guessed name records another digest
    (key, salt, seq) = postgresql.execute(
        "select k.key, beliefdb._audit_salt(e.seq, e.at), e.seq from beliefdb.audit_key k"
        " join beliefdb.audit_event e on e.workspace_id = k.workspace_id"
        " where e.action = 'forget' and e.payload ->> 'hmac_sha256' = %s", (digest,)).fetchone() or (b"", b"", 0)
    assert digest == hmac.new(bytes(key), bytes(salt) + hashlib.sha256(b"dana").digest(), hashlib.sha256).hexdigest()
    assert postgresql.execute("select * from beliefdb._forget_events('dana')").fetchall() == [(seq,)]
    assert postgresql.execute("select * from beliefdb._forget_events('erin')").fetchall() == []
    postgresql.commit()
    # the application role reads no key
    with pytest.raises(errors.PermissionDenied, match="audit_key"), bdb.database.transaction() as c:
        c.execute("select key from beliefdb.audit_key")
    # an existing chain migrated: the plain digest goes, the chain still verifies (the schema as revision
    # 0043 left it, but for the chain, then upgraded)
    postgresql.execute("alter type beliefdb.forget_result drop attribute jobs, drop attribute proposals,"
                       " drop attribute mentions, drop attribute labels_masked")  # (labels_masked: 0046's)
    postgresql.execute("drop table beliefdb.audit_key")
    postgresql.execute("alter table beliefdb.decision drop column forgotten_reasons")
    postgresql.execute("drop index beliefdb.belief_recent, beliefdb.review_item_queue")  # revision 0045's
    postgresql.execute("alter table beliefdb.review_item drop column resolved_seq cascade")  # revision 0047's
    postgresql.execute("alter table beliefdb.redaction drop column line_start, drop column line_length,"
                       " drop column line_digest")  # revision 0048's
    postgresql.execute("drop table beliefdb.authority_change")  # revision 0048's
    postgresql.execute("alter table beliefdb.step drop column world")  # revision 0049's
    postgresql.execute("drop index beliefdb.job_forgotten_lines")  # (and its index)
    postgresql.execute("drop index beliefdb.audit_event_plain_digest")  # revision 0050's
    postgresql.execute("alter table beliefdb.agent_login drop column made_in")  # (and its column)
    postgresql.execute("alter table beliefdb.redaction drop column line_salt")  # (and this one)
    undo_0051(postgresql)  # revision 0051's
    postgresql.execute("update beliefdb.alembic_version set version_num = '0043'")
    postgresql.commit()
    migrate.upgrade(db_url)
    events = [r[0] for r in postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget' order by seq")]
    assert events == [None, events[1]] and events[1]["hmac_sha256"] == digest
    assert bdb.audit_verify().ok
    assert bdb.forget(belief=bdb.remember("Erin's badge code is 5512.", "erin", "badge_code", "5512",
                                          "badge code is 5512", source="erin.md",
                                          text="Erin's badge code is 5512.\n").accepted[0].id).beliefs == 1


def test_the_decision_page_says_its_reasons_were_forgotten(db_url: str) -> None:
    """A reason that cites something forgotten goes with it (rule 14): the decision page said "None lost."
    under "Reasons lost", as if it never had one; it says how many were forgotten, now and as of before."""
    import web_pages
    from fastapi.testclient import TestClient

    from beliefdb import api
    from beliefdb.interfaces.http import create_app

    with beliefdb.connect(db_url, principal="alice") as alice:
        badge = alice.remember("Dana's badge code is 4471.", "dana", "badge_code", "4471", "badge code is 4471",
                               source="badge.md", text="Dana's badge code is 4471.\n").accepted[0].id
        kept = alice.decide("Keep the badge office open").id
        decision = alice.decide("Print the new badge", because=[badge]).id
        before = next(d.created_at for d in alice.decisions() if d.id == decision)
        alice.forget(subject="dana")
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as client:
        web_pages.sign_in(client, api.create_token("default", "alice", url=db_url).token)
        page = client.get(f"/decisions/{decision}", headers=web_pages.HTML).text
        lost = page.split("<h2>Reasons lost</h2>")[1].split("<h2>")[0]
        assert "None lost." not in lost and "1 reason was forgotten" in lost, lost
        then = client.get("/decisions/" + str(decision), params={"as_of": before.isoformat()},
                          headers=web_pages.HTML).text
        assert "1 reason was forgotten" in then.split("<h2>Reasons lost</h2>")[1].split("<h2>")[0]
        other = client.get(f"/decisions/{kept}", headers=web_pages.HTML).text
        assert "None lost." in other.split("<h2>Reasons lost</h2>")[1].split("<h2>")[0]


def test_ask_offers_no_remains_of_forgotten_text_as_unextracted_text(bdb: beliefdb.BeliefDB) -> None:
    """A sentence whose quote was forgotten was no unextracted text before (its belief quoted it); once the
    quote is masked, what is left of it ("Maya's █████") named the person in ask's unextracted text. Text
    with a forgotten span in it is not offered; the rest of the document still is."""
    text = "Maya's phone is 555-0199.\nThe badge office opens at nine.\n"
    bdb.remember("Maya's phone is 555-0199.", "maya_lopez", "phone", "555-0199", "phone is 555-0199",
                 source="notes.md", text=text)
    bdb.forget(subject="maya_lopez")
    answer = bdb.ask("Maya phone")
    assert "Maya's" not in answer.context and not answer.fragments, answer.context
    assert [f.text for f in bdb.ask("badge office").fragments] == ["The badge office opens at nine."]


def test_the_report_lists_sources_and_reasons_that_name_the_person(bdb: beliefdb.BeliefDB) -> None:
    """A source's name, a version's label and path, a retraction's reason are typed too: a file called after
    the person keeps its name when what it said of them is forgotten; the report says where, and how."""
    bdb.remember("Maya's phone is 555-0199.", "maya_lopez", "phone", "555-0199", "phone is 555-0199",
                 source="Maya López notes", text="Maya's phone is 555-0199.\nThe office opens at nine.\n")
    office = bdb.ingest_text("Office opening time: ten\n", source="office.md", version_label="as maya_lopez said")
    bdb.retract(belief=office.accepted[0].id, reason="maya lopez says it is wrong")
    done = bdb.forget(subject="Maya López")
    found = {(m.kind, m.field) for m in done.mentions}
    assert found == {("source", "name"), ("version", "label"), ("retraction", "reason")}, done.mentions
    named = next(m for m in done.mentions if m.kind == "source")
    assert "forget --source" in named.hint


def test_the_report_lists_beliefs_about_others_that_name_the_person(bdb: beliefdb.BeliefDB) -> None:
    """What others said of the person stays theirs (rule 14: the name where others said it is not
    found), but the report names the beliefs that still say it, so the officer can forget them too."""
    bdb.remember("Maya's phone is 555-0199.", "maya_lopez", "phone", "555-0199", "phone is 555-0199",
                 source="notes.md", text="Maya's phone is 555-0199.\n")
    sister = bdb.remember("Bob's sister is Maya Lopez.", "bob", "sister", "Maya Lopez", "Bob's sister is Maya Lopez",
                          source="bob.md", text="Bob's sister is Maya Lopez.\n").accepted[0].id
    done = bdb.forget(subject="maya_lopez")
    assert [(m.kind, m.id, m.field) for m in done.mentions] == [("belief", sister, "statement")]
    assert "forget --belief" in done.mentions[0].hint
    assert bdb.why(sister).belief.value == "Maya Lopez"  # left as it was


def test_the_forgets_the_hints_name_run_as_written(bdb: beliefdb.BeliefDB, cli: Any,
                                                   postgresql: psycopg.Connection[Any]) -> None:
    """A mention's hint names the forget to run for it: "beliefdb forget --belief" alone, or "--belief with its
    id", was refused (the command line forgets nothing without --preview, then --expect). Run as the hints
    write them (a belief said of another, a source named after the person, a correction that names them), each
    forgets what it names."""
    bdb.remember("Maya's phone is 555-0199.", "maya_lopez", "phone", "555-0199", "phone is 555-0199",
                 source="Maya Lopez notes", text="Maya's phone is 555-0199.\nThe office opens at nine.\n")
    sister = bdb.remember("Bob's sister is Maya Lopez.", "bob", "sister", "Maya Lopez", "Bob's sister is Maya Lopez",
                          source="bob.md", text="Bob's sister is Maya Lopez.\n").accepted[0].id
    team = bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                        source="team.md", text="The team grows by one.\n").accepted[0].id
    named = bdb.apply_correction(team, "The team grows by one: Maya Lopez.", reviewer="alice", expect_revision=1)
    done = bdb.forget(subject="maya_lopez")
    hints = {(m.kind, m.field, str(m.id)): m.hint for m in done.mentions}
    run_hinted(cli, hints["belief", "statement", str(sister)], "ID", str(sister))
    run_hinted(cli, hints["correction", "statement", str(named.correction)], "ID", str(named.replacement))
    run_hinted(cli, next(h for (kind, field, _), h in hints.items() if (kind, field) == ("source", "name")),
               "NAME", "Maya Lopez notes")
    left = postgresql.execute("""select (select count(*) from beliefdb.belief where id = any(%s)),
                                        (select count(*) from beliefdb.correction),
                                        (select count(*) from beliefdb.source where name = 'Maya Lopez notes')""",
                              ([sister, named.replacement],)).fetchone()
    assert left == (0, 0, 0), left


def test_decisions_say_how_many_reasons_were_forgotten(db_url: str, cli: Any) -> None:
    """beliefdb decisions (and the library's, and GET /decisions) listed a decision whose reasons were
    forgotten with none, as one recorded without any: it says how many were forgotten."""
    with beliefdb.connect(db_url, principal="alice") as alice:
        badge = alice.remember("Dana's badge code is 4471.", "dana", "badge_code", "4471", "badge code is 4471",
                               source="badge.md", text="Dana's badge code is 4471.\n").accepted[0].id
        decision = alice.decide("Print the new badge", because=[badge]).id
        alice.forget(subject="dana")
        (listed,) = alice.decisions(of=decision)
        assert (listed.reasons, listed.forgotten_reasons) == ([], 1)
    shown = cli("decisions", str(decision))
    assert "1 reason forgotten" in shown.output, shown.output
    assert cli.json("decisions", str(decision))[0]["forgotten_reasons"] == 1
