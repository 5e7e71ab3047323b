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
