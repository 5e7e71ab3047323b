"""``min_confidence`` is a number from 0 to 1. JSON readers take ``NaN`` (and ``1e400``, read as
infinity): NaN was refused with "Input should be less than or equal to 1", which it is not above, over
HTTP and MCP alike. It is said to be no finite number, as the library says it is no number between 0
and 1."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from serving import bearer, refused, running_server

ASK = '{{"question": "how many days?", "min_confidence": {}}}'


def test_http_says_a_confidence_that_is_no_number_is_none(http_client: Any, db_url: str) -> None:
    headers = bearer(db_url) | {"Content-Type": "application/json"}
    for number in ("NaN", "Infinity", "1e400"):
        message = refused(http_client.post("/ask", content=ASK.format(number), headers=headers), 400, "invalid_input")
        assert message == "min_confidence: Input should be a finite number", (number, message)


@pytest.mark.slow
def test_mcp_says_a_confidence_that_is_no_number_is_none(db_url: str) -> None:
    headers = bearer(db_url) | {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with running_server(db_url) as base:
        call = ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "arguments": '
                + ASK.format("NaN") + "}}")
        result = httpx.post(f"{base}/mcp", headers=headers, content=call, timeout=30).json()["result"]
        assert result["isError"] and result["structuredContent"] == {
            "error": "invalid_input", "message": "min_confidence: Input should be a finite number"}, result
