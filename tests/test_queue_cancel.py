"""Cancelling queued or failed jobs (beliefdb jobs cancel): a document queued and never stored is in no
source, so forget cannot name it ('unknown source') and its text stayed in the queue for good, a failed
one too (a person's salary in a document that failed to ingest). Cancelling deletes the job with its
starts and its text, all or none, through beliefdb.job_cancel; a job a worker holds is refused."""

from __future__ import annotations

import json
import threading

import psycopg
import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors

SALARY = "Maria Keller's salary is 98000 EUR.\n"
SMALL = {"BELIEFDB_INGEST_MAX_BYTES": "10"}  # (the worker's limit is lower than the submitter's)


def texts_left(db_url: str, word: str) -> int:
    with psycopg.connect(db_url) as c:
        row = c.execute("select count(*) from beliefdb.job where payload::text like %s", (f"%{word}%",)).fetchone()
    assert row is not None
    return int(row[0])


def test_a_failed_and_a_queued_document_are_cancelled_with_their_text(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                      db_url: str) -> None:
    (failed,) = bdb.submit(text=SALARY, source="salaries.txt")
    cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)
    (queued,) = bdb.submit(text=SALARY.replace("98000", "99000"), source="salaries.txt")
    other = bdb.submit(text="Returns are accepted within 30 days.\n", source="returns.md")
    assert [j.status for j in bdb.jobs()] == ["queued", "queued", "failed"]
    # forget cannot reach them: the document was never stored
    refused = cli.error("forget", "--source", "salaries.txt", "--preview")["message"]
    assert "jobs cancel --source salaries.txt" in refused
    assert texts_left(db_url, "Maria Keller") == 2

    result = cli("jobs", "cancel", "--source", "salaries.txt")
    assert result.stdout.splitlines() == [f"job {failed} cancelled", f"job {queued} cancelled",
                                          "2 job(s) cancelled: their text is deleted"]
    assert texts_left(db_url, "Maria Keller") == 0
    with psycopg.connect(db_url) as c:
        assert c.execute("select count(*) from beliefdb.job_start where job_id = %s", (failed,)).fetchone() == (0,)
    assert [j.id for j in bdb.jobs()] == other
    assert bdb.cancel(*other) == other
    assert bdb.jobs() == []


