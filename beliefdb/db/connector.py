"""The one place that talks to PostgreSQL: the pool, workspace binding, transactions, and the
mapping of database errors to beliefdb's exceptions. (Which database, and starting or migrating it,
is :mod:`beliefdb.db.bootstrap`'s.)

Every connection acts as the application role ``beliefdb_app`` and is bound to one
workspace, so row-level security, not Python, keeps workspaces apart. Every connection beliefdb
opens (:func:`connect`) is named after the process in ``pg_stat_activity`` (``application_name``:
``beliefdb``, or the command, e.g. ``beliefdb ingest``) and carries beliefdb's session settings:
timeouts, so a client that dies or hangs does not hold the workspace's write lock for long.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, LiteralString

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.rows import kwargs_row
from psycopg.types import TypeInfo

from beliefdb import errors
from beliefdb.db import composites, conninfo, refusals, timeouts
from beliefdb.db.pooling import Pool
from beliefdb.db.queries import Q
from beliefdb.db.timeouts import apply as _apply
from beliefdb.db.timeouts import session_settings

APP_ROLE = "beliefdb_app"
DEFAULT_WORKSPACE = "default"

# the application_name of this process's sessions (a URL's own application_name wins)
_session_name = "beliefdb"

def name_sessions(name: str) -> None:
    """Name this process's database sessions (``application_name``), e.g. ``beliefdb ingest``."""
    global _session_name
    _session_name = name


def session_name() -> str:
    """This process's ``application_name`` (:func:`name_sessions`)."""
    return _session_name


def connect(url: str, *, autocommit: bool = False, migration: bool = False,
            timeout: int | None = None) -> psycopg.Connection[Any]:
    """A connection with beliefdb's name and session settings (:func:`session_settings`); with ``timeout``
    (seconds), DatabaseUnavailable when the server cannot be reached within it, as :func:`probe` says."""
    values = session_settings(migration=migration)
    if timeout is None:
        conn = psycopg.connect(url, autocommit=autocommit, fallback_application_name=_session_name)
    else:
        try:
            conn = psycopg.connect(url, autocommit=autocommit, connect_timeout=timeout,
                                   fallback_application_name=_session_name)
        except psycopg.Error as exc:
            raise unreachable(exc) from exc
    try:
        _apply(conn, values, migration=migration)
    except BaseException:
        conn.close()
        raise
    return conn


# the setting behind each timeout PostgreSQL reports
_TIMEOUTS = (("statement timeout", "statement_timeout"),
             ("idle-in-transaction timeout", "idle_in_transaction_session_timeout"))


