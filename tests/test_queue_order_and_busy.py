"""A queue that keeps a source's texts in order and a document's attempts for its own faults (trial of the
queue under continuous import): a failed job submitted before a newer text of its source that is done since
is not retried over it (its older text would go in force unsaid), and a job that waited for the workspace a
sibling worker held (a large document) is queued as it was, using up none of its attempts."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors

OLD = "# Returns\nReturns are accepted within 10 days.\n" + "Thank you for shopping with us.\n" * 20
NEW = "# Returns\nReturns are accepted within 20 days.\n"


def windows(db: beliefdb.BeliefDB) -> list[str]:
    return [b.value for b in db.beliefs(subject="return_policy")]


def test_a_failed_older_text_is_not_retried_over_a_newer_one_done_since(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    old_job, new_job = bdb.submit(text=OLD, source="returns.md")[0], bdb.submit(text=NEW, source="returns.md")[0]
    other = bdb.submit(text="# Shipping\nDelivery time: 3 days.\n" + "Thank you.\n" * 20, source="other.md")[0]
    # the worker's limit takes the short new text only: the old one (and the other) fail for good
    cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env={"BELIEFDB_INGEST_MAX_BYTES": "100"}, expect=1)
    status = {j.id: j.status for j in bdb.jobs()}
    assert (status[old_job], status[new_job], status[other]) == ("failed", "done", "failed")
    assert windows(bdb) == ["20 days"]

    with pytest.raises(errors.InvalidInput, match=rf"^job {old_job} cannot be retried: job {new_job} of its source,"
                                                  r" submitted after it, is done since"):
        bdb.retry(old_job, other)
    assert {j.id: j.status for j in bdb.jobs()}[other] == "failed"  # (all or none)
    # every failed job: the other is queued again, the stale one stays failed and says why
    assert bdb.retry(all_failed=True) == [other]
    (stale,) = [j for j in bdb.jobs() if j.id == old_job]
    assert stale.status == "failed" and stale.last_error is not None
    assert stale.last_error.startswith(f"not retried: job {new_job} of its source, submitted after it, is done since")
    cli("worker", "--until-empty", "--no-embed")
    assert windows(bdb) == ["20 days"] and "3 days" in [b.value for b in bdb.beliefs()]


def test_a_job_that_waits_for_a_busy_workspace_uses_no_attempt(db_url: str, postgresql: psycopg.Connection[Any],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.3")
    with beliefdb.connect(db_url) as db:
        (job,) = db.submit(text=NEW, source="returns.md", max_attempts=1)
        # another writer holds the workspace's lock (a sibling worker on a large document)
        postgresql.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                           " where w.name = 'default' for update of h")
        try:
            for _ in range(3):
                time.sleep(1.1)  # (a job that waited is ready again a second later)
                report = db.work(once=True, embed=False)
                (outcome,) = report.outcomes
                assert (outcome.id, outcome.status, outcome.attempts, report.waited) == (job, "waiting", 0, 1), report
                (queued,) = db.jobs()
                assert (queued.status, queued.attempts) == ("queued", 0), queued
        finally:
            postgresql.rollback()
        with psycopg.connect(db_url) as c:  # (no start of those waits counts)
            assert c.execute("select count(*) from beliefdb.job_start where job_id = %s", (job,)).fetchone() == (0,)
        # once the lock is let go, its one attempt runs it
        time.sleep(1.1)
        report = db.work(once=True, embed=False)
        assert [(o.id, o.status, o.attempts) for o in report.outcomes] == [(job, "done", 1)]
        assert windows(db) == ["20 days"]


def test_every_bad_file_of_a_queued_directory_is_named_in_one_run(cli: Cli, tmp_path: Any) -> None:
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "good.md").write_text(NEW, encoding="utf-8")
    (folder / "empty0.md").write_text("", encoding="utf-8")
    (folder / "empty1.md").write_text("  \n", encoding="utf-8")
    (folder / "latin.md").write_bytes("Caf\xe9 prices: 3 euros.\n".encode("latin-1"))
    result = cli("ingest", str(folder), "--queue", expect=1)
    said = result.output.strip()
    assert said.count("\n") == 0, said  # (one line)
    for name in ("empty0.md", "empty1.md", "latin.md"):
        assert name in said, said
    assert "2 other file(s) refused" in said and "nothing was queued" in said
    assert cli.json("jobs") == []


def test_a_worker_run_from_the_command_line_speaks_to_its_operator(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    # (its threads ran in an empty context: a worker's log said "raise it with max_bytes=", an argument
    # it has no option for)
    (job,) = bdb.submit(text=OLD, source="returns.md", max_attempts=1)
    result = cli("worker", "--until-empty", "--no-embed", env={"BELIEFDB_INGEST_MAX_BYTES": "100"}, expect=1)
    assert f"job {job} failed after 1 attempt(s)" in result.output
    assert "raise BELIEFDB_INGEST_MAX_BYTES" in result.output and "max_bytes=" not in result.output, result.output


def test_a_retry_waits_for_a_newer_job_of_its_source_that_a_worker_holds(db_url: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # (the newer job is queued to every other session until its worker commits it done: checked then, the
    # retry went through and the older text went in force after it)
    from beliefdb.db.queries import Q

    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.3")
    with beliefdb.connect(db_url) as db, beliefdb.connect(db_url) as other:
        (old_job,) = db.submit(text=OLD, source="returns.md", max_attempts=1)
        with db.database.transaction() as c:  # (fails the old one for good: a worker's limit)
            c.execute(Q.job_take, ("w",)).fetchone()
            c.execute(Q.job_fail, (old_job, "over the limit", 0, True))
        (new_job,) = db.submit(text=NEW, source="returns.md")
        with db.database.transaction() as c:
            taken = c.execute(Q.job_take, ("w",)).fetchone()
            assert taken is not None and taken[0] == new_job
            # while the worker holds the newer job, a retry of the older one waits for it, not past it
            with pytest.raises(errors.WorkspaceBusy):
                other.retry(old_job)
            c.execute(Q.job_finish, (new_job, psycopg.types.json.Jsonb({})))
        with pytest.raises(errors.InvalidInput, match=rf"^job {old_job} cannot be retried: job {new_job}"):
            other.retry(old_job)
        assert {j.id: j.status for j in db.jobs()} == {old_job: "failed", new_job: "done"}
