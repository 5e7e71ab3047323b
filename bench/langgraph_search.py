"""The LangGraph store's search without a query on a large workspace: a page of the newest items under a
prefix, and a filtered one, against reading every current belief and sorting them in Python (what the
store did before BeliefDB.newest), in the same run on the same workspace.

    python bench/langgraph_search.py                    # 20,000 beliefs, a throw-away server
    python bench/langgraph_search.py --beliefs 50000 --json
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence

from _common import arguments, database, log, print_json, timed

import beliefdb
from beliefdb.adapters.langgraph import BeliefStore, namespace_of

LINES = 50  # claims a document


def _whole_listing(db: beliefdb.BeliefDB, prefix: tuple[str, ...], limit: int) -> list[str]:
    """What the store did: every current belief read, those under the prefix kept, sorted, cut."""
    beliefs = sorted((b for b in db.beliefs() if namespace_of(b.subject)[:len(prefix)] == prefix),
                     key=lambda b: b.recorded_at, reverse=True)
    return [str(a.belief.id) for a in db.answers(ids=[b.id for b in beliefs[:limit]])]


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--beliefs", type=int, default=20_000, help="beliefs in the workspace (default 20,000)")
    parser.add_argument("--runs", type=int, default=7, help="timed calls of each (default 7)")
    args = parser.parse_args(argv)
    with database(args.db, "beliefdb-langgraph-") as url, beliefdb.connect(url) as db:
        documents = max(args.beliefs // LINES, 1)
        log(f"bulk-ingesting {documents * LINES:,} beliefs")
        db.bulk_ingest(*[(f"shop/{d}.md", "".join(f"Item {d}-{i} price: {d * 100 + i} EUR.\n"
                                                   for i in range(LINES))) for d in range(documents)], embed=False)
        store = BeliefStore(db)
        store.put(("shop", "c7"), "seat", {"value": "aisle", "quote": "aisle", "source": "chat-7/1",
                                           "text": "Customer: aisle, please."})
        cases: dict[str, Callable[[], object]] = {
            "page of the workspace (newest)": lambda: store.search((), limit=10),
            "page under a prefix with one item": lambda: store.search(("shop", "c7"), limit=10),
            "filtered page of the workspace": lambda: store.search((), filter={"value": "aisle"}, limit=1),
            "every belief read and sorted (before)": lambda: _whole_listing(db, (), 10),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, call in cases.items():
                with timed(times[name]):
                    call()
        medians = {name: round(statistics.median(t), 2) for name, t in times.items()}
        before = medians["every belief read and sorted (before)"]
        ratios = {name: round(before / m, 1) for name, m in medians.items() if m}
    if args.json:
        print_json({"beliefs": documents * LINES, "p50_ms": medians, "times_faster_than_before": ratios})
    else:
        for name, m in medians.items():
            print(f"{name}: p50 {m} ms ({ratios.get(name)}x the whole listing's speed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
