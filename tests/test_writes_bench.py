"""bench/writes.py runs end to end against this test's database and reports a median per write."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import writes as bench_writes  # noqa: E402


@pytest.mark.slow
def test_writes_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_writes.main(["--facts", "12", "--db", db_url, "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["runs"] == {"remember": 12, "decide": 8, "retract": 2}
    assert all(v > 0 for v in result["p50_ms"].values())
