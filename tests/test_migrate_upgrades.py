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
