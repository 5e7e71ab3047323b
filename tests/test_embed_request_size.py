"""What the openai embedder sends fits what an endpoint takes, and a refusal of a text's length says so.

Three holes, each a backfill stopped for good on an endpoint that works:
- the cut of each text (4,000 characters) was a class attribute only: an endpoint whose model reads fewer
  tokens refused every long text, and only a Python caller could lower it. ``BELIEFDB_EMBED_MAX_CHARS`` sets
  it (``beliefdb config`` shows it; a value under 1 is refused in one line naming the variable);
- a request carried up to 64 texts whatever their length, 256,000 characters at 4,000 each, which may
  exceed OpenAI's 300,000 tokens a request in a script of ~1.2 tokens a character or more: a request now
  carries at most ``max_request_chars`` characters (and at most ``batch_size`` texts), the vectors in order;
- a refusal (HTTP 400) whose message says a text is too long named only the key and the model to check:
  it names ``BELIEFDB_EMBED_MAX_CHARS`` and its value too.

The endpoint is a real HTTP server on 127.0.0.1; the database, where used, the real one."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import Cli

from beliefdb import errors, settings
from beliefdb.embedders import OpenAIEmbedder


class Embeddings:
    """An embeddings endpoint answering any number of inputs with one vector each (``[i, len(text)]``, ``i``
    counting every input it was sent); ``refuse`` makes it answer HTTP 400 with that message instead."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []
        self.refuse: str | None = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                inputs = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))["input"]
                start = sum(len(sent) for sent in outer.seen)
                outer.seen.append(inputs)
                if outer.refuse is not None:
                    status, data = 400, json.dumps({"error": {"message": outer.refuse}}).encode()
                else:
                    status, data = 200, json.dumps({"data": [
                        {"index": i, "embedding": [float(start + i), float(len(text))]}
                        for i, text in reversed(list(enumerate(inputs)))]}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def env(self) -> dict[str, str]:
        return {"BELIEFDB_EMBEDDER": "openai", "BELIEFDB_EMBED_MODEL": "test-embed",
                "BELIEFDB_EMBED_URL": f"http://127.0.0.1:{self.server.server_address[1]}/v1"}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Embeddings]:
    server = Embeddings()
    for name, value in server.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("BELIEFDB_EMBED_MAX_CHARS", raising=False)
    try:
        yield server
    finally:
        server.close()


def words(n: int, tag: int) -> str:
    """``n`` characters of words, different for each ``tag``."""
    return (f"text{tag} " + "refunds within seven days " * (n // 26 + 1))[:n]


def test_a_request_carries_at_most_max_request_chars_and_the_vectors_keep_their_order(
        endpoint: Embeddings) -> None:
    embedder = OpenAIEmbedder(backoff=0.001)
    texts = [words(4_000 if i % 3 else 900, i) for i in range(64)] + ["short"]
    vectors = embedder.passages(texts)
    assert len(endpoint.seen) > 1, "64 texts of up to 4,000 characters went in one request"
    for sent in endpoint.seen:
        assert sum(map(len, sent)) <= embedder.max_request_chars and len(sent) <= embedder.batch_size
    assert [text for sent in endpoint.seen for text in sent] == [embedder.readable(text) for text in texts]
    assert vectors == [[float(i), float(len(embedder.readable(text)))] for i, text in enumerate(texts)]


def test_a_text_over_the_request_budget_goes_alone(endpoint: Embeddings) -> None:
    embedder = OpenAIEmbedder(backoff=0.001, max_chars=300_000)
    texts = ["a few words", "two", words(200_000, 1), words(150_000, 2), "more words", "end"]
    assert [v[1] for v in embedder.passages(texts)] == [11.0, 3.0, 200_000.0, 150_000.0, 10.0, 3.0]
    assert [len(sent) for sent in endpoint.seen] == [2, 1, 1, 2], "each request as full as the budget allows"


def test_the_cut_is_a_setting(endpoint: Embeddings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_EMBED_MAX_CHARS", "1000")
    embedder = OpenAIEmbedder(backoff=0.001)
    assert embedder.max_chars == 1_000
    (vector,) = embedder.passages([words(5_000, 1)])
    assert 900 < vector[1] <= 1_000
    assert OpenAIEmbedder(backoff=0.001, max_chars=2_000).max_chars == 2_000  # the caller's own wins
    monkeypatch.delenv("BELIEFDB_EMBED_MAX_CHARS")
    assert OpenAIEmbedder(backoff=0.001).max_chars == 4_000


@pytest.mark.parametrize("value, says", [("0", "must be at least 1"), ("many", "must be a whole number")])
def test_a_cut_that_is_no_length_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch, value: str,
                                                                  says: str) -> None:
    monkeypatch.setenv("BELIEFDB_EMBED_MAX_CHARS", value)
    with pytest.raises(errors.InvalidInput) as caught:
        settings.load()
    assert caught.value.message == f"BELIEFDB_EMBED_MAX_CHARS {says}, not {value!r}"


def test_a_refusal_of_a_texts_length_names_the_cut(endpoint: Embeddings) -> None:
    endpoint.refuse = ("This model's maximum context length is 8192 tokens, however you requested 9000 tokens"
                       " (9000 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.")
    with pytest.raises(errors.EmbedderRefused) as caught:
        OpenAIEmbedder(backoff=0.001).passages([words(4_000, 1)])
    said = caught.value.message
    assert "\n" not in said and "maximum context length is 8192 tokens" in said, said
    assert "BELIEFDB_EMBED_MAX_CHARS (now 4,000)" in said, said
    with pytest.raises(errors.EmbedderRefused, match=r"or max_chars \(now 2,000\) if a text is too long"):
        OpenAIEmbedder(backoff=0.001, max_chars=2_000).passages([words(4_000, 1)])
    assert len(endpoint.seen) == 2  # each asked once: not retried


def test_config_shows_the_cut(endpoint: Embeddings, cli_without_db: Cli) -> None:
    result = cli_without_db("config", "--json", env={"BELIEFDB_EMBED_MAX_CHARS": "1500"})
    assert result.exit_code == 0, result.output
    (row,) = [row for row in json.loads(result.stdout) if row["name"] == "BELIEFDB_EMBED_MAX_CHARS"]
    assert row["value"] == 1500 and row["default"] is None and row["source"] == "environment", row
