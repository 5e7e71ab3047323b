"""The queue under SIGKILL (issue 20): ``beliefdb worker`` processes killed again and again in the middle
of their jobs, each restarted at once, ingest every queued document exactly once, and the audit chain
verifies (bench/queue_kill.py, the benchmark's harness at a small size)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import load_script, worker_lines

import beliefdb

queue_kill = load_script("bench_queue_kill", Path(__file__).resolve().parent.parent / "bench" / "queue_kill.py")

DOCUMENTS = 30


@pytest.mark.slow
def test_workers_killed_mid_job_ingest_every_document_exactly_once(db_url: str) -> None:
    outcome = queue_kill.kill_run(db_url, documents=DOCUMENTS, workers=2, kills=6, keep=True)
    assert outcome.kills == 6
    assert outcome.in_flight >= 1, "no kill landed inside a job: the test proved nothing"
    assert (outcome.jobs_done, outcome.lost, outcome.duplicated) == (DOCUMENTS, 0, 0)
    assert outcome.chain_ok
    # what the harness counted, counted again here from the tables
    with psycopg.connect(db_url, autocommit=True) as conn:
        ((ws, name),) = conn.execute(
            "select id, name from beliefdb.workspace where name like 'queue-kill-%'").fetchall()
        rows: dict[str, Any] = {}
        for what, statement in {
            "jobs": "select status, count(*) from beliefdb.job where workspace_id = %s group by 1",
            "versions": "select count(*), count(distinct source_id) from beliefdb.source_version"
                        " where workspace_id = %s",
            "ingests": "select count(*), count(distinct payload ->> 'source') from beliefdb.audit_event"
                       " where workspace_id = %s and action = 'ingest'",
            "beliefs": "select count(*), count(distinct (subject, attribute, value)) from beliefdb.belief"
                       " where workspace_id = %s",
        }.items():
            rows[what] = conn.execute(statement, (ws,)).fetchall()
    assert rows["jobs"] == [("done", DOCUMENTS)]
    assert rows["versions"] == [(DOCUMENTS, DOCUMENTS)]
    assert rows["ingests"] == [(DOCUMENTS, DOCUMENTS)]
    (beliefs, distinct), = rows["beliefs"]
    assert beliefs == distinct == 2 * DOCUMENTS
    with beliefdb.connect(db_url, workspace=name) as db:
        assert db.audit_verify().ok


@pytest.mark.slow
def test_sigterm_finishes_the_job_under_way_and_stops(db_url: str, tmp_path: Path) -> None:
    with beliefdb.connect(db_url) as db:
        ids = db.submit(*[_doc(tmp_path, i) for i in range(200)])
    worker = subprocess.Popen([sys.executable, "-m", "beliefdb", "worker", "--no-embed", "--db", db_url],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with psycopg.connect(db_url, autocommit=True) as watch:
            deadline = time.monotonic() + 60
            while _done(watch) < 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            worker.send_signal(signal.SIGTERM)
            out, err = worker.communicate(timeout=30)
            assert worker.returncode == 0, err
            done = _done(watch)
            statuses = dict(watch.execute("select status, count(*) from beliefdb.job group by 1").fetchall())
            untried = watch.execute("select count(*) from beliefdb.job where status = 'queued' and attempts = 0"
                                    ).fetchone()
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert 3 <= done < len(ids)  # stopped before the queue was empty
    assert statuses == {"done": done, "queued": len(ids) - done}  # the job under way was finished, not dropped
    assert untried == (len(ids) - done,)
    assert worker_lines(out.strip())[-1] == f"{done} done, 0 attempt(s) failed and queued again, 0 failed for good"


def _doc(folder: Path, i: int) -> Path:
    path = folder / f"doc-{i:03d}.md"
    path.write_text(queue_kill.document(i), encoding="utf-8")
    return path


def _done(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("select count(*) from beliefdb.job where status = 'done'").fetchone()
    assert row is not None
    return int(row[0])
