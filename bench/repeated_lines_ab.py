"""One document of a fact repeated on every line, ingested one by one or in bulk, with the SQL of two
checkouts applied in turn to one database (rule 18: one belief, every line a quote of it).

    python bench/repeated_lines_ab.py --db URL --old PATH --new PATH [--lines 20000] [--bulk]
                                      [--rounds 2] [--json]

Each run applies ``sql/internal/36_claims.sql`` and ``37_bulk.sql`` of one checkout to ``--db`` (a
private server: the functions are replaced), creates a new workspace and times ``BeliefDB.ingest`` (or
``bulk_ingest``) of a document of ``--lines`` lines of one sentence, without embedding; the two
checkouts alternate for ``--rounds`` rounds, so the machine's load falls on both alike. The new
checkout's SQL is applied last. The import of ``beliefdb`` is whatever is installed (the Python side
is the same for both here).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import arguments, log, print_json

import beliefdb

FILES = ("sql/internal/36_claims.sql", "sql/internal/37_bulk.sql")
LINE = "The refund window is 30 days.\n"


def apply(url: str, checkout: Path) -> None:
    """Replace the ingest functions of ``url`` with ``checkout``'s (psql next to the embedded server)."""
    from beliefdb.db.server import client_program

    for name in FILES:
        subprocess.run([str(client_program("psql")), "-q", "-v", "ON_ERROR_STOP=1", url, "-f",
                        str(checkout / name)],
                       check=True, capture_output=True,
                       env={**os.environ, "PGOPTIONS": "-c search_path=beliefdb_ext,public"})


def run_once(url: str, lines: int, bulk: bool, folder: Path) -> float:
    workspace = f"repeated-{uuid.uuid4().hex[:8]}"
    with beliefdb.connect(url) as admin:
        admin.create_workspace(workspace)
    path = folder / f"{workspace}.md"
    path.write_text(LINE * lines, encoding="utf-8")
    with beliefdb.connect(url, workspace=workspace) as db:
        started = time.perf_counter()
        if bulk:
            db.bulk_ingest(path, embed=False)
        else:
            (report,) = db.ingest(path, embed=False)
            assert not isinstance(report, beliefdb.models.IngestFailure), report
        return time.perf_counter() - started


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--old", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--new", type=Path, required=True, help="the checkout measured")
    parser.add_argument("--lines", type=int, default=20_000, help="lines of the document")
    parser.add_argument("--bulk", action="store_true", help="bulk_ingest instead of ingest")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds")
    args = parser.parse_args()
    if args.db is None:
        parser.error("--db URL is required: the functions of that database are replaced")
    seconds: dict[str, list[float]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            for name in ("old", "new"):
                apply(args.db, getattr(args, name))
                seconds[name].append(run_once(args.db, args.lines, args.bulk, Path(folder)))
                log(f"{name}: {seconds[name][-1]:.2f} s")
    apply(args.db, args.new)
    result = {"lines": args.lines, "bulk": args.bulk, "old_s": seconds["old"], "new_s": seconds["new"],
              "ratio": statistics.median(seconds["new"]) / statistics.median(seconds["old"])}
    if args.json:
        print_json(result)
    else:
        print(f"{args.lines} lines, {'bulk' if args.bulk else 'one by one'}: old {seconds['old']} s, "
              f"new {seconds['new']} s, ratio of medians {result['ratio']:.3f}")


if __name__ == "__main__":
    main()
