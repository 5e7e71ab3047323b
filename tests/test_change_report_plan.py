"""The change report reads what an operation changed, not the workspace around it.

``beliefdb._changes`` is planned once per session (a generic plan) with no statistics on the
working table or on ``workspace_id``. Once autovacuum had analyzed a small workspace, the planner
guessed "one decision in the workspace" and drove the join from the decisions: one ``decide`` on a
180-node workspace read three million buffers and took 100 s. The report must read about as much
as it reports, whatever the statistics say.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import psycopg
from plans import capture_plans

import beliefdb

# what one report may read: a few blocks per noted node (the regression read ~3,000,000)
BUDGET = 2_000


def fact(db: beliefdb.BeliefDB, subject: str, value: str) -> UUID:
    quote = f"The {subject} is {value}."
    return db.remember(quote, subject, "value", value, quote, source=f"{subject}.md", text=quote).accepted[0].id


def plans_of(db_url: str, workspace_id: str, principal: str | None, statements: list[tuple[str, Any]]) -> list[Any]:
    """Run ``statements`` as the application role with auto_explain on; the JSON plans of every
    statement that computes the change report."""
    plans: list[dict[str, Any]] = []
    with psycopg.connect(db_url, autocommit=True) as conn:
        capture_plans(conn, plans, seqscan=True, analyze=True)
        conn.execute("set auto_explain.log_buffers = on")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("select set_config('beliefdb.principal', %s, false)", (principal or "",))
        conn.execute("set role beliefdb_app")
        for query, params in statements:
            conn.execute(query, params)
    return [p for p in plans if "with now as materialized" in p["Query Text"] or "lost_reason" in p["Query Text"]]


def blocks(plan: dict[str, Any]) -> int:
    top = plan["Plan"]
    return int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0)) + int(
        top.get("Local Hit Blocks", 0))


def test_the_change_report_reads_what_changed_on_an_analyzed_workspace(
        bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    other, x = fact(bdb, "desk", "open"), fact(bdb, "window", "7 days")
    for i in range(120):
        bdb.decide(f"Staff the desk, shift {i}", because=[other])
    only_x = bdb.decide("Refuse late returns", because=[x]).id
    survivor = bdb.decide("Keep the returns form", because=[x, other]).id
    jointly = bdb.decide("Close the window tickets", all_of=[[x, other]]).id
    postgresql.execute("analyze")  # what autovacuum does to a workspace this size
    postgresql.commit()

    plans = plans_of(db_url, bdb.database.workspace_id, bdb.database.principal, [
        ("select beliefdb.decide(%s, %s)", ("One more shift", json.dumps([[str(other)]]))),
        ("select beliefdb.retract('node', %s::text, 'wrong window', null, false)", (x,)),
    ])
    assert len(plans) >= 2, [p["Query Text"][:80] for p in plans]  # at least one report per operation
    assert all(blocks(p) < BUDGET for p in plans), [blocks(p) for p in plans]
    statuses = {d.id: d.status for d in bdb.decisions()}
    assert statuses[only_x] == "needs_review" and statuses[jointly] == "needs_review"
    assert statuses[survivor] == "active"


def test_the_report_of_a_retraction_names_what_it_flags_and_what_survives(bdb: beliefdb.BeliefDB) -> None:
    other, x = fact(bdb, "desk", "open"), fact(bdb, "window", "7 days")
    survivor = bdb.decide("Keep the returns form", because=[x, other]).id
    lost = bdb.decide("Refuse late returns", because=[x]).id
    changes = bdb.retract(belief=x, reason="wrong window")
    assert changes.flagged == [lost]
    assert [(s.decision, s.by) for s in changes.survives] == [(survivor, [[other]])]
