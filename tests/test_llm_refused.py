"""An llm endpoint that refuses the request (HTTP 400, 401, 403, 404, 422: a bad key, an unknown model) was
``extractor_unavailable``, a 503 with Retry-After, as if trying again could help: it is
``extractor_refused``, one line naming the endpoint's status and its own message and the settings to check,
a 502 without Retry-After over HTTP, a one-line error at the command line and a tool error over MCP. A
timeout, a refused connection, 429 and 5xx stay ``extractor_unavailable`` (503, Retry-After). The endpoint
is a real HTTP server on 127.0.0.1 (:class:`test_extract_llm.ChatServer`), the database the real one."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer
from test_extract_llm import DOC, TABLES, ChatServer, Reply, counts, serving_llm

import beliefdb
from beliefdb import errors

BAD_KEY = json.dumps({"error": {"message": "Incorrect API key provided: sk-wrong.", "type": "invalid_request_error",
                                "code": "invalid_api_key"}}).encode()


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_a_refusal_is_extractor_refused_in_one_line_asked_once_and_nothing_is_stored(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], status: int) -> None:
    llm.answers(Reply(status=status))
    with pytest.raises(errors.ExtractorRefused) as caught:
        bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")
    said = caught.value.message
    assert caught.value.code == "extractor_refused" and "\n" not in said, said
    assert said.startswith(f"the llm endpoint {llm.url}/chat/completions refused the request with HTTP {status}:"
                           f" scripted {status};"), said
    assert "BELIEFDB_LLM_API_KEY" in said and "BELIEFDB_LLM_MODEL" in said and "'test-model'" in said, said
    # (a URL without its /v1 is a 404, a server without structured outputs a 400: each named where it may be)
    assert ("BELIEFDB_LLM_URL (an OpenAI-compatible base URL, most often ending in /v1)" in said) == (status == 404)
    assert ("response_format json_schema" in said) == (status in (400, 422)), said
    assert not isinstance(caught.value, errors.ExtractorUnavailable)
    assert len(llm.seen) == 1  # not retried
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)


@pytest.mark.parametrize("status", [429, 500, 503])
def test_what_may_pass_stays_extractor_unavailable(llm: ChatServer, bdb: beliefdb.BeliefDB, status: int) -> None:
    llm.answers(Reply(status=status))
    with pytest.raises(errors.ExtractorUnavailable, match=rf"failed after 4 attempts: HTTP {status}"):
        bdb.ingest_text(DOC, source="return-policy.md", extractor="llm")


def test_over_http_a_refusal_is_502_without_retry_after_and_a_failure_503_with_it(
        llm: ChatServer, http_client: TestClient, db_url: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    alice = bearer(db_url)
    llm.answers(Reply(status=401, body=BAD_KEY))
    with caplog.at_level(logging.WARNING, logger="beliefdb.serve"):
        answer = http_client.post("/sources", json={"source": "p.md", "text": DOC, "extractor": "llm"}, headers=alice)
    assert answer.status_code == 502 and answer.json()["error"] == "extractor_refused", answer.text
    assert "Retry-After" not in answer.headers, answer.headers
    # a remote caller is not shown the server's endpoint, nor told to check the server's variables: its log is
    assert answer.json()["message"] == (
        "the server's llm endpoint refused the request with HTTP 401; trying again will not help: its LLM settings"
        " are its operator's to fix (the server's log says why)"), answer.text
    logged = " ".join(r.getMessage() for r in caplog.records if r.name == "beliefdb.serve")
    assert f"{llm.url}/chat/completions refused the request with HTTP 401: Incorrect API key" in logged, logged
    turn = http_client.post("/conversations/maya-chat/turns", json={"speaker": "Maya", "text": "I live in Lisbon.",
                                                                     "extractor": "llm"}, headers=alice)
    assert turn.status_code == 502 and turn.json()["error"] == "extractor_refused", turn.text

    monkeypatch.setenv("BELIEFDB_LLM_HTTP_RETRIES", "0")
    llm.answers(Reply(status=500))
    answer = http_client.post("/sources", json={"source": "p.md", "text": DOC, "extractor": "llm"}, headers=alice)
    assert answer.status_code == 503 and answer.json()["error"] == "extractor_unavailable", answer.text
    assert answer.headers.get("Retry-After") == "1", answer.headers
    assert answer.json()["message"] == "the server's llm endpoint failed after 1 attempt (the server's log says why)"
    assert http_client.get("/beliefs", headers=alice).json() == []

    paths = http_client.get("/openapi.json").json()["paths"]
    for path in ("/sources", "/conversations", "/conversations/{conversation}/turns"):
        refused = paths[path]["post"]["responses"]["502"]
        assert "extractor_refused" in refused["description"] and "headers" not in refused, (path, refused)
    assert "502" not in paths["/ask"]["post"]["responses"]


def test_the_cli_says_it_in_one_line_and_fails(llm: ChatServer, cli: Cli, tmp_path: Path) -> None:
    llm.answers(Reply(status=404, body=b'{"error": {"message": "The model `test-model` does not exist"}}'))
    doc = tmp_path / "return-policy.md"
    doc.write_text(DOC, encoding="utf-8")
    result = cli("ingest", str(doc), "--extractor", "llm", env=llm.env, expect=1)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output, result.stderr
    assert lines[0].startswith("error: the llm endpoint ") and "HTTP 404: The model `test-model` does not exist" \
        in lines[0] and "BELIEFDB_LLM_MODEL" in lines[0], lines[0]
    assert cli.json("ingest", str(doc), "--extractor", "llm", env=llm.env, expect=1)["error"] == "extractor_refused"


def test_mcp_reports_it_as_a_tool_error(llm: ChatServer, bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.interfaces.mcp import build

    llm.answers(Reply(status=403, body=b"forbidden: no access to this model"))

    async def run() -> Any:
        async with Client(build(local=bdb)) as client:
            return await client.call_tool("ingest_text", {"text": DOC, "source": "p.md", "extractor": "llm"})

    result = anyio.run(run)
    assert result.is_error, result
    said = json.loads(result.content[0].text)
    assert said["error"] == "extractor_refused", said
    assert "HTTP 403: forbidden: no access to this model;" in said["message"], said


def test_a_remote_caller_is_told_the_server_has_no_llm_endpoint_not_to_set_a_variable(
        http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB, cli: Cli, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """extractor llm on a server without an endpoint told the agent to "set BELIEFDB_LLM_URL", which only the
    server's operator can. Over HTTP (and beliefdb serve's /mcp) it says the server has none configured; the
    library and the CLI, run by whoever sets the variable, still name it."""
    monkeypatch.delenv("BELIEFDB_LLM_URL", raising=False)
    alice = bearer(db_url)
    said = ("the llm extractor needs an OpenAI-compatible endpoint: the server has no LLM endpoint configured"
            " (its operator's setting; the rule extractor is the default)")
    for path, body, suffix in (
            ("/sources", {"source": "p.md", "text": DOC, "extractor": "llm"}, ""),
            ("/conversations", {"source": "c", "turns": [{"speaker": "Maya", "text": "I live in Lisbon."}],
                                "extractor": "llm"}, ""),
            ("/jobs", {"source": "p.md", "text": DOC, "extractor": "llm"}, "; nothing was queued")):
        answer = http_client.post(path, json=body, headers=alice)
        assert answer.status_code == 400, (path, answer.text)
        assert answer.json() == {"error": "invalid_input", "message": said + suffix}, path
    with errors.remote(), pytest.raises(errors.InvalidInput) as remote:  # (as beliefdb serve answers, /mcp too)
        bdb.ingest_text(DOC, source="p.md", extractor="llm")
    assert remote.value.message == said
    with pytest.raises(errors.InvalidInput, match="set BELIEFDB_LLM_URL"):
        bdb.ingest_text(DOC, source="p.md", extractor="llm")
    (tmp_path / "p.md").write_text(DOC, encoding="utf-8")
    assert "set BELIEFDB_LLM_URL" in cli.one_line_error("ingest", tmp_path / "p.md", "--queue", "--extractor", "llm",
                                                        env={"BELIEFDB_LLM_URL": None})
    assert bdb.jobs() == [] and bdb.beliefs() == []
