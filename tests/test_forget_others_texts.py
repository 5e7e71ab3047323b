"""A forget's `mask_mentions` masks a name in a queued text its submitter may change (rule 14 of
docs/rules.md), and only there: a text someone queued for a source another principal owns is theirs to
mask, but what that masking recorded never masks the owner's own texts of the source (rule 17: only the
owner changes their source; another's erasure is a review item for them). Before, the line came out
masked in every later text of the owner's, also after the proposal the job became was rejected."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import errors
from beliefdb.models import Turn

MASK = "\u2588"
LINE = "Sign-off: Yara Finch approved the budget."


def versions(conn: psycopg.Connection[Any], source: str) -> list[str]:
    rows = conn.execute("select v.content from beliefdb.source_version v join beliefdb.source s on s.id = v.source_id"
                        " where s.name = %s order by v.version", (source,)).fetchall()
    conn.commit()
    return [r[0] for r in rows]


def queue_and_forget(alice: beliefdb.BeliefDB, mal: beliefdb.BeliefDB) -> None:
    """Alice owns plan.txt; Mallory queues a text for it naming Yara, then forgets Yara, masking the name
    in what she may: her own job."""
    alice.ingest_text("Project plan\nBudget: 40k.\n", source="plan.txt")
    mal.remember("Yara Finch is a contractor.", "yara_finch", "role", "contractor", "Yara Finch is a contractor",
                 source="m2.txt", text="Yara Finch is a contractor.\n")
    mal.submit(text=f"Project plan\n{LINE}\n", source="plan.txt")
    mal.forget(subject="yara_finch", mask_mentions=True)


def test_a_name_masked_in_a_text_queued_for_anothers_source_masks_nothing_of_theirs(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        queue_and_forget(alice, mal)
        (text,) = postgresql.execute("select payload ->> 'text' from beliefdb.job").fetchone() or ("",)
        postgresql.commit()
        assert "Yara" not in text and MASK in text  # her own job is masked as she asked
        later = alice.ingest_text(f"Project plan\nBudget: 45k.\n{LINE}\n", source="plan.txt")
        assert later.new_version and not later.rejected
    assert LINE in versions(postgresql, "plan.txt")[-1]


def test_nor_once_the_job_is_a_proposal_rejected_or_approved(db_url: str,
                                                            postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        queue_and_forget(alice, mal)
        assert mal.work(stop_when_empty=True, embed=False).done == 1
        (item,) = [r for r in alice.review_items() if r.kind == "version_proposed"]
        alice.ingest_text(f"Project plan\nBudget: 41k.\n{LINE}\n", source="plan.txt")
        assert LINE in versions(postgresql, "plan.txt")[-1]  # while the proposal waits
        # the owner approves the masked text: that version is stored as proposed, masked ...
        alice.resolve_review(item.id, "approved")
        assert versions(postgresql, "plan.txt")[-1] == f"Project plan\nSign-off: {MASK * 10} approved the budget.\n"
        # ... and her next text with the line is hers, in clear
        alice.ingest_text(f"Project plan\nBudget: 45k.\n{LINE}\n", source="plan.txt")
    assert LINE in versions(postgresql, "plan.txt")[-1]
    assert postgresql.execute("select count(*) from beliefdb.redaction r join beliefdb.source_version v"
                              " on v.id = r.source_version_id join beliefdb.source s on s.id = v.source_id"
                              " where s.name = 'plan.txt'").fetchone() == (0,)
    postgresql.commit()


def test_rejected_the_proposal_leaves_the_owners_text_alone(db_url: str,
                                                            postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        queue_and_forget(alice, mal)
        assert mal.work(stop_when_empty=True, embed=False).done == 1
        (item,) = [r for r in alice.review_items() if r.kind == "version_proposed"]
        alice.resolve_review(item.id, "rejected")
        alice.ingest_text(f"Project plan\nBudget: 45k.\n{LINE}\n", source="plan.txt")
    assert LINE in versions(postgresql, "plan.txt")[-1]


def test_a_name_masked_in_a_text_queued_for_ones_own_source_stays_masked_in_it(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """The submitter owns the source (or will, storing its first text): her later texts of it are masked
    where they repeat the line, as rule 14 keeps what a forget masked."""
    with beliefdb.connect(db_url, principal="mallory") as mal:
        mal.remember("Yara Finch is a contractor.", "yara_finch", "role", "contractor", "Yara Finch is a contractor",
                     source="m2.txt", text="Yara Finch is a contractor.\n")
        mal.ingest_text("Project plan\nBudget: 40k.\n", source="own.txt")
        mal.submit(text=f"Project plan\n{LINE}\n", source="own.txt")
        mal.submit(text=f"Memo\n{LINE}\n", source="new.txt")
        mal.forget(subject="yara_finch", mask_mentions=True)
        mal.ingest_text(f"Project plan\nBudget: 45k.\n{LINE}\n", source="own.txt")
        assert mal.work(stop_when_empty=True, embed=False).done == 2
        mal.ingest_text(f"Memo, again\n{LINE}\n", source="new.txt")
    assert "Yara" not in versions(postgresql, "own.txt")[-1]
    assert [v for v in versions(postgresql, "new.txt") if "Yara" in v] == []


def test_the_submitter_may_cancel_a_job_whose_only_masking_was_hers_of_anothers_source(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Its record keeps nothing forgotten anywhere else, so cancelling it loses nothing (trial33: neither
    could cancel it)."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        queue_and_forget(alice, mal)
        assert len(mal.cancel(source="plan.txt")) == 1
    assert postgresql.execute("select count(*) from beliefdb.job where status <> 'cancelled'").fetchone() == (0,)
    postgresql.commit()


def test_a_job_holding_a_forgotten_quote_is_still_not_cancelled(db_url: str,
                                                                postgresql: psycopg.Connection[Any]) -> None:
    """What a forget of a belief's quote masked in a waiting text is a record that keeps those words
    forgotten in the source (rule 14), whoever queued it: cancelling it stays refused."""
    with beliefdb.connect(db_url, principal="mallory") as mal:
        (yara,) = mal.remember("Yara Finch is a contractor.", "yara_finch", "role", "contractor",
                               "Yara Finch is a contractor", source="m2.txt",
                               text="Yara Finch is a contractor.\n").accepted
        mal.submit(text="Notes\nYara Finch is a contractor.\n", source="m2.txt")
        mal.forget(belief=yara.id)
        with pytest.raises(errors.BeliefDBError, match="cancelling it would drop the record"):
            mal.cancel(source="m2.txt")




QUOTED = "Project plan\nBudget: 40k.\nwe hear that yara finch approved the budget, maybe\n"


def approver(db: beliefdb.BeliefDB) -> Any:
    """A belief of db's principal quoting words of plan.txt (QUOTED) that no extractor made a belief of."""
    (belief,) = db.remember("Yara approved the budget.", "budget", "approver", "Yara Finch",
                            "yara finch approved the budget", source="plan.txt").accepted
    return belief


