"""bench/impact.py runs end to end on a small graph against this test's database: every impact
answer equal to its Python reference (the script checks), corrections really applied (not only
proposed to another owner), figures in the JSON the docs quote."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import impact as bench_impact  # noqa: E402


@pytest.mark.slow
def test_impact_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_impact.main(["--nodes", "3000", "--db", db_url, "--json", "--runs", "5", "--budget", "5"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["nodes"] == 3000
    assert result["impact_p50_ms"] and all(v > 0 for v in result["impact_p50_ms"].values())
    assert result["correction_apply_p50_ms"] > 0
    assert result["correction_apply_p95_ms"] >= result["correction_apply_p50_ms"]
