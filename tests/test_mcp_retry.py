"""A tool error said what went wrong but not whether or when to try again, where the HTTP API's 503s carry
Retry-After: the MCP tools' error now carries ``retry_after``, the same seconds from the same table
(:func:`beliefdb.interfaces.access.retry_seconds`): a busy workspace 1, the database unavailable 3, the llm
extractor unavailable the wait its client would have taken next; an error that trying again cannot mend (a
refusal, bad input) has none, and every message is as it was. The error object is the result's structured
content too (``structuredContent``, beside the JSON text): a client reads ``retry_after`` without parsing
text, while a tool's answer stays text alone. Through the MCP SDK's client against the server
:func:`beliefdb.interfaces.mcp.build` builds, on the real database and a real local llm endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import psycopg
import pytest
from mcp.client import Client
from test_database_down import server  # noqa: F401  (the fixture: a database server of the test's own)
from test_extract_llm import DOC, ChatServer, Reply, serving_llm

import beliefdb
from beliefdb import errors
from beliefdb.db.server import EmbeddedServer
from beliefdb.interfaces import access
from beliefdb.interfaces.mcp import build

POLICY = "# Returns\nReturns are accepted within 30 days.\n"


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


def _tool_error(db: beliefdb.BeliefDB, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async def run() -> Any:
        async with Client(build(local=db)) as client:
            return await client.call_tool(tool, arguments)

    result = anyio.run(run)
    assert result.is_error, result
    said: dict[str, Any] = json.loads(result.content[0].text)
    assert result.structured_content == said, result  # the same object, for a client that reads it as such
    return said


def test_a_busy_workspace_says_when_to_try_again(db_url: str, bdb: beliefdb.BeliefDB,
                                                 postgresql: psycopg.Connection[Any],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    with beliefdb.connect(db_url) as db:
        postgresql.execute("select from beliefdb.audit_head h where h.workspace_id = %s for update of h",
                           (bdb.database.workspace_id,))
        try:
            said = _tool_error(db, "ingest_text", {"text": POLICY, "source": "p.md"})
        finally:
            postgresql.rollback()
    assert said["error"] == "workspace_busy" and said["retry_after"] == 1, said
    assert said["message"].startswith("another writer holds this workspace"), said
    assert bdb.beliefs() == []


def test_an_unavailable_extractor_says_the_wait_and_a_refusal_none(llm: ChatServer, bdb: beliefdb.BeliefDB,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LLM_HTTP_RETRIES", "0")
    monkeypatch.setenv("BELIEFDB_LLM_BACKOFF", "2.5")
    llm.answers(Reply(status=503))
    said = _tool_error(bdb, "ingest_text", {"text": DOC, "source": "p.md", "extractor": "llm"})
    assert said["error"] == "extractor_unavailable" and said["retry_after"] == 3, said  # as HTTP's Retry-After
    llm.answers(Reply(status=401))
    said = _tool_error(bdb, "ingest_text", {"text": DOC, "source": "p.md", "extractor": "llm"})
    assert said["error"] == "extractor_refused" and "retry_after" not in said, said
    said = _tool_error(bdb, "why", {"belief": "0123abcd"})
    assert said == {"error": "unknown_belief", "message": "unknown belief 0123abcd"}


def test_every_error_says_what_the_http_api_says() -> None:
    """The one table both doors read: each 503 of the HTTP API has its seconds, nothing else has any."""
    for exc, seconds in [(errors.WorkspaceBusy("busy"), 1), (errors.DatabaseUnavailable("down"), 3),
                         (errors.ExtractorUnavailable("down"), access.extractor_retry_after()),
                         (errors.ExtractorRefused("no"), None), (errors.EmbedderRefused("no"), None),
                         (errors.InvalidInput("bad"), None), (errors.NotFound("gone"), None)]:
        assert access.retry_seconds(exc) == seconds, exc
        assert access.retry_after(exc) == ({} if seconds is None else {"Retry-After": str(seconds)}), exc
    assert access.DATABASE_RETRY_AFTER == 3


def test_the_error_is_structured_content_and_an_answer_stays_text(bdb: beliefdb.BeliefDB) -> None:
    """A client that reads structuredContent gets the error object there, retry_after included where there
    is one; the tools publish no output schema, so an answer is the JSON text alone, as it was."""
    async def run() -> tuple[Any, Any, Any]:
        async with Client(build(local=bdb)) as client:
            listed = (await client.list_tools()).tools
            return (listed, await client.call_tool("ask", {"question": "how many days?", "k": 0}),
                    await client.call_tool("beliefs", {}))

    listed, refused, answered = anyio.run(run)
    assert listed and all(t.output_schema is None for t in listed), [t.name for t in listed if t.output_schema]
    assert refused.is_error and refused.structured_content == json.loads(refused.content[0].text), refused
    assert refused.structured_content["error"] == "invalid_input", refused
    assert not answered.is_error and answered.structured_content is None, answered
    assert [c.type for c in answered.content] == ["text"] and json.loads(answered.content[0].text) == []


def test_ask_with_the_database_down_is_the_tool_error_the_other_tools_answer(
        server: tuple[EmbeddedServer, str]) -> None:  # noqa: F811
    """``ask`` answered a database outage as an answer (``status: memory_unavailable``, no ``isError``, no
    ``retry_after``) where ``beliefs`` in the same session answers the tool error ``database_unavailable``
    with ``retry_after`` 3, and ``POST /ask`` a 503 with ``Retry-After: 3``: now ``ask`` answers that error
    too, its message the one ``POST /ask`` gives."""
    own, url = server

    async def run(client: Client, tool: str, arguments: dict[str, Any]) -> Any:
        return await client.call_tool(tool, arguments)

    async def session() -> tuple[Any, Any, Any]:
        async with Client(build(local=db)) as client:
            before = await run(client, "ask", {"question": "how many days for returns?"})
            own.stop()
            return before, await run(client, "ask", {"question": "how many days for returns?"}), await run(
                client, "beliefs", {})

    with beliefdb.connect(url) as db:
        before, asked, listed = anyio.run(session)
    assert not before.is_error and json.loads(before.content[0].text)["status"] == "no_match", before
    assert listed.is_error and listed.structured_content["error"] == "database_unavailable", listed
    assert asked.is_error, asked
    said = json.loads(asked.content[0].text)
    assert asked.structured_content == said, asked
    assert said["error"] == "database_unavailable" and said["retry_after"] == listed.structured_content[
        "retry_after"] == access.DATABASE_RETRY_AFTER, said
    assert said["message"].startswith("memory unavailable: cannot connect to the database"), said
