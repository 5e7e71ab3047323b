"""bench/embed_contention.py times the local embedder in processes side by side, the model loaded by beliefdb
(idle OpenMP threads spin 1,000 times, then sleep) and as before (libgomp's default), and reports both and
their ratio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_benchmark_compares_the_two_wait_policies() -> None:
    done = subprocess.run([sys.executable, str(BENCH / "embed_contention.py"), "--workers", "1", "--calls", "2",
                           "--rounds", "1", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["policies"] == {"before": {}, "beliefdb": {"GOMP_SPINCOUNT": "1000"}}
    assert set(report["p50_ms"]) == set(report["p95_ms"]) == {"before", "beliefdb"}
    assert all(v > 0 for v in report["p50_ms"].values())
    assert report["ratio_before_to_beliefdb"] > 0
