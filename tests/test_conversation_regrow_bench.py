"""bench/conversation_regrow.py runs end to end against this test's database: a conversation grown at its
end grows its version in place, one changed before its end is a new version (the script checks both)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import conversation_regrow as bench_regrow  # noqa: E402


@pytest.mark.slow
def test_conversation_regrow_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_regrow.main(["--turns", "30", "--grow", "2", "--runs", "2", "--db", db_url, "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (result["turns"], result["grow"], result["runs"]) == (30, 2, 2)
    assert result["grown_s"] > 0 and result["new_version_s"] > 0
    assert result["grown_to_new_version"] == pytest.approx(result["grown_s"] / result["new_version_s"], rel=0.1)
