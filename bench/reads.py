"""The everyday reads of a large workspace, each timed through the library: a page of beliefs (now and as
of a moment), a subject's beliefs, why and its picture, the product view's picture, the fallback to
unextracted text, impact, a correction preview, a source's retraction preview, and a page of decisions
and of actions.

    python bench/reads.py --db URL --workspace NAME [--runs 5] [--json] [--large-source]

On a workspace ``bench/impact.py --keep`` loaded (1M nodes: 550,000 beliefs, 150,000 fragments, 15,000
sources, 150,000 decisions), as the principal that loaded it. Each read runs ``--runs`` times after one
untimed call; the report is each read's median in ms. Reads here run on one workspace with no statistics
on ``workspace_id`` (the schema's choice): what this guards is that none of them reads the whole
workspace to answer for a few rows (docs/benchmarks.md, "Reads of a large workspace"). ``--large-source``
adds the retraction preview of the source with the most beliefs (a hub of the graph).
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, LiteralString

import psycopg
from _common import arguments, log, print_json

import beliefdb


def _row(url: str, query: LiteralString, workspace: str, missing: str) -> tuple[Any, ...]:
    """The first row of ``query`` about the workspace named ``workspace``; exits saying ``missing`` if none."""
    with psycopg.connect(url) as conn:
        row = conn.execute(query, (workspace,)).fetchone()
    if row is None:
        raise SystemExit(f"{missing} in workspace {workspace}")
    return row


def _pick(url: str, workspace: str) -> dict[str, Any]:
    """A belief, its subject, a decision and a source of the workspace, read once."""
    row = _row(url,
               "select b.id, b.subject, (select d.id from beliefdb.decision d where d.workspace_id = w.id limit 1),"
               "       (select s.name from beliefdb.source s where s.workspace_id = w.id order by s.name limit 1)"
               "  from beliefdb.workspace w join beliefdb.belief b on b.workspace_id = w.id"
               " where w.name = %s and b.status = 'current' limit 1", workspace, "no current belief")
    return {"belief": row[0], "subject": row[1], "decision": row[2], "source": row[3]}


def _largest_source(url: str, workspace: str) -> tuple[str, int]:
    """The source of the workspace whose quotes support the most beliefs, and how many."""
    row = _row(url,
               "select s.name, count(distinct e.belief_id)"
               "  from beliefdb.workspace w"
               "  join beliefdb.source s on s.workspace_id = w.id"
               "  join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id"
               "  join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id"
               "  join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id"
               " where w.name = %s group by s.name order by 2 desc, 1 limit 1", workspace, "no source with evidence")
    return str(row[0]), int(row[1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", required=True, help="a workspace bench/impact.py --keep loaded")
    parser.add_argument("--principal", default="bench", help="the principal that owns its beliefs")
    parser.add_argument("--runs", type=int, default=5, help="timed calls of each read")
    parser.add_argument("--large-source", action="store_true",
                        help="also preview retracting the source that supports the most beliefs")
    args = parser.parse_args(argv)
    if args.db is None:
        parser.error("--db is required (a kept workspace)")
    got = _pick(args.db, args.workspace)
    belief, subject, source = got["belief"], got["subject"], got["source"]
    now = datetime.now(UTC)
    with beliefdb.connect(args.db, workspace=args.workspace, principal=args.principal) as db:
        reads: list[tuple[str, Callable[[], object]]] = [
            ("beliefs page of 20", lambda: db.beliefs(limit=20)),
            ("beliefs page of 1,000", lambda: db.beliefs(limit=1000)),
            ("beliefs as of now, page of 20", lambda: db.beliefs(as_of=now, limit=20)),
            ("beliefs as of now, page of 1,000", lambda: db.beliefs(as_of=now, limit=1000)),
            ("beliefs of a subject", lambda: db.beliefs(subject=subject)),
            ("why", lambda: db.why(belief)),
            ("why_graph", lambda: db.why_graph(belief)),
            ("workspace_graph", lambda: db.workspace_graph()),
            ("impact", lambda: db.impact(belief)),
            ("preview_correction", lambda: db.preview_correction(belief, "A corrected statement.")),
            ("preview_retract of a source", lambda: db.preview_retract(source=source)),
            ("decisions page of 50", lambda: db.decisions(limit=50)),
            ("actions page of 50", lambda: db.actions(limit=50)),
            ("unextracted text (recall_fragments)", lambda: db.database.fetch_all(
                dict, "select * from beliefdb.recall_fragments('what does the synthetic corpus say', 5)")),
        ]
        if args.large_source:
            large, supported = _largest_source(args.db, args.workspace)
            log(f"the largest source: {large}, supporting {supported} beliefs")
            reads.append((f"preview_retract of the largest source ({supported} beliefs)",
                          lambda: db.preview_retract(source=large)))
        report: dict[str, float] = {}
        for name, read in reads:
            read()
            times = []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                read()
                times.append((time.perf_counter() - t0) * 1000)
            report[name] = round(statistics.median(times), 2)
            log(f"{name}: {report[name]} ms")
    if args.json:
        print_json(report)
    else:
        for name, ms in report.items():
            print(f"{name:<40} {ms:>9.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
