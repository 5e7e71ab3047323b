"""A drop folder submitted again (an operator's cron: ``beliefdb ingest DIR --queue``) queued every file again,
and the workers spent their time on no-ops (196 files, 18 s). ``beliefdb.job_submit`` queues no text that
would change nothing (rule 18 of docs/rules.md): the text its source holds in force, read with the same
extractor by a done job, or the text the newest job of its source still to run carries; the report says
how many, and --json names them. What would change something is queued as before. And ``beliefdb jobs``
says how many jobs match in each status, and how many --limit left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from conftest import Cli

import beliefdb

POLICY = "# Returns\nReturns are accepted within 30 days.\n"
FEE = "# Fees\nThe restocking fee is 10%.\n"
SHIPPING = "# Shipping\nShipping takes 3 days.\n"


def test_a_folder_submitted_again_queues_only_what_changed(cli: Cli, bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    folder = tmp_path / "drop"
    folder.mkdir()
    for name, text in (("returns.md", POLICY), ("fees.md", FEE), ("shipping.md", SHIPPING)):
        (folder / name).write_text(text, encoding="utf-8")
    assert len(cli.json("ingest", folder, "--queue")["jobs"]) == 3
    cli("worker", "--until-empty", "--no-embed")

    # the same folder again: nothing queued, said in one line; --json names each file and why
    again = cli("ingest", folder, "--queue").stdout.splitlines()
    assert again == ["3 file(s) unchanged, not queued (the text their source holds in force, or that a job of it"
                     " still to run carries; --json names them)"]
    said = cli.json("ingest", folder, "--queue")
    assert said["jobs"] == []
    assert {(u["source"], u["path"], u["reason"]) for u in said["unchanged"]} == {
        (name, str(folder / name), f"the same text as version 1 of {name}, in force")
        for name in ("returns.md", "fees.md", "shipping.md")}

    # one file changed: it alone is queued; submitted again before a worker ran it, it is that job's text
    (folder / "fees.md").write_text(FEE.replace("10%", "12%"), encoding="utf-8")
    lines = cli("ingest", folder, "--queue").stdout.splitlines()
    (job,) = [int(line.split()[2].rstrip(":")) for line in lines if line.startswith("queued job ")]
    assert lines[-1].startswith("2 file(s) unchanged, not queued")
    again = bdb.submit(folder / "fees.md", text=None)
    assert again == [] and [u.reason for u in again.unchanged] == [f"job {job} of fees.md, still to run, carries"
                                                                   " the same text"]
    # ... but not the text it replaces, which would go back in force after it
    (back,) = bdb.submit(text=FEE, source="fees.md")
    assert bdb.cancel(back) == [back]

    # what would change something is queued: another extractor (the text in force again still settles what it
    # finds), another authority, a retracted source, a forgotten one
    assert len(bdb.submit(text=POLICY, source="returns.md", extractor="none")) == 1
    assert len(bdb.submit(text=SHIPPING, source="shipping.md", authority="official")) == 1
    bdb.cancel(source="returns.md")
    bdb.cancel(source="shipping.md")
    bdb.retract(source="returns.md", reason="withdrawn")
    assert len(bdb.submit(text=POLICY, source="returns.md")) == 1
    bdb.forget(source="shipping.md")
    assert len(bdb.submit(text=SHIPPING, source="shipping.md")) == 1


def test_jobs_says_how_many_match_in_each_status_and_what_the_limit_left_out(cli: Cli,
                                                                             bdb: beliefdb.BeliefDB) -> None:
    queued = [bdb.submit(text=f"Item {i} costs {i} EUR.\n", source=f"item-{i}.md")[0] for i in range(3)]
    assert bdb.cancel(queued[0]) == [queued[0]]
    lines = cli("jobs", "--limit", "1").stdout.splitlines()
    assert lines[-2:] == ["totals: 2 queued, 0 running, 0 done, 0 failed", "showing 1 of 2 (use --limit)"]
    assert cli("jobs").stdout.splitlines()[-1] == "totals: 2 queued, 0 running, 0 done, 0 failed"
    assert cli("jobs", "--status", "failed").stdout == "no jobs\n"
    # --json stays the bare list scripts read; --totals makes it an object that says the rest
    assert [j["id"] for j in cli.json("jobs", "--limit", "1")] == [queued[2]]
    said = cli.json("jobs", "--limit", "1", "--totals")
    assert [j["id"] for j in said["jobs"]] == [queued[2]]
    assert (said["matching"], said["totals"]) == (2, {"queued": 2, "running": 0, "done": 0, "failed": 0})
    assert cli.json("jobs", "--status", "done", "--totals")["totals"] == {"queued": 0, "running": 0, "done": 0,
                                                                          "failed": 0}


def test_a_text_read_by_an_older_build_of_its_extractor_is_queued_again(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """(review) The skip compared the extractor's name alone: after an upgrade that reads text differently
    (a new rule, a claim renamed), a drop folder submitted again was "unchanged, not queued" for good, where a
    direct ingest reads it again. A done job's build (a digest of the reading code) must match."""
    (job,) = bdb.submit(text=POLICY, source="returns.md")
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert bdb.submit(text=POLICY, source="returns.md") == []  # the same build: nothing to read again
    # (the worker that read it records its own build: an older worker still running after an upgrade)
    postgresql.execute("update beliefdb.job set result = result || '{\"extractor_build\": \"rules:older\"}'"
                       " where id = %s", (job,))
    postgresql.commit()
    assert len(bdb.submit(text=POLICY, source="returns.md")) == 1
