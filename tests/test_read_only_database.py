"""A read-only database (a hot standby, or ``default_transaction_read_only``): every read processed what
expired first (rule 16), and once a belief's valid time had ended every read failed with PostgreSQL's raw
``cannot execute SELECT FOR UPDATE in a read-only transaction`` (code ``error``; ``serve`` answered 500).
Reads work, processing nothing (as under a fixed clock, their valid-time test hides what is due), and a write
is refused in one line with its own code, ``database_read_only`` (HTTP 503), naming why."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from psycopg import sql
from psycopg.conninfo import make_conninfo
from serving import bearer, refused

import beliefdb
from beliefdb import errors
from beliefdb.db import connector, refusals
from beliefdb.interfaces.http import create_app

TEXT = "Returns are accepted within 7 days of delivery.\n"
SAID = ("the database session is read-only (default_transaction_read_only or a standby): this call writes; nothing"
        " was changed (hint: on a standby, call the primary; elsewhere default_transaction_read_only is on for this"
        " session (the role's, the database's or the connection's): set default_transaction_read_only = off in it, or"
        " alter role ... reset default_transaction_read_only)")


@contextmanager
def read_only(db_url: str, postgresql: psycopg.Connection[Any]) -> Iterator[Any]:
    """A belief whose valid time has just ended (unprocessed: due to expire), in a database every new session
    of which is read-only for the block."""
    ends = datetime.now(UTC) + timedelta(seconds=1)
    with beliefdb.connect(db_url, principal="alice") as db:
        (belief,) = db.remember("Returns are accepted within 7 days.", "return_policy", "window", "7 days",
                                "Returns are accepted within 7 days", source="holiday.md", text=TEXT,
                                valid_to=ends.isoformat()).accepted
    name = sql.Identifier(postgresql.info.dbname)
    postgresql.execute(sql.SQL("alter database {} set default_transaction_read_only = on").format(name))
    postgresql.commit()
    time.sleep(max(0.0, (ends - datetime.now(UTC)).total_seconds()) + 0.2)
    try:
        yield belief
    finally:
        postgresql.execute(sql.SQL("alter database {} reset default_transaction_read_only").format(name))
        postgresql.commit()


def test_reads_work_and_writes_are_refused_in_one_line_in_the_library(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with read_only(db_url, postgresql) as belief, beliefdb.connect(db_url, principal="alice") as db:
        assert db.beliefs() == []  # (its valid time ended: not current, though not processed)
        assert db.ask("how many days for returns?").status != "memory_unavailable"
        assert db.audit_verify().ok
        assert db.why(str(belief.id)) is not None
        with pytest.raises(errors.DatabaseReadOnly) as refusal:
            db.remember("Returns are accepted within 9 days.", "return_policy", "window", "9 days",
                        "Returns are accepted within 7 days", source="other.md", text=TEXT)
        assert refusal.value.code == "database_read_only" and refusal.value.message == SAID
        with pytest.raises(errors.DatabaseReadOnly):
            db.expire()
    # nothing was processed: the expiry is still due, and the next read of a writable database processes it
    with beliefdb.connect(db_url, principal="alice") as db:
        assert [b.status for b in db.beliefs(include_all=True)] == ["expired"]


def test_a_read_only_transaction_processes_nothing_before_a_read(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    ends = datetime.now(UTC) + timedelta(seconds=1)
    with beliefdb.connect(db_url) as db:
        db.remember("Returns are accepted within 7 days.", "return_policy", "window", "7 days",
                    "Returns are accepted within 7 days", source="holiday.md", text=TEXT, valid_to=ends.isoformat())
    time.sleep(max(0.0, (ends - datetime.now(UTC)).total_seconds()) + 0.2)
    with psycopg.connect(db_url) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace"
                     " where name = 'default'")
        conn.commit()
        conn.execute("set transaction read only")
        assert conn.execute("select beliefdb.expire_before_read()").fetchone() == (False,)
        conn.rollback()
        # (a writable one processes it, and took the lock)
        assert conn.execute("select beliefdb.expire_before_read()").fetchone() == (True,)


def test_the_command_line_reads_and_refuses_a_write_in_one_line(
        cli: Cli, db_url: str, postgresql: psycopg.Connection[Any], tmp_path: Path) -> None:
    doc = tmp_path / "policy.md"
    doc.write_text("Shipping is free over 50 euros.\n", encoding="utf-8")
    with read_only(db_url, postgresql):
        assert cli("beliefs").exit_code == 0
        assert cli("audit", "verify").exit_code == 0
        assert cli.json("ask", "how many days for returns?", expect=None)["status"] != "memory_unavailable"
        assert cli.one_line_error("ingest", str(doc)) == f"error: {SAID}"
        assert cli.error("ingest", str(doc), code="database_read_only")["message"] == SAID


def test_the_http_api_reads_and_answers_a_write_503_database_read_only(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    token = bearer(db_url)  # (written before the database is read-only)
    with read_only(db_url, postgresql), TestClient(create_app(db_url, mcp=False)) as http:
        assert http.get("/beliefs", headers=token).status_code == 200
        assert http.post("/ask", json={"question": "how many days for returns?"}, headers=token).status_code == 200
        assert refused(http.post("/jobs", json={"source": "a.md", "text": TEXT}, headers=token),
                       503, "database_read_only") == SAID
        assert refused(http.post("/sources", json={"source": "b.md", "text": TEXT}, headers=token),
                       503, "database_read_only") == SAID


def test_an_ask_that_records_what_a_run_read_is_refused_as_a_write(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    token = bearer(db_url)
    with TestClient(create_app(db_url, mcp=False)) as http:
        run = http.post("/steps", json={"kind": "user_input", "task": "refund 1042"}, headers=token).json()["run"]
    with read_only(db_url, postgresql), TestClient(create_app(db_url, mcp=False)) as http:
        asked = http.post("/ask", json={"question": "how many days for returns?", "run": run}, headers=token)
        # (recording what the run read is a write)
        assert refused(asked, 503, "database_read_only") == SAID


def test_impact_answers_on_a_read_only_database(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """impact simulated the due expiry in a rolled-back retraction, whose write lock a read-only database
    refuses: it answered database_read_only "nothing was changed" for a plain belief. There no expiry is
    processed, so impact answers on what is stored, as every read there does; what only a simulation can
    answer (a source version's impact) is refused saying why, not as a write."""
    with beliefdb.connect(db_url, principal="alice") as db:
        other = db.remember("The desk opens at 9.", "desk", "opens", "9", "The desk opens at 9.", source="desk.md",
                            text="The desk opens at 9.").accepted[0].id
        decision = db.decide("Staff the desk at 9", because=[other]).id
    version = postgresql.execute("select v.id from beliefdb.source_version v join beliefdb.source s"
                                 " on s.workspace_id = v.workspace_id and s.id = v.source_id"
                                 " where s.name = 'desk.md'").fetchone()
    assert version is not None
    with read_only(db_url, postgresql), beliefdb.connect(db_url, principal="alice") as db:
        rows = db.impact(str(other))
        assert {(r.node, r.effect) for r in rows} >= {(other, "stops_holding"), (decision, "flag")}
        with pytest.raises(errors.DatabaseReadOnly) as refusal:
            db.impact(str(version[0]))
        assert "rolled-back retraction" in refusal.value.message and "nothing was changed" not in refusal.value.message


@pytest.fixture
def read_only_role(db_url: str, postgresql: psycopg.Connection[Any]) -> Iterator[str]:
    """The URL of a login (a member of beliefdb_app) whose sessions are read-only by its role's setting."""
    role = f"reader_{uuid.uuid4().hex[:8]}"
    name = sql.Identifier(role)
    postgresql.execute(sql.SQL("create role {} login password 'reader-password'").format(name))
    postgresql.execute(sql.SQL("grant beliefdb_app to {}").format(name))
    postgresql.execute(sql.SQL("alter role {} set default_transaction_read_only = on").format(name))
    postgresql.commit()
    try:
        yield make_conninfo(db_url, user=role, password="reader-password")
    finally:
        postgresql.execute(sql.SQL("drop owned by {}").format(name))
        postgresql.execute(sql.SQL("drop role {}").format(name))
        postgresql.commit()


def test_a_write_in_a_read_only_session_says_so_from_psql_and_the_library(read_only_role: str, db_url: str) -> None:
    """A role whose sessions are read-only (alter role ... set default_transaction_read_only = on) calling
    beliefdb.decide from psql met PostgreSQL's "cannot execute SELECT FOR UPDATE in a read-only transaction", from
    the workspace's write lock: a statement of beliefdb's, not the caller's. The lock says what is wrong and what
    to do, with SQLSTATE 25006, and the library says the same words."""
    with beliefdb.connect(db_url) as db:
        workspace = str(db.database.workspace_id)
    with psycopg.connect(read_only_role) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace,))
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction) as raised:
            conn.execute("select beliefdb.decide('Refuse the return of order 1042', '[]'::jsonb)")
    diag = raised.value.diag
    assert (diag.message_primary, diag.message_hint) == (refusals.READ_ONLY, refusals.READ_ONLY_HINT)
    assert f"{diag.message_primary} (hint: {diag.message_hint})" == SAID
    with beliefdb.connect(read_only_role) as db, pytest.raises(errors.DatabaseReadOnly) as refusal:
        db.decide("Refuse the return of order 1042")
    assert refusal.value.message == SAID


def test_postgresqls_own_read_only_refusal_is_said_in_beliefdbs_words(postgresql: psycopg.Connection[Any]) -> None:
    """A write beliefdb's lock does not come first to (PostgreSQL's "cannot execute ... in a read-only
    transaction") is said as the lock says it."""
    postgresql.execute("set transaction read only")
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction) as raised:
        postgresql.execute("select from beliefdb.workspace for update")
    postgresql.rollback()
    assert raised.value.diag.message_primary.startswith("cannot execute SELECT FOR UPDATE")
    said = connector.translate(raised.value)
    assert isinstance(said, errors.DatabaseReadOnly) and said.message == SAID
