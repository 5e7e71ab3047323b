"""An ingest's hints name what the door the caller came through offers. Over HTTP a text that gave no
belief said "give their claims with claims=FILE (JSONL: ...)" and a transcript "ingest it with
ingest_transcripts": a file the HTTP API cannot take and a library method it cannot call. The HTTP API
now names its resources (POST /beliefs, POST /conversations) and the MCP tools name tools (remember,
remember_turn); the library and the command line keep their words."""

from __future__ import annotations

import json
from typing import Any

import anyio
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer

import beliefdb

TEXT = "The return window is 7 days.\nParagraph one talks about nothing in particular.\n"
CHAT = ("**Alice:** I live in Paris and I love it here.\n**Bob:** That sounds great, tell me more about it.\n"
        "**Alice:** My favourite food is croissants, of course.\n**Bob:** Do you work there too?\n"
        "**Alice:** I work at Acme Corp now.\n")


def tool_hints(bdb: beliefdb.BeliefDB) -> list[str]:
    from beliefdb.interfaces.mcp import build

    async def run() -> list[str]:
        async with Client(build(local=bdb)) as client:
            said = []
            for source, text in (("notes.md", TEXT), ("chat.md", CHAT)):
                result = await client.call_tool("ingest_text", {"source": source, "text": text, "preview": True})
                assert not result.is_error and result.content[0].type == "text", result
                said.append(json.loads(result.content[0].text)["hint"])
            return said

    return anyio.run(run)


def test_ingest_hints_name_what_each_door_offers(http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB,
                                                 cli: Cli, tmp_path: Any) -> None:
    def over_http(source: str, text: str) -> str:
        answer = http_client.post("/sources", headers=bearer(db_url), json={"source": source, "text": text,
                                                                             "preview": True})
        assert answer.status_code == 200, answer.text
        hint: str = answer.json()["hint"]
        return hint

    claims, chat = over_http("notes.md", TEXT), over_http("chat.md", CHAT)
    assert "POST /beliefs" in claims and "quote" in claims, claims
    assert "POST /conversations" in chat, chat
    tools = tool_hints(bdb)
    assert "`remember`" in tools[0] and "quote" in tools[0], tools
    assert "`remember_turn`" in tools[1], tools
    for hint in (claims, chat, *tools):
        assert "claims=" not in hint and "FILE" not in hint and "ingest_transcripts" not in hint, hint
        assert "--" not in hint, hint
    # the library and the command line keep their own words
    assert "claims=FILE" in (bdb.ingest_text(TEXT, source="notes.md", preview=True).hint or "")
    (tmp_path / "notes.md").write_text(TEXT)
    assert "--claims FILE" in cli.json("ingest", tmp_path / "notes.md", "--preview")["hint"]