def sql_detail(exc: BaseException) -> dict[str, Any]:
    """The JSON object beliefdb's SQL puts in an error's DETAIL for a program to read (``{"waited_for":
    "analyze"}``, ``{"needs": "winner", ...}``), of a database error or of the one a beliefdb exception
    was translated from; {} for any other."""
    cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    detail = cause.diag.message_detail if isinstance(cause, psycopg.Error) and cause.diag else None
    if not detail or not detail.startswith("{"):
        return {}
    try:
        found = json.loads(detail)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def translate(exc: psycopg.Error) -> errors.BeliefDBError:
    """A beliefdb exception for a database error, with a one-line message that keeps the server's
    hint (what to do about it): ``message (hint: ...)``."""
    message = conninfo.masked(
        (exc.diag.message_primary if exc.diag and exc.diag.message_primary else str(exc)).splitlines()[0])
    hint = " ".join(exc.diag.message_hint.split()) if exc.diag and exc.diag.message_hint else ""
    if hint:
        message = f"{message} (hint: {hint})"
    sqlstate = exc.sqlstate or ""
    own = errors.from_error_code(sqlstate, message, sql_detail(exc)) or refusals.refusal(exc)  # (beliefdb.error_code)
    if own is not None:
        return own
    if isinstance(exc, psycopg.OperationalError) and not sqlstate:
        return errors.DatabaseUnavailable(message)
    if isinstance(exc, psycopg.DataError) and not sqlstate:
        # psycopg refused to send the caller's value (a NUL character in text): nothing was sent
        return errors.InvalidInput(message)
    if sqlstate == "22P05" and exc.diag and "\\u0000" in (exc.diag.message_detail or ""):
        # the same NUL, sent inside JSON (a claim's fields): said as psycopg says it of plain text
        return errors.InvalidInput("PostgreSQL text fields cannot contain NUL (0x00) bytes")
    if sqlstate.startswith("08") or sqlstate.startswith("57P"):
        return errors.DatabaseUnavailable(message)
    if sqlstate == "55P03" and sql_detail(exc).get("waited_for") == "analyze":
        # one session at a time gathers a table's statistics, whatever its workspace (every ANALYZE of
        # beliefdb's tables says so in the error's detail)
        return errors.StatisticsBusy(
            "another session is gathering planner statistics of a table this change needs (a forget gathers"
            " them before it commits, rule 14; a bulk ingest after it, in any workspace): gave up waiting after"
            f" {timeouts.named('lock_timeout')}; nothing was changed: try again")
    if sqlstate == "55P03":
        # lock_timeout: in practice the workspace's write lock, which every writer takes first
        return errors.WorkspaceBusy(
            "another writer holds this workspace (or a migration holds a table): gave up waiting after"
            f" {timeouts.named('lock_timeout')}; nothing was changed: try again")
    if sqlstate.startswith("40") or sqlstate in ("57014", "25P03"):
        # a deadlock, a serialization failure, a statement timeout, a transaction left idle too long:
        # nothing was changed, try again
        hint = next((f"{timeouts.named(setting)}; " for words, setting in _TIMEOUTS if words in message), "")
        return errors.DatabaseUnavailable(f"{message} ({hint}nothing was changed: try again)")
    if sqlstate.startswith("54"):
        # a program limit, e.g. a name longer than an index row may hold
        return errors.InvalidInput(f"too large: {message}")
    if sqlstate == "42501" and message.startswith("permission denied for schema beliefdb"):
        # beliefdb's tables without their grants: a migration that stopped before the head (migrate --sql
        # --to), or a restore without beliefdb's roles; migrate re-applies every grant
        return errors.DatabaseUnavailable(
            f"{message}: beliefdb's schema here lacks its grants (a migration stopped before the head, or a"
            " restore without beliefdb's roles): run 'beliefdb migrate' as the schema's owner")
    if sqlstate == "42501":
        return errors.PermissionDenied(message)
    if sqlstate.startswith("23"):
        return errors.IntegrityViolation(message)
    if sqlstate.startswith("22"):
        return errors.InvalidInput(message)
    return errors.BeliefDBError(message)


@contextmanager
def translated_errors() -> Iterator[None]:
    try:
        yield
    except psycopg.Error as exc:
        raise translate(exc) from exc
    except UnicodeEncodeError as exc:
        # a lone surrogate in a library argument: psycopg cannot send it, and nothing was sent
        raise errors.InvalidInput(f"text that is not valid UTF-8 (a lone surrogate at position {exc.start})"
                                  " cannot be stored") from exc


#: seconds to wait for the server before saying it cannot be reached
PROBE_TIMEOUT = 5


def probe(url: str, timeout: int = PROBE_TIMEOUT) -> None:
    """Fail fast with DatabaseUnavailable when the server cannot be reached."""
    try:
        with psycopg.connect(url, connect_timeout=timeout, fallback_application_name=_session_name):
            pass
    except psycopg.Error as exc:
        raise unreachable(exc) from exc


def unreachable(exc: psycopg.Error) -> errors.DatabaseUnavailable:
    """What a connection that could not be made says: its first line (a server's remote caller is not told
    where the database is, :func:`errors.for_remote`: the server's log says it)."""
    said = f"cannot connect to the database: {conninfo.masked(str(exc).strip().splitlines()[0])}"
    if errors.for_remote():
        logging.getLogger("beliefdb.serve").warning("%s", said)
        said = "cannot connect to the database (the server's log says why): nothing was changed"
    return errors.DatabaseUnavailable(said)


@contextmanager
def app_connection(url: str, workspace_id: str | None = None,
                   principal: str | None = None) -> Iterator[psycopg.Connection[Any]]:
    """One connection acting as the application role, outside any pool (for workspace admin)."""
    with translated_errors(), connect(url, timeout=PROBE_TIMEOUT) as conn:
        _bind(conn, workspace_id, principal)
        row = conn.execute(Q.beliefdb_installed).fetchone()
        if row is None or row[0] is None:
            raise not_installed()
        yield conn


def _bind(conn: psycopg.Connection[Any], workspace_id: str | None, principal: str | None) -> None:
    with translated_errors():
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id or "",))
        conn.execute("select set_config('beliefdb.principal', %s, false)", (principal or "",))
        try:
            conn.execute(sql.SQL("set role {}").format(sql.Identifier(APP_ROLE)))
        except pg_errors.InsufficientPrivilege as exc:
            raise errors.PermissionDenied(
                f"this database user cannot act as {APP_ROLE}: run 'beliefdb migrate' as the schema owner "
                f"and 'grant {APP_ROLE} to <user>'") from exc
        except pg_errors.InvalidParameterValue as exc:
            raise not_installed() from exc