def test_forgetting_ones_belief_leaves_its_quote_in_anothers_source_and_lists_it(
        db_url: str, postgresql: psycopg.Connection[Any], cli: Any) -> None:
    """Mallory remembers a belief quoting words of Alice's document and forgets it: before, the words were
    masked in Alice's text, and in her later texts of it, for good (any principal could mask any words of
    another's document). The belief goes; Alice's words stay hers, listed in the report."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.ingest_text(QUOTED, source="plan.txt")
        mine = approver(mal)
        preview = mal.forget(belief=mine.id, preview=True)
        assert (preview.redacted, [(k.what, k.source, k.version, k.owner, k.count) for k in preview.kept]) == (
            0, [("quote", "plan.txt", 1, "alice", 1)])
        assert "alice" in preview.kept[0].hint
        shown = cli("forget", "--belief", str(mine.id), "--preview", "--as", "mallory").output
        listed = ("left in sources others own, theirs to change (1 time(s) in 1 place(s)):\n"
                  "  plan.txt v1 (alice's, 1 quote(s))")
        assert listed in shown, shown
        assert mal.forget(belief=mine.id).kept == preview.kept
        assert mal.beliefs(subject="budget") == []
        alice.ingest_text(QUOTED + "Next: hire.\n", source="plan.txt")
    assert versions(postgresql, "plan.txt") == [QUOTED, QUOTED + "Next: hire.\n"]
    assert postgresql.execute("select count(*) from beliefdb.redaction").fetchone() == (0,)
    postgresql.commit()


def test_the_owner_forgetting_such_a_belief_masks_the_quote_as_before(db_url: str,
                                                                      postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice:
        alice.ingest_text(QUOTED, source="plan.txt")
        mine = approver(alice)
        report = alice.forget(belief=mine.id)
    assert (report.redacted, report.kept) == (1, [])
    assert "yara" not in versions(postgresql, "plan.txt")[-1]


def test_an_eraser_masks_the_quote_in_anothers_source(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    name, password = "dpo_quotes", "a-password-of-its-own"
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.ingest_text(QUOTED, source="plan.txt")
        mine = approver(mal)
        workspace = str(alice.database.workspace_id)
    postgresql.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(name), sql.Literal(password)))
    postgresql.execute(sql.SQL("grant beliefdb_app, beliefdb_eraser to {}").format(sql.Identifier(name)))
    postgresql.commit()
    try:
        with psycopg.connect(make_conninfo(db_url, user=name, password=password), autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace,))
            conn.execute("set role beliefdb_app")
            conn.execute("select beliefdb.forget('belief', %s)", (str(mine.id),))
        assert "yara" not in versions(postgresql, "plan.txt")[-1]
        # (the audit event names whose texts it masked, as it names whose beliefs it deleted)
        (event,) = postgresql.execute("select payload from beliefdb.audit_event where action = 'forget'"
                                      ).fetchone() or ({},)
        assert (event["eraser"], event["owners"]) == (name, ["alice", "mallory"])
    finally:
        postgresql.rollback()
        postgresql.execute(sql.SQL("drop owned by {}").format(sql.Identifier(name)))
        postgresql.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))
        postgresql.commit()


def test_forgetting_a_speaker_masks_only_the_waiting_conversations_one_may_change(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Forgetting a subject forgets their turns in the conversations waiting to be stored: before, in every
    one, whoever queued it and whoever owned its source (a stored conversation of another's is refused).
    Now in the forgetter's own jobs (for another's source: recorded as theirs, masking nothing of the
    owner's) and in the jobs and proposals of their own sources."""
    turns = [Turn("Alice", "Hello all."), Turn("Yara Finch", "I approve the budget.")]
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.ingest_conversation([Turn("Alice", "Hello all.")], source="chat")
        (hers,) = alice.submit(turns=turns, source="chat")
        mal.remember("Yara Finch is a contractor.", "yara_finch", "role", "contractor", "Yara Finch is a contractor",
                     source="m2.txt", text="Yara Finch is a contractor.\n")
        (theirs,) = mal.submit(turns=turns, source="chat")
        (own,) = mal.submit(turns=turns, source="mchat")
        report = mal.forget(subject="yara_finch")
        texts = dict(postgresql.execute("select id, payload ->> 'text' from beliefdb.job").fetchall())
        postgresql.commit()
        assert "Yara Finch: I approve" in texts[hers]
        assert "Yara" not in texts[theirs] and "Yara" not in texts[own] and report.jobs == 2
        alice.cancel(hers)
        alice.ingest_conversation([*turns, Turn("Alice", "Thanks.")], source="chat")
    assert "Yara Finch: I approve the budget." in versions(postgresql, "chat")[-1]


