"""An endpoint that repeats the caller's API key in its error (a proxy's "invalid key sk-…", a self-hosted
server echoing the Authorization header) had it printed in the ``error:`` line, the ``--json`` message, and
kept in a queued job's stored reason. Whatever an endpoint says is echoed with the configured key masked,
for the llm extractor and the openai embedder alike (they share :class:`beliefdb.openai_client.OpenAIClient`).
The endpoint is a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from test_extract_llm import ChatServer, Reply

from beliefdb.openai_client import EndpointError, Failed, OpenAIClient, Refused

KEY = "sk-SECRET-trial11-0123456789"
ECHO = json.dumps({"error": {"message": f"Incorrect API key provided: Bearer {KEY} (key={KEY})"}}).encode()


@pytest.fixture
def server() -> Iterator[ChatServer]:
    made = ChatServer()
    try:
        yield made
    finally:
        made.close()


@pytest.mark.parametrize("status", [401, 400, 500, 429])
def test_an_endpoint_repeating_the_key_never_has_it_echoed(server: ChatServer, status: int) -> None:
    server.answers(Reply(status=status, body=ECHO))
    client = OpenAIClient(server.url, api_key=KEY, retries=1, backoff=0.001)
    with pytest.raises((Refused, Failed)) as caught:
        client.post("chat/completions", {})
    error = caught.value
    said = " ".join([str(error), error.problem, getattr(error, "said", ""),
                     error.explained("endpoint", "settings") if isinstance(error, Refused) else ""])
    assert KEY not in said and "Incorrect API key provided" in said, said
    assert "********" in said, said


SLASHED = "sk-ab/cd+ef/ghijklmnop"


@pytest.mark.parametrize("body", [
    # an encoder that escapes slashes (PHP's): the key is not in the text as sent
    json.dumps({"error": {"message": f"rate limited for key {SLASHED}"}}).replace("/", "\\/").encode(),
    # the key across the cut of what is shown: half of it was left
    json.dumps({"error": {"message": "x" * 280 + f" key {SLASHED} " + "y" * 100}}).encode(),
    ("z" * 290 + f" {SLASHED} ").encode(),  # not JSON at all
])
def test_a_key_escaped_or_cut_is_masked_too(server: ChatServer, body: bytes) -> None:
    server.answers(Reply(status=429, body=body))
    with pytest.raises(Failed) as caught:
        OpenAIClient(server.url, api_key=SLASHED, retries=1, backoff=0.001).post("chat/completions", {})
    said = caught.value.problem
    for piece in (SLASHED, "sk-ab", "ghijklmnop", "sk-ab\\/cd"):
        assert piece not in said, said


def test_a_key_the_http_client_cannot_send_is_not_shown_in_its_error(server: ChatServer) -> None:
    """A key with a line break (a two-line key file): httpx refuses the header and quotes it, as bytes."""
    key = "sk-secret-first\nsecondline"
    # (refused before any request since: a key with a line break is said to be one, in words)
    with pytest.raises(EndpointError) as caught:
        OpenAIClient(server.url, api_key=key, retries=0, backoff=0.001).post("chat/completions", {})
    said = caught.value.problem
    assert "sk-secret-first" not in said and "secondline" not in said, said
