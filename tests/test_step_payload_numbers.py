"""An agent step's payload is any JSON object, stored as jsonb. Python's JSON readers (FastAPI's, the
library's callers') take ``NaN``, ``Infinity`` and ``1e400`` (read as infinity), which JSON has no
number for: PostgreSQL refused them with its own words, ``invalid input syntax for type json``, naming
neither the argument nor what was wrong with it. They are refused up front, naming the payload, over
HTTP, over MCP and in the library alike, and nothing is written."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest
from serving import bearer, refused, running_server

import beliefdb
from beliefdb import errors

BAD = ('{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}', '{"deep": [1, {"n": 1e400}]}')


def _steps(db_url: str) -> int:
    with beliefdb.connect(db_url) as db:
        return len(db.runs())


def test_http_refuses_a_payload_number_json_cannot_hold(http_client: Any, db_url: str) -> None:
    headers = bearer(db_url) | {"Content-Type": "application/json"}
    before = _steps(db_url)
    for payload in BAD:
        answer = http_client.post("/steps", headers=headers,
                                  content=f'{{"kind": "user_input", "task": "t", "payload": {payload}}}')
        message = refused(answer, 400, "invalid_input")
        assert message.startswith("payload: ") and "NaN or Infinity" in message, (payload, message)
    assert _steps(db_url) == before
    fine = http_client.post("/steps", headers=headers, json={"kind": "user_input", "payload": {"n": 1.5e300}})
    assert fine.status_code == 200, fine.text


def test_library_refuses_a_payload_number_json_cannot_hold(db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        for number in (math.nan, math.inf, -math.inf):
            with pytest.raises(errors.InvalidInput, match=r"^payload: .*NaN or Infinity"):
                db.record_step("user_input", {"list": [{"n": number}]})
        assert db.runs() == []


@pytest.mark.slow
def test_mcp_refuses_a_payload_number_json_cannot_hold(db_url: str) -> None:
    """As a client sends it: the MCP SDK's JSON reader takes NaN and Infinity too."""
    headers = bearer(db_url) | {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    with running_server(db_url) as base:
        for payload in BAD:
            call = ('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "record_step",'
                    f' "arguments": {{"kind": "user_input", "payload": {payload}}}}}}}')
            answer = httpx.post(f"{base}/mcp", headers=headers, content=call, timeout=30)
            result = answer.json()["result"]
            assert result["isError"] and result["structuredContent"]["error"] == "invalid_input", result
            assert "NaN or Infinity" in result["structuredContent"]["message"], result
    assert _steps(db_url) == 0


@pytest.mark.parametrize("payload", ["notadict", 5, [1, 2], ("kind", "plan")])
def test_library_refuses_a_payload_that_is_no_object_naming_it(db_url: str, payload: Any) -> None:
    """A payload is a JSON object: text, a number or a list given as one escaped as a ValueError or a
    TypeError (``dict(payload or {})`` ran before any check), at record_step and at a recorder's step."""
    said = rf"^payload= must be a mapping \(a JSON object: .*\), not {type(payload).__name__}$"
    with beliefdb.connect(db_url, principal="alice") as db:
        with pytest.raises(errors.InvalidInput, match=said):
            db.record_step("plan", payload, task="t")
        with pytest.raises(errors.InvalidInput, match=said), db.record_run(task="t") as run:
            run.step("plan", payload)
        assert db.runs() == []
        assert db.record_step("plan", None, task="t").run is not None  # (None: an empty payload)
