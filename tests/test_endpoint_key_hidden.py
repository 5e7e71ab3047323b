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

from beliefdb.openai_client import Failed, OpenAIClient, Refused

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
