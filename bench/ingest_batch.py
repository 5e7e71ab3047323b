"""One bulk-ingest batch on a kept workspace, rolled back: what the database spends on it (issue 20).

    python bench/ingest_batch.py --db URL --workspace NAME [--measure M] [--profile] [--json]

Stages documents of 50 claims each (``bench/ingest.py``'s, new sources, about M claims) with the bulk
path's own COPY, calls ``beliefdb.bulk_ingest_batch`` once and rolls the transaction back, so the
workspace a ``bench/ingest.py --keep`` run loaded stays as it was and main and a branch can be
measured alternately on it (each side's SQL migrated before its run). Reports the wall time and the
CPU time of the session's backend process (read from /proc: the server must run on this machine):
on a shared machine the wall time says more of the load than of the code. ``--profile`` adds the
functions (``track_functions``) and statements (``pg_stat_statements``, when the server preloads it)
that took longest, inclusive. Rolled-back rows stay dead in the tables until autovacuum: a statement
that reads every row of the workspace reads them too, so compare after a ``vacuum`` of the base.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

import psycopg
from _common import arguments, log, print_json
from ingest import documents

from beliefdb.db.queries import Q
from beliefdb.store import bulk


def backend_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="latin-1") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", required=True, help="a workspace bench/ingest.py --keep loaded")
    parser.add_argument("--measure", type=int, default=10_000, help="new claims in the batch")
    parser.add_argument("--principal", default="bench", help="the acting principal")
    parser.add_argument("--profile", action="store_true", help="the longest functions and statements too")
    args = parser.parse_args(argv)
    if args.db is None:
        parser.error("--db is required (a server on this machine)")
    docs = bulk._read_all(documents(f"batch{uuid.uuid4().hex[:6]}", args.measure), 2**40, "rules")
    with psycopg.connect(args.db) as conn:
        row = conn.execute("select id from beliefdb.workspace where name = %s", (args.workspace,)).fetchone()
        if row is None:
            raise SystemExit(f"no workspace {args.workspace}")
        statements = args.profile and conn.execute(
            "select exists (select from pg_extension where extname = 'pg_stat_statements')").fetchone() == (True,)
        if args.profile:
            conn.execute("set track_functions = 'all'")
        if statements:
            conn.execute("set pg_stat_statements.track = 'all'")
            conn.execute("select pg_stat_statements_reset()")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(row[0]),))
        conn.execute("select set_config('beliefdb.principal', %s, false)", (args.principal,))
        conn.commit()
        pid_row = conn.execute("select pg_backend_pid()").fetchone()
        assert pid_row is not None
        pid = int(pid_row[0])
        conn.execute("set role beliefdb_app")
        load_before = os.getloadavg()[0]
        cpu0, t0 = backend_cpu_seconds(pid), time.perf_counter()
        bulk._stage(conn, docs, None)
        reports = conn.execute(Q.bulk_ingest_batch, (None, None, None)).fetchall()
        seconds, cpu = time.perf_counter() - t0, backend_cpu_seconds(pid) - cpu0
        load_after = os.getloadavg()[0]
        conn.execute("reset role")
        functions: list[Any] = []
        top: list[Any] = []
        if args.profile:
            functions = conn.execute(
                "select funcname, calls, round(total_time::numeric, 1), round(self_time::numeric, 1)"
                " from pg_stat_xact_user_functions order by total_time desc limit 30").fetchall()
        if statements:
            top = conn.execute(
                "select round(total_exec_time::numeric, 1), calls, rows,"
                " regexp_replace(left(query, 110), '\\s+', ' ', 'g')"
                " from pg_stat_statements where query not like '%%pg_stat%%'"
                " order by total_exec_time desc limit 30").fetchall()
        conn.rollback()
    accepted = sum(len(r[0]["accepted"]) for r in reports)
    report = {"accepted": accepted, "seconds": round(seconds, 2), "backend_cpu_s": round(cpu, 2),
              "beliefs_per_cpu_s": round(accepted / cpu, 1) if cpu > 0 else None,
              "load": [round(load_before, 2), round(load_after, 2)]}
    if args.json:
        print_json(report)
    else:
        print(f"{accepted:,} new beliefs in one batch, rolled back: {seconds:.2f} s, backend CPU {cpu:.2f} s;"
              f" load {load_before:.1f} -> {load_after:.1f}")
        for name, calls, total, own in functions:
            print(f"  {name:<36} calls {calls:>7}  total {total:>10} ms  self {own:>10} ms")
        for total, calls, rows, text in top:
            print(f"  {total:>9} ms {calls:>6} calls {rows:>7} rows  {text}")
    log("rolled back")
    return 0


if __name__ == "__main__":
    sys.exit(main())
