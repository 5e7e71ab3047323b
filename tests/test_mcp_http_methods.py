"""MCP's endpoint under ``beliefdb serve`` is stateless streamable HTTP: every message is a POST, and the
server never sends anything a request did not ask for. A GET (what a client does to open a stream for the
server's own messages, or a person trying ``curl $B/mcp``) opened an event stream that never carried
anything and never ended, holding the connection until the client gave up. The MCP specification's answer
for a server that offers no such stream is 405; here in the HTTP API's error shape, with ``Allow``."""

from __future__ import annotations

import httpx
import pytest
from serving import bearer, refused, running_server


@pytest.mark.slow
def test_mcp_endpoint_answers_methods_other_than_post_at_once_with_405(db_url: str) -> None:
    headers = bearer(db_url) | {"Accept": "application/json, text/event-stream"}
    with running_server(db_url) as base:
        for method in ("GET", "PUT", "DELETE"):
            answer = httpx.request(method, f"{base}/mcp", headers=headers, timeout=10)
            message = refused(answer, 405, "method_not_allowed")
            assert answer.headers["allow"] == "POST" and "POST" in message, (method, message)
        # HEAD too, without a body
        head = httpx.head(f"{base}/mcp", headers=headers, timeout=10)
        assert head.status_code == 405 and head.headers["allow"] == "POST" and head.content == b""
        # as at every resource, the method before the token; POST is served as before, behind it
        refused(httpx.get(f"{base}/mcp", timeout=10), 405, "method_not_allowed")
        refused(httpx.post(f"{base}/mcp", timeout=10, json={}), 401, "unauthenticated")
        listed = httpx.post(f"{base}/mcp", headers=headers, timeout=30,
                            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert listed.status_code == 200 and listed.json()["result"]["tools"]
