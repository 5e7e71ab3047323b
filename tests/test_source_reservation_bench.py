"""bench/source_reservation.py runs end to end against this test's database: the same documents by
bulk_ingest with the trigger source_name_reserved on and off, over a queue of failed and queued jobs, and
the trigger is enabled again at the end."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import source_reservation as bench_reservation  # noqa: E402


@pytest.mark.slow
def test_source_reservation_benchmark_runs_small(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_reservation.main(["--documents", "5", "--runs", "2", "--failed", "20", "--queued", "5",
                                       "--db", db_url, "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (result["documents"], result["runs"], result["failed_jobs"]) == (5, 2, 20)
    assert result["with_trigger_s"] > 0 and result["without_trigger_s"] > 0 and result["ratio"] > 0
    enabled = postgresql.execute("select tgenabled from pg_trigger where tgname = 'source_name_reserved'").fetchone()
    postgresql.commit()
    assert enabled == ("O",)
    assert postgresql.execute("select count(*) from beliefdb.source where name like 'r%%.md'").fetchone() == (20,)
    postgresql.commit()
