"""Upgrading a database that holds data, and the states an installation can be found in: a schema
from a newer beliefdb, a migration under way in another session. What a team that adopted beliefdb
meets when it installs the next release."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from alembic import command
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import migrate
from beliefdb.db.bootstrap import ensure_migrated
from beliefdb.db.server import EmbeddedServer
from beliefdb.errors import BeliefDBError, MigrationFailed
from tests.conftest import Cli

HEAD = migrate.revisions()[-1]


def recorded(conn: psycopg.Connection[Any]) -> tuple[Any, ...]:
    row = conn.execute("select (select max(version_num) from beliefdb.alembic_version),"
                       " obj_description('beliefdb.alembic_version'::regclass, 'pg_class')").fetchone()
    assert row is not None
    return tuple(row)


def test_migrate_refuses_a_schema_from_a_newer_beliefdb_in_one_line(
        cli: Cli, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    postgresql.execute("update beliefdb.alembic_version set version_num = '9999'")
    postgresql.execute("comment on table beliefdb.alembic_version is 'beliefdb schema newer'")
    postgresql.commit()

    line = cli.one_line_error("migrate", "--db", db_url)
    assert f"the schema is at revision 9999, which this beliefdb (head {HEAD}) does not know" in line
    assert "beliefdb does not downgrade" in line
    err = cli.error("migrate", "--db", db_url, code="migration_failed")
    assert "revision 9999" in err["message"]
    assert recorded(postgresql) == ("9999", "beliefdb schema newer"), "migrate changed nothing"


def test_first_use_of_a_schema_from_a_newer_beliefdb_says_so(db_url: str,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    """The embedded server migrates on first use: there a newer schema is the same one-line refusal,
    not alembic's traceback, from any command."""
    postgresql.execute("update beliefdb.alembic_version set version_num = '9999'")
    postgresql.execute("comment on table beliefdb.alembic_version is 'beliefdb schema newer'")
    postgresql.commit()
    with pytest.raises(MigrationFailed, match="revision 9999, which this beliefdb"):
        ensure_migrated(db_url)
    assert recorded(postgresql) == ("9999", "beliefdb schema newer")


def functions(conn: psycopg.Connection[Any]) -> dict[str, str]:
    """Every function of schema beliefdb (its signature) with its result type."""
    rows = conn.execute("select p.oid::regprocedure::text, pg_catalog.format_type(p.prorettype, null)"
                        "  from pg_catalog.pg_proc p where p.pronamespace = 'beliefdb'::regnamespace").fetchall()
    return dict(rows)


def test_functions_an_earlier_release_had_are_gone_after_migrate(db_url: str,
                                                                 postgresql: psycopg.Connection[Any]) -> None:
    """The functions of schema beliefdb are this release's sql/: one an earlier release made that this
    one does not (a signature since changed, a function since removed) is dropped by the migration,
    granted to the application role or not. A database migrated at 97d5931 kept two such after every
    later upgrade."""
    release = functions(postgresql)
    postgresql.execute("create function beliefdb._redact_quotes(p_workspace_id uuid, p_sources uuid[],"
                       " p_quotes text[], p_mask text) returns integer language sql as 'select 0'")
    postgresql.execute("create function beliefdb.old_listing(p_limit integer) returns setof text"
                       " language sql as 'select name from beliefdb.workspace limit p_limit'")
    postgresql.execute("grant execute on function beliefdb.old_listing(integer) to beliefdb_app")
    postgresql.commit()

    migrate.upgrade(db_url)

    assert functions(postgresql) == release


