"""A worker whose connection is lost mid-job (pg_terminate_backend, a server restart) is alive: the job stays
queued and uses up none of its attempts (docs/operations.md, Retries: "a lost database is not the document's
fault"); a job whose worker died (SIGKILL) at its last attempt is failed by the next worker, which counts it
failed for good (and, draining the queue, exits 1)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from conftest import Cli, worker_lines
from serving import own_server

import beliefdb
from beliefdb.db.server import EmbeddedServer, _embedded_postgres
from beliefdb.models import WorkReport

POLICY = "# Returns\nReturns are accepted within 30 days.\nThe restocking fee is 10%.\n"


def _as_app(db_url: str, workspace_id: str) -> psycopg.Connection[Any]:
    conn = psycopg.connect(db_url)
    conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
    conn.execute("set role beliefdb_app")
    return conn


def _waiting_backend(admin: psycopg.Connection[Any], seconds: float = 30.0) -> int:
    """The backend that waits for a lock (the worker's ingest, behind the workspace's write lock held here)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = admin.execute("select pid from pg_stat_activity where datname = current_database()"
                            " and wait_event_type = 'Lock'").fetchone()
        if row is not None:
            return int(row[0])
        time.sleep(0.02)
    raise AssertionError("no worker waited for the workspace's write lock")


def test_a_connection_lost_mid_job_uses_up_no_attempt_and_is_no_worker_that_died(bdb: beliefdb.BeliefDB,
                                                                                  db_url: str) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=1)
    holder = _as_app(db_url, bdb.database.workspace_id)
    holder.execute("select beliefdb.lock_workspace()")  # (the worker's ingest_version waits behind it)
    reports: list[WorkReport] = []
    worker = threading.Thread(target=lambda: reports.append(bdb.work(stop_when_empty=True, embed=False)),
                              daemon=True)
    worker.start()
    with psycopg.connect(db_url, autocommit=True) as admin:
        # (with a timeout it returns once the backend is gone and its transaction rolled back)
        admin.execute("select pg_terminate_backend(%s, 10000)", (_waiting_backend(admin),))
    holder.rollback()
    holder.close()
    worker.join(60)
    assert not worker.is_alive()
    (report,) = reports
    (seen,) = bdb.jobs()
    # the lost attempt was no attempt: the one attempt the job had was the one that ingested it
    assert (seen.id, seen.status, seen.attempts, seen.last_error) == (job, "done", 1, None)
    assert (report.done, report.retried, report.failed) == (1, 0, 0)
    assert [(o.status, o.attempts) for o in report.outcomes] == [("done", 1)]
    assert len(bdb.beliefs()) == 2




def test_a_job_whose_connection_is_lost_again_uses_up_its_attempts(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """The first loss of a job's connection in a worker is no attempt; the next ones are (a document that brings
    the server down at every attempt, a backend's crash restarting it, is not retried for ever)."""
    (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=1)
    holder = _as_app(db_url, bdb.database.workspace_id)
    holder.execute("select beliefdb.lock_workspace()")
    reports: list[WorkReport] = []
    worker = threading.Thread(target=lambda: reports.append(bdb.work(stop_when_empty=True, embed=False)),
                              daemon=True)
    worker.start()
    with psycopg.connect(db_url, autocommit=True) as admin:
        for _ in range(2):
            admin.execute("select pg_terminate_backend(%s, 10000)", (_waiting_backend(admin),))
    holder.rollback()
    holder.close()
    worker.join(60)
    assert not worker.is_alive()
    (report,) = reports
    (seen,) = bdb.jobs()
    died = "its worker died during 1 of its 1 attempts (killed, or brought down by this document)"
    assert (seen.id, seen.status, seen.attempts, seen.last_error) == (job, "failed", 1, died)
    assert (report.done, report.failed) == (0, 1)
    assert bdb.beliefs() == []


@pytest.fixture
def server() -> Iterator[tuple[EmbeddedServer, str]]:
    """A server of its own (the suite's is shared), migrated, to crash."""
    with own_server("beliefdb-lost-") as made:
        yield made


def test_a_server_crash_mid_job_uses_up_no_attempt(server: tuple[EmbeddedServer, str]) -> None:
    own, url = server
    with beliefdb.connect(url) as bdb:
        (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=1)
        holder = _as_app(url, bdb.database.workspace_id)
        holder.execute("select beliefdb.lock_workspace()")
        reports: list[WorkReport] = []
        worker = threading.Thread(target=lambda: reports.append(bdb.work(stop_when_empty=True, embed=False)),
                                  daemon=True)
        worker.start()
        with psycopg.connect(url, autocommit=True) as admin:
            _waiting_backend(admin)
        # the server crashes mid-change (pg_ctl stop -m immediate), and comes back after its recovery
        _embedded_postgres().pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=own.pgdata, user=own._system_user())
        holder.close()
        time.sleep(1.5)  # (the worker finds it down at least once)
        assert own.start() == url
        worker.join(60)
        assert not worker.is_alive()
        (report,) = reports
        (seen,) = bdb.jobs()
        assert (seen.id, seen.status, seen.attempts, seen.last_error) == (job, "done", 1, None)
        assert (report.done, report.failed) == (1, 0)


def _started_by_a_worker_that_dies(bdb: beliefdb.BeliefDB, db_url: str, job: int) -> None:
    """A worker killed mid-job (SIGKILL): its start committed, its job's transaction rolled back."""
    dying = _as_app(db_url, bdb.database.workspace_id)
    assert dying.execute("select j.id from beliefdb.job_take('dying') j").fetchone() == (job,)
    bdb.database.scalar("select beliefdb.job_started(%s, 'dying')", (job,))
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute("select pg_terminate_backend(%s, 10000)", (dying.info.backend_pid,))
    dying.close()


def test_a_job_failed_for_a_worker_that_died_is_counted_failed_for_good(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=1)
    (other,) = bdb.submit(text=POLICY, source="other.md")
    _started_by_a_worker_that_dies(bdb, db_url, job)
    report = bdb.work(stop_when_empty=True, embed=False)
    assert (report.done, report.retried, report.failed) == (1, 0, 1)
    died = "its worker died during 1 of its 1 attempts (killed, or brought down by this document)"
    assert [(o.id, o.source, o.status, o.attempts, o.error) for o in report.outcomes] == [
        (job, "returns.md", "failed", 1, died), (other, "other.md", "done", 1, None)]


def test_a_worker_draining_the_queue_exits_1_when_it_failed_a_job_whose_worker_died(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                                    db_url: str) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md", max_attempts=1)
    _started_by_a_worker_that_dies(bdb, db_url, job)
    result = cli("worker", "--until-empty", "--no-embed", expect=1)
    assert worker_lines(result.stdout) == [
        f"job {job} failed after 1 attempt(s): its worker died during 1 of its 1 attempts (killed, or brought down"
        " by this document)",
        "0 done, 0 attempt(s) failed and queued again, 1 failed for good"]
    assert result.stderr.strip() == "error: 1 job(s) failed for good: see beliefdb jobs --status failed"
