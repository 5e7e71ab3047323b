"""beliefdb's session settings (:mod:`beliefdb.settings`' BELIEFDB_* timeouts), as each session gets
them: a value the connection string's options, or a DBA's ``alter role|database ... set``, chose for the
session wins over beliefdb's own, except in a migration, which has no statement and no lock timeout
whatever the role or the database says."""

from __future__ import annotations

from typing import Any

import psycopg

from beliefdb import settings
from beliefdb.db.queries import Q

# what a migration sets whatever a DBA set for the role or the database (a URL's own options still win)
MIGRATION_FORCED = ("statement_timeout", "lock_timeout")


def _ms(seconds: float) -> str:
    return str(round(seconds * 1000))


def session_settings(*, migration: bool = False) -> dict[str, str]:
    """The server settings every beliefdb session gets (BELIEFDB_* variables, :mod:`beliefdb.settings`).
    A migration waits for locks and runs its statements as long as they take: it rewrites tables,
    and waits behind other migrators."""
    current = settings.load()
    return {
        "statement_timeout": "0" if migration else _ms(current.statement_timeout),
        "lock_timeout": "0" if migration else _ms(current.lock_timeout),
        "idle_in_transaction_session_timeout": _ms(current.idle_in_transaction_timeout),
        # a client that is gone (killed, its host down) is noticed while its statement runs, which
        # then stops and releases its locks, instead of running to the end for nobody
        "client_connection_check_interval": _ms(current.client_check_interval),
    }


def apply(conn: psycopg.Connection[Any], values: dict[str, str], *, migration: bool = False) -> None:
    """Set ``values`` for the session (committed: a later rollback keeps them), except what the
    connection string's own ``options`` (or PGOPTIONS), or a DBA's ``alter role|database ... set``,
    chose: those win (a migration's MIGRATION_FORCED win over the DBA's)."""
    forced = [name for name in MIGRATION_FORCED if name in values] if migration else []
    conn.execute(Q.session_settings, (list(values), list(values.values()), forced))
    if not conn.autocommit:
        conn.commit()
