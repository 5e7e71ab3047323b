"""bench/ui.py runs end to end, small: a synthetic workspace loaded, the workspace page, belief pages and
impact pages answered over HTTP by the product view, each figure reported."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from conftest import load_script

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.slow
def test_ui_benchmark_runs_small(db_url: str) -> None:
    bench_ui = load_script("bench_ui", BENCH / "ui.py")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_ui.main(["--beliefs", "120", "--runs", "3", "--db", db_url, "--json"])
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert code == 0, result
    assert result["beliefs"] >= 120
    for page in ("workspace_page", "workspace_page_200", "belief_page", "impact_page"):
        assert result[page]["runs"] == 3 and 0 < result[page]["p50_ms"] <= result[page]["p95_ms"], result
