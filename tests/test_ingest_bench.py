"""bench/ingest_size.py runs end to end on small documents against this test's database: each size
ingested into a workspace of its own, with the figures and slopes the docs quote."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import ingest_size as bench_ingest  # noqa: E402


def test_the_benchmark_documents_are_what_they_say() -> None:
    for single_line in (False, True):
        text = bench_ingest.document(20_000, single_line=single_line)
        assert len(text) == 20_000 and text.rstrip().endswith(".")
        assert ("\n" in text) is not single_line
        assert bench_ingest.document(20_000, single_line=single_line) == text  # the same for the same seed
    assert [bench_ingest.parse_size(s) for s in ("100K", "2.5M", "1500")] == [100_000, 2_500_000, 1500]


@pytest.mark.slow
def test_ingest_size_benchmark_runs_small(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_ingest.main(["--sizes", "2K,8K", "--runs", "1", "--single-line", "4K", "--db", db_url,
                                  "--json"])
    assert code == 0
    rows = json.loads(out.getvalue().strip().splitlines()[-1])["rows"]
    assert [(r["size"], r["single_line"]) for r in rows] == [(2000, False), (8000, False), (4000, True)]
    assert all(r["seconds"] > 0 and r["beliefs"] > 0 and r["fragments"] > r["beliefs"] for r in rows)
    assert rows[0]["slope"] is None and rows[1]["slope"] is not None and rows[2]["slope"] is None
    assert rows[2]["lines"] == 1 and rows[1]["lines"] > 1
