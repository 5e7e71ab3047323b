"""After a package upgrade, before ``beliefdb migrate``, every command failed with PostgreSQL's raw words (``function
beliefdb.expire_before_read() does not exist (hint: … explicit type casts.)``, code ``error``). A function,
column or type of beliefdb's that the database lacks (SQLSTATE 42883, 42703, 42704) is said in one line with
its own code, ``schema_mismatch``, naming what to run; ``migrate`` mends it."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused

import beliefdb
from beliefdb import errors
from beliefdb.interfaces.http import create_app

SAID = "this database's beliefdb schema is not this beliefdb's"


def drop(postgresql: psycopg.Connection[Any], statement: str) -> None:
    postgresql.execute(statement)  # type: ignore[arg-type]
    postgresql.commit()


def test_a_missing_function_is_said_in_one_line_in_the_library(db_url: str,
                                                               postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url) as db:
        drop(postgresql, "drop function beliefdb.expire_before_read()")
        with pytest.raises(errors.SchemaMismatch) as refusal:
            db.beliefs()
    said = refusal.value.message
    assert refusal.value.code == "schema_mismatch" and "\n" not in said
    assert said.startswith(SAID) and "beliefdb.expire_before_read()" in said and "migrate" in said, said
    assert "explicit type casts" not in said


def test_a_missing_column_is_said_so_too(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url) as db:
        drop(postgresql, "alter table beliefdb.belief rename column valid_time to valid_time_before")
        with pytest.raises(errors.SchemaMismatch) as refusal:
            db.beliefs()
    assert refusal.value.message.startswith(SAID) and "valid_time" in refusal.value.message, refusal.value.message


def test_the_command_line_says_it_in_one_line_and_migrate_mends_it(
        cli: Cli, postgresql: psycopg.Connection[Any]) -> None:
    drop(postgresql, "drop function beliefdb.expire_before_read()")
    line = cli.one_line_error("beliefs")
    assert line.startswith(f"error: {SAID}") and "'beliefdb migrate'" in line, line
    assert cli.error("beliefs", code="schema_mismatch")["message"].startswith(SAID)
    cli("migrate")
    assert cli("beliefs").exit_code == 0


def test_the_http_api_answers_503_schema_mismatch(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    token = bearer(db_url)
    drop(postgresql, "drop function beliefdb.expire_before_read()")
    with TestClient(create_app(db_url, mcp=False)) as http:
        assert refused(http.get("/beliefs", headers=token), 503, "schema_mismatch").startswith(SAID)


def test_ask_says_it_too_and_no_retry_is_asked(db_url: str, postgresql: psycopg.Connection[Any], cli: Cli) -> None:
    """ask caught every DatabaseUnavailable as memory_unavailable (rule 11), and the servers answered it 503
    database_unavailable with Retry-After: trying again cannot mend a schema."""
    token = bearer(db_url)
    with beliefdb.connect(db_url) as db:
        drop(postgresql, "drop function beliefdb.expire_before_read()")
        with pytest.raises(errors.SchemaMismatch):
            db.ask("what is the return window?")
    assert cli.error("ask", "what is the return window?", code="schema_mismatch")["message"].startswith(SAID)
    with TestClient(create_app(db_url, mcp=False)) as http:
        answer = http.post("/ask", json={"question": "what is the return window?"}, headers=token)
        assert refused(answer, 503, "schema_mismatch").startswith(SAID)
        assert "retry-after" not in answer.headers


def test_a_worker_stops_on_it_rather_than_wait(cli: Cli, bdb: beliefdb.BeliefDB,
                                               postgresql: psycopg.Connection[Any]) -> None:
    """A worker waits while the database is down; a schema another release migrated will not come back by
    waiting: it stops, saying so."""
    bdb.submit(text="Returns are accepted within 30 days.\n", source="returns.md")
    drop(postgresql, "drop function beliefdb.expire_before_read()")
    line = cli.one_line_error("worker", "--until-empty", "--no-embed")
    assert SAID in line, line


def test_a_migration_that_stops_on_a_missing_column_is_migration_failed(db_url: str,
                                                                      postgresql: psycopg.Connection[Any]) -> None:
    """migrate told its user to run beliefdb migrate: a migration's failure is its own (migration_failed)."""
    drop(postgresql, "alter table beliefdb.belief rename column valid_time to valid_time_before")
    with pytest.raises(errors.MigrationFailed) as failed:
        beliefdb.api.migrate(db_url)
    assert failed.value.message.startswith("migration failed: ") and "valid_time" in failed.value.message
    assert SAID not in failed.value.message
