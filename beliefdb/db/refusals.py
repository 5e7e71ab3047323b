"""Database errors beliefdb says in its own words, whatever statement met them (the rest of the mapping is
:func:`beliefdb.db.connector.translate`'s): a write to a database that takes none (SQLSTATE 25006)."""

from __future__ import annotations

import psycopg

from beliefdb import errors

READ_ONLY = "the database is read-only (a standby, or default_transaction_read_only): nothing was changed"


def refusal(exc: psycopg.Error) -> errors.BeliefDBError | None:
    """beliefdb's exception for ``exc``, when this module says it; None otherwise."""
    if exc.sqlstate == "25006":
        # read_only_sql_transaction: a hot standby, or default_transaction_read_only (a database's, a role's,
        # the connection string's): reads process no expiry there (beliefdb.expire_before_read), writes fail
        return errors.DatabaseReadOnly(READ_ONLY)
    return None
