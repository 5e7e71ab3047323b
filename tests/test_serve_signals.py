"""``beliefdb serve`` stops on SIGTERM within a bound, whatever its clients do. It waited for ever for the
requests it was answering: a client that sent half a request and went quiet, or a call waiting on a lock
in the database, kept it running (as a real process, signalled as a service manager does)."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, LiteralString

import httpx
import psycopg
import pytest
from serving import serve_process

from beliefdb import api
from beliefdb.interfaces.stopping import MARGIN_S

GRACE = 1  # the stop timeout of the servers below (BELIEFDB_SERVE_STOP_TIMEOUT)


@contextmanager
def served(db_url: str, **env: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``beliefdb serve`` with a stop timeout of 1 s as a process on a free loopback port."""
    with serve_process(db_url, log_level="info", env={"BELIEFDB_SERVE_STOP_TIMEOUT": str(GRACE), **env}) as served:
        yield served


def stopped(process: subprocess.Popen[str], within: float) -> tuple[float, int, str]:
    """SIGTERM the server: how long it took to exit, its status and its log (fails past ``within`` s)."""
    began = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        log, _ = process.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        pytest.fail(f"beliefdb serve still ran {within:g} s after SIGTERM")
    return time.monotonic() - began, process.returncode, log


@pytest.mark.slow
def test_sigterm_stops_a_server_a_client_left_half_a_request_with(db_url: str) -> None:
    token = api.create_token("default", "alice", url=db_url).token
    with served(db_url) as (process, base), socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1]))
                                                                        ) as quiet:
        quiet.sendall(f"POST /sources HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                      "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"source\": ".encode())
        time.sleep(0.5)  # the server is reading the body it was promised
        took, status, log = stopped(process, within=GRACE + MARGIN_S + 10)
    assert took < GRACE + 3, (took, log)  # the grace, then the request is cancelled
    # a clean stop: uvicorn raises the signal it caught again once it has shut down, as services expect
    assert status == -signal.SIGTERM and "timeout graceful shutdown exceeded" in log, (status, log)
    assert "Application shutdown complete" in log and "did not stop within" not in log, log


@pytest.mark.slow
def test_sigterm_stops_a_server_whose_call_waits_in_the_database(db_url: str, postgresql: psycopg.Connection[Any]
                                                                 ) -> None:
    """A write waits for a lock the test holds (no lock timeout): past the grace, the process exits with
    the call still waiting, and PostgreSQL rolls it back as its connection goes."""
    token = api.create_token("default", "alice", url=db_url).token
    answered: list[Any] = []
    with served(db_url, BELIEFDB_LOCK_TIMEOUT="0") as (process, base):
        postgresql.execute("lock table beliefdb.source_version in access exclusive mode")

        def post() -> None:
            try:
                answered.append(httpx.post(f"{base}/sources", json={"source": "p.md", "text": "The fee is 10%.\n"},
                                           headers={"Authorization": f"Bearer {token}"}, timeout=60))
            except httpx.TransportError as exc:
                answered.append(exc)

        client = threading.Thread(target=post)
        client.start()
        with psycopg.connect(db_url, autocommit=True) as watch:
            waiting(watch, "the call waits for the lock", "select count(*) from pg_stat_activity where"
                    " application_name = 'beliefdb serve' and wait_event_type = 'Lock'", (1,))
            took, status, log = stopped(process, within=GRACE + MARGIN_S + 10)
            postgresql.rollback()  # the lock goes
            client.join(10)
            assert took < GRACE + 3, (took, log)  # the grace, then the request is cancelled
            assert status == -signal.SIGTERM and "Application shutdown complete" in log, (status, log)
            assert isinstance(answered[0], httpx.TransportError), answered  # no answer: the server went away
            waiting(watch, "the server's sessions ended with it", "select count(*) from pg_stat_activity where"
                    " application_name = 'beliefdb serve'", (0,))
            assert watch.execute("select count(*) from beliefdb.source").fetchone() == (0,)  # rolled back


def waiting(conn: psycopg.Connection[Any], what: str, query: LiteralString, expected: tuple[Any, ...]) -> None:
    """Wait (10 s at most) until ``query`` answers ``expected``."""
    deadline = time.monotonic() + 10
    while conn.execute(query).fetchone() != expected:
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
