"""The commit of a transaction that appended many audit events to one workspace, for each version of
the audit chain's SQL (sql/internal/28_audit.sql at a git revision, or the working tree's).

    python bench/audit_commit.py [--events 1000,30000] [--runs 5] [--code 8d84a61~1,8d84a61,tree] [--rows N]
                                 [--db URL] [--json]

Past its 1,024th append to a workspace, a transaction leaves the head of the chain behind and moves it
at its commit (``beliefdb.audit_head_at_commit``, a deferred constraint trigger). Each run opens a
transaction, appends N raw events (``beliefdb._audit_append``, one statement) to a new workspace and
commits: the append and the commit are timed. Each version's file is applied in this process before
its run, the versions alternate run by run, and the figures are medians of the runs; the working
tree's file is applied again at the end (docs/benchmarks.md, "Audit verification"). ``--rows N``: each
event carries an operation's N statement entries (table, op, count, keys, rows_sha256), as a correction's
does (~25), which the chain records keyed to the event since revision 0050 (rows_hmac).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg
from _common import arguments, database, log, machine, print_json

FILE = "sql/internal/28_audit.sql"
ROOT = Path(__file__).resolve().parent.parent


def code_of(revision: str) -> str:
    """The audit SQL file at a git revision of this checkout, or the working tree's (``tree``)."""
    if revision == "tree":
        return (ROOT / FILE).read_text(encoding="utf-8")
    return subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:{FILE}"], check=True,
                          capture_output=True, text=True).stdout


def entries(rows: int) -> str:
    """An operation's ``rows``: ``rows`` statement entries as the row audit makes them (JSON text)."""
    return json.dumps({"rows": [{"table": "node", "op": "insert", "count": 1, "keys": [str(uuid.uuid4())],
                                 "rows_sha256": hashlib.sha256(str(i).encode()).hexdigest()} for i in range(rows)]})


def one_run(conn: psycopg.Connection[Any], events: int, rows: int = 0) -> tuple[float, float]:
    """(append ms, commit ms) of a transaction appending ``events`` events (each with ``rows`` statement
    entries) to a new workspace (deleted after); the chain must end at its head and verify."""
    row = conn.execute("insert into beliefdb.workspace (name) values (%s) returning id",
                       (f"bench_audit_{uuid.uuid4().hex[:12]}",)).fetchone()
    assert row is not None
    ws = row[0]
    conn.commit()
    t0 = time.perf_counter()
    conn.execute("select count(beliefdb._audit_append(%s, 'bench.append',"
                 " jsonb_build_object('i', g) || %s::jsonb)) from generate_series(1, %s) g",
                 (ws, entries(rows) if rows else "{}", events))
    t1 = time.perf_counter()
    conn.commit()
    t2 = time.perf_counter()
    row = conn.execute("select v.ok and v.events = h.seq, v.events from beliefdb.audit_verify(%s) v,"
                       " beliefdb.audit_head h where h.workspace_id = %s", (ws, ws)).fetchone()
    if row is None or not row[0] or row[1] != events + 1:
        raise SystemExit(f"the chain of {events} appends does not end at its head or does not verify: {row}")
    conn.execute("delete from beliefdb.workspace where id = %s", (ws,))
    conn.commit()
    return (t1 - t0) * 1000, (t2 - t1) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--events", default="1000,30000", help="events a transaction appends, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="runs per version and size (default 5)")
    parser.add_argument("--rows", type=int, default=0,
                        help="statement entries each event carries, as an operation's (default 0: none)")
    parser.add_argument("--code", default="8d84a61~1,8d84a61,tree",
                        help=f"versions of {FILE}: git revisions or 'tree', comma-separated")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.events.split(",")]
    versions = args.code.split(",")
    sources = {v: code_of(v) for v in versions}
    times: dict[str, dict[int, dict[str, list[float]]]] = {
        v: {n: {"append_ms": [], "commit_ms": []} for n in sizes} for v in versions}
    with database(args.db, "beliefdb-audit-commit-") as url, psycopg.connect(url) as conn:
        try:
            for n in sizes:
                for run in range(args.runs):
                    # alternate the order run by run: a drift of the machine falls on each version alike
                    for v in (versions if run % 2 == 0 else versions[::-1]):
                        # (since revision 0050 _audit_append takes a fourth argument: an earlier version's
                        # file would add its own beside it)
                        conn.execute("drop function if exists beliefdb._audit_append(uuid, text, jsonb, boolean)")
                        conn.execute(sources[v])
                        conn.commit()
                        append_ms, commit_ms = one_run(conn, n, args.rows)
                        times[v][n]["append_ms"].append(append_ms)
                        times[v][n]["commit_ms"].append(commit_ms)
                        log(f"{v}: {n:,} events, append {append_ms:.0f} ms, commit {commit_ms:.1f} ms")
        finally:
            conn.rollback()
            conn.execute("drop function if exists beliefdb._audit_append(uuid, text, jsonb, boolean)")
            conn.execute(code_of("tree"))
            conn.commit()
    report: dict[str, Any] = {"events": sizes, "rows": args.rows, "runs": args.runs, "machine": machine(), "code": {
        v: {str(n): {"commit_ms_median": round(statistics.median(t["commit_ms"]), 2),
                     "append_ms_median": round(statistics.median(t["append_ms"]), 1),
                     "commit_ms": [round(x, 2) for x in t["commit_ms"]],
                     "append_ms": [round(x, 1) for x in t["append_ms"]]}
            for n, t in by_size.items()}
        for v, by_size in times.items()}}
    for v, by_size in report["code"].items():
        for n, figures in by_size.items():
            log(f"{v}: {int(n):,} events: commit median {figures['commit_ms_median']} ms,"
                f" append median {figures['append_ms_median']} ms")
    if args.json:
        print_json(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