def test_a_source_name_waiting_in_anothers_queue_is_theirs_to_create(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(trial34) Alice queued a text for a source no one had stored; Mallory stored a text of that name first,
    owned the source, and with it Alice's queued text: her forget of a quote masked it (and Alice could no
    longer cancel it), forgetting the source deleted it. The first to queue or ingest a source owns it."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        (job,) = alice.submit(text="Q3 plan\nBudget: 40k.\n", source="plan-q4")
        for squat in (lambda: mal.ingest_text("placeholder\n", source="plan-q4", embed=False),
                      lambda: mal.remember("Budget is 40k.", "q3", "budget", "40k", "Budget: 40k",
                                           source="plan-q4", text="Budget: 40k.\n"),
                      lambda: mal.bulk_ingest(("plan-q4", "Budget: 40k.\n"), embed=False)):
            with pytest.raises(errors.NotOwner, match=rf"waits in the queue as alice's \(job {job}\)"):
                squat()
        alice.ingest_text("Q3 plan\nBudget: 40k.\n", source="plan-q4")  # her own ingest may create it
        assert mal.ingest_text("Q3 plan\nBudget: 45k.\n", source="plan-q4").proposed
        # a failed job waits for no worker: it holds no name (else anyone could hold any name for good)
        (stuck,) = alice.submit(text="Roadmap\n", source="roadmap")
        postgresql.execute("update beliefdb.job set status = 'failed' where id = %s", (stuck,))
        postgresql.commit()
        mal.ingest_text("Roadmap, mine\n", source="roadmap")
    owners = dict(postgresql.execute("select name, owner from beliefdb.source").fetchall())
    postgresql.commit()
    assert (owners["plan-q4"], owners["roadmap"]) == ("alice", "mallory")


