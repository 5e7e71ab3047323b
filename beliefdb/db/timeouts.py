"""beliefdb's session settings (:mod:`beliefdb.settings`' BELIEFDB_* timeouts), as each session gets
them: a value the connection string's options, or a DBA's ``alter role|database ... set``, chose for the
session wins over beliefdb's own, except in a migration, which has no statement and no lock timeout
whatever the role or the database says. A timeout's error names the value in force and who set it when it
is not beliefdb's (:func:`named`)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import psycopg

from beliefdb import settings
from beliefdb.db.queries import Q

# what a migration sets whatever a DBA set for the role or the database (a URL's own options still win)
MIGRATION_FORCED = ("statement_timeout", "lock_timeout")
# what every session sets whatever a DBA set (a URL's own options still win): moments come back in UTC, the
# same text at every door whatever the server's time zone (initdb takes the machine's), never a local mean
# time to the second ('+05:41:16', not an RFC 3339 offset) of a zone's early years
ALWAYS_FORCED = ("TimeZone",)
# the variable behind each setting, and where a value that wins over it came from (pg_settings.source)
VARIABLES = {"statement_timeout": "BELIEFDB_STATEMENT_TIMEOUT", "lock_timeout": "BELIEFDB_LOCK_TIMEOUT",
             "idle_in_transaction_session_timeout": "BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT",
             "client_connection_check_interval": "BELIEFDB_CLIENT_CHECK_INTERVAL"}
_SET_BY = {"client": "set by the connection's options (or PGOPTIONS)", "user": "set for role {user}",
           "database": "set for this database", "database user": "set for role {user} in this database"}

# the settings the sessions of each server, database, user and options kept from elsewhere, each as its errors say it
# (a process may hold memories of one database as several users: an owner and agents' logins), and the
# session this thread (or task) used last, whose error is being said (psycopg's errors do not name it)
_kept: dict[tuple[bytes, ...], dict[str, str]] = {}
_last: ContextVar[tuple[bytes, ...]] = ContextVar("beliefdb_last_session", default=())


def _whose(pgconn: Any) -> tuple[bytes, ...] | None:
    """The server, database, user and options of a libpq connection (None when it cannot say: closed)."""
    try:
        return (pgconn.host, pgconn.port, pgconn.db, pgconn.user, pgconn.options)
    except psycopg.Error:
        return None


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
        "TimeZone": "UTC",
    }


def apply(conn: psycopg.Connection[Any], values: dict[str, str], *, migration: bool = False) -> None:
    """Set ``values`` for the session (committed: a later rollback keeps them), except what the
    connection string's own ``options`` (or PGOPTIONS), or a DBA's ``alter role|database ... set``,
    chose: those win (a migration's MIGRATION_FORCED win over the DBA's)."""
    forced = [name for name in ALWAYS_FORCED + (MIGRATION_FORCED if migration else ()) if name in values]
    rows = conn.execute(Q.session_settings, (forced, list(values), list(values.values()))).fetchall()
    if not conn.autocommit:
        conn.commit()
    kept = _kept.setdefault(using(conn), {})
    for name, source, value, user, applied in rows:
        if applied is None and name in VARIABLES:  # kept: the connection's or a DBA's
            kept[name] = f"{name} {value}, {_SET_BY[source].format(user=user)}, wins over {VARIABLES[name]}"
        elif name not in forced:  # (a migration's 0 says nothing of the other sessions)
            kept.pop(name, None)


def using(conn: psycopg.Connection[Any]) -> tuple[bytes, ...]:
    """Note that this thread (or task) uses ``conn`` now: a timeout's error is then said with its settings."""
    whose = _whose(conn.pgconn) or ()
    _last.set(whose)
    return whose


def named(setting: str) -> str:
    """What a timeout's error names: the BELIEFDB_* variable behind ``setting``, or, when the session kept
    another value (the connection's options, a DBA's for the role or the database), that value and where it
    came from: ``statement_timeout 1ms, set for role app_owner in this database, wins over
    BELIEFDB_STATEMENT_TIMEOUT`` (of the server, database, user and options of the session this thread used last)."""
    return _kept.get(_last.get(), {}).get(setting, VARIABLES[setting])
