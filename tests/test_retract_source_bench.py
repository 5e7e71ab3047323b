"""bench/retract_source.py previews and retracts the largest sources of a small benchmark workspace,
each rolled back, and reports the outcome's md5 with the timings."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import psycopg
import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import impact as bench_impact  # noqa: E402
import retract_source  # noqa: E402


@pytest.mark.slow
def test_the_retraction_benchmark_measures_the_largest_sources_and_changes_nothing(db_url: str) -> None:
    ws = bench_impact.create_workspace(db_url)
    with psycopg.connect(db_url) as conn:
        bench_impact.load(conn, ws, bench_impact.generate(3000, np.random.default_rng(5)))

    def beliefs_md5() -> str:
        with psycopg.connect(db_url) as conn:
            row = conn.execute(retract_source.BELIEFS_MD5, (ws,)).fetchone()
        assert row is not None
        return str(row[0])

    before = beliefs_md5()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = retract_source.main(["--db", db_url, "--workspace", str(ws), "--sources", "2", "--runs", "2",
                                    "--json"])
    assert code == 0
    result = json.loads(out.getvalue())
    sources = result["sources"]
    assert len(sources) == 2 and sources[0]["beliefs"] >= sources[1]["beliefs"] > 0
    for s in sources:
        assert len(s["apply_ms"]) == len(s["preview_cpu_ms"]) == 2 and s["apply_ms_median"] > 0
        assert s["stopped_holding"] > 0
        # the retraction changed what the md5 covers; the workspace is as it was (rolled back)
        assert len(s["beliefs_md5"]) == 32 and s["beliefs_md5"] != before
    assert beliefs_md5() == before
