"""bench/repair_plan.py runs (a small workspace): its fixpoint figure needs the schema owner's session, since
evaluate is an internal the application role may not call (the script stopped on permission denied)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import repair_plan as bench_repair_plan  # noqa: E402


def test_the_repair_plan_benchmark_runs(db_url: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = bench_repair_plan.main(["--db", db_url, "--steps", "20", "--memories", "10", "--repeat", "3",
                                       "--json"])
    assert code == 0
    result = json.loads(out.getvalue().strip().splitlines()[-1])
    assert result["plan"]["most_read"]["evaluate_p50_ms"] > 0 and result["meets_target"] in (True, False)
