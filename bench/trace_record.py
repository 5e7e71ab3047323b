"""Recording an agent's run: a chain of steps, each deriving from the one before and writing a memory.

    python bench/trace_record.py [--steps 200,500,1000] [--db URL] [--json]

For each length N: the whole run recorded in one flush (``record_run``, one ``beliefdb.record_trace``
call), then the same run recorded a step at a time (a flush after each step), reporting the p50 of the
last 50 flushes. What it measures is what a step's memory costs as the run grows: each memory takes the
world of what its step rests on (rule 15), walked back through the run's steps (docs/benchmarks.md,
"Recording a run").
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from uuid import UUID

from _common import arguments, database, log, print_json

import beliefdb
from beliefdb.store.trace import record_run


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--steps", default="200,500,1000", help="run lengths, comma-separated")
    args = parser.parse_args(argv)
    lengths = [int(n) for n in args.steps.split(",")]
    report: dict[str, dict[str, float]] = {}
    with database(args.db, "beliefdb-trace-") as url, beliefdb.connect(url) as db:
        for n in lengths:
            whole = record_run(db.database, task=f"chain of {n}, one flush")
            before: UUID | None = None
            for k in range(n):
                step = whole.step("claim", inputs=[("derives", before)] if before else [])
                whole.memory(step, f"subject_{k}", "whole", str(k))
                before = step
            t0 = time.perf_counter()
            whole.flush()
            one_ms = (time.perf_counter() - t0) * 1000
            stepwise = record_run(db.database, task=f"chain of {n}, a flush a step")
            before, last = None, []
            for k in range(n):
                step = stepwise.step("claim", inputs=[("derives", before)] if before else [])
                stepwise.memory(step, f"subject_{k}", "stepwise", str(k))
                t0 = time.perf_counter()
                stepwise.flush()
                if k >= n - 50:
                    last.append((time.perf_counter() - t0) * 1000)
                before = step
            p50 = statistics.median(last)
            report[str(n)] = {"one_flush_ms": round(one_ms, 1), "stepwise_last50_p50_ms": round(p50, 2)}
            log(f"{n} steps: one flush {one_ms:.0f} ms; a flush a step, the last 50 p50 {p50:.1f} ms")
    if args.json:
        print_json(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
