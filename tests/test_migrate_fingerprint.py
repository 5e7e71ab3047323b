"""First use re-applies the schema when the package's SQL changed, even without a new revision."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from beliefdb.db import migrate
from beliefdb.db.bootstrap import ensure_migrated


def test_a_changed_package_is_migrated_on_first_use(postgresql: psycopg.Connection[Any], db_url: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert migrate.is_current(db_url)
    # an older package's functions: one is missing and the recorded fingerprint differs
    postgresql.execute("drop function beliefdb.impact(text[])")
    postgresql.execute("comment on table beliefdb.alembic_version is 'beliefdb schema older'")
    postgresql.commit()
    assert not migrate.is_current(db_url)

    ensure_migrated(db_url)

    # (said in one line on stderr: a person upgraded the package and should know the database moved on)
    head = migrate.head_revision()
    assert capsys.readouterr().err == (
        f"note: beliefdb re-applied this beliefdb's functions to the embedded database (revision {head}),"
        " this package's schema (there is no downgrade: docs/operations.md, \"Upgrading\")\n")
    assert migrate.is_current(db_url)
    restored = postgresql.execute("select to_regprocedure('beliefdb.impact(text[])')").fetchone()
    assert restored is not None and restored[0] is not None


def test_an_unchanged_package_does_not_migrate_again(postgresql: psycopg.Connection[Any], db_url: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    before = postgresql.execute("select count(*) from beliefdb.audit_event").fetchone()
    postgresql.execute("drop function beliefdb.impact(text[])")  # not noticed: the fingerprint matches
    postgresql.commit()
    assert ensure_migrated(db_url) is None
    assert capsys.readouterr().err == ""
    missing = postgresql.execute("select to_regprocedure('beliefdb.impact(text[])')").fetchone()
    assert missing == (None,)
    assert postgresql.execute("select count(*) from beliefdb.audit_event").fetchone() == before
