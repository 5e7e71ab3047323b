"""Correction apply on a kept benchmark workspace, each correction rolled back: main's and a
branch's SQL can be compared on one loaded database (issue 21).

    python bench/corrections_ab.py --db URL --workspace ID [--nodes N] [--runs 20] [--passes 5]
                                   [--functions] [--json]

The workspace is one ``bench/impact.py --db URL --keep`` loaded (same ``--nodes`` and ``--seed``);
the corrected beliefs are the ones that benchmark corrects (the same random draws). Each
``beliefdb.apply_correction`` runs as the application role and is rolled back, so the workspace
does not change and the same corrections can be timed again after ``beliefdb migrate`` has
re-applied another version of the SQL. Per belief the minimum over ``--passes`` passes is kept (what
the machine's load adds least), and the p50 / p95 over the measured beliefs (the first two warm
the session) are reported, of the call's time and of the backend's CPU time (``/proc/PID/schedstat``:
the server runs on this machine). The session's working tables are made before the first correction, as
a session keeps them (rolled back, each correction would make them again). ``--functions`` adds
the per-function profile (``track_functions``) of all the passes. The call is timed, not a commit.
"""

from __future__ import annotations

import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

import impact as bench
from _common import arguments, log, percentile, print_json


def beliefs_corrected(nodes: int, runs: int, seed: int) -> tuple[bench.Graph, list[int], dict[int, int]]:
    """The beliefs bench/impact.py corrects, with their closure sizes: its random draws, in order."""
    rng = np.random.default_rng(seed)
    g = bench.generate(nodes, rng)
    mem = bench.Memory(g)
    bench.pick_seeds(g, mem, runs, rng)
    late = np.arange(g.first(bench.DECISION), g.nodes)
    rng.choice(late, size=min(len(late), 200), replace=False)  # what sanity() draws
    beliefs = rng.choice(np.arange(g.first(bench.BELIEF), g.first(bench.DERIVED)), size=runs + 2,
                         replace=False).tolist()
    return g, beliefs, {b: mem.closure_size(b, 10**7) for b in beliefs}


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", type=uuid.UUID, required=True)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--functions", action="store_true", help="per-function profile (track_functions)")
    parser.add_argument("--checkpoint", action="store_true",
                        help="a checkpoint before the first pass: its corrections write full pages to the WAL, as the "
                             "first after a load do")
    parser.add_argument("--statements", action="store_true",
                        help="per-statement profile (pg_stat_statements, when the server preloads it)")
    args = parser.parse_args()
    if args.db is None:
        parser.error("--db is needed: a database a bench/impact.py --keep run loaded")
    g, beliefs, closures = beliefs_corrected(args.nodes, args.runs, args.seed)
    conn = psycopg.connect(args.db, autocommit=True)
    if args.functions:
        conn.execute("set track_functions = 'all'")
        conn.execute("select pg_stat_reset()")
    if args.statements:
        conn.execute("create extension if not exists pg_stat_statements")
        conn.execute("set pg_stat_statements.track = 'all'")
        conn.execute("select pg_stat_statements_reset()")
    conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(args.workspace),))
    conn.execute("select set_config('beliefdb.principal', %s, false)", (bench.PRINCIPAL,))
    # the session's working tables, made once as a session keeps them between its operations: in a
    # rolled-back correction they would be made again each time, which no real session does
    conn.execute("select beliefdb._prepare_evaluation()")
    conn.execute("select beliefdb._begin_changes()")
    if conn.execute("select to_regprocedure('beliefdb._audit_open(uuid)') is not null").fetchone() == (True,):
        conn.execute("select beliefdb._audit_open(%s)", (str(args.workspace),))
        conn.execute("delete from pg_temp.beliefdb_audit_operation")
        conn.execute("select set_config('beliefdb.audit_operation', '', false)")
    pid = conn.execute("select pg_backend_pid()").fetchone()
    assert pid is not None
    schedstat = Path(f"/proc/{pid[0]}/schedstat")  # the backend's time on a CPU, in ns (same machine)
    conn.execute("set role beliefdb_app")
    conn.autocommit = False
    # the WAL each pass writes (rolled back, it is written all the same), read by a second session
    admin = psycopg.connect(args.db, autocommit=True)
    if args.checkpoint:
        admin.execute("checkpoint")
    wal_kib: list[float] = []
    best: dict[int, float] = {}
    best_cpu: dict[int, float] = {}
    by_pass: list[list[float]] = []
    for p in range(args.passes):
        by_pass.append([])
        lsn0 = admin.execute("select pg_current_wal_insert_lsn()").fetchone()
        for i, b in enumerate(beliefs):
            bid = g.node_ids[b]
            row = conn.execute("select revision from beliefdb.belief where id = %s", (bid,)).fetchone()
            conn.rollback()
            assert row is not None
            cpu0 = int(schedstat.read_text().split()[0])
            t0 = time.perf_counter()
            applied = conn.execute("select proposed from beliefdb.apply_correction(%s::text, %s, null, 'bench', "
                                   "'benchmark', %s, null)",
                                   (bid, f"Corrected synthetic belief {b}.", row[0])).fetchone()
            ms = (time.perf_counter() - t0) * 1000
            cpu_ms = (int(schedstat.read_text().split()[0]) - cpu0) / 1e6
            conn.rollback()
            assert applied == (False,), "the correction was only proposed"
            if i >= 2:
                by_pass[-1].append(ms)
                best[b] = min(best.get(b, float("inf")), ms)
                best_cpu[b] = min(best_cpu.get(b, float("inf")), cpu_ms)
        wal = admin.execute("select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s)",
                            (lsn0[0] if lsn0 else None,)).fetchone()
        wal_kib.append(round(float(wal[0]) / 1024 / len(beliefs), 1) if wal else 0.0)
        log(f"pass {p + 1}: {len(best)} corrections, p50 {statistics.median(by_pass[-1]):.2f} ms, "
            f"p95 {percentile(by_pass[-1], 95):.2f} ms, WAL {wal_kib[-1]} KiB per correction")
    report: dict[str, Any] = {
        "correction_apply_min_p50_ms": round(statistics.median(best.values()), 2),
        "correction_apply_min_p95_ms": round(percentile(list(best.values()), 95), 2),
        # the backend's CPU time per correction (what the machine's load changes least)
        "correction_apply_cpu_min_p50_ms": round(statistics.median(best_cpu.values()), 2),
        "correction_apply_cpu_min_p95_ms": round(percentile(list(best_cpu.values()), 95), 2),
        "by_closure": sorted((closures[b], round(ms, 1)) for b, ms in best.items()),
        "passes": args.passes,
        # each pass's own p50 / p95 (the first pass after a load or a restart reads cold pages)
        "pass_p50_p95_ms": [[round(statistics.median(t), 2), round(percentile(t, 95), 2)] for t in by_pass],
        "pass_wal_kib_per_correction": wal_kib,
    }
    admin.close()
    if args.functions:
        conn.rollback()
        conn.autocommit = True
        conn.execute("reset role")
        conn.execute("select pg_stat_force_next_flush()")
        time.sleep(1.5)  # the session's counters reach the view when it is idle
        conn.execute("select 1")
        time.sleep(1.5)
        calls = args.passes * len(beliefs)
        report["functions_ms_per_correction"] = {
            name: round(total / calls, 2)
            for name, total in conn.execute(
                "select funcname, total_time from pg_stat_user_functions order by total_time desc limit 30")}
    if args.statements:
        conn.rollback()
        conn.autocommit = True
        conn.execute("reset role")
        calls = args.passes * len(beliefs)
        # inclusive of what each statement fires (nested statements are counted on their own too)
        report["statements_ms_per_correction"] = [
            [round(exec_ms / calls, 3), round(plan_ms / calls, 3), round(n / calls, 2), " ".join(query.split())[:160]]
            for exec_ms, plan_ms, n, query in conn.execute(
                "select total_exec_time, total_plan_time, calls, query from pg_stat_statements "
                "where dbid = (select oid from pg_database where datname = current_database()) "
                "order by total_exec_time + total_plan_time desc limit 60")]
    conn.close()
    print_json(report, indent=1 if args.statements else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
