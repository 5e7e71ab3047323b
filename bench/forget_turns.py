"""Forgetting a speaker's words: one conversation of 2N turns, N of them by the speaker, then
``forget --subject`` previewed and applied (each turn deleted and masked with its speaker's label in
the conversation text), on a throw-away embedded database unless --db. Seconds, and the turns and spans.

    python bench/forget_turns.py --turns 2000 --json
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from _common import arguments, database, log, print_json

import beliefdb
from beliefdb.models import Turn


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database (default: a throw-away one)")
    parser.add_argument("--turns", type=int, default=2000, help="turns by the speaker forgotten (as many by another)")
    args = parser.parse_args(argv)
    start = datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
    turns = []
    for i in range(args.turns):
        turns.append(Turn("Maya", f"This is message number {i} of mine, about nothing in particular.",
                          start + timedelta(seconds=2 * i)))
        turns.append(Turn("Bob", f"Reply number {i}, also about nothing much.", start + timedelta(seconds=2 * i + 1)))
    with database(args.db, "beliefdb-forget-") as url, beliefdb.connect(url) as db:
        began = time.perf_counter()
        db.ingest_conversation(turns, source="chat", embed=False)
        ingested = time.perf_counter() - began
        began = time.perf_counter()
        preview = db.forget(subject="maya", preview=True)
        previewed = time.perf_counter() - began
        began = time.perf_counter()
        done = db.forget(subject="maya")
        forgotten = time.perf_counter() - began
    report = {"turns": len(turns), "forgotten_turns": done.fragments, "masked_spans": done.redacted,
              "ingest_s": round(ingested, 3), "preview_s": round(previewed, 3), "forget_s": round(forgotten, 3),
              "preview_matches": (preview.fragments, preview.redacted) == (done.fragments, done.redacted)}
    if args.json:
        print_json(report)
    else:
        log(f"{report['turns']:,} turns: forgot {report['forgotten_turns']:,} ({report['masked_spans']:,} spans)"
            f" in {report['forget_s']} s, preview {report['preview_s']} s (ingest {report['ingest_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
