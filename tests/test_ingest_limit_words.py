"""The ingest size limit as each door's caller can act on it. A text over BELIEFDB_INGEST_MAX_BYTES told an
agent over MCP or HTTP to "raise it with max_bytes= or BELIEFDB_INGEST_MAX_BYTES": no tool or body takes
max_bytes, and the variable is the server's, set by its operator. And a turn remembered into a conversation
at the limit was refused as if the turn were too long (the limit applies to the whole conversation): it is
said so, with what to do, start a new conversation. Over HTTP a text over the limit was 400 invalid_input, though
a body over the server's limit is 413 payload_too_large: it is 413 payload_too_large too, in the same words."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from serving import bearer, tool_answer

import beliefdb
from beliefdb import errors

LIMIT = 300
REMOTE = "the limit is this server's BELIEFDB_INGEST_MAX_BYTES, set by its operator"
FULL = ("the conversation chat-1 is at the ingest limit of 300 bytes ({size} bytes with this turn): start a new"
        " conversation, or {hint}")


@pytest.fixture(autouse=True)
def small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", str(LIMIT))


def tool(bdb: beliefdb.BeliefDB, name: str, arguments: dict[str, Any]) -> Any:
    """The tool error of calling ``name`` (in-memory, as stdio's tools act)."""
    return tool_answer(bdb, name, arguments, error=True)


def test_a_text_over_the_limit_is_said_in_each_doors_words(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                           db_url: str) -> None:
    text = "The restocking fee is 10%. " * 20  # 540 bytes
    expected = f"big.md: 540 bytes is over the ingest limit of 300 bytes; {REMOTE}"
    said = tool(bdb, "ingest_text", {"source": "big.md", "text": text})
    assert said == {"error": "invalid_input", "message": expected}
    over_http = http_client.post("/sources", json={"source": "big.md", "text": text}, headers=bearer(db_url))
    assert (over_http.status_code, over_http.json()["message"]) == (413, expected)
    # the library's and the command line's words are as before: both take the limit as an argument
    with pytest.raises(errors.InvalidInput) as library:
        bdb.ingest_text(text, source="big.md")
    assert library.value.message.endswith("; raise it with max_bytes= or BELIEFDB_INGEST_MAX_BYTES")


def test_a_turn_into_a_conversation_at_the_limit_says_the_conversation_is_full(
        bdb: beliefdb.BeliefDB, http_client: TestClient, db_url: str) -> None:
    first = {"conversation": "chat-1", "speaker": "Maya", "text": "I moved to Porto last week. " * 8}
    bdb.remember_turn(first["conversation"], first["speaker"], first["text"])
    turn = {"conversation": "chat-1", "speaker": "Maya", "text": "I like tea now, not coffee."}
    said = tool(bdb, "remember_turn", turn)
    size = said["message"].split("(")[1].split(" bytes")[0]
    operator = "ask this server's operator to raise its BELIEFDB_INGEST_MAX_BYTES"
    assert said == {"error": "invalid_input", "message": FULL.format(size=size, hint=operator)}, said
    over_http = http_client.post("/conversations/chat-1/turns", json={"speaker": "Maya", "text": turn["text"]},
                                 headers=bearer(db_url))
    assert (over_http.status_code, over_http.json()) == (400, said)
    with pytest.raises(errors.InvalidInput) as library:  # (remember_turn takes no max_bytes)
        bdb.remember_turn("chat-1", "Maya", turn["text"])
    assert library.value.message == FULL.format(size=size, hint="raise BELIEFDB_INGEST_MAX_BYTES")
    # a turn that is itself over the limit is that: too long, whatever the conversation holds
    long = tool(bdb, "remember_turn", {"conversation": "chat-2", "speaker": "Maya", "text": "tea " * 100})
    assert long["message"].startswith("chat-2: ") and long["message"].endswith(f"; {REMOTE}"), long
    assert [b.value for b in bdb.beliefs(subject="maya")] == ["Porto"]  # (nothing of the turns refused)


def test_a_text_over_the_limit_is_413_over_http_as_a_body_over_the_limit(http_client: TestClient, db_url: str
                                                                         ) -> None:
    """A user trial: a 36 MB document at POST /sources was 400 invalid_input, while a body over the server's
    own limit is 413 payload_too_large. Each resource that takes a text answers a text over the ingest limit
    413 payload_too_large, in the error shape, with the words the library and MCP use (their code stays
    invalid_input: they have no HTTP status); a turn into a conversation that is full stays 400 (the turn is
    not too large: start a new conversation)."""
    text = "The restocking fee is 10%. " * 20  # 540 bytes
    turns = [{"speaker": "Maya", "text": text}]
    for path, body, name in (("/sources", {"source": "big.md", "text": text}, "big.md"),
                             ("/sources", {"source": "big.md", "text": text, "preview": True}, "big.md"),
                             ("/jobs", {"source": "big.md", "text": text}, "big.md"),
                             ("/jobs", {"source": "chat-9", "turns": turns}, "chat-9"),
                             ("/conversations", {"source": "chat-9", "turns": turns}, "chat-9"),
                             ("/conversations/chat-9/turns", {"speaker": "Maya", "text": text}, "chat-9")):
        response = http_client.post(path, json=body, headers=bearer(db_url))
        said = response.json()
        assert (response.status_code, said["error"]) == (413, "payload_too_large"), (path, said)
        assert said["message"].startswith(f"{name}: ") and said["message"].endswith(
            "bytes is over the ingest limit of 300 bytes; " + REMOTE), (path, said)
    assert http_client.get("/jobs", headers=bearer(db_url)).json() == []  # (nothing queued)
    assert http_client.get("/beliefs", headers=bearer(db_url)).json() == []  # (nothing stored)
