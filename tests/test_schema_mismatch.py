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
