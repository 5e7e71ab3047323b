"""The one place that talks to PostgreSQL: the pool, workspace binding, transactions, and the
mapping of database errors to beliefdb's exceptions. (Which database, and starting or migrating it,
is :mod:`beliefdb.db.bootstrap`'s.)

Every connection acts as the application role ``beliefdb_app`` and is bound to one
workspace, so row-level security, not Python, keeps workspaces apart.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, LiteralString

import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.rows import kwargs_row
from psycopg.types import TypeInfo
from psycopg_pool import ConnectionPool

from beliefdb import errors
from beliefdb.db import composites
from beliefdb.db.queries import Q

APP_ROLE = "beliefdb_app"
DEFAULT_WORKSPACE = "default"

def translate(exc: psycopg.Error) -> errors.BeliefDBError:
    """A beliefdb exception for a database error, with a one-line message that keeps the server's
    hint (what to do about it): ``message (hint: ...)``."""
    message = (exc.diag.message_primary if exc.diag and exc.diag.message_primary else str(exc)).splitlines()[0]
    hint = " ".join(exc.diag.message_hint.split()) if exc.diag and exc.diag.message_hint else ""
    if hint:
        message = f"{message} (hint: {hint})"
    sqlstate = exc.sqlstate or ""
    own = errors.from_error_code(sqlstate, message)  # beliefdb's own codes (beliefdb.error_code)
    if own is not None:
        return own
    if isinstance(exc, psycopg.OperationalError) and not sqlstate:
        return errors.DatabaseUnavailable(message)
    if sqlstate.startswith("08") or sqlstate.startswith("57P"):
        return errors.DatabaseUnavailable(message)
    if sqlstate.startswith("40") or sqlstate == "57014":
        # a deadlock, a serialization failure or a statement timeout: nothing was changed, try again
        return errors.DatabaseUnavailable(f"{message} (nothing was changed: try again)")
    if sqlstate.startswith("54"):
        # a program limit, e.g. a name longer than an index row may hold
        return errors.InvalidInput(f"too large: {message}")
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


def probe(url: str, timeout: int = 5) -> None:
    """Fail fast with DatabaseUnavailable when the server cannot be reached."""
    try:
        with psycopg.connect(url, connect_timeout=timeout):
            pass
    except psycopg.Error as exc:
        raise errors.DatabaseUnavailable(f"cannot connect to the database: {str(exc).strip().splitlines()[0]}") from exc


@contextmanager
def app_connection(url: str, workspace_id: str | None = None,
                   principal: str | None = None) -> Iterator[psycopg.Connection[Any]]:
    """One connection acting as the application role, outside any pool (for workspace admin)."""
    probe(url)
    with translated_errors(), psycopg.connect(url) as conn:
        _bind(conn, workspace_id, principal)
        row = conn.execute(Q.beliefdb_installed).fetchone()
        if row is None or row[0] is None:
            raise errors.DatabaseUnavailable("beliefdb is not installed in this database: run 'beliefdb migrate'")
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
            raise errors.DatabaseUnavailable(
                "beliefdb is not installed in this database: run 'beliefdb migrate'") from exc


def app_pool(url: str, *, max_size: int = 2) -> ConnectionPool:
    """A pool of connections acting as the application role and bound to no workspace: for what
    comes before one is bound, such as asking who a bearer token speaks for."""
    probe(url)

    def configure(conn: psycopg.Connection[Any]) -> None:
        _bind(conn, None, None)
        conn.commit()

    pool = ConnectionPool(url, min_size=1, max_size=max_size, configure=configure, open=False,
                          name="beliefdb-unbound")
    try:
        pool.open(wait=True, timeout=10)
    except Exception as exc:
        pool.close()
        raise errors.DatabaseUnavailable(f"cannot open a connection pool: {exc}") from exc
    return pool


class Database:
    """A pool of connections acting as ``beliefdb_app``, bound to one workspace."""

    def __init__(self, url: str, workspace: str = DEFAULT_WORKSPACE, *, principal: str | None = None,
                 max_size: int = 4) -> None:
        probe(url)
        self.url = url
        self.principal = principal
        self.workspace_name = workspace
        self.workspace_id, self._vector, self._composites = self._lookup_workspace(workspace)
        self._pool = ConnectionPool(url, min_size=1, max_size=max_size, configure=self._configure,
                                    open=False, name="beliefdb")
        try:
            self._pool.open(wait=True, timeout=10)
        except Exception as exc:
            self._pool.close()
            raise errors.DatabaseUnavailable(f"cannot open a connection pool: {exc}") from exc

    @property
    def max_size(self) -> int:
        """The most connections the pool opens: as many calls as run at once."""
        return self._pool.max_size

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        _bind(conn, self.workspace_id, self.principal)
        if self._vector is not None:
            # pgvector's adapter: Vector parameters and results travel in binary, not as text
            register_vector_info(conn, self._vector)
        # the API's composites that come nested in its results load as beliefdb's models
        composites.register(conn, self._composites)
        conn.commit()

    def _lookup_workspace(self, name: str) -> tuple[str, TypeInfo | None, composites.Composites]:
        """The workspace's id, pgvector's type wherever its extension lives, and the API's nested
        composite types (looked up once)."""
        with psycopg.connect(self.url, autocommit=True) as conn:
            _bind(conn, None, self.principal)
            try:
                row = conn.execute(Q.workspace_id_by_name, (name,)).fetchone()
            except pg_errors.UndefinedTable as exc:
                raise errors.DatabaseUnavailable(
                    "beliefdb is not installed in this database: run 'beliefdb migrate'") from exc
            vector = conn.execute(Q.vector_type).fetchone()
            info = TypeInfo.fetch(conn, vector[0]) if vector is not None else None
            nested = composites.fetch(conn)
        if row is None:
            raise errors.UnknownWorkspace(
                f"unknown workspace '{name}' (create it with: beliefdb workspace create {name})")
        return str(row[0]), info, nested

    @contextmanager
    def transaction(self, conn: psycopg.Connection[Any] | None = None) -> Iterator[psycopg.Connection[Any]]:
        """One transaction; with ``conn``, a savepoint inside the caller's transaction.

        Each transaction first processes what expired since the last change (``beliefdb.expire``,
        rule 16: an index probe when nothing did), so no reader sees a belief current past its
        valid time, or what rested on it still holding."""
        if conn is not None:
            with translated_errors(), conn.transaction():
                yield conn
            return
        with translated_errors(), self._pool.connection() as pooled, pooled.transaction():
            pooled.execute(Q.expire)
            yield pooled

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

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
