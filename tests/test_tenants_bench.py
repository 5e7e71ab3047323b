"""bench/tenants.py runs end to end against this test's database: a small workspace's questions timed
alone and beside other workspaces, with the same answers both times."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import tenants as bench_tenants  # noqa: E402


@pytest.mark.slow
def test_tenants_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_tenants.main(["--small", "3", "--small-beliefs", "20", "--large", "1", "--large-beliefs", "500",
                                   "--asked-beliefs", "20", "--runs", "2", "--db", db_url, "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["beliefs"] == 20 + 3 * 20 + 500 and result["fragments"] == result["beliefs"]
    assert set(result["alone_p50_ms"]) == {"recall", "recall_fragments", "ask"}
    assert all(v > 0 for v in result["neighbours_p50_ms"].values())
    assert result["same_answers"] is True and result["rows_found"] > 0
