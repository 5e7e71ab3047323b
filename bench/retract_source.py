"""Retracting a hub source on a kept benchmark workspace: the preview and the retraction itself, each
rolled back, so two versions of the SQL can be compared on one loaded database.

    python bench/retract_source.py --db URL --workspace ID [--sources 2] [--runs 3] [--json]

The workspace is one ``bench/impact.py --db URL --keep`` loaded (its id or its name). The sources
measured are the ``--sources`` whose quotes support the most beliefs. For each, ``--runs`` times:
``beliefdb.retract_preview`` and ``beliefdb.retract`` as the application role and the source's
owner, each rolled back (the workspace does not change), timed from the client (wall) and by the
backend's CPU time (``/proc/PID/schedstat``: the server runs on this machine). Each call has a session of its own, the
store tables vacuumed before it (not timed): each rolled-back retraction leaves thousands of dead
rows, in the store's tables and in the session's working tables, and a second retraction in one
session took 2.5 times the CPU time of the first at 100,000 nodes. After the first
retraction of each source, before its rollback, the md5 of every belief of the workspace in id order
(id, status, stored confidence) is taken: the same md5 from two versions of the SQL is the same
outcome. Medians per source; ``--json`` prints ``{"workspace", "runs", "sources": [{"source",
"beliefs", "preview_ms", "preview_cpu_ms", "apply_ms", "apply_cpu_ms", "stopped_holding",
"beliefs_md5"}], "loadavg"}`` (the lists: every run's figure, in order).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psycopg
from _common import arguments, log, print_json

SOURCES = ("select s.name, s.owner, count(distinct e.belief_id) as beliefs"
           "  from beliefdb.source s"
           "  join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id"
           "  join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id"
           "  join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id"
           " where s.workspace_id = %s and s.retracted_at is null"
           " group by s.name, s.owner order by 3 desc, 1 limit %s")

BELIEFS_MD5 = ("select md5(string_agg(b.id::text || ' ' || b.status::text || ' ' || b.confidence::text, ','"
               "                      order by b.id))"
               "  from beliefdb.belief b where b.workspace_id = %s")


def session(url: str, workspace: Any, principal: str) -> tuple[psycopg.Connection[Any], Path]:
    """A connection bound to the workspace as ``principal`` in the application role, its working tables
    made once (as a session keeps them), and the backend's schedstat file."""
    conn = psycopg.connect(url, autocommit=True)
    conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(workspace),))
    conn.execute("select set_config('beliefdb.principal', %s, false)", (principal,))
    conn.execute("select beliefdb._prepare_evaluation()")
    conn.execute("select beliefdb._begin_changes()")
    pid = conn.execute("select pg_backend_pid()").fetchone()
    assert pid is not None
    conn.execute("set role beliefdb_app")
    conn.autocommit = False
    return conn, Path(f"/proc/{pid[0]}/schedstat")


def vacuum(url: str) -> None:
    """Vacuum the tables a retraction writes (the dead rows of the rolled-back ones before)."""
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("vacuum beliefdb.node, beliefdb.belief, beliefdb.adjacency, beliefdb.justification,"
                      " beliefdb.justification_antecedent, beliefdb.decision, beliefdb.action, beliefdb.source,"
                      " beliefdb.source_version, beliefdb.review_item, beliefdb.retraction_period,"
                      " beliefdb.audit_event")


def timed_call(conn: psycopg.Connection[Any], schedstat: Path, query: str, name: str) -> tuple[float, float, Any]:
    """Wall and backend CPU milliseconds of one call, and its first row (not rolled back yet)."""
    cpu0 = int(schedstat.read_text().split()[0])
    t0 = time.perf_counter()
    row = conn.execute(query, (name,)).fetchone()  # type: ignore[call-overload]
    ms = (time.perf_counter() - t0) * 1000
    return ms, (int(schedstat.read_text().split()[0]) - cpu0) / 1e6, row


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", required=True, help="id or name of a workspace bench/impact.py --keep loaded")
    parser.add_argument("--sources", type=int, default=2, help="how many of the largest sources (default 2)")
    parser.add_argument("--runs", type=int, default=3, help="previews and retractions of each (default 3)")
    args = parser.parse_args(argv)
    if args.db is None:
        parser.error("--db is needed: a database a bench/impact.py --keep run loaded")
    with psycopg.connect(args.db, autocommit=True) as admin:
        found = admin.execute("select id from beliefdb.workspace where id::text = %s or name = %s",
                              (args.workspace, args.workspace)).fetchone()
        if found is None:
            parser.error(f"no workspace {args.workspace!r} in that database")
        ws = found[0]
        sources = admin.execute(SOURCES, (ws, args.sources)).fetchall()
    report: dict[str, Any] = {"workspace": str(ws), "runs": args.runs, "sources": []}
    for name, owner, beliefs in sources:
        figures: dict[str, Any] = {"source": name, "beliefs": beliefs, "preview_ms": [], "preview_cpu_ms": [],
                                   "apply_ms": [], "apply_cpu_ms": []}
        for run in range(args.runs):
            vacuum(args.db)
            conn, schedstat = session(args.db, ws, owner)
            ms, cpu, _ = timed_call(conn, schedstat, "select * from beliefdb.retract_preview('source', %s)", name)
            conn.rollback()
            conn.close()
            figures["preview_ms"].append(round(ms, 1))
            figures["preview_cpu_ms"].append(round(cpu, 1))
            vacuum(args.db)
            conn, schedstat = session(args.db, ws, owner)
            ms, cpu, row = timed_call(conn, schedstat,
                                      "select coalesce(jsonb_array_length(to_jsonb(c) -> 'stopped_holding'), 0)"
                                      "  from beliefdb.retract('source', %s, 'bench') c", name)
            figures["apply_ms"].append(round(ms, 1))
            figures["apply_cpu_ms"].append(round(cpu, 1))
            if run == 0:
                figures["stopped_holding"] = row[0]
                md5 = conn.execute(BELIEFS_MD5, (ws,)).fetchone()
                figures["beliefs_md5"] = md5[0] if md5 else None
            conn.rollback()
            conn.close()
            log(f"{name} ({beliefs} beliefs) run {run + 1}: preview {figures['preview_ms'][-1]} ms "
                f"(CPU {figures['preview_cpu_ms'][-1]}), retract {figures['apply_ms'][-1]} ms "
                f"(CPU {figures['apply_cpu_ms'][-1]})")
        for key in ("preview_ms", "preview_cpu_ms", "apply_ms", "apply_cpu_ms"):
            figures[f"{key}_median"] = round(statistics.median(figures[key]), 1)
        report["sources"].append(figures)
    report["loadavg"] = list(os.getloadavg())
    if args.json:
        print_json(report)
    else:
        for f in report["sources"]:
            print(f"{f['source']} ({f['beliefs']} beliefs, {f['stopped_holding']} stop holding): "
                  f"preview {f['preview_ms_median']} ms (CPU {f['preview_cpu_ms_median']}), "
                  f"retract {f['apply_ms_median']} ms (CPU {f['apply_cpu_ms_median']}), md5 {f['beliefs_md5']}")
        print(f"load average {report['loadavg']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
