"""Latency of everyday writes (remember a fact, decide on two beliefs, retract a belief) on a
throw-away embedded database, as medians. What the triggers that keep derived rows (holding
summaries, beliefdb.adjacency, decision.reasons) cost shows by running it from two checkouts:

    PYTHONPATH=/path/to/older/checkout python bench/writes.py
    python bench/writes.py
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
import warnings
from collections.abc import Sequence
from uuid import UUID

import beliefdb
from beliefdb.embedded import scratch_database


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, default=150, help="facts remembered (decisions: two thirds of it)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--db", help="libpq URL of a migrated beliefdb database (default: a throw-away one)")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {"remember": [], "decide": [], "retract": []}
    with contextlib.ExitStack() as stack:
        if args.db:
            url = args.db
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs' runtime-dir warning inside the embedded wheel
                url = stack.enter_context(scratch_database("beliefdb-writes-"))
        db = beliefdb.connect(url)
        stack.callback(db.close)
        ids: list[UUID] = []
        for i in range(args.facts):
            quote = f"Item {i} price is {i}."
            t0 = time.perf_counter()
            report = db.remember(quote, f"item{i}", "price", str(i), quote, source=f"src{i}", text=f"Note. {quote}")
            times["remember"].append(time.perf_counter() - t0)
            ids.append((report.accepted or report.corroborated)[0].id)
        for i in range(args.facts * 2 // 3):
            t0 = time.perf_counter()
            db.decide(f"decision {i}", because=[ids[i], ids[i + 1]])
            times["decide"].append(time.perf_counter() - t0)
        for i in range(0, args.facts // 4, 2):
            t0 = time.perf_counter()
            db.retract(belief=ids[i], reason="wrong")
            times["retract"].append(time.perf_counter() - t0)
    medians = {k: round(statistics.median(v) * 1000, 2) for k, v in times.items()}
    if args.json:
        print(json.dumps({"p50_ms": medians, "runs": {k: len(v) for k, v in times.items()}}))
    else:
        print(f"beliefdb writes ({beliefdb.__file__}): " + ", ".join(f"{k} p50 {v} ms" for k, v in medians.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
