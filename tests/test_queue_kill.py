"""The queue under SIGKILL (issue 20): ``beliefdb worker`` processes killed again and again in the middle
of their jobs, each restarted at once, ingest every queued document exactly once, and the audit chain
verifies (bench/queue_kill.py, the benchmark's harness at a small size)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import load_script

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