def test_cancel_is_all_or_none_and_refuses_what_is_not_queued_or_failed(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    (done,) = bdb.submit(text="Returns are accepted within 30 days.\n", source="returns.md")
    cli("worker", "--until-empty", "--no-embed")
    (queued,) = bdb.submit(text=SALARY, source="salaries.txt")
    assert cli.error("jobs", "cancel", str(queued), str(done), code="invalid_input")["message"] == \
        f"job {done} is done, not queued or failed: only a queued or failed job is cancelled"
    assert cli.error("jobs", "cancel", str(queued), "999999", code="not_found")["message"] == "unknown job 999999"
    assert [j.status for j in bdb.jobs()] == ["queued", "done"]  # nothing was cancelled
    # a source with nothing to cancel is no error, as retry --all-failed with nothing to retry is not (it exited 1)
    assert cli("jobs", "cancel", "--source", "nothing.md").stdout == \
        "nothing to cancel: no queued or failed job of source nothing.md\n"
    assert cli.json("jobs", "cancel", "--source", "nothing.md") == {"jobs": [], "cancelled": 0}
    assert cli.json("jobs", "cancel", "--source", "returns.md") == {"jobs": [], "cancelled": 0}  # (done: none)
    assert "--source" in cli.one_line_error("jobs", "cancel")
    assert "--source" in cli.one_line_error("jobs", "cancel", str(queued), "--source", "salaries.txt")
    with pytest.raises(errors.InvalidInput, match="source="):
        bdb.cancel()


def test_a_job_a_worker_holds_is_not_cancelled(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    (job,) = bdb.submit(text=SALARY, source="salaries.txt")
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:  # a worker's transaction: the job taken and not yet finished
        with psycopg.connect(db_url) as c:
            c.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace"
                      " where name = 'default'")
            assert c.execute("select id from beliefdb.job_take('w1')").fetchone() == (job,)
            taken.set()
            release.wait(30)
            c.rollback()

    worker = threading.Thread(target=hold)
    worker.start()
    try:
        assert taken.wait(30)
        with pytest.raises(errors.InvalidInput, match=f"job {job} is running"):
            bdb.cancel(job)
        with pytest.raises(errors.InvalidInput, match=f"job {job} is running"):
            bdb.cancel(source="salaries.txt")
    finally:
        release.set()
        worker.join()
    assert bdb.cancel(job) == [job]


def test_the_jobs_groups_workspace_is_its_subcommands(cli: Cli, db_url: str) -> None:
    """(an upgrade trial) 'beliefdb jobs -w ops retry 4' took the -w of the group, shown in its --help, for
    nothing: the subcommand acted in the default workspace and said 'unknown job 4'."""
    beliefdb.api.create_workspace("ops", url=db_url)
    with beliefdb.connect(db_url, "ops") as ops:
        (job,) = ops.submit(text=SALARY, source="salaries.txt")
    assert cli("jobs", "-w", "ops", "cancel", str(job)).stdout.splitlines()[0] == f"job {job} cancelled"
    with beliefdb.connect(db_url, "ops") as ops:
        assert ops.jobs() == []
        (again,) = ops.submit(text=SALARY, source="salaries.txt")
    # the subcommand's own -w still wins
    assert cli("jobs", "-w", "default", "cancel", "-w", "ops", str(again)).stdout.startswith(f"job {again} cancelled")


def test_a_workspace_typed_on_the_jobs_group_beats_the_environments(cli: Cli, db_url: str) -> None:
    """(a review) BELIEFDB_WORKSPACE beat a -w typed on the group: 'BELIEFDB_WORKSPACE=default beliefdb jobs -w
    ops cancel 1' said 'unknown job 1' (it acted in default), and with BELIEFDB_WORKSPACE=ops 'beliefdb jobs -w
    default retry 3' acted in ops. Typed on the subcommand > typed on the group > the environment."""
    beliefdb.api.create_workspace("ops", url=db_url)
    with beliefdb.connect(db_url, "ops") as ops:
        (job,) = ops.submit(text=SALARY, source="salaries.txt")
    said = cli("jobs", "-w", "ops", "cancel", str(job), env={"BELIEFDB_WORKSPACE": "default"})
    assert said.stdout.splitlines()[0] == f"job {job} cancelled"
    with beliefdb.connect(db_url, "ops") as ops:
        assert ops.jobs() == []
        (again,) = ops.submit(text=SALARY, source="salaries.txt")
    # typed on the group, default: job `again` of ops is unknown there, and stays queued
    line = cli.one_line_error("jobs", "-w", "default", "cancel", str(again), env={"BELIEFDB_WORKSPACE": "ops"})
    assert f"{again}" in line
    with beliefdb.connect(db_url, "ops") as ops:
        assert [j.id for j in ops.jobs()] == [again]
    # typed on the subcommand, it wins over the group's and the environment's
    assert cli("jobs", "-w", "default", "cancel", "-w", "ops", str(again),
               env={"BELIEFDB_WORKSPACE": "default"}).stdout.startswith(f"job {again} cancelled")
    # the environment's, when nothing is typed
    with beliefdb.connect(db_url, "ops") as ops:
        (third,) = ops.submit(text=SALARY, source="salaries.txt")
    assert cli("jobs", "cancel", str(third), env={"BELIEFDB_WORKSPACE": "ops"}).stdout.startswith(
        f"job {third} cancelled")


def test_the_jobs_groups_json_is_its_subcommands(cli: Cli, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    """(a review) 'beliefdb jobs --json -w ops cancel 2' printed text: the group's --json, shown in its --help,
    was dropped. It applies to the subcommand as its own does, to its errors too."""
    (job,) = bdb.submit(text=SALARY, source="salaries.txt")
    assert json.loads(cli("jobs", "--json", "cancel", str(job)).stdout) == {"jobs": [job], "cancelled": 1}
    failed = cli("jobs", "--json", "retry", str(job), expect=1)  # (cancelled: no job of the workspace now)
    assert json.loads(failed.stdout) == {"error": "not_found", "message": f"unknown job {job}"}, failed.output
