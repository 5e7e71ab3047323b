"""The MCP tools and the HTTP API as an agent developer meets them, side by side with the library: the
same call takes the same arguments and answers the same truth, and the same bad input is the same
error (code, and one line naming the argument)."""

from __future__ import annotations

import json
from typing import Any

import anyio
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client

import beliefdb
from beliefdb import api

TEXT = "The return window is 7 days.\n"


def bearer(db_url: str, who: str = "alice") -> dict[str, str]:
    return {"Authorization": f"Bearer {api.create_token('default', who, url=db_url).token}"}


def refused(response: Any, status: int, code: str) -> str:
    """The one-line message of an error answer with this status and code."""
    assert response.status_code == status, (response.status_code, response.text)
    body = response.json()
    assert set(body) == {"error", "message"} and body["error"] == code, body
    message: str = body["message"]
    assert message and "\n" not in message, message
    return message


def tools(bdb: beliefdb.BeliefDB, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, Any]]:
    """Each tool call's (is_error, parsed answer), over the MCP server of ``bdb``."""
    from beliefdb.interfaces.mcp import build

    answers: list[tuple[bool, Any]] = []

    async def run() -> None:
        async with Client(build(local=bdb)) as client:
            for tool, arguments in calls:
                result = await client.call_tool(tool, arguments)
                assert len(result.content) == 1 and result.content[0].type == "text", result
                answers.append((bool(result.is_error), json.loads(result.content[0].text)))

    anyio.run(run)
    return answers


# --- 1. a moment without a time zone ---------------------------------------------------------------

def test_a_moment_without_a_zone_is_refused_by_the_tools_as_by_the_http_api(bdb: beliefdb.BeliefDB,
                                                                            http_client: TestClient, db_url: str,
                                                                            cli: Cli) -> None:
    """The HTTP API refused "2026-03-01T09:00:00" (no zone: whose nine o'clock?), and the MCP tools took it
    as the server's local time: the same as_of answered differently by the two doors, and by the same
    door on servers in two zones. Both refuse it now, naming the argument; with a zone both answer."""
    bdb.ingest_text(TEXT, source="policy.md")
    before = cli.json("beliefs", "--all")
    belief = before[0]["id"]
    said = refused(http_client.post("/ask", json={"question": "return window", "as_of": "2026-03-01T09:00:00"},
                                    headers=bearer(db_url)), 400, "invalid_input")
    assert said.startswith("as_of: Input should have timezone info"), said
    naive = "2026-03-01T09:00:00"
    answers = tools(bdb, [
        ("ask", {"question": "return window", "as_of": naive}),
        ("why", {"belief": belief, "as_of": naive}),
        ("beliefs", {"as_of": naive}),
        ("remember_turn", {"conversation": "chat-1", "speaker": "Maya", "text": "I live in Lisbon.",
                           "time": "2023-05-01T09:00:00"}),
        ("ask", {"question": "return window", "as_of": "2099-03-01T09:00:00Z"}),
        ("remember_turn", {"conversation": "chat-1", "speaker": "Maya", "text": "I live in Lisbon.",
                           "time": "2023-05-01T09:00:00+02:00"}),
    ])
    for (failed, answer), field in zip(answers[:4], ["as_of", "as_of", "as_of", "time"], strict=True):
        assert failed and answer["error"] == "invalid_input", answer
        assert answer["message"].startswith(f"{field}: Input should have timezone info"), answer
    assert answers[4][0] is False and answers[4][1]["status"] == "ok"
    assert answers[5][0] is False and answers[5][1]["accepted"][0]["subject"] == "maya"
    assert len(cli.json("beliefs", "--all")) == len(before) + 1  # the zoned turn alone was stored
