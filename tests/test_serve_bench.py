"""bench/serve.py runs end to end, small: ask in-process and over HTTP, a short load phase with a few
clients, no errors, no lost writes, the audit chain verifies, the server's memory reported."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import serve as bench_serve  # noqa: E402


@pytest.mark.slow
def test_serve_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # (the server's start and the load phase's fixed length are most of the time: two seconds of three
        # clients are several requests each, client 2's second a correction even on a loaded machine; 3 asks
        # each way time both sides)
        code = bench_serve.main(["--clients", "3", "--seconds", "2", "--asks", "3", "--facts", "5", "--db", db_url,
                                 "--json"])
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert code == 0, result
    assert result["ask_in_process"]["n"] == result["ask_http"]["n"] == 3
    assert result["errors"] == 0 and result["audit_ok"] is True
    assert result["lost_writes"]["remembered"] > 0 and result["lost_writes"]["remembered_missing"] == 0
    assert result["lost_writes"]["corrections_missing"] == 0
    assert result["load"]["requests"] > 0 and result["server_memory"]["rss_mb"] > 0
