"""Connection pools that come back with the server.

psycopg_pool replaces a connection the server ended, but after an outage it retries its connection
with a backoff that doubles each time and has no ceiling (1, 2, 4, ... 128 s, until its
``reconnect_timeout`` of 5 minutes): a memory whose database was down for 40 s waited 26 s for its
first call after the server was back, and after a few minutes down its calls failed for minutes
more. Here a call that gets no connection within :data:`PROBE_AFTER` asks the server directly: down,
it says so at once (DatabaseUnavailable); up, while the pool failed to connect and is not busy
with other calls, the pool is made anew, and the call and those after it are served at once.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from beliefdb import errors
from beliefdb.db import conninfo

#: how long a call waits for one of the pool's connections before it asks whether the server is there
#: at all (a stopped server: said within seconds, not after the whole wait)
PROBE_AFTER = 2.0
#: how long a call waits in all for a connection while the server is up (every one busy with other calls)
POOL_WAIT = 30.0


class _QuietLostConnections(logging.Filter):
    """What psycopg says of a connection the server ended (pg_terminate_backend, a restart) or a block cut off
    (Ctrl-C): the pool's "discarding closed connection: <psycopg.Connection [BAD] at 0x...>" (it replaces the
    connection), and psycopg's "error ignored terminating <psycopg.Pipeline ...>" or "error ignored in
    rollback" (an error met while the block's own exception was raised); and the pool's warning at each
    failed (re)connection attempt of beliefdb's pool, once a second. The call says what happened in one line
    (its exception: DatabaseUnavailable), so these are not printed before it."""

    SAID = ("discarding closed connection", "discarding broken connection", "error ignored terminating",
            "error ignored in rollback")

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno <= logging.WARNING and isinstance(record.msg, str)
                    and (record.msg.startswith(self.SAID)
                         or record.getMessage().startswith("error connecting in 'beliefdb")))


for _name in ("psycopg.pool", "psycopg", "psycopg.transaction"):
    logging.getLogger(_name).addFilter(_QuietLostConnections())


def opened_here(pid: int) -> None:
    """InvalidInput unless this is the process ``pid`` (where a memory was opened: not a child of fork)."""
    if os.getpid() != pid:
        raise errors.InvalidInput(
            "this memory was opened in another process (before a fork): open it again in this one with"
            " beliefdb.connect(), or start processes with multiprocessing's spawn or forkserver method")


def _handing(first: psycopg.Connection[Any]) -> type[psycopg.Connection[Any]]:
    """A connection class whose first ``connect`` hands over ``first``, a connection already open (the one its
    memory looked its workspace up on), and whose later ones connect. A new backend reads the catalogs and
    compiles beliefdb's functions anew: opening a memory took ~28 ms with a connection of its own for the
    look-up, a second server process started cold, and its first call ~10 ms more."""
    handed = [first]

    class Handed(psycopg.Connection[Any]):
        @classmethod
        def connect(cls, *args: Any, **kwargs: Any) -> Any:
            return handed.pop() if handed else super().connect(*args, **kwargs)

    return Handed


class Pool:
    """A psycopg ``ConnectionPool`` (``min_size`` 1) that is made anew when it is waiting out its
    reconnection backoff while the server answers. ``probe(url)`` asks the server; ``kwargs`` are the
    connections' connection arguments."""

    def __init__(self, url: str, *, max_size: int, configure: Callable[[psycopg.Connection[Any]], None],
                 name: str, kwargs: dict[str, Any], probe: Callable[[str], None],
                 first: psycopg.Connection[Any] | None = None) -> None:
        self.url = url
        self._options: dict[str, Any] = {"min_size": 1, "max_size": max_size, "configure": configure,
                                         "open": False, "check": ConnectionPool.check_connection,
                                         "kwargs": kwargs, "name": name}
        self._probe = probe
        self._lock = threading.Lock()
        self._held = 0
        self._closed = False
        self._pid = os.getpid()
        self._pool = self._opened(first)

    def _opened(self, first: psycopg.Connection[Any] | None = None) -> ConnectionPool:
        options = self._options if first is None else {**self._options, "connection_class": _handing(first)}
        pool: ConnectionPool = ConnectionPool(self.url, **options)
        try:
            pool.open(wait=True, timeout=10)
        except Exception as exc:
            pool.close()
            raise errors.DatabaseUnavailable(f"cannot open a connection pool: {conninfo.masked(str(exc))}") from exc
        return pool

    @property
    def pool(self) -> ConnectionPool:
        """The psycopg pool in use now."""
        return self._pool

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def max_size(self) -> int:
        return self._pool.max_size

    def get_stats(self) -> dict[str, int]:
        return self._pool.get_stats()

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """One of the pool's connections, as ``ConnectionPool.connection()`` gives it."""
        pool, conn = self._get()
        with self._lock:
            self._held += 1
        try:
            with conn:
                yield conn
        finally:
            with self._lock:
                self._held -= 1
            pool.putconn(conn)

    def _get(self) -> tuple[ConnectionPool, psycopg.Connection[Any]]:
        # a child of fork holds copies of the parent's connections (their sockets shared with it) and none
        # of the pool's threads: it would hang, or speak on the parent's socket
        opened_here(self._pid)
        pool = self._pool
        try:
            return pool, pool.getconn(timeout=PROBE_AFTER)
        except PoolTimeout:
            self._probe(self.url)
            pool = self._renewed(pool)
        except PoolClosed:
            if self._closed or self._pool is pool:
                raise
            pool = self._pool
        try:
            try:
                return pool, pool.getconn(timeout=POOL_WAIT - PROBE_AFTER)
            except PoolClosed:
                # (another call made the pool anew while this one waited on the one before)
                if self._closed or self._pool is pool:
                    raise
                return self._pool, self._pool.getconn(timeout=POOL_WAIT - PROBE_AFTER)
        except PoolTimeout:
            # (the server answered the probe: it is up, and every connection is another call's)
            size = self._pool.max_size
            raise errors.DatabaseUnavailable(
                f"the database is up, but all {size} connection{'' if size == 1 else 's'} of this memory stayed in"
                f" use by other calls for {POOL_WAIT:.0f} s (max_size {size}): open it with a larger max_size, or"
                " make fewer calls at once; nothing was changed: try again") from None

    def _renewed(self, stale: ConnectionPool) -> ConnectionPool:
        """The pool to wait on, once the server answered: a new one when ``stale`` failed to connect and
        calls hold fewer of its connections than it may open (it is waiting out its backoff, not busy)."""
        with self._lock:
            if self._closed or self._pool is not stale:
                return self._pool
            if self._held >= stale.max_size or not stale.get_stats().get("connections_errors", 0):
                return stale
            fresh = self._opened()
            self._pool = fresh
        # (closing waits for the stale pool's threads, one of them asleep in its backoff: not this call)
        threading.Thread(target=stale.close, kwargs={"timeout": 5.0}, name="beliefdb-pool-close",
                         daemon=True).start()
        return fresh

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._pool.close()
