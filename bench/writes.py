"""Latency of everyday writes (remember a fact, decide on two beliefs, retract a belief) on a
throw-away embedded database, as medians. What the triggers that keep derived rows (holding
summaries, beliefdb.adjacency, decision.reasons) cost shows by running it from two checkouts:

    PYTHONPATH=/path/to/older/checkout python bench/writes.py
    python bench/writes.py
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Sequence
from uuid import UUID

from _common import arguments, database, print_json, timed

import beliefdb


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database (default: a throw-away one)")
    parser.add_argument("--facts", type=int, default=150, help="facts remembered (decisions: two thirds of it)")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {"remember": [], "decide": [], "retract": []}
    with database(args.db, "beliefdb-writes-") as url, beliefdb.connect(url) as db:
        ids: list[UUID] = []
        for i in range(args.facts):
            quote = f"Item {i} price is {i}."
            with timed(times["remember"]):
                report = db.remember(quote, f"item{i}", "price", str(i), quote, source=f"src{i}",
                                     text=f"Note. {quote}")
            ids.append((report.accepted or report.corroborated)[0].id)
        for i in range(args.facts * 2 // 3):
            with timed(times["decide"]):
                db.decide(f"decision {i}", because=[ids[i], ids[i + 1]])
        for i in range(0, args.facts // 4, 2):
            with timed(times["retract"]):
                db.retract(belief=ids[i], reason="wrong")
    medians = {k: round(statistics.median(v), 2) for k, v in times.items()}
    if args.json:
        print_json({"p50_ms": medians, "runs": {k: len(v) for k, v in times.items()}})
    else:
        print(f"beliefdb writes ({beliefdb.__file__}): " + ", ".join(f"{k} p50 {v} ms" for k, v in medians.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