def test_a_function_others_depend_on_is_kept(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A function this release does not make, on which a DBA's object depends, stays: the migration
    neither fails nor takes the DBA's object with it."""
    postgresql.execute("create function beliefdb.mine() returns integer language sql immutable as 'select 1'")
    postgresql.execute("create view public.uses_mine as select beliefdb.mine() as one")
    postgresql.commit()

    migrate.upgrade(db_url)

    assert "beliefdb.mine()" in functions(postgresql)
    assert postgresql.execute("select one from public.uses_mine").fetchone() == (1,)


def test_a_function_whose_result_changed_since_an_earlier_release_is_made_again(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """_add_evidence_all returned uuid[] at revisions 0038 and 0039 (a741564 to b6b662d): create or
    replace cannot change a result type, and every upgrade from there stopped ('cannot change return
    type of existing function')."""
    postgresql.execute("drop function beliefdb._add_evidence_all(uuid, uuid[], uuid[])")
    postgresql.execute("create function beliefdb._add_evidence_all(p_workspace_id uuid, p_beliefs uuid[],"
                       " p_fragments uuid[]) returns uuid[] language sql as 'select p_beliefs'")
    postgresql.commit()

    migrate.upgrade(db_url)

    assert functions(postgresql)["beliefdb._add_evidence_all(uuid,uuid[],uuid[])"] == "void"


@pytest.fixture
def at_0041(embedded_server: EmbeddedServer) -> Iterator[str]:
    """A new database migrated to revision 0041 (the tables of the revisions up to it), with a run
    recorded as that revision's tables allow; its URL. Dropped afterwards."""
    admin = embedded_server.status().url
    assert admin is not None
    name = f"at_0041_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    url = make_conninfo(admin, dbname=name)
    try:
        command.upgrade(migrate._config(url), "0041")
        yield url
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def test_a_migration_that_stops_at_its_end_leaves_the_revision_it_found(at_0041: str) -> None:
    """The revisions and the functions applied after them are one transaction: a migration that
    fails on its last file leaves the database at the revision it was, its tables as they were."""
    with psycopg.connect(at_0041, autocommit=True) as conn:
        # what makes the seed (the last file) fail: a check its default workspace does not pass
        conn.execute("alter table beliefdb.workspace add constraint no_default check (name <> 'default') not valid")
    with pytest.raises(BeliefDBError, match="no_default"):
        migrate.upgrade(at_0041)
    with psycopg.connect(at_0041, autocommit=True) as conn:
        assert recorded(conn)[0] == "0041"
        assert conn.execute("select count(*) from pg_catalog.pg_attribute where attrelid = 'beliefdb.run'::regclass"
                            " and attname = 'owner'").fetchone() == (0,), "revision 0042 rolled back"


def test_two_migrations_at_once_take_turns_and_say_what_each_did(at_0041: str) -> None:
    """Two deploys migrate at once: the second waits for the first, then finds the head; it says
    so, and does not claim the upgrade from 0041 the first made."""
    command_line = [sys.executable, "-m", "beliefdb", "migrate", "--json", "--db", at_0041]
    with psycopg.connect(at_0041, autocommit=True) as holder:
        holder.execute("select pg_advisory_lock(hashtext('beliefdb.migrate'))")
        runs = [subprocess.Popen(command_line, stdout=subprocess.PIPE, text=True) for _ in range(2)]
        for _ in range(1200):  # both wait for the lock, in the migration's transaction
            waiting = holder.execute("select count(*) from pg_catalog.pg_locks where locktype = 'advisory'"
                                     " and not granted and database = (select oid from pg_catalog.pg_database"
                                     " where datname = current_database())").fetchone()
            if waiting == (2,):
                break
            time.sleep(0.05)
        holder.execute("select pg_advisory_unlock(hashtext('beliefdb.migrate'))")
        said = [json.loads(run.communicate(timeout=120)[0]) for run in runs]
    assert [run.returncode for run in runs] == [0, 0]
    assert sorted((m["before"], m["after"], m["refreshed"]) for m in said) == [
        ("0041", HEAD, False), (HEAD, HEAD, False)]


@pytest.mark.parametrize("check", [[], ["--check"]])
def test_migrate_by_a_user_of_no_beliefdb_role_says_who_migrates(db_url: str, check: list[str]) -> None:
    """A colleague's login (no member of beliefdb_app) ran migrate on an installed database: it was told
    'beliefdb's schema here lacks its grants (a migration stopped before the head, or a restore without
    beliefdb's roles)', database_unavailable, when the schema has every grant and the user is not its owner."""
    role = f"colleague_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login password {}").format(
            sql.Identifier(role), sql.Literal("a password of the colleague")))
    try:
        url = make_conninfo(db_url, user=role, password="a password of the colleague")
        refused = Cli({"BELIEFDB_URL": url}).error("migrate", *check, code="permission_denied")
        assert refused["message"] == (
            "cannot read the schema version: permission denied for schema beliefdb (hint: migrate, or check, as"
            " the schema's owner: the user that ran the first beliefdb migrate)")
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


def test_check_says_the_schema_is_locked_rather_than_waiting(cli: Cli, db_url: str) -> None:
    """A migration in progress holds the schema's locks until it commits: migrate --check waited for it,
    however long (trial24); it gives up after the lock timeout, saying why, and changes nothing."""
    import time

    with psycopg.connect(db_url) as holder:
        holder.execute("lock table beliefdb.alembic_version in access exclusive mode")
        started = time.monotonic()
        err = cli.error("migrate", "--check", "--db", db_url, code="workspace_busy",
                        env={"BELIEFDB_LOCK_TIMEOUT": "0.5"})
        assert time.monotonic() - started < 30
        assert err["message"].startswith("the schema is locked by another session")
    assert cli.json("migrate", "--check", "--db", db_url)["up_to_date"] is True
