"""Errors of the database keep their hint (what to do about it) on one line, and a migration that
stops has a code of its own."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import connector
from beliefdb.db.server import EmbeddedServer

pytestmark = [pytest.mark.slow, pytest.mark.robustness]

V32 = "# Return policy\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"


@pytest.fixture
def admin(embedded_server: EmbeddedServer) -> str:
    url = embedded_server.status().url
    assert url is not None
    return url


@pytest.fixture
def new_db(admin: str) -> Iterator[Callable[..., str]]:
    """Empty databases on the session's server (``owner``: a role that owns it), dropped at the end."""
    created: list[str] = []

    def make(owner: str | None = None) -> str:
        name = f"team_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("create database {} owner {}").format(
                sql.Identifier(name), sql.Identifier(owner or str(conn.info.user))))
        created.append(name)
        return make_conninfo(admin, dbname=name)

    yield make
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in created:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def rows(url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]



# ---------------------------------------------------------------------------------------------
# errors keep their hint, and a specific code
# ---------------------------------------------------------------------------------------------


def test_a_database_errors_hint_is_kept_on_one_line(admin: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn, pytest.raises(psycopg.Error) as raised:
        conn.execute("select pg_catalog.length(1, 2, 3)")
    assert raised.value.diag.message_hint
    error = connector.translate(raised.value)
    assert error.message.startswith("function pg_catalog.length(integer, integer, integer) does not exist (hint: ")
    assert error.message.endswith(f"{raised.value.diag.message_hint})")
    assert "\n" not in error.message


def test_the_cli_prints_the_hint_of_a_refusal(cli: Cli, db_url: str, write_doc: Any) -> None:
    report = cli.json("ingest", write_doc("policy.md", V32), "--as", "alice")
    belief = report["accepted"][0]["id"]
    line = cli.one_line_error("retract", "--belief", belief, "--reason", "wrong", "--as", "bob")
    assert "only its owner can" in line
    assert line.endswith("(hint: propose a correction (beliefdb correct) or raise a conflict instead)"), line
    refused = cli.error("retract", "--belief", belief, "--reason", "wrong", "--as", "bob", code="not_owner")
    assert refused["message"] == line.removeprefix("error: ")


def test_a_failed_migration_has_its_own_code(new_db: Callable[..., str]) -> None:
    url = new_db()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create schema beliefdb")
        conn.execute("create table beliefdb.workspace (something_else integer)")
    refused = Cli({"BELIEFDB_URL": url}).error("migrate", code="migration_failed")
    assert refused["message"] == 'migration failed: relation "workspace" already exists'
    # nothing of the migration stayed behind
    assert rows(url, "select count(*) from pg_catalog.pg_class where relnamespace = 'beliefdb'::regnamespace") == [(1,)]
    assert rows(url, "select extname from pg_catalog.pg_extension where extname in ('vector', 'pg_trgm')") == []
