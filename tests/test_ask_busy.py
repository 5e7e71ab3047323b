"""``ask`` while another writer holds the workspace's lock (and a belief's valid time has ended, which every
transaction processes first, under that lock, rule 16) answered memory unavailable with the lock wait's
words only: the servers turned that into ``database_unavailable`` with a retry after 3 s, where every other
call says ``workspace_busy``, 1 s. The answer keeps the error's code (``AskResult.error``), and every door
says ``workspace_busy`` as for other calls: POST /ask 503 with Retry-After 1, the MCP tool's error with
``retry_after`` 1, the CLI's ``--json`` answer (status memory_unavailable, exit 1) with the code."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer

import beliefdb
from beliefdb.interfaces.http import create_app
from beliefdb.interfaces.mcp import build

TEXT = "Returns are accepted within 7 days of delivery.\n"


@contextmanager
def busy(db_url: str, postgresql: psycopg.Connection[Any]) -> Iterator[None]:
    """A belief whose valid time has just ended (so the next transaction must take the lock to expire it),
    and the workspace's lock held by another session for the block."""
    ends = datetime.now(UTC) + timedelta(seconds=1)
    with beliefdb.connect(db_url, principal="alice") as db:
        db.remember("Returns are accepted within 7 days.", "return_policy", "window", "7 days",
                    "Returns are accepted within 7 days", source="holiday.md", text=TEXT, valid_to=ends.isoformat())
    time.sleep(max(0.0, (ends - datetime.now(UTC)).total_seconds()) + 0.2)
    postgresql.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                       " where w.name = 'default' for update of h")
    try:
        yield
    finally:
        postgresql.rollback()


def test_ask_in_a_busy_workspace_is_workspace_busy_at_every_door(
        db_url: str, postgresql: psycopg.Connection[Any], cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    token = bearer(db_url)  # (a token is written: before the lock is taken)
    with busy(db_url, postgresql), beliefdb.connect(db_url, principal="alice") as db, \
            TestClient(create_app(db_url, mcp=False)) as http:
        asked = db.ask("how many days for returns?")
        assert asked.status == "memory_unavailable" and asked.error == "workspace_busy", asked

        answer = http.post("/ask", json={"question": "how many days for returns?"}, headers=token)
        assert answer.status_code == 503 and answer.json()["error"] == "workspace_busy", answer.text
        assert answer.headers["Retry-After"] == "1"

        async def run() -> Any:
            async with Client(build(local=db)) as client:
                return await client.call_tool("ask", {"question": "how many days for returns?"})

        result = anyio.run(run)
        said = json.loads(result.content[0].text)
        assert result.is_error and said["error"] == "workspace_busy" and said["retry_after"] == 1, said

        printed = cli.json("ask", "how many days for returns?", env={"BELIEFDB_LOCK_TIMEOUT": "0.5"}, expect=1)
        assert printed["status"] == "memory_unavailable" and printed["error"] == "workspace_busy", printed
    # and once the lock is let go, the same ask answers
    with beliefdb.connect(db_url) as db:
        assert db.ask("how many days for returns?").status == "no_match"  # (the only belief expired)
