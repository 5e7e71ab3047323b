"""Ingesting a conversation again: a conversation of N turns (its speaker's city changing every tenth
turn, so there are claims and supersessions), then the same conversation grown by K turns at its end, ingested
whole (its version grows in place: only the new turns are stored and settled), against the baseline
of the same run, the conversation changed before its end by K turns (one turn put first each time: a new
version that stores every turn and re-verifies every quote). Medians over --runs, each on a fresh
source; a throw-away embedded database unless --db.

    python bench/conversation_regrow.py --turns 2000 --grow 5 --runs 3 --json
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from _common import arguments, database, log, print_json

import beliefdb
from beliefdb.models import Turn

CITIES = ("Lisbon", "Porto", "Berlin", "Munich", "Paris")


def conversation(n: int, start: datetime, speaker: str) -> list[Turn]:
    """``n`` turns, ``speaker`` saying where they live every tenth (each conversation its own speaker: the
    others' claims are no rivals of its own)."""
    turns = []
    for i in range(n):
        at = start + timedelta(minutes=i)
        if i % 10 == 0:
            turns.append(Turn(speaker, f"I live in {CITIES[(i // 10) % len(CITIES)]}.", at))
        else:
            turns.append(Turn("Agent" if i % 2 else speaker, f"Message {i}, about nothing in particular.", at))
    return turns


def timed(call: object) -> tuple[float, beliefdb.models.IngestReport]:
    began = time.perf_counter()
    report = call()  # type: ignore[operator]
    return time.perf_counter() - began, report


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database (default: a throw-away one)")
    parser.add_argument("--turns", type=int, default=2000, help="turns of the conversation first ingested")
    parser.add_argument("--grow", type=int, default=5, help="turns added (at the end, or before the start)")
    parser.add_argument("--runs", type=int, default=3, help="conversations measured (medians)")
    args = parser.parse_args(argv)
    start = datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
    first, grown, edited = [], [], []
    with database(args.db, "beliefdb-regrow-") as url, beliefdb.connect(url) as db:
        for run in range(args.runs):
            later = [Turn("Agent", f"Later message {i}.", start + timedelta(days=30, minutes=i))
                     for i in range(args.grow)]
            earlier = [Turn("Agent", f"Earlier message {i}.", start - timedelta(days=1, minutes=args.grow - i))
                       for i in range(args.grow)]
            for name, speaker in ((f"grown-{run}", f"Maya {run}"), (f"edited-{run}", f"Ana {run}")):
                turns = conversation(args.turns, start, speaker)
                more = turns + later if name.startswith("grown") else earlier + turns
                seconds, _ = timed(lambda name=name, turns=turns: db.ingest_conversation(
                    turns, source=name, embed=False))
                first.append(seconds)
                seconds, report = timed(lambda name=name, more=more: db.ingest_conversation(
                    more, source=name, embed=False))
                if name.startswith("grown"):
                    assert not report.new_version and report.note is not None and "appended" in report.note
                    grown.append(seconds)
                else:
                    assert report.new_version
                    edited.append(seconds)
    result = {"turns": args.turns, "grow": args.grow, "runs": args.runs,
              "first_ingest_s": round(statistics.median(first), 3),
              "grown_s": round(statistics.median(grown), 3),
              "new_version_s": round(statistics.median(edited), 3),
              "grown_to_new_version": round(statistics.median(grown) / statistics.median(edited), 3)}
    if args.json:
        print_json(result)
    else:
        log(f"{args.turns:,} turns, {args.grow} more: grown in place {result['grown_s']} s, a new version"
            f" {result['new_version_s']} s (ratio {result['grown_to_new_version']}); first ingest"
            f" {result['first_ingest_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
