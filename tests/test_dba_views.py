"""The views as a DBA reads them in psql: across workspaces as the tables' owner, each row naming
its workspace; bound to one with ``beliefdb.use_workspace``; refused, not empty, for an application
session with no workspace bound (tests/test_rls.py keeps the isolation itself)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb.store.agents import create_agent, drop_agent
from beliefdb.store.workspaces import create_workspace

VIEWS = ("current_beliefs", "belief_evidence", "belief_history", "holding", "decision_support", "review_queue",
         "fixture_decisions")


def _remember(url: str, workspace: str, value: str) -> None:
    with beliefdb.connect(url, workspace=workspace) as db:
        db.remember(f"{workspace}: returns within {value}", "return_policy", "window", value,
                    f"Returns are accepted within {value}.", source="policy",
                    text=f"Returns are accepted within {value}.")


@pytest.fixture
def two_workspaces(db_url: str) -> str:
    create_workspace(db_url, "shop-eu")
    create_workspace(db_url, "shop-us")
    _remember(db_url, "shop-eu", "14 days")
    _remember(db_url, "shop-us", "30 days")
    return db_url


def _rows(url: str, query: str, *setup: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in setup:
            conn.execute(statement)  # type: ignore[arg-type]
        return conn.execute(query).fetchall()  # type: ignore[arg-type]


@pytest.mark.parametrize("view", VIEWS)
def test_every_view_names_the_workspace_of_each_row(db_url: str, view: str) -> None:
    with psycopg.connect(db_url) as conn:
        columns = [c.name for c in conn.execute(sql.SQL("select * from beliefdb.{} limit 0")
                                                 .format(sql.Identifier(view))).description or ()]
    assert columns[-1] == "workspace"
    assert "workspace_id" in columns


def test_the_owner_reads_every_workspace_by_name(two_workspaces: str) -> None:
    rows = _rows(two_workspaces, "select workspace, statement from beliefdb.current_beliefs "
                                 "where workspace like 'shop-%' order by workspace")
    assert rows == [("shop-eu", "shop-eu: returns within 14 days"), ("shop-us", "shop-us: returns within 30 days")]
    evidence = _rows(two_workspaces, "select distinct workspace from beliefdb.belief_evidence order by 1")
    assert ("shop-eu",) in evidence and ("shop-us",) in evidence


def test_use_workspace_binds_a_psql_session(two_workspaces: str) -> None:
    rows = _rows(two_workspaces, "select workspace, value from beliefdb.current_beliefs",
                 "select beliefdb.use_workspace('shop-us')", "set role beliefdb_app")
    assert rows == [("shop-us", "30 days")]
    bound = _rows(two_workspaces, "select beliefdb.current_workspace_id()::text = "
                                  "(select id::text from beliefdb.workspace where name = 'shop-eu')",
                  "select beliefdb.use_workspace('shop-eu')")
    assert bound == [(True,)]


def test_use_workspace_refuses_an_unknown_name(two_workspaces: str) -> None:
    with psycopg.connect(two_workspaces, autocommit=True) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select beliefdb.use_workspace('shop-mars')")
    assert refused.value.sqlstate == "BD003"
    assert refused.value.diag.message_primary == "unknown workspace 'shop-mars'"


def test_an_agent_login_cannot_choose_its_workspace(two_workspaces: str) -> None:
    made = create_agent(two_workspaces, "agent_views", "shop-us", "agent-views-password")
    try:
        with psycopg.connect(made.url, autocommit=True) as conn, pytest.raises(psycopg.Error) as refused:
            conn.execute("select beliefdb.use_workspace('shop-eu')")
    finally:
        drop_agent(two_workspaces, "agent_views")
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == (
        "only a session of the schema's owner may choose its workspace; agent_views is bound by its login")


def test_a_login_made_by_hand_is_told_how_it_binds(two_workspaces: str) -> None:
    """docs/dba.md: a login made by hand binds by the setting. The views told it to run use_workspace,
    which refused it as 'bound by its login', which it is not."""
    # every login but the owner's needs its password (the embedded server's pg_hba.conf)
    _rows(two_workspaces, "select 1", "create role hand_made login password 'hand-made-password'",
          "grant beliefdb_app to hand_made")
    login = make_conninfo(two_workspaces, user="hand_made", password="hand-made-password")
    try:
        with psycopg.connect(login, autocommit=True) as conn:
            with pytest.raises(psycopg.Error) as unbound:
                conn.execute("select count(*) from beliefdb.current_beliefs")
            assert unbound.value.sqlstate == "BD003"
            hint = unbound.value.diag.message_hint or ""
            assert hint.startswith(
                "bind one first: in psql, select set_config('beliefdb.workspace_id', (select id::text"), hint
            with pytest.raises(psycopg.Error) as refused:
                conn.execute("select beliefdb.use_workspace('shop-eu')")
            assert refused.value.sqlstate == "BD005"
            assert refused.value.diag.message_primary == (
                "only a session of the schema's owner may choose its workspace by name; hand_made binds by the setting"
                " beliefdb.workspace_id")
            conn.execute(refused.value.diag.message_hint or "")  # what the hint says binds it
            bound = conn.execute("select workspace, value from beliefdb.current_beliefs").fetchall()
        assert bound == [("shop-eu", "14 days")]
    finally:
        _rows(two_workspaces, "select 1", "drop role hand_made")


def test_the_bound_check_runs_once_per_query_not_per_row(two_workspaces: str) -> None:
    # a one-time filter: the planner evaluates workspace_bound() once, before reading any row
    plan = _rows(two_workspaces, "explain (costs off) select * from beliefdb.holding",
                 "select beliefdb.use_workspace('shop-eu')", "set role beliefdb_app")
    text = "\n".join(r[0] for r in plan)
    assert "One-Time Filter: beliefdb.workspace_bound()" in text, text
