"""Capture the plans of the statements a connection runs (auto_explain, nested statements too), as
{"Query Text": ..., "Plan": ...} dicts, for the tests that check which index a search takes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql


def capture_plans(conn: psycopg.Connection[Any], plans: list[dict[str, Any]]) -> None:
    """Append the plan of every statement ``conn`` runs from now on to ``plans``, with sequential scans
    off (at a test's few thousand rows a scan is as cheap as the index a large workspace takes)."""
    conn.execute("load 'auto_explain'")
    for setting, value in (("log_min_duration", "0"), ("log_nested_statements", "on"),
                           ("log_level", "notice"), ("log_format", "json")):
        conn.execute(f"set auto_explain.{setting} = {value}")
    conn.add_notice_handler(lambda n: plans.append(json.loads((n.message_primary or "").split("plan:", 1)[1])))
    conn.execute("set enable_seqscan = off")


def rows_read(plan: dict[str, Any], relation: str) -> int:
    """The rows the scans of ``relation`` in this plan (captured with ``log_analyze``) returned, over all
    their loops."""
    here = plan.get("Actual Rows", 0) * plan.get("Actual Loops", 1) if plan.get("Relation Name") == relation else 0
    return round(here) + sum(rows_read(p, relation) for p in plan.get("Plans", []))


@contextmanager
def app_session_with_plans(url: str, workspace_id: UUID, tables: list[str],
                           plans: list[dict[str, Any]]) -> Iterator[psycopg.Connection[Any]]:
    """A connection as the application role bound to ``workspace_id``, ``tables`` analyzed first, whose
    statements' plans, with the rows each read (``log_analyze``), are appended to ``plans``."""
    with psycopg.connect(url, autocommit=True) as conn:
        for table in tables:
            conn.execute(sql.SQL("analyze beliefdb.{}").format(sql.Identifier(table)))
        capture_plans(conn, plans)
        conn.execute("set auto_explain.log_analyze = on")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(workspace_id),))
        conn.execute("set role beliefdb_app")
        yield conn
