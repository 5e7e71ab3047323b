"""Everyday operations on a large workspace, each statement's plan read back: which scans read far
more rows of the store than the operation touches (a whole workspace's nodes for a correction of
a few dozen)?

    python bench/plan_audit.py --db URL --workspace NAME [--threshold 5000] [--json]

The workspace is one ``bench/impact.py --db URL --keep`` loaded (its sources, beliefs, decisions and
actions). Every plan, nested statements included, is captured with ``auto_explain`` (``log_analyze``,
no timing) through the one connection of the ``BeliefDB`` the operations run on. An operation is
committed, as a user's would be: run it on a workspace kept for this, not on one another benchmark
compares. Reported: per operation its time with the plans being logged (not a timing to compare)
and each scan of a store table that returned or filtered out at least ``--threshold`` rows, with
the statement it is in. Some read the workspace by design (audit verification, decay, forgetting a
subject: they look at everything); any other such scan is a plan to fix. ``workspace_id`` has no
planner statistics (tenants must not shape each other's plans), so the planner guesses 0.5 % of a
table for a workspace: at 100,000 nodes a hash of the whole workspace looks cheap.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import arguments, kept_workspace, log, print_json, traced_beliefdb

import beliefdb

STORE = {"node", "adjacency", "justification", "justification_antecedent", "belief", "fragment", "evidence",
         "decision", "action", "relation", "source", "source_version", "review_item", "belief_embedding"}

def wide_scans(plan: dict[str, Any], threshold: int, out: list[dict[str, Any]]) -> None:
    """The scans of store tables in ``plan`` that returned or filtered out ``threshold`` rows or more."""
    loops = plan.get("Actual Loops", 1)
    rows = round(plan.get("Actual Rows", 0) * loops)
    removed = round(plan.get("Rows Removed by Filter", 0) * loops)
    if plan.get("Relation Name") in STORE and rows + removed >= threshold:
        out.append({"table": plan["Relation Name"], "scan": plan.get("Node Type"), "index": plan.get("Index Name"),
                    "rows": rows, "filtered": removed})
    for child in plan.get("Plans", []):
        wide_scans(child, threshold, out)


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", required=True, help="name of a workspace bench/impact.py --keep loaded")
    parser.add_argument("--threshold", type=int, default=5000, help="rows of one scan that count as wide")
    args = parser.parse_args(argv)
    admin, ws = kept_workspace(parser, args.db, args.workspace)

    def ids(query: str, n: int) -> list[Any]:
        return [r[0] for r in admin.execute(query, {"ws": ws}).fetchall()][:n]

    beliefs = ids("select b.id from beliefdb.belief b join beliefdb.node n using (workspace_id, id) "
                  "where b.workspace_id = %(ws)s and n.current and b.confidence_kind = 'extracted' "
                  "order by b.id limit 5", 5)
    sources = ids("select name from beliefdb.source where workspace_id = %(ws)s and retracted_at is null "
                  "order by id limit 2", 2)
    if len(beliefs) < 5 or len(sources) < 2:
        parser.error("the workspace has too few current beliefs or sources: load it with bench/impact.py")
    owner = admin.execute("select owner from beliefdb.source where workspace_id = %s and name = %s",
                          (ws, sources[0])).fetchone()

    plans: list[tuple[str, dict[str, Any]]] = []
    current = ["setup"]
    db = traced_beliefdb(args.db, args.workspace, "bench", plans, current)
    by_owner = traced_beliefdb(args.db, args.workspace, owner[0] if owner else None, plans, current)
    tag = uuid.uuid4().hex[:8]
    # a memory an agent's step wrote, resting on a belief: what a repair takes (rule 10: faulty memories)
    with db.record_run(task=f"plan audit {tag}") as run:
        cited = run.step("claim", {"desk": tag}, inputs=[("cites", beliefs[1])])
        memory = run.memory(run.step("memory_write", {"key": tag}, inputs=[("cites", cited)]),
                            f"desk_{tag}", "noted", "yes")
    earlier = datetime.now(UTC)  # before the operations below, after what the workspace held
    doc = f"# Desk {tag}\nThe front desk opens at 8.\nRefund window: 30 days.\n"
    ops: list[tuple[str, Callable[[], object]]] = [
        ("remember", lambda: db.remember(f"The desk {tag} opens at 9.", f"desk_{tag}", "opens", "9",
                                         f"The desk {tag} opens at 9.", source=f"desk-{tag}.md",
                                         text=f"The desk {tag} opens at 9.")),
        ("remember a newer value", lambda: db.remember(f"The desk {tag} opens at 10.", f"desk_{tag}", "opens", "10",
                                                       f"The desk {tag} opens at 10.", source=f"desk2-{tag}.md",
                                                       text=f"The desk {tag} opens at 10.")),
        ("ingest", lambda: db.ingest_text(doc, source=f"policy-{tag}.md")),
        ("ingest a second version", lambda: db.ingest_text(doc.replace("30 days", "45 days"),
                                                           source=f"policy-{tag}.md")),
        ("bulk ingest", lambda: db.bulk_ingest(*[(f"bulk-{tag}-{i}.md", f"Widget {tag}-{i} price: {i} EUR.\n")
                                                 for i in range(20)], embed=False)),
        ("beliefs of a subject", lambda: db.beliefs(subject=f"desk_{tag}")),
        ("why", lambda: db.why(beliefs[0])),
        ("impact", lambda: db.impact(beliefs[1])),
        ("preview a retraction", lambda: db.preview_retract(belief=beliefs[2])),
        ("retract", lambda: db.retract(belief=beliefs[2], reason="plan audit")),
        ("restore", lambda: db.retract(belief=beliefs[2], reason="plan audit", undo=True)),
        ("correct", lambda: db.apply_correction(beliefs[3], "Corrected by the plan audit.", reviewer="bench",
                                                expect_revision=db.preview_correction(beliefs[3], "x").revision)),
        ("decide", lambda: db.decide(f"Decision {tag}", because=[beliefs[4]])),
        ("derive", lambda: db.derive(f"Derived {tag}.", f"audit_{tag}", "derived", "yes", [beliefs[4]])),
        ("preview a source's retraction", lambda: by_owner.preview_retract(source=sources[0])),
        ("retract a source", lambda: by_owner.retract(source=sources[1], reason="plan audit")),
        ("ask", lambda: db.ask(f"when does the desk {tag} open")),
        ("why graph", lambda: db.why_graph(beliefs[0])),
        ("impact graph", lambda: db.impact_graph(beliefs[1], limit=50)),
        ("decisions, a page", lambda: db.decisions(limit=50)),
        ("beliefs, a page", lambda: db.beliefs(limit=50)),
        ("beliefs, a page of all", lambda: db.beliefs(include_all=True, limit=50)),
        ("beliefs as of before the operations", lambda: db.beliefs(subject=f"desk_{tag}", as_of=earlier)),
        ("actions, a page", lambda: db.actions(limit=50)),
        ("ask as of before the operations", lambda: db.ask(f"when does the desk {tag} open", as_of=earlier)),
        ("why as of before the operations", lambda: db.why(beliefs[0], as_of=earlier)),
        ("workspace picture", lambda: db.workspace_graph(limit=50)),
        ("jobs", lambda: db.jobs()),
        ("runs", lambda: db.runs(limit=50, newest_first=True)),
        ("review items", lambda: db.review_items()),
        ("repair plan", lambda: db.repair_plan([memory])),
        ("expire", lambda: db.expire()),
    ]
    report: list[dict[str, Any]] = []
    for name, op in ops:
        current[0] = name
        t0 = time.perf_counter()
        try:
            op()
            outcome = "ok"
        except beliefdb.errors.BeliefDBError as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        ms = (time.perf_counter() - t0) * 1000
        wide: list[dict[str, Any]] = []
        for owner_op, plan in plans:
            if owner_op != name:
                continue
            scans: list[dict[str, Any]] = []
            wide_scans(plan["Plan"], args.threshold, scans)
            wide += [{**s, "statement": " ".join(plan.get("Query Text", "").split())[:160]} for s in scans]
        report.append({"operation": name, "ms": round(ms, 1), "outcome": outcome, "wide_scans": wide})
        log(f"{name}: {ms:.1f} ms, {outcome}, {len(wide)} wide scans")
    db.close()
    by_owner.close()
    admin.close()
    if args.json:
        print_json({"threshold": args.threshold, "operations": report})
    else:
        for r in report:
            print(f"{r['operation']:32s} {r['ms']:9.1f} ms  {r['outcome']}")
            for s in r["wide_scans"]:
                print(f"    {s['table']}: {s['scan']} {s['index'] or ''} rows {s['rows']:,} filtered {s['filtered']:,}"
                      f"  in: {s['statement']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
