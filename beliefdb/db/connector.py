"""The one place that talks to PostgreSQL: the pool, workspace binding, transactions (the mapping of
database errors to beliefdb's exceptions is :mod:`beliefdb.db.translation`'s; which database, and starting or
migrating it, :mod:`beliefdb.db.bootstrap`'s).

Every connection acts as the application role ``beliefdb_app`` (an auditor's login, a member of
``beliefdb_reader`` and not of ``beliefdb_app``, as ``beliefdb_reader``: it reads, and the database refuses
its writes) and is bound to one workspace, so row-level security, not Python, keeps workspaces apart.
Every connection beliefdb opens (:func:`connect`) is named after the process in ``pg_stat_activity``
(``application_name``: ``beliefdb``, or the command, e.g. ``beliefdb ingest``) and carries beliefdb's
session settings: timeouts, so a client that dies or hangs does not hold the workspace's write lock for long.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, LiteralString

import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import kwargs_row
from psycopg.types import TypeInfo

from beliefdb import errors
from beliefdb.db import composites, conninfo, timeouts
from beliefdb.db.pooling import Pool
from beliefdb.db.queries import Q
from beliefdb.db.timeouts import apply as _apply
from beliefdb.db.timeouts import session_settings
from beliefdb.db.translation import READER_ROLE as READER_ROLE
from beliefdb.db.translation import reader_refusal
from beliefdb.db.translation import sql_detail as sql_detail
from beliefdb.db.translation import translate as translate
from beliefdb.db.translation import translated_errors as translated_errors

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


def _bind(conn: psycopg.Connection[Any], workspace_id: str | None, principal: str | None) -> bool:
    """Bind the session and act as the application role, or as the reader's role for an auditor's login (a
    member of beliefdb_reader and not of beliefdb_app): True then, and its reads work while the database
    refuses every write (:meth:`Database.transaction` says so)."""
    with translated_errors():
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id or "",))
        conn.execute("select set_config('beliefdb.principal', %s, false)", (principal or "",))
        try:
            row = conn.execute(Q.act_as).fetchone()
        except pg_errors.InsufficientPrivilege as exc:
            login = conn.info.user
            raise errors.PermissionDenied(
                f"login {login} is a member of neither {APP_ROLE}, which the CLI and the library act as, nor"
                f" {READER_ROLE} (an auditor's, which only reads): run 'beliefdb migrate' as the schema owner and"
                f" 'grant {APP_ROLE} to {login}' (or 'grant {READER_ROLE} to {login}' to read only)") from exc
        except pg_errors.InvalidParameterValue as exc:
            raise not_installed() from exc
    return row is not None and row[0] == READER_ROLE


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
    """A pool of connections acting as ``beliefdb_app``, bound to one workspace; acting as ``beliefdb_reader``
    for an auditor's login (``reader``: the login), whose reads work and whose writes the database refuses."""

    reader: str | None = None

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
            # (an auditor's login acts as the reader's role: its login, said in a refusal of a write)
            self.reader = conn.info.user if _bind(conn, None, self.principal) else None
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
        try:
            with self._transaction(conn, snapshot=snapshot) as c:
                yield c
        except errors.PermissionDenied as exc:
            if self.reader is None:
                raise
            said = reader_refusal(exc, self.reader)
            if said is exc:
                raise
            raise said from exc.__cause__

    @contextmanager
    def _transaction(self, conn: psycopg.Connection[Any] | None, *,
                     snapshot: bool) -> Iterator[psycopg.Connection[Any]]:
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
