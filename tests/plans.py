"""Capture the plans of the statements a connection runs (auto_explain, nested statements too), as
{"Query Text": ..., "Plan": ...} dicts, for the tests that check which index a search takes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql


def collect_plans(plans: list[dict[str, Any]]) -> Callable[[psycopg.errors.Diagnostic], None]:
    """A notice handler that appends each plan auto_explain sends (``log_level = notice``, JSON) to
    ``plans`` and ignores any other notice."""
    def collect(notice: psycopg.errors.Diagnostic) -> None:
        text = notice.message_primary or ""
        if "plan:" in text:
            plans.append(json.loads(text.split("plan:", 1)[1]))
    return collect


def capture_plans(conn: psycopg.Connection[Any], plans: list[dict[str, Any]], *, seqscan: bool = False,
                  analyze: bool = False) -> None:
    """Append the plan of every statement ``conn`` runs from now on to ``plans``, with sequential scans
    off unless ``seqscan`` (at a test's few thousand rows a scan is as cheap as the index a large
    workspace takes); with ``analyze``, the rows each node read (no timing)."""
    conn.execute("load 'auto_explain'")
    for setting, value in (("log_min_duration", "0"), ("log_nested_statements", "on"),
                           ("log_level", "notice"), ("log_format", "json")):
        conn.execute(f"set auto_explain.{setting} = {value}")
    if analyze:
        conn.execute("set auto_explain.log_analyze = on")
        conn.execute("set auto_explain.log_timing = off")
    conn.add_notice_handler(collect_plans(plans))
    if not seqscan:
        conn.execute("set enable_seqscan = off")


def rows_read(plan: dict[str, Any], relation: str, *, filtered: bool = False) -> int:
    """The rows the scans of ``relation`` in this plan (captured with ``log_analyze``) returned, over all
    their loops; with ``filtered``, those their filters removed too (what a scan read to return them)."""
    here = 0.0
    if plan.get("Relation Name") == relation:
        here = (plan.get("Actual Rows", 0) + (plan.get("Rows Removed by Filter", 0) if filtered else 0)) \
            * plan.get("Actual Loops", 1)
    return round(here) + sum(rows_read(p, relation, filtered=filtered) for p in plan.get("Plans", []))


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
