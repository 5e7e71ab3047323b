"""A document ingested again: a document of N facts (one sentence each, each about its own product)
ingested as a file (``BeliefDB.ingest``, what ``beliefdb ingest`` runs), then a new version of it with
its first line changed (every other belief's quote carried to the new version: rule 2), then the same
facts in a document of another source (every claim corroborates a belief), each timed against the
baseline of the same run, the first ingest. Medians over --runs, each on facts of its own; a
throw-away embedded database unless --db; embedding off.

    python bench/ingest_versions.py --facts 2000 --runs 3 --json
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import arguments, database, log, print_json

import beliefdb
from beliefdb.models import IngestReport


def document(run: str, n: int, first: str) -> str:
    """``first``, then ``n`` facts of run ``run``'s own products."""
    return "\n".join([first] + [f"Product {run}-{i} price: {i} EUR." for i in range(n)]) + "\n"


def ingest(db: beliefdb.BeliefDB, path: Path, text: str, source: str) -> tuple[float, IngestReport]:
    """Seconds to ingest ``text`` (written to ``path``) as the next version of ``source``, and its report."""
    path.write_text(text, encoding="utf-8")
    began = time.perf_counter()
    [report] = db.ingest(path, source=source, embed=False)
    seconds = time.perf_counter() - began
    assert isinstance(report, IngestReport), report
    return seconds, report


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database (default: a throw-away one)")
    parser.add_argument("--facts", type=int, default=2000, help="facts in the document")
    parser.add_argument("--runs", type=int, default=3, help="documents measured (medians)")
    args = parser.parse_args(argv)
    first, version, corroborating = [], [], []
    stamp = int(time.time())
    with (database(args.db, "beliefdb-versions-") as url, beliefdb.connect(url) as db,
          tempfile.TemporaryDirectory() as tmp):
        path = Path(tmp) / "doc.md"
        for run in range(args.runs):
            name = f"versions-{stamp}-{run}"
            seconds, report = ingest(db, path, document(name, args.facts, "Edition: one."), name)
            assert len(report.accepted) == args.facts + 1, report
            first.append(seconds)
            seconds, report = ingest(db, path, document(name, args.facts, "Edition: two."), name)
            assert report.new_version and len(report.accepted) == 1, report
            version.append(seconds)
            seconds, report = ingest(db, path, document(name, args.facts, "Edition: other."), f"{name}-other")
            assert len(report.corroborated) == args.facts, report
            corroborating.append(seconds)
            log(f"run {run + 1}/{args.runs}: first {first[-1]:.2f} s, new version {version[-1]:.2f} s,"
                f" corroborating {corroborating[-1]:.2f} s")
    base = statistics.median(first)
    result = {"facts": args.facts, "runs": args.runs,
              "first_ingest_s": round(base, 3),
              "new_version_s": round(statistics.median(version), 3),
              "corroborating_s": round(statistics.median(corroborating), 3),
              "new_version_to_first": round(statistics.median(version) / base, 3),
              "corroborating_to_first": round(statistics.median(corroborating) / base, 3)}
    if args.json:
        print_json(result)
    else:
        log(f"{args.facts:,} facts: first ingest {result['first_ingest_s']} s; a new version"
            f" {result['new_version_s']} s ({result['new_version_to_first']}×); the same facts from another"
            f" source {result['corroborating_s']} s ({result['corroborating_to_first']}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
