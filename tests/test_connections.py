"""beliefdb's database sessions (issue 22 defect 7, issue 19): every connection carries timeouts and a
name, so a client that dies mid-change releases the workspace's write lock at once, a change that
waits behind another writer gives up with a clear error, and ``pg_stat_activity`` tells beliefdb's
sessions (and which command opened them) from anyone else's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import errors, settings
from beliefdb.db import connector, migrate
from beliefdb.db.connector import Database

SETTINGS = ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
            "client_connection_check_interval", "application_name")
DEFAULTS = {"statement_timeout": "10min", "lock_timeout": "10s", "idle_in_transaction_session_timeout": "5min",
            "client_connection_check_interval": "1s", "application_name": "beliefdb"}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for field in settings.Settings.model_fields:
        monkeypatch.delenv(settings.Settings.variable(field), raising=False)
    # the library's own name (a CLI command run in this process before renames its sessions)
    monkeypatch.setattr(connector, "_session_name", "beliefdb")


def shown(conn: psycopg.Connection[Any]) -> dict[str, str]:
    return {name: str(conn.execute(f"show {name}").fetchone()[0]) for name in SETTINGS}  # type: ignore[index]


def pooled(db: Database) -> dict[str, str]:
    with db.transaction() as conn:
        return shown(conn)


def test_every_session_carries_the_settings_and_the_name(db_url: str) -> None:
    with Database(db_url) as db:
        assert pooled(db) == DEFAULTS
        # a rolled-back transaction keeps them: they were set, and committed, when the session began
        with pytest.raises(errors.InvalidInput), db.transaction() as conn:
            conn.execute("select 1/0")
        assert pooled(db) == DEFAULTS
    with connector.app_connection(db_url) as conn:
        assert shown(conn) == DEFAULTS
    pool = connector.app_pool(db_url)
    try:
        with pool.connection() as conn:
            assert shown(conn) == DEFAULTS
    finally:
        pool.close()
    # a migration waits for its locks and runs as long as it takes
    with connector.connect(db_url, migration=True) as conn:
        assert shown(conn) == DEFAULTS | {"statement_timeout": "0", "lock_timeout": "0"}


def test_the_settings_come_from_their_variables(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_STATEMENT_TIMEOUT", "2.5")
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0")
    monkeypatch.setenv("BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT", "90")
    monkeypatch.setenv("BELIEFDB_CLIENT_CHECK_INTERVAL", "0.25")
    with Database(db_url) as db:
        assert pooled(db) == {"statement_timeout": "2500ms", "lock_timeout": "0",
                              "idle_in_transaction_session_timeout": "90s",
                              "client_connection_check_interval": "250ms", "application_name": "beliefdb"}
    rows = {r.name: r for r in settings.effective()}
    assert (rows["BELIEFDB_LOCK_TIMEOUT"].value, rows["BELIEFDB_LOCK_TIMEOUT"].source) == (0.0, "environment")
    assert (rows["BELIEFDB_STATEMENT_TIMEOUT"].default, rows["BELIEFDB_CLIENT_CHECK_INTERVAL"].default) == (600.0, 1.0)


def test_the_connection_string_and_the_dba_win(db_url: str, monkeypatch: pytest.MonkeyPatch,
                                               postgresql: psycopg.Connection[Any]) -> None:
    """What the URL sets itself (options, application_name), or a DBA for the database or the login role
    (alter database|role ... set), is not overridden."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "3")
    url = make_conninfo(db_url, options="-c lock_timeout=120s", application_name="nightly-report")
    with Database(url) as db:
        assert pooled(db) == DEFAULTS | {"lock_timeout": "2min", "application_name": "nightly-report"}
    postgresql.execute(sql.SQL("alter database {} set statement_timeout = '42s'").format(
        sql.Identifier(postgresql.info.dbname)))
    postgresql.commit()
    with Database(db_url) as db:
        assert pooled(db) == DEFAULTS | {"lock_timeout": "3s", "statement_timeout": "42s"}


def _set_for(conn: psycopg.Connection[Any], statement: str) -> None:
    """``statement`` (``alter role {user} in database {database} set ...``) for this test's user and database."""
    conn.execute(sql.SQL(statement).format(user=sql.Identifier(conn.info.user),
                                           database=sql.Identifier(conn.info.dbname)))
    conn.commit()


