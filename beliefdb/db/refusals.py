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

READ_ONLY = ("the database session is read-only (default_transaction_read_only or a standby): this call writes;"
             " nothing was changed")
#: what to do about it (beliefdb._lock_workspace says the same to a caller in psql)
READ_ONLY_HINT = ("on a standby, call the primary; elsewhere default_transaction_read_only is on for this session (the"
                  " role's, the database's or the connection's): set default_transaction_read_only = off in it, or"
                  " alter role ... reset default_transaction_read_only")


def refusal(exc: psycopg.Error) -> errors.BeliefDBError | None:
    """beliefdb's exception for ``exc``, when this module says it; None otherwise."""
    if exc.sqlstate == "25006":
        # read_only_sql_transaction: a hot standby, or default_transaction_read_only (a database's, a role's,
        # the connection string's): reads process no expiry there (beliefdb.expire_before_read), writes fail;
        # a read only a write could answer (beliefdb.impact's simulation) says so in its own words
        # (PostgreSQL's own "cannot execute SELECT FOR UPDATE in a read-only transaction" names a statement of
        # beliefdb's, not what the caller did)
        said = exc.diag.message_primary if exc.diag else None
        if not said or said.startswith("cannot execute"):
            return errors.DatabaseReadOnly(f"{READ_ONLY} (hint: {READ_ONLY_HINT})")
        hint = " ".join(exc.diag.message_hint.split()) if exc.diag.message_hint else ""
        return errors.DatabaseReadOnly(f"{said} (hint: {hint})" if hint else said)
    if exc.sqlstate == UNDEFINED_COLUMN or (exc.sqlstate in UNDEFINED_NAMED and _names_beliefdb(exc)):
        return schema_mismatch(exc)
    if exc.sqlstate == "54000" and "index row" in ((exc.diag.message_primary or "") if exc.diag else ""):
        return too_long_to_index(exc)
    return None


#: what an index of beliefdb's keeps unique or finds, as a caller names it
INDEXED = {"belief_subject_attribute": "the subject and attribute", "source_workspace_id_name_key": "the source name",
           "workspace_name_key": "the workspace name"}


def too_long_to_index(exc: psycopg.Error) -> errors.InvalidInput:
    """A value longer than an index entry may be (a btree entry holds ~2,700 bytes): which, in the caller's
    words, not the index's advice to a DBA (PostgreSQL's "Consider a function index of an MD5 hash")."""
    said = (exc.diag.message_primary or "") if exc.diag else ""
    index = next((name for name in INDEXED if f'"{name}"' in said), None)
    if index is None and "idempotency_key" in said:
        index = "idempotency_key"
    what = INDEXED.get(index or "", "the idempotency key" if index else "a name or key (a source name, subject,"
                                                                        " attribute or idempotency key)")
    return errors.InvalidInput(f"too large: {what} is too long to be stored (keep it under 2,000 bytes):"
                               " nothing was changed")


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
