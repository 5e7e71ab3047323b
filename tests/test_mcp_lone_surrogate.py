"""A tool argument holding a lone surrogate (the JSON escape "\\ud800", which a client's JSON encoder writes for
a broken character) is refused by the tool, answering its request: the SDK's parser (pydantic's, which reads
JSON as UTF-8) refused the whole message, so on stdio request 7 was answered with a parse error of id null
(never with its own id: the client waited for its timeout) and over HTTP ``/mcp`` with 400. The in-memory
transport, which never parses JSON, answered the tool error ``invalid_input`` all along (test_mcp_jobs.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import httpx
import pytest
from serving import bearer, running_server
from test_robustness_input import row_counts

LINE = ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{"question":"\\ud800'
        ' lone"}}}')
HELLO = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
         {"jsonrpc": "2.0", "method": "notifications/initialized"}]


def refused_as_the_tool_refuses(reply: dict[str, Any]) -> None:
    """``reply`` answers request 7 with the tool error naming the argument."""
    assert reply["id"] == 7 and "error" not in reply, reply
    result = reply["result"]
    said = json.loads(result["content"][0]["text"])
    assert result["isError"] is True and result["structuredContent"] == said, result
    assert said["error"] == "invalid_input" and said["message"].startswith("question: "), said
    assert "surrogate" in said["message"] and "parse" not in said["message"].lower(), said


def test_stdio_answers_a_lone_surrogate_with_the_tool_error_for_its_request(db_url: str) -> None:
    env = {**os.environ, "BELIEFDB_URL": db_url}
    env.pop("BELIEFDB_HOME", None)
    before = row_counts(db_url)
    # (stdin stays open until the answer came, as a client keeps it: at its end the server stops serving)
    process = subprocess.Popen([sys.executable, "-m", "beliefdb", "mcp"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stdin is not None and process.stdout is not None
    try:
        for message in HELLO:
            process.stdin.write(json.dumps(message) + "\n")
        process.stdin.write(LINE + "\n")
        # (found by review) a lone surrogate anywhere but a tool's arguments: an answer repeating it could not be
        # written, and the server died with a traceback; such a line is the parse error it was, and serving goes on
        for line in ('{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}', '{"jsonrpc":"2.0","id":8,"method":"\\ud800"}',
                     LINE.replace('"name":"ask"', '"name":"ask\\udc00"').replace('"id":7', '"id":9'),
                     '{"jsonrpc":"2.0","id":10,"method":"ping"}'):
            process.stdin.write(line + "\n")
        process.stdin.flush()
        replies = [json.loads(process.stdout.readline()) for _ in range(6)]
    finally:
        _out, err = process.communicate(timeout=60)
    # (the tool call is answered when it is done: the parse errors may come first)
    assert sorted((r.get("id") or 0) for r in replies) == [0, 0, 0, 1, 7, 10], (replies, err)
    refused_as_the_tool_refuses(next(r for r in replies if r.get("id") == 7))
    assert "Traceback" not in err, err
    # the tool call (line 3) was a message; the three others were not, and are said so (at the end: exit 1)
    assert [n for n in range(1, 8) if f"line {n} of stdin is not an MCP message" in err] == [4, 5, 6], err
    assert process.returncode == 1, err
    assert row_counts(db_url) == before


@pytest.mark.slow
def test_mcp_over_http_answers_a_lone_surrogate_with_the_tool_error(db_url: str) -> None:
    headers = bearer(db_url) | {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with running_server(db_url) as base:
        answer = httpx.post(f"{base}/mcp", headers=headers, content=LINE.encode(), timeout=30)
        assert answer.status_code == 200, answer.text
        refused_as_the_tool_refuses(answer.json())
        # a lone surrogate outside any tool's arguments is still no message the server can read
        elsewhere = LINE.replace('"name":"ask"', '"name":"ask\\udc00"').replace("\\ud800", "")
        other = httpx.post(f"{base}/mcp", headers=headers, content=elsewhere.encode(), timeout=30)
        assert other.status_code == 400 and other.json()["error"]["code"] == -32700, other.text