@pytest.mark.robustness
def test_a_migration_has_no_timeout_whatever_the_role_or_the_database_says(
        cli: Cli, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A DBA's ``alter role|database ... set statement_timeout`` (or lock_timeout) won over the migration's
    0: under a role's 15ms, ``beliefdb migrate`` failed (0.5 s here: 15 ms cancelled the test's own reads of
    the settings on a loaded machine) "canceling statement due to statement timeout
    (BELIEFDB_STATEMENT_TIMEOUT; ...)", or "cannot read the schema version: (psycopg.errors.QueryCanceled)
    ..." on an installed database. A migration has neither timeout, whoever set one."""
    empty = f"timeouts_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(empty)))
    fresh = make_conninfo(db_url, dbname=empty)
    try:
        _set_for(postgresql, "alter role {user} in database {database} set statement_timeout = '500ms'")
        _set_for(postgresql, "alter database {database} set lock_timeout = '1ms'")
        with psycopg.connect(fresh, autocommit=True) as admin:
            _set_for(admin, "alter role {user} in database {database} set statement_timeout = '500ms'")
            _set_for(admin, "alter database {database} set lock_timeout = '1ms'")
        for url in (db_url, fresh):
            with connector.connect(url, migration=True) as conn:
                assert (shown(conn)["statement_timeout"], shown(conn)["lock_timeout"]) == ("0", "0")
                conn.execute("select pg_sleep(0.8)")  # (longer than the role's 0.5 s)
            engine = migrate.engine_for(url)  # (alembic's: "cannot read the schema version" was cancelled)
            try:
                with engine.connect() as alembic:
                    alembic.exec_driver_sql("select pg_sleep(0.8)")
            finally:
                engine.dispose()
            with connector.connect(url) as conn:  # (any other session keeps the DBA's values)
                assert (shown(conn)["statement_timeout"], shown(conn)["lock_timeout"]) == ("500ms", "1ms")
            assert cli.json("migrate", "--db", url)["after"] == migrate.head_revision()
            assert cli("migrate", "--check", "--db", url).exit_code == 0
    finally:
        _set_for(postgresql, "alter role {user} in database {database} reset statement_timeout")
        _set_for(postgresql, "alter database {database} reset lock_timeout")
        with psycopg.connect(make_conninfo(db_url, options="-c statement_timeout=0"), autocommit=True) as admin:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(empty)))


@pytest.mark.parametrize(("value", "says"), [
    ("-1", "BELIEFDB_LOCK_TIMEOUT must not be negative, not '-1'"),
    ("soon", "BELIEFDB_LOCK_TIMEOUT must be a number, not 'soon'"),
])
def test_a_bad_timeout_names_its_variable(cli: Cli, value: str, says: str) -> None:
    line = cli.one_line_error("beliefs", env={"BELIEFDB_LOCK_TIMEOUT": value})
    assert line == f"error: {says}"


@pytest.mark.robustness
def test_cli_sessions_are_named_after_their_command(cli: Cli) -> None:
    cli("beliefs")
    assert connector.session_name() == "beliefdb beliefs"
    cli("workspace", "list")
    assert connector.session_name() == "beliefdb workspace list"
    cli("audit", "verify")
    assert connector.session_name() == "beliefdb audit verify"


# --- waiting for another writer -------------------------------------------------------------------


def sources(db_url: str) -> int:
    with psycopg.connect(db_url) as conn:
        return int(conn.execute("select count(*) from beliefdb.source").fetchone()[0])  # type: ignore[index]


