"""Forgetting a person in a large workspace: ``forget --subject`` previewed and applied (with the
preview's fingerprint, as ``beliefdb forget`` does), on a workspace ``bench/impact.py --db URL --keep``
loaded, after a few beliefs, turns, decisions and actions naming the person were added through the
library (a new person each run). Seconds of each, how long a writer of the workspace waited for its
write lock meanwhile, and, from the plans ``auto_explain`` logs in a pass of its own, how often the
statement that finds where the name is typed (``beliefdb._forget_mentions``) ran and the rows it read,
by table (over its runs), and the same of the statement that finds where the stored source texts still
name the person (``beliefdb._text_mentions``: another speaker's turn names them). ``--mask-mentions``:
forget with ``mask_mentions=True`` (the name masked there too).

    python bench/forget_mentions.py --db URL --workspace NAME [--runs 3] [--mask-mentions] [--json]
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from _common import arguments, kept_workspace, log, print_json, traced_beliefdb

import beliefdb
from beliefdb.models import Forgotten, Turn

MENTIONS = "with pattern as"  # in the text of the statement of beliefdb._forget_mentions
IN_TEXT = "regexp_count(v.content"  # in the text of the statement of beliefdb._text_mentions that reads the texts


def rows_read(plan: dict[str, Any], out: dict[str, int]) -> None:
    """Add to ``out`` the rows each scan of ``plan`` returned or filtered out, by table."""
    loops = plan.get("Actual Loops", 1)
    if "Relation Name" in plan:
        read = round((plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)
                      + plan.get("Rows Removed by Index Recheck", 0)) * loops)
        out[plan["Relation Name"]] = out.get(plan["Relation Name"], 0) + read
    for child in plan.get("Plans", []):
        rows_read(child, out)


def person(db: beliefdb.BeliefDB, tag: str) -> str:
    """Add what names a new person (beliefs of them, their turns, a decision, an action, a belief of
    another subject naming them) and return their subject."""
    name = f"Maya{tag}"
    subject = name.lower()
    start = datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
    db.ingest_conversation([Turn(name, f"My badge code is 44{i}.", start + timedelta(seconds=2 * i)) if i % 2 == 0
                            else Turn("Bob", f"Noted, number {i}, {name}." if i == 1 else f"Noted, number {i}.",
                      start + timedelta(seconds=2 * i))
                            for i in range(20)], source=f"chat-{tag}", embed=False)
    badge = db.remember(f"{name}'s badge code is 4471.", subject, "badge_code", "4471", "badge code is 4471",
                        source=f"badge-{tag}.md", text=f"{name}'s badge code is 4471.\n").accepted[0].id
    db.remember(f"Bob's sister is {name}.", f"bob_{tag}", "sister", name, f"Bob's sister is {name}",
                source=f"bob-{tag}.md", text=f"Bob's sister is {name}.\n")
    decision = db.decide(f"Give {name} a new badge", because=[badge]).id
    db.act(decision, f"Print a badge for {name}")
    return subject


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--workspace", required=True, help="name of a workspace bench/impact.py --keep loaded")
    parser.add_argument("--runs", type=int, default=3, help="people forgotten (and, in the plan pass, one more)")
    parser.add_argument("--mask-mentions", action="store_true",
                        help="forget with mask_mentions=True: the name masked where others wrote it too")
    args = parser.parse_args(argv)
    admin, ws = kept_workspace(parser, args.db, args.workspace)
    counted = admin.execute(
        "select (select count(*) from beliefdb.node where workspace_id = %(ws)s),"
        " (select count(*) from beliefdb.belief where workspace_id = %(ws)s),"
        " (select count(*) from beliefdb.decision where workspace_id = %(ws)s),"
        " (select count(*) from beliefdb.action where workspace_id = %(ws)s)", {"ws": ws}).fetchone() or ()
    sizes = dict(zip(("node", "belief", "decision", "action"), counted, strict=True))
    log(f"workspace {args.workspace}: {sizes}")

    db = beliefdb.BeliefDB(args.db, args.workspace, principal="bench", max_size=1)
    # (not passed unless asked: the library before mask_mentions is measured by the same script)
    mask: dict[str, Any] = {"mask_mentions": True} if args.mask_mentions else {}
    timings: list[dict[str, Any]] = []
    for _ in range(args.runs):
        subject = person(db, uuid.uuid4().hex[:6])
        began = time.perf_counter()
        preview = db.forget(subject=subject, preview=True, **mask)
        previewed = time.perf_counter() - began
        # a writer of the workspace that asks for its lock while the forget runs: how long it waits
        waited: list[float] = []

        def writer(waited: list[float] = waited) -> None:
            with psycopg.connect(args.db) as w:
                time.sleep(0.05)
                asked = time.perf_counter()
                w.execute("select from beliefdb.audit_head where workspace_id = %s for update", (ws,))
                waited.append(time.perf_counter() - asked)
                w.rollback()

        other = threading.Thread(target=writer)
        began = time.perf_counter()
        other.start()
        done = db.forget(subject=subject, expect=preview.fingerprint(), **mask)
        forgotten = time.perf_counter() - began
        other.join()
        timings.append({"preview_s": previewed, "forget_s": forgotten, "writer_waited_s": waited[0],
                        "mentions": len(done.mentions), "beliefs": done.beliefs, "fragments": done.fragments,
                        "text_mentions": sum(t.count for t in getattr(done, "text_mentions", []))})
        log(f"{subject}: preview {previewed:.3f} s, forget {forgotten:.3f} s, a writer waited {waited[0]:.3f} s,"
            f" {len(done.mentions)} mentions, {timings[-1]['text_mentions']} in source text")
    db.close()

    # the plan pass: the mention statement's rows read, in a preview and a forget of one more person
    plans: list[tuple[str, dict[str, Any]]] = []
    current = ["setup"]
    traced = traced_beliefdb(args.db, args.workspace, "bench", plans, current)
    subject = person(traced, uuid.uuid4().hex[:6])
    reads: dict[str, dict[str, int]] = {}
    searches: dict[str, int] = {}
    shown: list[Forgotten] = []
    in_text_reads: dict[str, dict[str, int]] = {}
    in_text_searches: dict[str, int] = {}
    for step, call in (("preview", lambda: shown.append(traced.forget(subject=subject, preview=True, **mask))),
                       ("forget", lambda: traced.forget(subject=subject, expect=shown[0].fingerprint(), **mask))):
        current[0] = step
        plans.clear()
        call()
        out: dict[str, int] = {}
        in_text: dict[str, int] = {}
        searches[step] = in_text_searches[step] = 0
        for _, plan in plans:
            query = plan.get("Query Text", "")
            if IN_TEXT in query:
                in_text_searches[step] += 1
                rows_read(plan["Plan"], in_text)
            elif MENTIONS in query:
                searches[step] += 1
                rows_read(plan["Plan"], out)
        reads[step] = dict(sorted(out.items()))
        in_text_reads[step] = dict(sorted(in_text.items()))
    traced.close()
    admin.close()

    def spread(key: str) -> dict[str, float]:
        values = [t[key] for t in timings]
        return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
                "max": round(max(values), 3)}

    report = {"workspace": sizes, "runs": args.runs, "preview_s": spread("preview_s"), "forget_s": spread("forget_s"),
              "writer_waited_s": spread("writer_waited_s"), "mention_statements": searches,
              "mention_statement_rows_read": reads,
              "text_mention_statements": in_text_searches, "text_mention_statement_rows_read": in_text_reads,
              "mask_mentions": args.mask_mentions,
              "mentions": [t["mentions"] for t in timings], "text_mentions": [t["text_mentions"] for t in timings]}
    if args.json:
        print_json(report)
    else:
        for key in ("preview_s", "forget_s", "writer_waited_s"):
            print(f"{key:18s} {report[key]}")
        for step, out in reads.items():
            print(f"mention statement, {step}: run {searches[step]} time(s), rows read {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
