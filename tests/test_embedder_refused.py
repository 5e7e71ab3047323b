"""An embeddings endpoint that refuses the request (HTTP 400, 401, 403, 404, 422: a bad key, an unknown model)
was ``embedder_unavailable`` ("HTTP 401 from URL"), as if it were down: it is ``embedder_refused``, one line
naming the endpoint's status and its own message and the settings to check, asked once. It is still an
EmbedderUnavailable, so what does without the embedder still does (a write defers its vectors, ``ask``
searches text and names); 429 and 5xx stay ``embedder_unavailable``. Over HTTP it is a 502 without
Retry-After, as ``extractor_refused``. The endpoint is a real HTTP server on 127.0.0.1
(:class:`test_extract_llm.ChatServer`, which answers any path), the database the real one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import Cli
from test_extract_llm import ChatServer, Reply

import beliefdb
from beliefdb import errors
from beliefdb.embedders import OpenAIEmbedder
from beliefdb.interfaces import access

POLICY = "Returns are accepted within 7 days of delivery.\n"
BAD_KEY = b'{"error": {"message": "Incorrect API key provided: sk-wrong.", "code": "invalid_api_key"}}'


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    """A scripted server, configured as beliefdb's openai embedder."""
    server = ChatServer()
    for name, value in embedder_env(server).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("BELIEFDB_EMBED_API_KEY", raising=False)
    try:
        yield server
    finally:
        server.close()


def embedder_env(server: ChatServer) -> dict[str, str]:
    return {"BELIEFDB_EMBEDDER": "openai", "BELIEFDB_EMBED_URL": server.url, "BELIEFDB_EMBED_MODEL": "test-embed"}


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_a_refusal_is_embedder_refused_in_one_line_and_asked_once(endpoint: ChatServer, status: int) -> None:
    endpoint.answers(Reply(status=status))
    with pytest.raises(errors.EmbedderRefused) as caught:
        OpenAIEmbedder(backoff=0.001).query("how many days for returns?")
    said = caught.value.message
    assert caught.value.code == "embedder_refused" and "\n" not in said, said
    assert said.startswith(f"the embeddings endpoint {endpoint.url}/embeddings refused the request with HTTP"
                           f" {status}: scripted {status}; trying again will not help: check"), said
    assert "BELIEFDB_EMBED_API_KEY" in said and "BELIEFDB_EMBED_MODEL" in said and "'test-embed'" in said, said
    assert isinstance(caught.value, errors.EmbedderUnavailable)  # what does without an embedder still does
    assert [seen.path for seen in endpoint.seen] == ["/v1/embeddings"]  # not retried


@pytest.mark.parametrize("status", [429, 500, 503])
def test_what_may_pass_stays_embedder_unavailable(endpoint: ChatServer, status: int) -> None:
    endpoint.answers(Reply(status=status))
    with pytest.raises(errors.EmbedderUnavailable, match=rf"^embedder unavailable: HTTP {status} from") as caught:
        OpenAIEmbedder(retries=1, backoff=0.001).query("x")
    assert not isinstance(caught.value, errors.EmbedderRefused) and len(endpoint.seen) == 2


def test_a_write_defers_saying_why_and_embed_asks_once(endpoint: ChatServer, bdb: beliefdb.BeliefDB) -> None:
    endpoint.answers(Reply(status=401, body=BAD_KEY))
    report = bdb.ingest_text(POLICY, source="return-policy.md")
    assert report.accepted and report.embedding_deferred is not None, report
    assert "refused the request with HTTP 401: Incorrect API key provided: sk-wrong.;" in report.embedding_deferred
    assert len(endpoint.seen) == 1
    with pytest.raises(errors.EmbedderRefused, match="BELIEFDB_EMBED_API_KEY"):
        bdb.embed()
    assert len(endpoint.seen) == 2  # once for the whole backfill


def test_the_cli_says_it_in_one_line(endpoint: ChatServer, bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    endpoint.answers(Reply(status=404, body=b'{"error": {"message": "The model `test-embed` does not exist"}}'))
    bdb.ingest_text(POLICY, source="return-policy.md", embed=False)
    result = cli("embed", env=embedder_env(endpoint), expect=1)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.stderr
    assert lines[0].startswith("error: the embeddings endpoint ") and "HTTP 404: The model `test-embed` does not" \
        " exist" in lines[0] and "BELIEFDB_EMBED_MODEL" in lines[0], lines[0]
    assert cli.json("embed", env=embedder_env(endpoint), expect=1)["error"] == "embedder_refused"
    assert len(endpoint.seen) == 2


def test_the_cli_retries_as_set_and_refuses_a_bad_setting_in_one_line(endpoint: ChatServer, bdb: beliefdb.BeliefDB,
                                                                     cli: Cli) -> None:
    """BELIEFDB_EMBED_RETRIES and BELIEFDB_EMBED_BACKOFF reach the embedder a command uses: an endpoint that
    stays down (503) is asked 1 + retries times; a value that is not a setting is one ``error:`` line naming
    it, before the endpoint is asked anything."""
    endpoint.answers(Reply(status=503))
    bdb.ingest_text(POLICY, source="return-policy.md", embed=False)
    for retries, asked in (("2", 3), ("0", 1)):
        before = len(endpoint.seen)
        result = cli("embed", env={**embedder_env(endpoint), "BELIEFDB_EMBED_RETRIES": retries,
                                   "BELIEFDB_EMBED_BACKOFF": "0.01"}, expect=None)
        assert result.exit_code != 0 and "HTTP 503" in result.stderr, result.output
        assert len(endpoint.seen) - before == asked
    before = len(endpoint.seen)
    for name, value, says in (("BELIEFDB_EMBED_RETRIES", "-1", "must not be negative"),
                              ("BELIEFDB_EMBED_RETRIES", "three", "must be a whole number"),
                              ("BELIEFDB_EMBED_BACKOFF", "-2", "must not be negative"),
                              ("BELIEFDB_EMBED_BACKOFF", "soon", "must be a number")):
        line = cli.one_line_error("embed", env={**embedder_env(endpoint), name: value})
        assert line == f"error: {name} {says}, not {value!r}", line
    assert len(endpoint.seen) == before


def test_the_servers_answer_502_without_retry_after() -> None:
    refused = errors.EmbedderRefused("the embeddings endpoint refused the request")
    assert access.status_of(refused) == 502 and access.retry_after(refused) == {}
    assert access.status_of(errors.ExtractorRefused("x")) == 502