@pytest.mark.robustness
@pytest.mark.slow
def test_a_change_that_waits_beyond_lock_timeout_is_workspace_busy(cli: Cli, db_url: str, write_doc: Any,
                                                                    postgresql: psycopg.Connection[Any],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    doc = write_doc("return-policy.md", "Returns are accepted within 7 days of delivery.\n")
    postgresql.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                       " where w.name = 'default' for update of h")
    try:
        started = time.monotonic()
        err = cli.error("ingest", doc, code="workspace_busy", env={"BELIEFDB_LOCK_TIMEOUT": "0.5"})
        waited = time.monotonic() - started
        assert "another writer holds this workspace" in err["message"] and "nothing was changed" in err["message"]
        assert 0.5 <= waited < 10, waited
        line = cli.one_line_error("ingest", doc, env={"BELIEFDB_LOCK_TIMEOUT": "0.5"})
        assert line.startswith("error: another writer holds this workspace")
        monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
        with beliefdb.connect(db_url) as bdb, pytest.raises(errors.WorkspaceBusy):
            bdb.ingest_text("Returns are accepted within 7 days of delivery.\n", source="return-policy.md")
        assert sources(db_url) == 0
    finally:
        postgresql.rollback()
    assert cli.json("ingest", doc)["accepted"]
    assert sources(db_url) == 1


