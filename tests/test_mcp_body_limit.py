"""MCP over HTTP (``/mcp`` of ``beliefdb serve``) takes a document's text, so its request body has the
text routes' limit (4 × BELIEFDB_INGEST_MAX_BYTES + 1 MiB, README "413"), refused in the HTTP API's error
shape. The MCP SDK's own cap of 4 MiB answered first, in plain text ("Request body too large"): a 5.2 MB
``tools/call ingest_text`` was refused under beliefdb's limit of 129 MiB."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from beliefdb import api
from beliefdb.interfaces.http import create_app

MCP = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def ingest_call(text: str, padding: int) -> bytes:
    """A ``tools/call ingest_text`` message of ``padding`` bytes more than its JSON needs (whitespace, which
    JSON allows between tokens: a body of any size without a minute of ingest)."""
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "ingest_text", "arguments": {"source": "big.md", "text": text}}}
    return json.dumps(message).encode()[:-1] + b" " * padding + b"}"


def called(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    assert not result.get("isError"), result
    return result


def test_mcp_takes_a_body_under_beliefdbs_limit(db_url: str) -> None:
    token = api.create_token("default", "alice", url=db_url).token
    body = ingest_call("The return window is 30 days.", 5_200_000)
    assert len(body) > 5_200_000
    with TestClient(create_app(db_url)) as client:
        result = called(client.post("/mcp", content=body, headers=MCP | {"Authorization": f"Bearer {token}"}))
    assert "30 days" in json.dumps(result)


def test_mcp_refuses_a_body_over_beliefdbs_limit_in_its_shape(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", "1000")
    limit = 4 * 1000 + 2 ** 20
    token = api.create_token("default", "alice", url=db_url).token
    with TestClient(create_app(db_url)) as client:
        for big in (ingest_call("a", limit), ingest_call("a", 5_200_000)):
            for content in (big, iter([big[:1000], big[1000:]])):  # with a Content-Length, and chunked
                response = client.post("/mcp", content=content,
                                       headers=MCP | {"Authorization": f"Bearer {token}"})
                assert response.status_code == 413, response.text
                assert response.json() == {
                    "error": "payload_too_large",
                    "message": f"the request body is over the limit of {limit:,} bytes (4 ×"
                               " BELIEFDB_INGEST_MAX_BYTES + 1 MiB)"}
                # without a token: who is asking comes first (401), whatever the body
                response = client.post("/mcp", content=big if isinstance(content, bytes) else iter([big]),
                                       headers=MCP)
                assert response.status_code == 401, response.text
                assert response.json()["error"] == "unauthenticated"
        # under the limit: served as before
        called(client.post("/mcp", content=ingest_call("The fee is 3 EUR.", 10), headers=MCP | {
            "Authorization": f"Bearer {token}"}))
