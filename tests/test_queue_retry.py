"""Retrying failed jobs (beliefdb jobs retry): an operator who fixed what made documents fail (a worker's
limit, the llm's endpoint) queues them again, each with its attempts afresh, in one transaction, through
beliefdb.job_retry. There was no way to do it but to submit the documents again."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql

import beliefdb
from beliefdb import errors

POLICY = "# Returns\nReturns are accepted within 30 days.\n"
SMALL = {"BELIEFDB_INGEST_MAX_BYTES": "10"}  # (the worker's limit is lower than the submitter's)


def fail_all(cli: Cli) -> None:
    cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)


def test_failed_jobs_are_queued_again_with_their_attempts_afresh_and_then_run(cli: Cli, write_doc: Any,
                                                                              db_url: str) -> None:
    docs = [write_doc(f"doc-{i}.md", POLICY.replace("30", str(30 + i))) for i in range(3)]
    ids = cli.json("ingest", *docs, "--queue")["jobs"]
    fail_all(cli)
    assert {j["status"] for j in cli.json("jobs")} == {"failed"}

    result = cli("jobs", "retry", str(ids[0]))
    assert result.stdout.splitlines() == [
        f"job {ids[0]} queued again",
        "1 job(s) queued again: run them with 'beliefdb worker', follow them with 'beliefdb jobs'"]
    (queued,) = cli.json("jobs", "--status", "queued")
    assert (queued["id"], queued["attempts"], queued["max_attempts"]) == (ids[0], 0, 5)
    assert "over the ingest limit" in queued["last_error"]  # (the reason of its last attempt, until it is tried)
    with psycopg.connect(db_url) as c:  # its earlier starts are kept (its history), and count no more
        assert c.execute("select count(*) from beliefdb.job_start where job_id = %s", (ids[0],)).fetchone() == (5,)

    assert cli.json("jobs", "retry", "--all-failed") == {"jobs": ids[1:]}
    assert cli("jobs", "retry", "--all-failed").stdout.strip() == "no failed jobs to retry"
    report = cli.json("worker", "--until-empty", "--no-embed")
    assert (report["done"], report["failed"]) == (3, 0)
    assert {j["status"] for j in cli.json("jobs")} == {"done"}


def test_retry_is_all_or_none_and_refuses_what_is_not_a_failed_job(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                   write_doc: Any) -> None:
    (failed,) = cli.json("ingest", write_doc("a.md", POLICY), "--queue")["jobs"]
    fail_all(cli)
    (queued,) = bdb.submit(text=POLICY.replace("30", "60"), source="b.md")
    assert cli.error("jobs", "retry", str(failed), str(queued), code="invalid_input")["message"] == \
        f"job {queued} is queued, not failed: only a failed job is retried"
    assert cli.error("jobs", "retry", str(failed), "999999", code="not_found")["message"] == "unknown job 999999"
    assert cli.error("jobs", "retry", "99999999999999999999", code="not_found")
    assert [j.status for j in bdb.jobs()] == ["queued", "failed"]  # nothing was queued again
    assert "--all-failed" in cli.one_line_error("jobs", "retry")
    assert "--all-failed" in cli.one_line_error("jobs", "retry", str(failed), "--all-failed")
    with pytest.raises(errors.InvalidInput, match="one of them"):
        bdb.retry()
    assert bdb.retry(failed) == [failed]
    # the listing is unchanged by the new subcommand
    assert [j["id"] for j in cli.json("jobs", "--status", "queued")] == [queued, failed]


def test_a_job_whose_source_was_forgotten_is_not_retried(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """Forgetting a source clears its jobs' text (rule 14): there is nothing left to ingest again."""
    bdb.ingest_text(POLICY, source="a.md")
    (job,) = bdb.submit(text=POLICY.replace("30", "60"), source="a.md")
    fail_all(cli)
    bdb.forget(source="a.md")
    (forgotten,) = bdb.jobs()
    assert (forgotten.id, forgotten.status, forgotten.source) == (job, "failed", None)
    assert cli.error("jobs", "retry", str(job), code="invalid_input")["message"] == \
        f"job {job} cannot be retried: its source was forgotten (its text is gone)"
    assert bdb.retry(all_failed=True) == []


@pytest.mark.slow
def test_an_agents_login_retries_only_its_own_jobs(cli: Cli, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    names = [f"retry_{who}_{uuid.uuid4().hex[:8]}" for who in ("a", "b")]
    try:
        urls = [cli.json("agent", "create", name)["url"] for name in names]
        with beliefdb.connect(urls[0]) as a, beliefdb.connect(urls[1]) as b:
            (job,) = a.submit(text=POLICY, source="returns.md", max_attempts=1)
            with psycopg.connect(db_url) as su:  # (failed for good, as a worker would have left it)
                su.execute("update beliefdb.job set status = 'failed', last_error = 'boom'")
            with pytest.raises(errors.NotFound, match="unknown job"):
                b.retry(job)
            assert b.retry(all_failed=True) == []
            assert a.retry(all_failed=True) == [job]
    finally:
        with psycopg.connect(db_url, autocommit=True) as su:
            for name in names:
                su.execute(sql.SQL("drop owned by {} cascade").format(sql.Identifier(name)))
                su.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


def test_a_retried_job_keeps_its_earlier_starts_and_has_its_attempts_afresh(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                          db_url: str) -> None:
    """jobs retry deleted the retried jobs' starts: when and by which worker each earlier attempt ran was
    gone. They are kept now, and only the starts since the retry count against max_attempts."""
    (job,) = bdb.submit(text=POLICY, source="a.md", max_attempts=2)
    fail_all(cli)
    assert bdb.retry(job) == [job]
    (listed,) = bdb.jobs()
    assert (listed.status, listed.attempts) == ("queued", 0)
    fail_all(cli)  # two more attempts, not none: the job is failed again after its max_attempts
    (listed,) = bdb.jobs()
    assert (listed.status, listed.attempts) == ("failed", 2)
    with psycopg.connect(db_url) as c:
        assert c.execute("select count(*) from beliefdb.job_start where job_id = %s", (job,)).fetchone() == (4,)
    assert bdb.retry(job) == [job]
    assert cli.json("worker", "--until-empty", "--no-embed")["done"] == 1
    (listed,) = bdb.jobs()
    assert (listed.status, listed.attempts) == ("done", 1)