def app_pool(url: str, *, max_size: int = 2) -> Pool:
    """A pool of connections acting as the application role and bound to no workspace: for what
    comes before one is bound, such as asking who a bearer token speaks for."""
    probe(url)
    values = session_settings()

    def configure(conn: psycopg.Connection[Any]) -> None:
        _apply(conn, values)
        _bind(conn, None, None)
        conn.commit()

    return Pool(url, max_size=max_size, configure=configure, name="beliefdb-unbound",
                kwargs={"fallback_application_name": _session_name}, probe=_probe_quickly)


def _probe_quickly(url: str) -> None:
    probe(url, timeout=2)


def not_installed() -> errors.DatabaseUnavailable:
    """The refusal of a database beliefdb was never migrated into, naming what installs it."""
    return errors.DatabaseUnavailable("beliefdb is not installed in this database: run "
                                      + errors.spelled("beliefdb.api.migrate(url)", "'beliefdb migrate'"))

class Database:
    """A pool of connections acting as ``beliefdb_app``, bound to one workspace."""

    def __init__(self, url: str, workspace: str | None = None, *, principal: str | None = None,
                 max_size: int = 4) -> None:
        if max_size < 1:
            raise errors.InvalidInput(f"{errors.argument('max_size')} must be at least 1, not {max_size}")
        # (an empty name acted as the database's user, unnoticed: a token's principal may not be empty either)
        if principal is not None and not principal.strip():
            raise errors.InvalidInput(f"{errors.argument('principal', option='--as')} is empty: name who is acting,"
                                      " or leave it out to act as the database's user")
        self.url = url
        self.principal = principal
        self._session = session_settings()
        looked_up = self._lookup_workspace(workspace)
        self.workspace_id, self.workspace_name, self._vector, self._composites, first = looked_up
        # each connection is checked as it is handed out (one round trip): one the server ended since (a
        # restart, pg_terminate_backend) is replaced, instead of failing the call that gets it; the first is
        # the look-up's own (a server process of its own would start cold)
        try:
            self._pool = Pool(url, max_size=max_size, configure=self._configure, name="beliefdb",
                              kwargs={"fallback_application_name": _session_name}, probe=_probe_quickly, first=first)
        except BaseException:
            first.close()
            raise

    @property
    def max_size(self) -> int:
        """The most connections the pool opens: as many calls as run at once."""
        return self._pool.max_size

    @property
    def in_use(self) -> int:
        """How many of the pool's connections a call holds now (or is still opening)."""
        stats = self._pool.get_stats()
        return stats.get("pool_size", 0) - stats.get("pool_available", 0)

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        _apply(conn, self._session)
        _bind(conn, self.workspace_id, self.principal)
        if self._vector is not None:
            # pgvector's adapter: Vector parameters and results travel in binary, not as text
            composites.register_vector(conn, self._vector)
        # the API's composites that come nested in its results load as beliefdb's models
        composites.register(conn, self._composites)
        conn.commit()

    def _lookup_workspace(self, name: str | None
                          ) -> tuple[str, str, TypeInfo | None, composites.Composites, psycopg.Connection[Any]]:
        """The workspace's id and name (None: the one an agent's login is bound to, else the default),
        pgvector's type wherever its extension lives, the API's nested composite types (looked up once), and the
        connection they were looked up on, open, for the pool."""
        # (the first connection: an unreachable server is said at once, as probe says it, without a
        # connection of its own first)
        with translated_errors():
            conn = connect(self.url, autocommit=True, timeout=PROBE_TIMEOUT)
        try:
            return self._looked_up(conn, name)
        except BaseException:
            conn.close()
            raise

    def _looked_up(self, conn: psycopg.Connection[Any], name: str | None
                   ) -> tuple[str, str, TypeInfo | None, composites.Composites, psycopg.Connection[Any]]:
        with translated_errors():
            _bind(conn, None, self.principal)
            try:
                bound = conn.execute(Q.bound_workspace_name).fetchone()
            except pg_errors.UndefinedTable as exc:
                raise not_installed() from exc
            if name is None:
                name = DEFAULT_WORKSPACE if bound is None else str(bound[0])
            row = conn.execute(Q.workspace_id_by_name, (name,)).fetchone()
            vector = conn.execute(Q.vector_type).fetchone()
            info = TypeInfo.fetch(conn, vector[0]) if vector is not None else None
            nested = composites.fetch(conn)
        if row is None and bound is not None:  # (an agent's login sees only its own workspace)
            raise errors.PermissionDenied(f"login {bound[1]} is bound to workspace '{bound[0]}': it cannot act in"
                                          f" another ('{name}')")
        if row is None:
            raise errors.UnknownWorkspace(
                f"unknown workspace '{name}' (create it with: "
                + errors.spelled(f"beliefdb.api.create_workspace({name!r})", f"beliefdb workspace create {name}") + ")")
        conn.autocommit = False  # (as the pool's connections are)
        return str(row[0]), name, info, nested, conn

    @contextmanager
    def transaction(self, conn: psycopg.Connection[Any] | None = None, *,
                    snapshot: bool = False) -> Iterator[psycopg.Connection[Any]]:
        """One transaction; with ``conn``, a savepoint inside the caller's transaction. ``snapshot``: one snapshot
        for all its reads (repeatable read: at read committed a forget between ask's reads failed it).

        Each transaction first processes what expired since the last change (``beliefdb.expire_before_read``, rule
        16: an index probe when nothing did), so no reader sees a belief current past its valid time, or what rested
        on it still holding (nothing when the session fixed its clock: a read writes nothing, rule 13). Committed
        on its own when it took the workspace's write lock: a read would keep every writer waiting until it ended."""
        if conn is not None:
            if snapshot:  # (a savepoint has its transaction's snapshot)
                raise ValueError("a snapshot is a transaction of its own, not a savepoint in a caller's")
            with translated_errors(), conn.transaction():
                yield conn
            return
        if self._pool.closed:  # (psycopg_pool says "the pool 'beliefdb' is already closed")
            raise errors.DatabaseUnavailable("this BeliefDB is closed (its with block ended, or close() was called):"
                                             " open another")
        with translated_errors(), self._pool.connection() as conn:
            timeouts.using(conn)
            with conn.transaction():
                try:
                    locked = conn.execute(Q.expire_first).fetchone()
                except pg_errors.LockNotAvailable as exc:
                    # (a read waits too: what expired stops being current before anything is read)
                    raise errors.WorkspaceBusy(
                        "another writer holds this workspace, and beliefs whose valid time has ended must stop"
                        " being current before anything is read or written: gave up waiting after"
                        f" {timeouts.named('lock_timeout')}; nothing was changed: try again") from exc
                if (locked is None or not locked[0]) and not snapshot:
                    yield conn
                    return
            # (set as it begins; the expiries before ran at read committed, where a writer's commit is no
            if snapshot:  # serialization failure of their lock)
                conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            try:
                with conn.transaction():
                    yield conn
            finally:
                if snapshot:  # (a broken connection leaves the pool anyway)
                    with suppress(psycopg.Error):
                        conn.isolation_level = None

    def fetch_all(self, cls: Callable[..., Any], query: LiteralString, params: Any = None,
                  conn: psycopg.Connection[Any] | None = None) -> list[Any]:
        """Every row, each as ``cls(**columns)`` (a model, or a function building one)."""
        with self.transaction(conn) as c, c.cursor(row_factory=kwargs_row(cls)) as cur:
            cur.execute(query, params)
            return cur.fetchall()

    def fetch_one(self, cls: Callable[..., Any], query: LiteralString, params: Any = None,
                  conn: psycopg.Connection[Any] | None = None) -> Any:
        """The first row as ``cls(**columns)``, or None; ``select * from beliefdb.<f>(...)`` reads the
        result of one of the API's functions (a composite type: its fields are the columns)."""
        rows = self.fetch_all(cls, query, params, conn)
        return rows[0] if rows else None

    def scalar(self, query: LiteralString, params: Any = None, conn: psycopg.Connection[Any] | None = None) -> Any:
        with self.transaction(conn) as c:
            row = c.execute(query, params).fetchone()
            return row[0] if row else None

    def transaction_status(self, xid: str) -> str | None:
        """``pg_xact_status`` of transaction ``xid`` ('committed', 'aborted', 'in progress'; None: too old), read
        on one of the pool's connections without processing expiries first (:meth:`transaction` does): asked while
        a Ctrl-C is handled, it must not wait on the workspace's lock."""
        with translated_errors(), self._pool.connection() as conn:
            row = conn.execute(Q.transaction_status, (xid,)).fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
