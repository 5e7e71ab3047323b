"""bench/audit_commit.py runs end to end against this test's database: a transaction of raw audit
appends past the head's 1,024, its commit timed, and the chain ends at its head and verifies."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import audit_commit as bench_audit_commit  # noqa: E402


@pytest.mark.slow
def test_audit_commit_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_audit_commit.main(["--events", "10,1100", "--runs", "2", "--code", "tree", "--db", db_url,
                                        "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["events"] == [10, 1100] and result["runs"] == 2
    for figures in result["code"]["tree"].values():
        assert len(figures["commit_ms"]) == 2 and figures["commit_ms_median"] >= 0 and figures["append_ms_median"] > 0
