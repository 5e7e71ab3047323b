"""Bulk ingest by several sessions at once into one workspace (issue 20): does beliefs/s scale?

    python bench/ingest_parallel.py --db URL --workspace NAME [--measure M] [--workers W] [--json]

On a workspace a ``bench/ingest.py --db URL --keep`` run loaded: first one process bulk-ingests
documents holding M new beliefs (``bench/ingest.py``'s documents, new sources), then W processes
at once each bulk-ingest their own documents holding M / W (distinct sources), every one through
``BeliefDB.bulk_ingest`` (committed: the workspace grows by 2 M beliefs). Reports the beliefs per
second of the single run and of the parallel one (all beliefs over the wall time from the first
start to the last end), the database server's CPU seconds of each, the load, and how often (in
samples every 50 ms) a session of the run was waiting for a lock, and on which.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from typing import Any

import psycopg
from _common import arguments, log, print_json
from ingest import PRINCIPAL, documents, server_cpu_seconds

import beliefdb


def _worker(args: tuple[str, str, str, int, int]) -> tuple[int, float, float, float]:
    url, workspace, prefix, beliefs, batch = args
    docs = documents(prefix, beliefs)
    with beliefdb.connect(url, workspace=workspace, principal=PRINCIPAL) as db:
        started = time.time()
        report = db.bulk_ingest(*docs, batch=batch, embed=False)
        return report.accepted, report.seconds, started, time.time()


def _sample_waits(url: str, stop: threading.Event, out: collections.Counter[str]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        while not stop.is_set():
            for (what,) in conn.execute(
                    "select coalesce(wait_event_type || ':' || wait_event, 'running') from pg_stat_activity"
                    " where query like '%%bulk_ingest_batch%%' and pid <> pg_backend_pid()").fetchall():
                out[what] += 1
            time.sleep(0.05)


def _run(url: str, workspace: str, workers: int, beliefs: int, batch: int) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:6]
    jobs = [(url, workspace, f"par{tag}w{w}", beliefs // workers, batch) for w in range(workers)]
    waits: collections.Counter[str] = collections.Counter()
    stop = threading.Event()
    sampler = threading.Thread(target=_sample_waits, args=(url, stop, waits))
    load_before = os.getloadavg()[0]
    cpu_before = server_cpu_seconds(url)
    sampler.start()
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        results = pool.map(_worker, jobs)
    stop.set()
    sampler.join()
    cpu_after = server_cpu_seconds(url)
    accepted = sum(r[0] for r in results)
    wall = max(r[3] for r in results) - min(r[2] for r in results)
    return {"workers": workers, "beliefs": accepted, "seconds": round(wall, 2),
            "beliefs_per_s": round(accepted / wall, 1),
            "per_worker_seconds": [round(r[1], 2) for r in results],
            "server_cpu_s": None if cpu_before is None or cpu_after is None else round(cpu_after - cpu_before, 2),
            "waits": dict(waits.most_common()),
            "load": [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", required=True, help="a workspace bench/ingest.py --keep loaded")
    parser.add_argument("--measure", type=int, default=10_000, help="new beliefs of each run")
    parser.add_argument("--workers", type=int, default=2, help="sessions of the parallel run")
    parser.add_argument("--batch", type=int, default=200, help="documents per transaction")
    args = parser.parse_args(argv)
    if args.db is None:
        parser.error("--db is required")
    log(f"one session: {args.measure:,} beliefs")
    single = _run(args.db, args.workspace, 1, args.measure, args.batch)
    log(f"  {single}")
    log(f"{args.workers} sessions at once: {args.measure // args.workers:,} beliefs each")
    parallel = _run(args.db, args.workspace, args.workers, args.measure, args.batch)
    log(f"  {parallel}")
    report = {"single": single, "parallel": parallel,
              "speedup": round(parallel["beliefs_per_s"] / single["beliefs_per_s"], 2)}
    if args.json:
        print_json(report)
    else:
        print(f"one session: {single['beliefs_per_s']:,.0f} beliefs/s; {args.workers} sessions:"
              f" {parallel['beliefs_per_s']:,.0f} beliefs/s ({report['speedup']}x); waits: {parallel['waits']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
