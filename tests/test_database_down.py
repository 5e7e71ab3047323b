"""The database server stopped under an open memory: every door says so in one line within seconds
(the library a DatabaseUnavailable, the CLI an error line and a non-zero exit, the HTTP server a 503
with the reason), instead of each call waiting the connection pool's 30 s while the pool prints a
warning a second."""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from psycopg_pool.base import AttemptWithBackoff
from test_embedded import initialised_home
from web_pages import HTML

import beliefdb
from beliefdb import api, errors
from beliefdb.db import pooling
from beliefdb.db.server import EmbeddedServer
from beliefdb.interfaces.http import create_app

#: "within seconds": well under the pool's 30 s
QUICK = 10.0
#: the seconds a 503 database_unavailable asks a client to wait (docs/operations.md)
DOWN_RETRY_AFTER = 3


@pytest.fixture
def server(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmbeddedServer, str]]:
    """A server of its own (the suite's is shared), migrated; stopped by the test. Its home is a copy of an
    initialised one (no initdb, no migration: seconds less apiece)."""
    own = initialised_home(tmp_path / "home", tmp_path_factory)
    url = own.start()
    try:
        yield own, url
    finally:
        own.stop()
        shutil.rmtree(own.pgdata, ignore_errors=True)  # (tens of MB; pytest keeps the tmp_path of 3 runs)


def timed(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    """What ``call`` returned, and the seconds it took."""
    started = time.monotonic()
    return call(*args, **kwargs), time.monotonic() - started


def test_a_stopped_database_is_said_in_one_line_within_seconds_at_every_door(
        server: tuple[EmbeddedServer, str], cli_without_db: Cli, caplog: pytest.LogCaptureFixture) -> None:
    own, url = server
    token = api.create_token("default", "alice", url=url).token
    with beliefdb.connect(url, principal="alice") as db, \
            TestClient(create_app(url, mcp=False), raise_server_exceptions=False) as client:
        headers = {"Authorization": f"Bearer {token}"}
        assert db.beliefs() == [] and client.get("/beliefs", headers=headers).status_code == 200
        signed_in = client.post("/signin", data={"token": token, "next": "/review"}, headers=HTML,
                                follow_redirects=False)
        assert signed_in.status_code == 303, signed_in.text
        own.stop()
        caplog.clear()
        with caplog.at_level(logging.WARNING), ThreadPoolExecutor(1) as http:
            # the HTTP server's doors are asked while the library's are: each door waits its own pool's
            # PROBE_AFTER before it asks the server, and the test waits for the slowest, not their sum
            answers = http.submit(lambda: [timed(client.get, "/beliefs", headers=headers),
                                           timed(client.get, "/review", headers=HTML)])
            for _ in range(2):
                started = time.monotonic()
                with pytest.raises(errors.DatabaseUnavailable) as said:
                    db.beliefs()
                assert time.monotonic() - started < QUICK
                assert "cannot connect to the database" in str(said.value) and "\n" not in str(said.value)
            (answer, took), (page, page_took) = answers.result()
            assert took < QUICK and page_took < QUICK
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"] == "database_unavailable"
            assert "cannot connect to the database" in answer.json()["message"]
            # when to try again: past the probe after which a call finds the server back (pooling.PROBE_AFTER)
            assert answer.headers.get("retry-after") == str(DOWN_RETRY_AFTER), answer.headers
            assert DOWN_RETRY_AFTER > pooling.PROBE_AFTER
            # a person's page says so too, and when to try again
            assert page.status_code == 503 and "Memory unavailable" in page.text, page.text
            assert page.headers.get("retry-after") == str(DOWN_RETRY_AFTER), page.headers
        # the pool's own warnings (one a reconnection attempt) are not the user's to read
        assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []
    started = time.monotonic()
    said = cli_without_db.one_line_error("beliefs", "--db", url)
    assert time.monotonic() - started < QUICK and "cannot connect to the database" in said


def test_the_first_call_after_the_database_is_back_is_served_at_once(server: tuple[EmbeddedServer, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """psycopg's pool retries its connection with a backoff that doubles without a ceiling: after 40 s
    down, the first call once the server was back waited 26 s (after a few minutes down, calls failed
    for minutes more). A call that finds the server up while the pool waits out its backoff gets a new
    pool, and so do the calls after it.

    Here the pool's delays grow 16-fold instead of 2-fold (the pool's attempts: at the outage, about 1 s
    later, then about 17 s): the server is back while the pool sleeps 16 s after its second failed attempt,
    as it would after its fifth (1, 3, 7, 15, then 31 s) with psycopg's doubling, 17 s into the outage."""
    monkeypatch.setattr(AttemptWithBackoff, "DELAY_BACKOFF", 16.0)
    own, url = server
    with beliefdb.connect(url) as db:
        assert db.beliefs() == []
        own.stop()
        down = time.monotonic()
        with pytest.raises(errors.DatabaseUnavailable):
            db.beliefs()
        stale = db.database._pool.pool
        deadline = time.monotonic() + 10
        # (its sleep of 16 s has begun: two attempts failed, and the second is the retry ~1 s after the
        # outage, not the two the pool makes at once when it loses its connection)
        while stale.get_stats().get("connections_errors", 0) < 2 or time.monotonic() - down < 1.5:
            assert time.monotonic() < deadline, stale.get_stats()
            time.sleep(0.05)
        assert own.start() == url
        started = time.monotonic()
        assert db.beliefs() == []
        assert time.monotonic() - started < 6.0
        assert db.database._pool.pool is not stale  # (served by a new pool, not the stale one's next attempt)
        started = time.monotonic()
        assert db.beliefs() == []
        assert time.monotonic() - started < 1.0


def test_mcp_over_http_with_the_database_down_is_a_503_before_any_tool(server: tuple[EmbeddedServer, str]) -> None:
    """What README's MCP section says a remote client gets: the bearer token is checked before the MCP message
    is read, and that needs the database, so the whole POST /mcp is HTTP 503 database_unavailable with
    Retry-After (no JSON-RPC answer, no tool error with retry_after: that is stdio's, and a busy workspace's)."""
    own, url = server
    token = api.create_token("default", "alice", url=url).token
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "beliefs", "arguments": {}}}
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    with TestClient(create_app(url), raise_server_exceptions=False) as client:
        own.stop()
        answer = client.post("/mcp", json=call, headers=headers)
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"] == "database_unavailable" and "jsonrpc" not in answer.json()
    assert answer.headers.get("retry-after") == str(DOWN_RETRY_AFTER), answer.headers
