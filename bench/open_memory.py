"""What a command pays before its work: opening a memory (``beliefdb.connect``: a connection, the
workspace and the API's types looked up, the pool's first connection ready) and closing it, and the
first call on it against the same call on a memory already warm, as medians, with the ratio to a
plain ``psycopg.connect`` and ``select 1`` measured in the same run (the floor: a new server process).
Each CLI command opens a memory; so does each test. Compare two checkouts by running it from each:

    PYTHONPATH=/path/to/older/checkout python bench/open_memory.py
    python bench/open_memory.py [--runs 30] [--json]
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable, Sequence

import psycopg
from _common import arguments, database, log, print_json, timed

import beliefdb


def _median_ms(runs: int, call: Callable[[], object]) -> float:
    times: list[float] = []
    call()  # (the first: caches of this process, the server's of this database)
    for _ in range(runs):
        with timed(times):
            call()
    return round(statistics.median(times), 2)


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database (default: a throw-away one);"
                                        " it ingests one line, source pool.md, into its default workspace")
    parser.add_argument("--runs", type=int, default=30, help="timed calls of each")
    args = parser.parse_args(argv)
    with database(args.db, "beliefdb-open-") as url:
        with beliefdb.connect(url) as db:
            db.ingest_text("The pool opens at 9.\n", source="pool.md", embed=False)

        def plain() -> None:
            with psycopg.connect(url) as conn:
                conn.execute("select 1")

        def opened() -> None:
            with beliefdb.connect(url):
                pass

        def first_page() -> None:
            with beliefdb.connect(url) as db:
                db.beliefs(limit=20)

        def first_ingest() -> None:
            with beliefdb.connect(url) as db:
                db.ingest_text("The pool opens at 9.\n", source="pool.md", embed=False)

        report = {"connect_select_1_ms": _median_ms(args.runs, plain),
                  "open_close_ms": _median_ms(args.runs, opened),
                  "open_first_page_ms": _median_ms(args.runs, first_page),
                  "open_first_ingest_ms": _median_ms(args.runs, first_ingest)}
        with beliefdb.connect(url) as db:
            report["warm_page_ms"] = _median_ms(args.runs, lambda: db.beliefs(limit=20))
            report["warm_ingest_ms"] = _median_ms(
                args.runs, lambda: db.ingest_text("The pool opens at 9.\n", source="pool.md", embed=False))
        report["open_ratio"] = round(report["open_close_ms"] / report["connect_select_1_ms"], 2)
        log(f"open and close: {report['open_close_ms']} ms, {report['open_ratio']}x a plain connection")
    if args.json:
        print_json(report)
    else:
        for name, value in report.items():
            print(f"{name:<24} {value:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
