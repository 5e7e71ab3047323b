"""What the queue's hold on source names costs a bulk ingest: the same documents by ``bulk_ingest`` with the
trigger beliefdb.source_name_reserved enabled and disabled, alternating run by run, over a queue of
failed jobs (which the trigger does not read) and queued ones (read by job_queued_source).

    python bench/source_reservation.py [--documents 2000] [--runs 6] [--failed 25000] [--queued 1000]
                                       [--db URL] [--json]

Each run ingests ``--documents`` new one-line documents (a source each, one belief each) with
``embed=False``; the figures are the medians of each side's runs and their ratio (docs/benchmarks.md,
"Bulk ingest": the source names a queue holds). The trigger is enabled again at the end.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import psycopg
from _common import arguments, database, log, machine, print_json

import beliefdb


def fill_queue(url: str, workspace: Any, failed: int, queued: int) -> None:
    """Jobs of names no document here uses: failed ones (never read) and queued ones (by index)."""
    with psycopg.connect(url, autocommit=True) as conn:
        for status, n in (("failed", failed), ("queued", queued)):
            conn.execute(
                "insert into beliefdb.job (workspace_id, kind, payload, status, submitted_by)"
                " select %s, 'ingest', jsonb_build_object('source', 'held-' || %s::text || '-' || g, 'text', %s::text),"
                " %s, 'other'"
                " from generate_series(1, %s) g",
                (workspace, status, "x" * 2000, status, n))
        conn.execute("analyze beliefdb.job")


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--failed", type=int, default=25000)
    parser.add_argument("--queued", type=int, default=1000)
    args = parser.parse_args(argv)
    with database(args.db) as url:
        workspace = f"reservation-{time.time_ns()}"
        beliefdb.api.create_workspace(workspace, url=url)
        db = beliefdb.connect(url, workspace=workspace)
        log(f"a queue of {args.failed} failed and {args.queued} queued jobs")
        fill_queue(url, db.database.workspace_id, args.failed, args.queued)
        seconds: dict[bool, list[float]] = {True: [], False: []}
        try:
            for run in range(args.runs):
                for enabled in (run % 2 == 0, run % 2 == 1):
                    with psycopg.connect(url, autocommit=True) as conn:
                        conn.execute("alter table beliefdb.source " + ("enable" if enabled else "disable")
                                     + " trigger source_name_reserved")
                    docs = [(f"r{run}-{enabled}-{i}.md", f"Item {i}\nWeight: {i} kg.\n") for i in range(args.documents)]
                    t0 = time.perf_counter()
                    db.bulk_ingest(*docs, embed=False)
                    seconds[enabled].append(time.perf_counter() - t0)
                    log(f"run {run + 1}, trigger {'on' if enabled else 'off'}: {seconds[enabled][-1]:.2f} s")
        finally:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("alter table beliefdb.source enable trigger source_name_reserved")
            db.close()
        on, off = statistics.median(seconds[True]), statistics.median(seconds[False])
        report = {"documents": args.documents, "runs": args.runs, "failed_jobs": args.failed,
                  "queued_jobs": args.queued, "with_trigger_s": round(on, 3), "without_trigger_s": round(off, 3),
                  "ratio": round(on / off, 3), "machine": machine()}
        if args.json:
            print_json(report)
        else:
            print(f"{args.documents} documents by bulk_ingest over {args.failed} failed and {args.queued} queued jobs:"
                  f" with the trigger {on:.2f} s, without {off:.2f} s (medians of {args.runs}), ratio {on / off:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
