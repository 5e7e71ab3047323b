"""Upgrading a database that holds data, and the states an installation can be found in: a schema
from a newer beliefdb, a migration under way in another session. What a team that adopted beliefdb
meets when it installs the next release."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from beliefdb.db import migrate
from beliefdb.db.bootstrap import ensure_migrated
from beliefdb.errors import MigrationFailed
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
