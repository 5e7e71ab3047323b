"""The MCP server, driven by the SDK's own client against the real database: over stdio (``beliefdb
mcp``: every tool listed with a description that says when to use it, each one called, answers in the
CLI's ``--json`` shapes, acting as the configured principal) and over streamable HTTP under ``beliefdb
serve`` (behind the bearer tokens: 401 without one, the token's principal and workspace, read-only)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from conftest import Cli
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from serving import running_server, stdio_server
from test_robustness_input import row_counts

import beliefdb
from beliefdb import api

V32 = ("# Return policy\nOwner: Operations\n\nReturns are accepted within 7 days of delivery.\n"
       "The restocking fee is 10%.\n")
TOOLS = {"remember", "remember_turn", "ingest_text", "ask", "why", "beliefs", "decide", "act", "decisions", "actions",
         "impact", "correct", "retract", "forget", "review_list", "review_resolve", "record_step", "record_outcome",
         "submit_job", "jobs", "retry_jobs", "cancel_jobs"}

Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def caller(client: Client, *, errors: bool = False) -> Call:
    """Call a tool; its answer parsed (an error answer only when ``errors``, else it fails the test)."""

    async def call(tool: str, arguments: dict[str, Any]) -> Any:
        result = await client.call_tool(tool, arguments)
        assert len(result.content) == 1 and result.content[0].type == "text", result
        text = result.content[0].text
        assert text.startswith(("{", "[")), (tool, text)
        body = json.loads(text)
        assert result.is_error == errors, (tool, body)
        if errors:
            assert set(body) == {"error", "message"}, body
        # an error is structured content too; an answer is the JSON text alone (the tools publish no schema)
        assert result.structured_content == (body if errors else None), (tool, result)
        return body

    return call


@asynccontextmanager
async def http_client(base: str, token: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP at ``base``/mcp, sending ``token``."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http, \
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        yield client


@pytest.mark.slow
def test_stdio_lists_every_tool_and_each_answers_the_cli_json(db_url: str, cli: Cli) -> None:
    async def session() -> None:
        async with Client(stdio_server(db_url, "--as", "agent-7")) as client:
            listed = (await client.list_tools()).tools
            assert {t.name for t in listed} == TOOLS
            for t in listed:  # each says what it is for and when to use it
                assert t.description and len(t.description) > 120, t.name
            call, fails = caller(client), caller(client, errors=True)

            report = await call("ingest_text", {"source": "return-policy.md", "text": V32, "authority": "official"})
            window = next(a["id"] for a in report["accepted"] if a["attribute"] == "window")
            fee = next(a["id"] for a in report["accepted"] if a["attribute"] == "fee")
            kept = await call("remember", {"statement": "The customer prefers email.", "subject": "customer_1042",
                                           "attribute": "contact_channel", "value": "email",
                                           "quote": "please email me", "source": "chat-1042/1",
                                           "text": "Hi, please email me about the refund."})
            email = kept["accepted"][0]["id"]
            said = await call("remember_turn", {"conversation": "chat-1042", "speaker": "Maya",
                                                "text": "I moved to Porto last week.", "time": "2023-09-01T09:00:00Z"})
            assert [(a["subject"], a["value"]) for a in said["accepted"]] == [("maya", "Porto")]
            assert "2023-09-01" in str(cli.json("why", said["accepted"][0]["id"])["belief"]["valid_time"])
            assert (await fails("remember_turn", {"conversation": "chat-1042", "speaker": "Maya", "text": "hi",
                                                  "time": "last week"}))["error"] == "invalid_input"
            assert (await call("why", {"belief": email}))["belief"]["owner"] == "agent-7"  # the configured principal
            assert await call("why", {"belief": window}) == cli.json("why", window)
            assert await call("beliefs", {}) == cli.json("beliefs")
            assert await call("beliefs", {"subject": "customer_1042"}) == cli.json("beliefs", "--subject",
                                                                                 "customer_1042")
            asked = await call("ask", {"question": "how many days for returns?", "k": 2})
            assert asked == cli.json("ask", "how many days for returns?", "--k", "2")
            assert asked["status"] == "ok" and asked["beliefs"][0]["value"] == "7 days"

            refuse = await call("decide", {"title": "Refuse the return of 1042", "because": [window]})
            joint = await call("decide", {"title": "Email 1042 about the fee", "all_of": [[fee, email]]})
            assert refuse["status"] == joint["status"] == "active"
            assert (await call("act", {"decision": refuse["id"], "description": "Email a refusal"}))["status"] == \
                "scheduled"
            assert await call("impact", {"refs": [window]}) == cli.json("impact", window)

            seen = await call("correct", {"belief": fee})
            assert seen["would_flag"] == [joint["id"]]
            stale = await fails("correct", {"belief": fee, "statement": "The restocking fee is 5%.", "value": "5%",
                                            "expected_revision": seen["revision"] + 1})
            assert stale["error"] == "stale_correction_preview"
            fixed = await call("correct", {"belief": fee, "statement": "The restocking fee is 5%.", "value": "5%",
                                           "expected_revision": seen["revision"]})
            assert fixed["already_applied"] is False and fixed["flagged"] == [joint["id"]]

            would = await call("retract", {"belief": email, "preview": True})
            assert await call("retract", {"belief": email, "reason": "wrong customer"}) == would
            items = await call("review_list", {})
            assert items == cli.json("review", "list") and items
            resolved = await call("review_resolve", {"item": items[0]["id"], "verdict": "rejected"})
            assert resolved["status"] == "rejected"

            first = await call("record_step", {"kind": "user_input", "task": "refund 1042",
                                               "payload": {"text": "Can I return it?"}})
            step = await call("record_step", {"run": first["run"], "kind": "answer", "payload": {"text": "No."},
                                              "inputs": [{"edge": "initiates", "node": first["step"]}]})
            assert step["seq"] == 1 and cli.json("runs")[0]["id"] == first["run"]
            # a search hit is not evidence: in a run, only what the run's reads showed may be cited
            shown = await call("ask", {"question": "how many days for returns?", "k": 1, "run": first["run"]})
            seen_id = shown["beliefs"][0]["id"]
            cited = await call("decide", {"title": "Refuse 1042", "because": [seen_id, fee], "run": first["run"]})
            assert cited["status"] == "active" and [r["belief"] for r in cited["refused"]] == [fee]

            assert (await fails("why", {"belief": "0123abcd"}))["error"] == "unknown_belief"
            assert (await fails("act", {"decision": "0123abcd", "description": "x"}))["error"] == "not_found"

    anyio.run(session)


@pytest.mark.slow
def test_mcp_over_http_takes_principal_and_workspace_from_the_token(db_url: str) -> None:
    alice = api.create_token("default", "alice", url=db_url).token
    rita = api.create_token("default", "rita", read_only=True, url=db_url).token
    api.create_workspace("other", url=db_url)
    bob = api.create_token("other", "bob", url=db_url).token

    async def session(base: str) -> None:
        async with http_client(base, alice) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            call = caller(client)
            report = await call("ingest_text", {"source": "return-policy.md", "text": V32})
            window = report["accepted"][0]["id"]
            assert (await call("why", {"belief": window}))["belief"]["owner"] == "alice"
        async with http_client(base, rita) as client:
            call, fails = caller(client), caller(client, errors=True)
            assert (await call("ask", {"question": "how many days for returns?"}))["status"] == "ok"
            assert (await call("correct", {"belief": window}))["revision"] == 1  # a preview reads
            refused = await fails("decide", {"title": "Refuse", "because": [window]})
            assert refused["error"] == "read_only_token"
            # forgetting is a change, its preview a read (refused here as the forget would be: alice's source)
            assert (await fails("forget", {"source": "return-policy.md"}))["error"] == "read_only_token"
            assert (await fails("forget", {"source": "return-policy.md", "preview": True}))["error"] == "not_owner"
        async with http_client(base, bob) as client:
            assert (await caller(client, errors=True)("why", {"belief": window}))["error"] == "unknown_belief"
            assert await caller(client)("beliefs", {}) == []

    with running_server(db_url) as base:
        for headers in ({}, {"Authorization": "Bearer bdb_unknown"}):
            refused = httpx.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                 headers=headers | {"Accept": "application/json, text/event-stream"})
            assert refused.status_code == 401 and refused.json()["error"] == "unauthenticated"
        anyio.run(session, base)


def test_tool_numbers_have_the_http_apis_bounds(bdb: beliefdb.BeliefDB) -> None:
    """k, min_confidence, expected_revision and version are refused out of range by the tool's own schema,
    before any call reaches the database: invalid_input, naming the argument and its bound, in the words
    the HTTP API uses for the same field."""
    from beliefdb.interfaces.mcp import build

    async def session() -> None:
        async with Client(build(local=bdb)) as client:
            fails = caller(client, errors=True)
            for tool, arguments, said in [
                    ("ask", {"question": "how many days?", "k": 0}, "k: Input should be greater than or equal to 1"),
                    ("ask", {"question": "how many days?", "k": 10**12}, "k: Input should be less than or equal to 50"),
                    ("correct", {"belief": "3f2a", "statement": "x", "expected_revision": 2**40},
                     "expected_revision: Input should be less than or equal to 2147483647"),
                    ("retract", {"source": "a.md", "version": 0, "preview": True},
                     "version: Input should be greater than or equal to 1"),
                    # (the library's own refusal named the CLI's flag: '--min-confidence must be ...')
                    ("ask", {"question": "how many days?", "min_confidence": 5},
                     "min_confidence: Input should be less than or equal to 1"),
                    ("ask", {"question": "how many days?", "min_confidence": -0.5},
                     "min_confidence: Input should be greater than or equal to 0"),
                    ("ask", {"question": "é" * 2_001},
                     "the question is 2,001 characters long; ask takes at most 2,000 (ask about one thing at a time)")]:
                refused = await fails(tool, arguments)
                assert refused == {"error": "invalid_input", "message": said}, (tool, refused)
            fine = await client.call_tool("ask", {"question": "how many days?", "k": 50})
            assert not fine.is_error and json.loads(fine.content[0].text)["status"] == "no_match"

    anyio.run(session)


def test_every_tool_refuses_an_argument_it_does_not_take(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """An argument a tool does not take is refused, as the HTTP API refuses a field: invalid_input,
    one line naming it and the arguments the tool takes (and a required one missing beside it), and
    nothing written; the SDK would drop it and the call would do something else (a turn dated now)."""
    from beliefdb.interfaces.mcp import build

    async def session() -> None:
        async with Client(build(local=bdb)) as client:
            fails = caller(client, errors=True)
            said = "not one of the arguments this tool takes"
            for tool, arguments, message in [
                    ("remember_turn", {"conversation": "c", "speaker": "Lea", "text": "I live in Bern.",
                                       "when": "2020-01-01T00:00:00Z"},
                     f"when: {said} (conversation, speaker, text, time, extractor, idempotency_key)"),
                    ("ask", {"question": "where does Lea live?", "asof": "2020-01-01T00:00:00Z"},
                     f"asof: {said} (question, k, as_of, scope, min_confidence, include_fixtures, run, subjects)"),
                    ("remember_turn", {"conversation": "c", "speaker": "Lea", "message": "I live in Bern."},
                     f"message: {said} (conversation, speaker, text, time, extractor, idempotency_key);"
                     " text: missing (it is required)"),
                    ("decide", {"name": "Ship it", "why": ["3f2a"]},
                     f"name, why: {said} (title, because, all_of, run, idempotency_key);"
                     " title: missing (it is required)"),
                    ("review_list", {"all": True}, f"all: {said} (limit, after, kind)")]:
                assert await fails(tool, arguments) == {"error": "invalid_input", "message": message}, tool
            for listed in (await client.list_tools()).tools:  # every tool, naming what its schema lists
                takes = ", ".join(listed.input_schema["properties"]) or "none"
                refused = await fails(listed.name, {"colour": "red"})
                assert refused["error"] == "invalid_input", refused
                assert refused["message"].startswith(f"colour: {said} ({takes})"), refused
                assert "\n" not in refused["message"], refused

    before = row_counts(db_url)
    anyio.run(session)
    assert row_counts(db_url) == before


def test_stdio_reports_lines_that_are_not_mcp_messages_and_exits_1(db_url: str) -> None:
    """beliefdb mcp fed garbage on stdin exited 0 without a word (the SDK debug-logs and drops such a line):
    each bad line is answered with JSON-RPC's parse error and named on stderr, and the run exits 1 with
    one beliefdb line when stdin ends. (A normal session is the other tests of this file.)"""
    env = {**os.environ, "BELIEFDB_URL": db_url}
    env.pop("BELIEFDB_HOME", None)
    done = subprocess.run([sys.executable, "-m", "beliefdb", "mcp"], input="hello garbage\n{\"jsonrpc\": 1}\n",
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done
    said = done.stderr.strip().splitlines()
    assert said[-1] == ("error: 2 line(s) of stdin were not MCP messages (JSON-RPC 2.0, one a line): 'beliefdb mcp'"
                        " is started by an MCP client (Claude Desktop, Cursor, ...), not typed into")
    assert [line.split(":")[0] for line in said[:-1]] == ["beliefdb mcp"] * 2
    assert "line 1 of stdin is not an MCP message" in said[0] and "line 2 of stdin" in said[1]
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(None, -32700), (None, -32700)]


def test_the_remember_tool_says_a_new_text_replaces_the_sources_text(bdb: beliefdb.BeliefDB) -> None:
    """An agent that remembers two facts from two messages under one source name loses the first: the
    second text is the source's next version, and a belief quoted only from the earlier text stops being
    supported. The tool's description said only "it becomes the next version of `source`"; it now says
    what that does, and how to keep both (a source per message, or remember_turn)."""
    from beliefdb.interfaces.mcp import build

    async def session() -> tuple[str, list[Any]]:
        async with Client(build(local=bdb)) as client:
            listed = await client.list_tools()
            said = next(t.description or "" for t in listed.tools if t.name == "remember")
            answers = []
            for text, attribute, value in (("I like tea.", "drink", "tea"), ("I live in Oslo.", "city", "Oslo")):
                result = await client.call_tool("remember", {
                    "statement": f"Dana's {attribute} is {value}.", "subject": "dana", "attribute": attribute,
                    "value": value, "quote": text, "source": "chat-with-dana", "text": text})
                assert not result.is_error and result.content[0].type == "text"
                answers.append(json.loads(result.content[0].text))
            return said, answers

    said, (first, second) = anyio.run(session)
    assert second["unsupported"] == [first["accepted"][0]["id"]]
    assert "replacing its earlier text" in said and "lose their support" in said, said
    assert "a source of its own" in said and "remember_turn" in said, said


def test_ask_gives_a_model_long_quotes_and_fragments_cut(bdb: beliefdb.BeliefDB) -> None:
    """A turn that is a pasted page was given whole in every quote and fragment: a top-20 answer of 2.4 MB, where
    the context holds 5 kB. Over MCP a quote or fragment over 2,000 characters is cut to the sentence the belief
    states (the text's start for a fragment) and marked cut; a short one is as it was."""
    from beliefdb.interfaces.mcp import build

    page = "Lorem ipsum dolor sit amet. " * 200
    bdb.remember_turn("chat", "Maya", f"{page}I moved to Porto last week. {page}", embed=False)
    bdb.remember_turn("chat", "Bob", f"Porto facts: {page}", embed=False)
    bdb.remember_turn("chat", "Ana", "I moved to Porto too.", embed=False)

    async def session() -> dict[str, Any]:
        async with Client(build(local=bdb)) as client:
            return dict(await caller(client)("ask", {"question": "Porto", "k": 20}))

    answer = anyio.run(session)
    (maya,) = [b for b in answer["beliefs"] if b["subject"] == "maya"]
    (quote,) = maya["evidence"]
    assert quote["cut"] is True and len(quote["quote"]) < 2_200 and "I moved to Porto last week." in quote["quote"]
    assert all(len(f["text"]) < 2_200 for f in answer["fragments"]) and any(f.get("cut") for f in answer["fragments"])
    (ana,) = [e for b in answer["beliefs"] if b["subject"] == "ana" for e in b["evidence"]]
    assert "cut" not in ana and ana["quote"] == "I moved to Porto too."
    assert len(bdb.why(maya["id"]).evidence[0].quote) > 10_000  # why gives it whole
