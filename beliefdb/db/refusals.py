"""Database errors beliefdb says in its own words, whatever statement met them (the rest of the mapping is
:func:`beliefdb.db.connector.translate`'s): a write to a database that takes none (SQLSTATE 25006), and a
schema that is not this beliefdb's (a function, column or type of beliefdb's missing: 42883, 42703, 42704,
42P01), as after a package upgrade before ``beliefdb migrate``."""

from __future__ import annotations

import psycopg

from beliefdb import errors

#: an undefined function, type or table named in beliefdb's schema is its schema's (another's, pgvector's, is not)
UNDEFINED_NAMED = ("42883", "42704", "42P01")
#: an undefined column (or a record's field): beliefdb's statements and functions name only its own
UNDEFINED_COLUMN = "42703"

READ_ONLY = "the database is read-only (a standby, or default_transaction_read_only): nothing was changed"


def refusal(exc: psycopg.Error) -> errors.BeliefDBError | None:
    """beliefdb's exception for ``exc``, when this module says it; None otherwise."""
    if exc.sqlstate == "25006":
        # read_only_sql_transaction: a hot standby, or default_transaction_read_only (a database's, a role's,
        # the connection string's): reads process no expiry there (beliefdb.expire_before_read), writes fail;
        # a read only a write could answer (beliefdb.impact's simulation) says so in its own words
        said = exc.diag.message_primary if exc.diag else None
        own = said is not None and not said.startswith("cannot execute")
        return errors.DatabaseReadOnly(said if own and said else READ_ONLY)
    if exc.sqlstate == UNDEFINED_COLUMN or (exc.sqlstate in UNDEFINED_NAMED and _names_beliefdb(exc)):
        return schema_mismatch(exc)
    return None


def _names_beliefdb(exc: psycopg.Error) -> bool:
    """Whether the error names one of beliefdb's objects, or arose in one of its functions."""
    said = " ".join(filter(None, (exc.diag.message_primary, exc.diag.context))) if exc.diag else str(exc)
    return "beliefdb." in said


def schema_mismatch(exc: psycopg.Error) -> errors.SchemaMismatch:
    """What a database migrated by another beliefdb says: which object is missing, and what mends it."""
    missing = (exc.diag.message_primary if exc.diag and exc.diag.message_primary else str(exc)).splitlines()[0]
    migrate = errors.spelled("beliefdb.api.migrate(url)", "'beliefdb migrate'", http="'beliefdb migrate'",
                             mcp="'beliefdb migrate'")
    return errors.SchemaMismatch(
        f"this database's beliefdb schema is not this beliefdb's ({missing}): run {migrate} as the schema's owner"
        " (or use the newer beliefdb that migrated it); nothing was changed")
