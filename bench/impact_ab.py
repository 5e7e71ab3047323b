"""Impact on a kept benchmark workspace with two (or more) versions of the SQL alternating, and the
shared buffers each call touches: main's and a branch's SQL compared on one loaded database
(issue 21).

    python bench/impact_ab.py --db URL --workspace ID [--nodes N] [--runs 20] [--rounds 3] [--reps 3]
                              [--targets 10,1000] --variant main=FILE --variant branch=FILE [--json]

The workspace is one ``bench/impact.py --db URL --keep`` loaded (same ``--nodes`` and ``--seed``);
the seeds are the ones that benchmark picks (the same random draws). Each variant is a SQL file of
``create or replace`` functions (e.g. ``git show main:sql/api/54_support_walk.sql
main:sql/api/55_impact.sql``, where ``support_walk`` and ``impact`` are), applied with psql
before its turn; both need the indexes they read to exist (keep ``adjacency_support`` for a SQL
older than revision 0028). Per round and variant: a fresh session as the application role, warmed
up, then every seed ``--reps`` times, the p50 of the calls beside the p50 of the in-memory reference
timed in the same loop (each answer checked equal to the reference's once), and, with ``--buffers``,
the shared buffers one call of each seed touches (``explain (analyze, buffers)`` of the call:
what the machine's load does not change), and the p50 of the backend's CPU time per call
(``/proc/PID/schedstat``: the server on this machine; time waiting for a CPU is not in it). Rounds
alternate the variants, so a slow stretch of a shared machine falls on both.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import impact as bench
from _common import arguments, log, print_json


def buffers(conn: Any, seed: uuid.UUID) -> int:
    """Shared buffers (hit and read) one impact call touches, its nested statements included."""
    row = conn.execute("explain (analyze, buffers, timing off, format json) "
                       "select node, kind, effect, detail::text from beliefdb.impact(array[%s::text])",
                       (seed,)).fetchone()
    plan = row[0][0]["Plan"]
    return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


def main() -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", type=uuid.UUID, required=True)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20, help="seeds per target size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3, help="calls of each seed per round")
    parser.add_argument("--targets", default="10,1000", help="closure sizes, of 10, 1000, 10000")
    parser.add_argument("--variant", action="append", required=True, help="NAME=FILE of SQL functions")
    parser.add_argument("--buffers", action="store_true", help="shared buffers per call, per variant")
    args = parser.parse_args()
    if args.db is None:
        parser.error("--db is needed: a database a bench/impact.py --keep run loaded")
    variants = [tuple(v.split("=", 1)) for v in args.variant]
    targets = [int(t) for t in args.targets.split(",")]
    rng = np.random.default_rng(args.seed)
    g = bench.generate(args.nodes, rng)
    mem = bench.Memory(g)
    seeds = bench.pick_seeds(g, mem, args.runs, rng)
    result: dict[str, Any] = {"nodes": g.nodes, "loadavg_start": os.getloadavg()[0], "rounds": []}
    for r in range(args.rounds):
        for name, path in variants:
            subprocess.run(["psql", args.db, "-q", "-v", "ON_ERROR_STOP=1", "-f", path], check=True,
                           capture_output=True)
            with bench.app_session(args.db, args.workspace) as conn:
                (pid,) = conn.execute("select pg_backend_pid()").fetchone()
                schedstat = Path(f"/proc/{pid}/schedstat")  # the backend's time on a CPU, in ns
                for s in seeds[10][:8]:  # plpgsql switches to generic plans after 5 executions
                    bench.sql_impact(conn, g.node_ids[s])
                for t in targets:
                    sql_ms: list[float] = []
                    py_ms: list[float] = []
                    cpu_ms: list[float] = []
                    for rep in range(args.reps):
                        for s in seeds[t]:
                            cpu0 = int(schedstat.read_text().split()[0])
                            ms, rows = bench.sql_impact(conn, g.node_ids[s])
                            cpu_ms.append((int(schedstat.read_text().split()[0]) - cpu0) / 1e6)
                            t0 = time.perf_counter()
                            expected = mem.impact(s)
                            py_ms.append((time.perf_counter() - t0) * 1000)
                            if rep == 0:
                                bench.check_same(g, s, rows, expected)
                            sql_ms.append(ms)
                    row: dict[str, Any] = {
                        "round": r, "variant": name, "target": t, "p50_ms": statistics.median(sql_ms),
                        "python_p50_ms": statistics.median(py_ms),
                        "ratio": statistics.median(sql_ms) / statistics.median(py_ms),
                        "cpu_p50_ms": statistics.median(cpu_ms), "loadavg": os.getloadavg()[0]}
                    if args.buffers and r == 0:
                        row["buffers_p50"] = statistics.median(buffers(conn, g.node_ids[s]) for s in seeds[t])
                    result["rounds"].append(row)
                    log(f"round {r} {name} ~{t}: p50 {row['p50_ms']:.2f} ms, reference {row['python_p50_ms']:.2f} ms, "
                        f"ratio {row['ratio']:.2f}, backend CPU p50 {row['cpu_p50_ms']:.2f} ms"
                        + (f", buffers p50 {row['buffers_p50']:.0f}" if "buffers_p50" in row
                                                       else "") + f" (load {row['loadavg']:.2f})")
    summary: dict[str, Any] = {}
    for name, _ in variants:
        for t in targets:
            rows = [x for x in result["rounds"] if x["variant"] == name and x["target"] == t]
            summary[f"{name} ~{t}"] = {
                "p50_ms_by_round": [round(x["p50_ms"], 2) for x in rows],
                "ratio_by_round": [round(x["ratio"], 2) for x in rows],
                "ratio_median": round(statistics.median(x["ratio"] for x in rows), 2),
                "cpu_p50_ms_by_round": [round(x["cpu_p50_ms"], 2) for x in rows],
                "buffers_p50": next((x["buffers_p50"] for x in rows if "buffers_p50" in x), None)}
            log(f"{name} ~{t}: ratio median {summary[f'{name} ~{t}']['ratio_median']:.2f} over {len(rows)} rounds")
    result["summary"] = summary
    result["loadavg_end"] = os.getloadavg()[0]
    if args.json:
        print_json(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