def test_the_reservation_reads_the_queued_jobs_by_their_index(postgresql: psycopg.Connection[Any]) -> None:
    """Each new source probes the queue (beliefdb.source_name_reserved): by job_queued_source, not a scan
    of every job's payload, which made each new source cost ~150 ms with 25,000 failed jobs."""
    postgresql.execute("set local enable_seqscan = off")
    plan = "\n".join(r[0] for r in postgresql.execute(
        "explain select j.id from beliefdb.job j where j.workspace_id = gen_random_uuid() and j.status = 'queued'"
        " and j.payload ->> 'source' = 'x'"))
    postgresql.rollback()
    assert "job_queued_source" in plan, plan


def test_every_piece_says_who_masked_it(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """So a record keeps nothing forgotten in a source its maker no longer owns (beliefdb._record_masks)."""
    with beliefdb.connect(db_url, principal="alice") as alice:
        (yara,) = alice.remember("Yara Finch is a contractor.", "yara_finch", "role", "contractor",
                                 "Yara Finch is a contractor", source="m2.txt",
                                 text="Yara Finch is a contractor.\n").accepted
        alice.submit(text="Notes\nYara Finch is a contractor.\n", source="m2.txt")
        alice.forget(belief=yara.id)
    (pieces,) = postgresql.execute("select payload -> 'forgotten_lines' from beliefdb.job").fetchone() or ([],)
    postgresql.commit()
    assert pieces and {p["by"] for p in pieces} == {"alice"}


def test_ones_own_job_for_anothers_source_is_masked_as_ones_own_and_may_be_cancelled(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.ingest_text(QUOTED, source="plan.txt")
        mine = approver(mal)
        mal.submit(text=QUOTED + "More.\n", source="plan.txt")
        report = mal.forget(belief=mine.id)
        (payload,) = postgresql.execute("select payload from beliefdb.job").fetchone() or ({},)
        postgresql.commit()
        assert (report.jobs, report.redacted) == (1, 0) and "yara" not in payload["text"]
        assert {p["by"] for p in payload["forgotten_lines"]} == {"mallory"}
        assert len(mal.cancel(source="plan.txt")) == 1
        alice.ingest_text(QUOTED + "More.\n", source="plan.txt")
    assert "yara finch" in versions(postgresql, "plan.txt")[-1]


def test_the_owners_forget_masks_the_texts_others_wait_with_for_her_source(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text(QUOTED, source="plan.txt")
        mine = approver(alice)
        bob.submit(text=QUOTED + "Queued.\n", source="plan.txt")
        proposed = bob.ingest_text(QUOTED + "Proposed.\n", source="plan.txt")
        assert proposed.proposed
        report = alice.forget(belief=mine.id)
        assert (report.jobs, report.proposals, report.kept) == (1, 1, [])
        (text,) = postgresql.execute("select payload ->> 'text' from beliefdb.job").fetchone() or ("",)
        (content,) = postgresql.execute("select proposal ->> 'content' from beliefdb.review_item"
                                        " where kind = 'version_proposed'").fetchone() or ("",)
        postgresql.commit()
        assert "yara" not in text and "yara" not in content
        with pytest.raises(errors.BeliefDBError, match="cancelling it would drop the record"):
            bob.cancel(source="plan.txt")


def test_the_report_lists_the_first_hundred_versions_that_keep_a_quote(
        db_url: str, cli: Any) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        for n in range(102):
            alice.ingest_text(QUOTED + f"Revision {n}.\n", source="plan.txt", embed=False)
        mine = approver(mal)
        preview = mal.forget(belief=mine.id, preview=True)
        assert (len(preview.kept), preview.kept_total, preview.kept_count) == (100, 102, 102)
        assert [k.version for k in preview.kept[:2]] == [1, 2]
        shown = cli("forget", "--belief", str(mine.id), "--preview", "--as", "mallory").output
        assert "left in sources others own, theirs to change (102 time(s) in 102 place(s)):" in shown, shown
        assert "  and 82 more place(s) (--json lists the first 100)" in shown, shown


def test_a_subjects_turns_in_anothers_conversation_stay_and_are_listed(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(trial34) One turn of the person in anyone's conversation refused the owner's forget of them whole
    (not_owner), so another principal could keep anyone from forgetting a person in their own texts. The
    owner's turns go; the other's stay, theirs to change, and are listed."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.ingest_conversation([Turn("Alice", "Kickoff."), Turn("Carol Diaz", "My address is 12 Elm Street.")],
                                  source="a-chat")
        mal.ingest_conversation([Turn("Carol Diaz", "hello there"), Turn("Carol Diaz", "bye")], source="m-chat")
        report = alice.forget(subject="carol_diaz")
        assert [(k.what, k.source, k.owner, k.count) for k in report.kept] == [("turn", "m-chat", "mallory", 2)]
        assert "Elm" not in versions(postgresql, "a-chat")[-1]
        assert "Carol Diaz: hello there" in versions(postgresql, "m-chat")[-1]
        # with nothing of hers left, the person is still found where others keep them, and nothing goes
        again = alice.forget(subject="carol_diaz", preview=True)
        assert ([k.source for k in again.kept], again.fragments, again.beliefs) == (["m-chat"], 0, 0)


def test_a_name_in_speakers_labels_is_masked_in_ones_own_conversations_only(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                       source="maya.md", text="Maya lives in Lisbon.\n")
        alice.ingest_conversation([Turn("Maya's mum", "Hello."), Turn("Alice", "Hi.")], source="a-chat")
        bob.ingest_conversation([Turn("Maya's mum", "Good day."), Turn("Bob", "Hi.")], source="b-chat")
        report = alice.forget(subject="maya", mask_mentions=True)
        assert sorted((s.sources, s.masked) for s in report.speaker_mentions) == [
            (["a-chat"], True), (["b-chat"], False)]
        assert report.labels_masked == 1
    assert "Maya's mum: Good day." in versions(postgresql, "b-chat")[-1]
    assert "Maya" not in versions(postgresql, "a-chat")[-1]


def test_anothers_beliefs_about_the_subject_stay_and_are_listed(db_url: str,
                                                                postgresql: psycopg.Connection[Any]) -> None:
    """(review) Mallory's belief about Carol refused Alice's forget of Carol whole (not_owner), so anyone's
    belief about a person kept the owner from forgetting them in their own memory. Hers go; his stay,
    listed as his to forget."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.ingest_conversation([Turn("Alice", "Kickoff."), Turn("Carol Diaz", "My address is 12 Elm Street.")],
                                  source="a-chat")
        alice.remember("Carol lives on Elm Street.", "carol_diaz", "street", "Elm", "12 Elm Street",
                       source="a-chat")
        (his,) = mal.remember("Carol's badge code is 4471.", "carol_diaz", "badge_code", "4471",
                              "badge code is 4471", source="m.md", text="Carol's badge code is 4471.\n").accepted
        report = alice.forget(subject="carol_diaz")
        assert report.beliefs >= 1  # (hers: the one she remembered, and what her chat's extractor made)
        (listed,) = [m for m in report.mentions if m.kind == "belief" and m.field == "subject"]
        assert (listed.id, listed.owner) == (his.id, "mallory"), report.mentions
        assert "only mallory (or a login granted beliefdb_eraser) can forget it" in listed.hint
        assert [b.owner for b in alice.beliefs(subject="carol_diaz")] == ["mallory"]
        assert "Elm" not in versions(postgresql, "a-chat")[-1]
        # with only his left, her forget finds the person and forgets nothing more
        again = alice.forget(subject="carol_diaz", preview=True)
        assert (again.beliefs, [m.owner for m in again.mentions if m.field == "subject"]) == (0, ["mallory"])


def test_ones_own_belief_resting_only_on_the_subjects_turns_in_anothers_conversation_goes(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(review) Alice's belief quoting only Carol's turn in Mallory's chat stayed after Alice forgot Carol:
    the turn stays (Mallory's), so her belief kept its support; the same quote in her own chat would have
    taken it with the turn. Hers goes; one with a quote elsewhere too stays."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        mal.ingest_conversation([Turn("Mallory", "Hi."), Turn("Carol Diaz", "The door code is 4471.")],
                                source="m-chat")
        alice.remember("Carol Diaz exists.", "carol_diaz", "known", "yes", "Carol Diaz exists",
                       source="a.md", text="Carol Diaz exists.\n")
        alice.remember("The door code is 4471.", "office", "door_code", "4471", "door code is 4471",
                       source="m-chat")
        (floor,) = alice.remember("The office is on floor 2.", "office", "floor", "2", "The door code is 4471",
                                  source="m-chat").accepted
        alice.remember("The office is on floor 2.", "office", "floor", "2", "office is on floor 2",
                       source="b.md", text="The office is on floor 2.\n")
        assert len(alice.why(floor.id).evidence) == 2  # (corroborated from her own document)
        report = alice.forget(subject="carol_diaz")
        left = {b.attribute for b in alice.beliefs(subject="office")}
        assert left == {"floor"}, (report, left)
        assert ("turn", "m-chat", "mallory") in {(k.what, k.source, k.owner) for k in report.kept}
    assert "Carol Diaz: The door code is 4471." in versions(postgresql, "m-chat")[-1]


def test_a_forget_that_left_the_name_in_text_can_be_followed_by_one_that_masks_it(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(trial36) The report of a forget without mask_mentions says the name is still written, and that a
    forget with it masks it; once the beliefs were gone, that forget answered "no belief has subject"."""
    with beliefdb.connect(db_url, principal="eve") as eve:
        eve.remember("Dana Reyes leads the team.", "dana_reyes", "role", "lead", "Dana Reyes leads the team",
                     source="team.md", text="Dana Reyes leads the team.\n")
        eve.ingest_text("Notes\nI met Dana Reyes at the offsite.\n", source="mention.md")
        first = eve.forget(subject="dana_reyes")
        assert [t.source for t in first.text_mentions] == ["mention.md"]
        masked = eve.forget(subject="dana_reyes", mask_mentions=True)
        assert (masked.beliefs, [t.masked for t in masked.text_mentions]) == (0, [True])
        with pytest.raises(errors.NotFound, match="no belief has subject dana_reyes"):
            eve.forget(subject="dana_reyes", preview=True)
    assert "Dana" not in versions(postgresql, "mention.md")[-1]


def test_a_forget_that_would_delete_anothers_belief_is_still_refused(db_url: str) -> None:
    """What masking one's own text would take from another principal's belief (its only quote there) is a
    deletion of theirs: refused, naming it, as before (an eraser's forget, or theirs first)."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.remember("Carol Diaz lives in Lisbon.", "carol_diaz", "city", "Lisbon", "Carol Diaz lives in Lisbon",
                       source="a.md", text="Carol Diaz lives in Lisbon.\n")
        (his,) = mal.remember("Someone lives in Lisbon.", "lisbon", "resident", "Carol Diaz",
                              "Carol Diaz lives in Lisbon", source="a.md").accepted
        with pytest.raises(errors.NotOwner, match=rf"would delete belief {his.id}, owned by mallory"):
            alice.forget(subject="carol_diaz", preview=True)
        mal.forget(belief=his.id)
        assert alice.forget(subject="carol_diaz").beliefs == 1
