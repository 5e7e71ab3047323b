"""A tool name the server does not have: the SDK answered the text "Unknown tool: nope", while every other
tool error is the JSON ``{"error", "message"}`` (also the structured content). It is that object now, with
code ``not_found``, naming the tools there are."""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.client import Client

import beliefdb


def test_an_unknown_tool_is_a_json_error_naming_the_tools(bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.interfaces.mcp import build

    found: list[Any] = []

    async def run() -> None:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("nope", {})
            assert len(result.content) == 1 and result.content[0].type == "text", result
            found.append((result.is_error, json.loads(result.content[0].text), result.structured_content))

    anyio.run(run)
    is_error, said, structured = found[0]
    assert is_error and said == structured and said["error"] == "not_found", said
    assert said["message"].startswith("unknown tool 'nope': the tools are ") and "remember, " in said["message"]
    assert "record_outcome" in said["message"], said
