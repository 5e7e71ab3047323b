"""bench/ingest_versions.py runs end to end against this test's database: a new version of a document carries
its beliefs' quotes, and another source's document with the same facts corroborates each (the script checks
both in every run)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import ingest_versions as bench_versions  # noqa: E402


@pytest.mark.slow
def test_ingest_versions_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench_versions.main(["--facts", "20", "--runs", "2", "--db", db_url, "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (result["facts"], result["runs"]) == (20, 2)
    assert result["first_ingest_s"] > 0 and result["new_version_s"] > 0 and result["corroborating_s"] > 0
    assert result["new_version_to_first"] == pytest.approx(result["new_version_s"] / result["first_ingest_s"],
                                                           rel=0.1)