@pytest.mark.robustness
@pytest.mark.slow
def test_statement_and_idle_transaction_timeouts_are_clear_errors(db_url: str, monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    monkeypatch.setenv("BELIEFDB_STATEMENT_TIMEOUT", "0.2")
    monkeypatch.setenv("BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT", "0.3")
    with Database(db_url) as db:
        with pytest.raises(errors.DatabaseUnavailable) as caught:
            db.scalar("select pg_sleep(2)")
        assert "statement timeout" in caught.value.message and "BELIEFDB_STATEMENT_TIMEOUT" in caught.value.message
        with pytest.raises(errors.DatabaseUnavailable) as caught, db.transaction() as conn:
            time.sleep(1.5)
            conn.execute("select 1")
        assert "BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT" in caught.value.message
        assert "nothing was changed" in caught.value.message
        assert db.scalar("select 1") == 1  # the pool replaced the session the server ended


@pytest.mark.robustness
def test_a_timeout_names_the_value_in_force_and_who_set_it(db_url: str, postgresql: psycopg.Connection[Any],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A value the DBA set for the role or the database, or the URL's options, wins over BELIEFDB_*'s (on
    purpose), but the error named BELIEFDB_STATEMENT_TIMEOUT (or _LOCK_) all the same: a reader raised a
    variable that was not in force. It names the setting in force, its value and where it came from."""
    role = postgresql.info.user
    try:
        _set_for(postgresql, "alter role {user} in database {database} set statement_timeout = '200ms'")
        with Database(db_url) as db, pytest.raises(errors.DatabaseUnavailable) as caught:
            db.scalar("select pg_sleep(2)")
        assert caught.value.message == (
            f"canceling statement due to statement timeout (statement_timeout 200ms, set for role {role} in this"
            " database, wins over BELIEFDB_STATEMENT_TIMEOUT; nothing was changed: try again)")
        _set_for(postgresql, "alter role {user} in database {database} reset statement_timeout")
        _set_for(postgresql, "alter database {database} set lock_timeout = '300ms'")
        postgresql.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                           " where w.name = 'default' for update of h")
        try:
            with beliefdb.connect(db_url) as bdb, pytest.raises(errors.WorkspaceBusy) as busy:
                bdb.ingest_text("Returns are accepted within 7 days of delivery.\n", source="return-policy.md")
        finally:
            postgresql.rollback()
        assert "gave up waiting after lock_timeout 300ms, set for this database, wins over BELIEFDB_LOCK_TIMEOUT;" \
            in busy.value.message, busy.value.message
        _set_for(postgresql, "alter database {database} reset lock_timeout")
        with Database(make_conninfo(db_url, options="-c statement_timeout=150")) as db, \
                pytest.raises(errors.DatabaseUnavailable) as caught:
            db.scalar("select pg_sleep(2)")
        assert "(statement_timeout 150ms, set by the connection's options (or PGOPTIONS), wins over" \
               " BELIEFDB_STATEMENT_TIMEOUT; nothing was changed" in caught.value.message, caught.value.message
        # (found by review) another memory of the same database opened since, with beliefdb's own value: each
        # says its own (the last one opened named its settings for both)
        with Database(make_conninfo(db_url, options="-c statement_timeout=150")) as db, Database(db_url) as plain:
            plain.scalar("select 1")
            with pytest.raises(errors.DatabaseUnavailable) as caught:
                db.scalar("select pg_sleep(2)")
            assert "statement_timeout 150ms, set by the connection's options" in caught.value.message
            with pytest.raises(errors.DatabaseUnavailable) as caught:
                plain.scalar("set local statement_timeout = 100; select pg_sleep(2)")
            assert "(BELIEFDB_STATEMENT_TIMEOUT; nothing was changed" in caught.value.message, caught.value.message
        monkeypatch.setenv("BELIEFDB_STATEMENT_TIMEOUT", "0.15")
        with Database(db_url) as db, pytest.raises(errors.DatabaseUnavailable) as caught:  # beliefdb's own again
            db.scalar("select pg_sleep(2)")
        assert "statement timeout (BELIEFDB_STATEMENT_TIMEOUT; nothing was changed" in caught.value.message
    finally:
        _set_for(postgresql, "alter role {user} in database {database} reset statement_timeout")
        _set_for(postgresql, "alter database {database} reset lock_timeout")


@pytest.mark.robustness
def test_a_migration_that_cannot_read_the_schema_version_says_why_in_words(
        cli: Cli, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A migration's lock timeout of the URL's options (the caller's own word wins there) ran out reading the
    version table: "cannot read the schema version: (psycopg.errors.LockNotAvailable) canceling statement due to
    lock timeout", a Python class name, and no word of the setting in force. It is said as every timeout is."""
    url = make_conninfo(db_url, options="-c lock_timeout=100")
    postgresql.execute("lock table beliefdb.alembic_version in access exclusive mode")
    try:
        err = cli.error("migrate", "--db", url, code="workspace_busy")
    finally:
        postgresql.rollback()
    assert err["message"].startswith("cannot read the schema version: "), err["message"]
    assert "psycopg" not in err["message"]
    assert "lock_timeout 100ms, set by the connection's options (or PGOPTIONS), wins over BELIEFDB_LOCK_TIMEOUT" \
        in err["message"], err["message"]


# --- a client killed mid-change ----------------------------------------------------------------------


def holds_the_lock(conn: psycopg.Connection[Any]) -> bool:
    """Whether another session holds the default workspace's write lock now."""
    try:
        with conn.transaction():
            conn.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                         " where w.name = 'default' for update of h nowait")
    except psycopg.errors.LockNotAvailable:
        return True
    return False


def state(conn: psycopg.Connection[Any]) -> tuple[int, ...]:
    row = conn.execute("select (select count(*) from beliefdb.source), (select count(*) from beliefdb.source_version),"
                       " (select count(*) from beliefdb.fragment), (select count(*) from beliefdb.belief),"
                       " (select count(*) from beliefdb.audit_event), (select max(seq) from beliefdb.audit_head)"
                       ).fetchone()
    assert row is not None
    return tuple(int(v) for v in row)


def big_document(path: Path, lines: int) -> Path:
    """A document of ``lines`` claims the rule extractor finds, its own (named after the file)."""
    path.write_text("# Settings\n\n" + "\n\n".join(f"{path.stem} {i} limit: {i * 7 % 1000} units"
                                                     for i in range(lines)) + "\n", encoding="utf-8")
    return path


@pytest.mark.robustness
@pytest.mark.slow
def test_a_killed_ingest_releases_the_workspace_lock_at_once(db_url: str, tmp_path: Path, cli: Cli) -> None:
    """SIGKILL of ``beliefdb ingest`` while its statement runs: the server notices the client is gone
    (client_connection_check_interval) and stops the statement, which releases the workspace's write
    lock within seconds; without it the statement ran on for its full length (10-20 s here) holding
    the lock. Nothing of the ingest is stored."""
    cli.json("ingest", big_document(tmp_path / "small.md", 3), "--no-embed")
    doc = big_document(tmp_path / "settings.md", 3000)  # a statement of 15-60 s on 2 busy cores
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")} | {"PYTHONWARNINGS": "ignore"}
    with psycopg.connect(db_url, autocommit=True) as watcher:
        before = state(watcher)
        proc = subprocess.Popen([sys.executable, "-m", "beliefdb", "ingest", str(doc), "--no-embed", "--db", db_url],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while True:
                active = watcher.execute("select count(*) from pg_stat_activity where application_name ="
                                         " 'beliefdb ingest' and state = 'active'").fetchone()
                if active is not None and active[0] >= 1 and holds_the_lock(watcher):
                    break
                assert proc.poll() is None, "the ingest ended before it could be killed"
                assert time.monotonic() < deadline, "the ingest never held the workspace lock"
                time.sleep(0.05)
            time.sleep(0.5)  # well into its statement
            assert holds_the_lock(watcher)
            proc.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            proc.wait()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if proc.stderr is not None:
                proc.stderr.close()
        while holds_the_lock(watcher):
            assert time.monotonic() - killed < 5, "the killed ingest's statement still holds the workspace lock"
            time.sleep(0.05)
        released = time.monotonic() - killed
        while watcher.execute("select from pg_stat_activity where application_name = 'beliefdb ingest'").fetchall():
            assert time.monotonic() - killed < 10, "the killed ingest's sessions are still there"
            time.sleep(0.05)
        assert state(watcher) == before, "the killed ingest left something behind"
    print(f"\nworkspace lock released {released:.2f} s after the kill")
    assert cli.json("audit", "verify")["ok"]
    # and the workspace takes the next writer at once
    assert cli.json("ingest", big_document(tmp_path / "next.md", 2), "--no-embed")["accepted"]


def test_a_call_after_the_servers_connections_were_ended_gets_a_fresh_one(db_url: str) -> None:
    """A long-lived memory (``beliefdb serve``'s, a worker's) whose pooled connections the server ended (the
    database restarted, a DBA's pg_terminate_backend) answered its next calls with "terminating connection
    due to administrator command" (HTTP 503) while the database was back: the pool checks a connection
    before it hands it out, and the call gets a fresh one."""
    with beliefdb.connect(db_url) as bdb, psycopg.connect(db_url, autocommit=True) as admin:
        bdb.database._pool.pool.resize(min_size=2, max_size=4)
        bdb.database._pool.pool.wait()
        assert bdb.beliefs() == []
        pids = [row[0] for row in admin.execute(
            "select pid from pg_stat_activity where datname = current_database() and application_name = 'beliefdb'"
            " and pid <> pg_backend_pid()").fetchall()]
        assert len(pids) >= 2
        for pid in pids:
            admin.execute("select pg_terminate_backend(%s, 10000)", (pid,))
        for _ in range(2):  # each of the pool's connections
            assert bdb.beliefs() == []


def test_every_moment_comes_back_in_utc_whatever_the_servers_time_zone(
        db_url: str, postgresql: psycopg.Connection[Any], cli: Cli) -> None:
    """Moments came back in the database session's time zone: the server's (initdb takes the machine's, a
    DBA's ``alter database ... set timezone``). With Asia/Kathmandu every answer of the CLI, the library,
    HTTP and MCP said +05:45 where the product view said UTC, and a moment before the zone had a standard
    offset came back with local mean time to the second, '1900-01-01T05:21:44+05:41:16', which is not the
    RFC 3339 date-time the HTTP API publishes. Every beliefdb session works in UTC: the same instant is the
    same text at every door, whatever the server's zone (a URL's own options may still ask for another)."""
    postgresql.execute(sql.SQL("alter database {} set timezone = 'Asia/Kathmandu'").format(
        sql.Identifier(postgresql.info.dbname)))
    postgresql.commit()
    text = "Zed lives in Oslo.\n"
    with beliefdb.connect(db_url) as db:
        db.remember("Zed lives in Oslo", "zed", "lives_in", "Oslo", "Zed lives in Oslo.", source="zed.md",
                    text=text, valid_from="1900-01-01T00:00:00Z", valid_to="2026-03-29T01:30:00Z")
        (belief,) = db.beliefs(include_all=True)
        assert belief.valid_time.lower.isoformat() == "1900-01-01T00:00:00+00:00"
        assert belief.valid_time.upper.isoformat() == "2026-03-29T01:30:00+00:00"
        assert belief.recorded_at.utcoffset() is not None and not belief.recorded_at.utcoffset()
    (listed,) = cli.json("beliefs", "--all", "--db", db_url)
    assert listed["valid_time"] == {"from": "1900-01-01T00:00:00+00:00", "to": "2026-03-29T01:30:00+00:00"}
    with connector.connect(db_url) as conn:
        assert str(conn.execute("show timezone").fetchone()[0]) == "UTC"  # type: ignore[index]
