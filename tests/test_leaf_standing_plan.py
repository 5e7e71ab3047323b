"""A change of many fragments does not read the workspace's justifications once per fragment.

``beliefdb._refresh_leaf_standing`` sets the standing of the adjacency rows out of the nodes a change
moved, and is planned once per session (a generic plan). Where one belief quotes every fragment of a
workspace (a file of one sentence repeated), the statistics say that any node is the consequent of every
justification, and the plan looked a node's justifications up by the workspace alone, reading all of them
for each node: 8,000 lines of one claim took 6 s in that statement, 40 s with 36,000 already there, and a
16 MB file ran for hours. A fragment is a premise, the consequent of no justification: its lookup is not
made at all.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from plans import capture_plans, rows_read
from psycopg import sql

import beliefdb

LINES = 400


@pytest.mark.parametrize("function", ["_refresh_leaf_standing", "_refresh_leaf_entries"])
def test_the_fragments_of_a_change_are_not_looked_up_as_consequents(db_url: str, function: str) -> None:
    """Either refresh of the adjacency's leaf rows (their standing, or whether each is a leaf: the edges'
    triggers, at every corroborating quote of a plain ingest) over the fragments of one belief."""
    with beliefdb.connect(db_url, workspace="default") as db:
        report = db.ingest_text("Returns are accepted within 30 days of delivery.\n" * LINES, source="same.md",
                                extractor="rules")
        (belief,) = {b.id for b in report.accepted} | {b.id for b in report.corroborated}
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("analyze beliefdb.justification")
        (distinct,) = conn.execute(
            "select n_distinct from pg_catalog.pg_stats"
            " where schemaname = 'beliefdb' and tablename = 'justification' and attname = 'consequent'").fetchone()
        assert distinct == 1  # the statistics this test is about: every justification is the one belief's
        ws, fragments = conn.execute(
            "select f.workspace_id, array_agg(f.id) from beliefdb.fragment f"
            "  join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id"
            " where e.belief_id = %s group by 1", (belief,)).fetchone()
        assert len(fragments) == LINES
        plans: list[dict[str, Any]] = []
        capture_plans(conn, plans, seqscan=True, analyze=True)
        conn.execute("begin")
        conn.execute(sql.SQL("select beliefdb.{}(%s, %s)").format(sql.Identifier(function)),
                     ([ws] * len(fragments), fragments))
        conn.execute("rollback")
    ran = [p for p in plans if "beliefdb.adjacency" in p["Query Text"] or "beliefdb.justification j" in p["Query Text"]]
    assert ran, [p["Query Text"] for p in plans]
    # before: LINES lookups, each reading the workspace's LINES justifications (160,000 rows at 400)
    assert [rows_read(p["Plan"], "justification", filtered=True) for p in ran] == [0] * len(ran), ran
