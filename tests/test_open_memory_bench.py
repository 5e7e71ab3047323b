"""bench/open_memory.py runs end to end against this test's database and reports each median and the ratio."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import open_memory as bench_open  # noqa: E402


@pytest.mark.slow
def test_open_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_open.main(["--runs", "3", "--db", db_url, "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert set(result) == {"connect_select_1_ms", "open_close_ms", "open_first_page_ms", "open_first_ingest_ms",
                           "warm_page_ms", "warm_ingest_ms", "open_ratio"}, result
    assert all(v > 0 for v in result.values()), result
    assert result["open_ratio"] == round(result["open_close_ms"] / result["connect_select_1_ms"], 2)
