"""What a privacy officer reads after a forget (rule 14 of docs/rules.md): the report counts everything it
took the person out of, the texts waiting to be stored included, and says where their name is still
written by people; the audit chain keeps no hash a list of names could reverse."""

from __future__ import annotations

from typing import Any

import psycopg

import beliefdb

SECRET = "# Badge\nDana's badge code is 4471.\n"


def test_the_report_counts_the_queued_jobs_and_proposals_it_masked(db_url: str, cli: Any,
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
    # the command line says so too, and --json carries both
    with beliefdb.connect(db_url, principal="alice") as alice:
        alice.ingest_text("Erin's badge code is 5512.\n", source="erin.md")
        alice.submit(text="Erin's badge code is 5512.\nMore.\n", source="erin.md")
    shown = cli("forget", "--subject", "erin", "--preview", "--as", "alice")
    assert "1 queued job(s)" in shown.output and "0 proposal(s)" in shown.output, shown.output
    report = cli.json("forget", "--subject", "erin", "--as", "alice")
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
                       source="erin.md", text="Erin's badge code is 5512.\n")
        alice.decide("Call Erin about her badge")
    shown = cli("forget", "--subject", "erin", "--preview", "--as", "alice")
    assert "still named in text people typed" in shown.output and "decision " in shown.output, shown.output
    report = cli.json("forget", "--subject", "erin", "--as", "alice")
    [mention] = report["mentions"]
    assert (mention["kind"], mention["field"], mention["owner"]) == ("decision", "title", "alice")
    assert mention["hint"]
