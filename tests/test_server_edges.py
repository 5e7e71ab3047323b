"""Edges of the network servers found by exploring them as a client would: a conversation named with a
``/``, arguments an MCP tool or an HTTP body does not take (one line naming each, as every other error),
a value outside a closed list (bad input naming the choices, not a conflict), and a body that is not
JSON (where it stops being JSON)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb
from beliefdb import errors
from beliefdb.vocabulary import AUTHORITIES, BELIEF_KINDS, LABELS, ORIGINS, STEP_KINDS

TEXT = "The return window is 7 days.\n"
LISBON = {"speaker": "Maya", "text": "I live in Lisbon.", "time": "2023-05-01T09:00:00+00:00"}
PORTO = {"speaker": "Maya", "text": "I moved to Porto last week.", "time": "2023-09-01T09:00:00+00:00"}




# --- 1. a conversation whose name holds "/" ------------------------------------------------------

@pytest.mark.parametrize("name", ["team/chat-1042", "a/turns/b", "support/2024/06/chat"])
def test_turns_reach_a_conversation_whose_name_holds_a_slash(http_client: TestClient, db_url: str, cli: Cli,
                                                             name: str) -> None:
    """The name is the path up to the last ``/turns``, written with ``%2F`` or with ``/`` as is (both were
    a bare 404): the two turns are one conversation, the later value replacing the earlier."""
    alice = bearer(db_url)
    first = http_client.post(f"/conversations/{name.replace('/', '%2F')}/turns", json=LISBON, headers=alice)
    assert first.status_code == 200, first.text
    second = http_client.post(f"/conversations/{name}/turns", json=PORTO, headers=alice)
    assert second.status_code == 200, second.text
    assert first.json()["source"] == second.json()["source"] == name
    lives = [(b["value"], b["status"]) for b in cli.json("beliefs", "--all", "--attribute", "lives_in")]
    assert sorted(lives) == [("Lisbon", "superseded"), ("Porto", "current")]
    (evidence,) = cli.json("why", second.json()["accepted"][0]["id"])["evidence"]
    assert evidence["source"] == name


def test_a_turn_without_a_conversation_name_is_bad_input(http_client: TestClient, db_url: str) -> None:
    said = refused(http_client.post("/conversations//turns", json=LISBON, headers=bearer(db_url)), 400,
                   "invalid_input")
    assert "conversation name is required" in said


# --- 2. MCP arguments of the wrong type or missing ------------------------------------------------

@pytest.mark.parametrize(("tool", "arguments", "said"), [
    ("why", {}, "belief: missing (it is required)"),
    ("ask", {"question": 42}, "question: Input should be a valid string"),
    ("decide", {"title": "Refund", "all_of": [["3f2a9c1e", 7]]}, "all_of.0.1: Input should be a valid string"),
    ("review_resolve", {"item": "abcd", "verdict": "maybe"}, "verdict: Input should be 'approved' or 'rejected'"),
    ("impact", {"refs": "3f2a9c1e"}, "refs: Input should be a valid list"),
    ("ask", {"k": "many", "min_confidence": "high"},
     "question: missing (it is required); k: Input should be a valid integer;"  # (strict: a string is not parsed)
     " min_confidence: Input should be a valid number, unable to parse string as a number"),
])
def test_a_tools_bad_arguments_are_one_line_naming_each(bdb: beliefdb.BeliefDB, tool: str, arguments: dict[str, Any],
                                                        said: str) -> None:
    """pydantic's report was several lines ("1 validation error for whyArguments", the input, a link); it is
    invalid_input in the JSON of every other tool error, one line naming each argument and what was wrong."""
    from beliefdb.interfaces.mcp import build

    async def call() -> None:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool(tool, arguments)
            assert result.is_error and len(result.content) == 1 and result.content[0].type == "text", result
            assert json.loads(result.content[0].text) == {"error": "invalid_input", "message": said}

    anyio.run(call)


# --- 3. a value outside a closed list --------------------------------------------------------------

def _names_every(message: str, field: str, choices: tuple[str, ...]) -> None:
    assert field in message and all(f"'{choice}'" in message for choice in choices), message


@pytest.mark.parametrize(("path", "body", "field", "choices"), [
    ("/beliefs", {"statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
                  "value": "7 days", "quote": "7 days", "source": "p.md", "text": TEXT, "kind": "rumour"},
     "kind", BELIEF_KINDS),
    ("/beliefs", {"statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
                  "value": "7 days", "quote": "7 days", "source": "p.md", "text": TEXT, "authority": "boss"},
     "authority", AUTHORITIES),
    ("/sources", {"source": "p.md", "text": TEXT, "label": "draft"}, "label", LABELS),
    ("/sources", {"source": "p.md", "text": TEXT, "origin": "email"}, "origin", ORIGINS),
    ("/sources", {"source": "p.md", "text": TEXT, "extractor": "gpt"}, "extractor", ("rules", "none", "llm")),
    ("/conversations", {"source": "c", "turns": [LISBON], "authority": "boss"}, "authority", AUTHORITIES),
    ("/jobs", {"source": "p.md", "text": TEXT, "label": "draft"}, "label", LABELS),
    ("/steps", {"kind": "thinking"}, "kind", STEP_KINDS),
    ("/steps", {"kind": "claim", "memory": {"subject": "a", "attribute": "b", "value": "c", "kind": "rumour"}},
     "memory.kind", BELIEF_KINDS),
    ("/review-items/abcd", {"verdict": "maybe"}, "verdict", ("approved", "rejected")),
])
def test_a_value_outside_its_list_is_bad_input_naming_the_choices(http_client: TestClient, db_url: str, cli: Cli,
                                                                   path: str, body: dict[str, Any], field: str,
                                                                   choices: tuple[str, ...]) -> None:
    _names_every(refused(http_client.post(path, json=body, headers=bearer(db_url)), 400, "invalid_input"),
                 field, choices)
    assert cli.json("beliefs", "--all") == [] and cli.json("jobs") == []


@pytest.mark.parametrize(("path", "choices"), [
    ("/decisions?status=open", ("active", "needs_review", "approved", "rejected")),
    ("/actions?status=open", ("scheduled", "held", "done", "failed", "rolled_back", "cancelled")),
    ("/jobs?status=open", ("queued", "running", "done", "failed")),
])
def test_a_status_outside_its_list_is_bad_input_naming_the_choices(http_client: TestClient, db_url: str, path: str,
                                                                    choices: tuple[str, ...]) -> None:
    said = refused(http_client.get(path, headers=bearer(db_url)), 400, "invalid_input")
    _names_every(said, "status", choices)
    assert not said.startswith("query."), said  # the parameter's name, not where FastAPI found it


def test_a_kind_outside_the_list_is_bad_input_in_the_library_and_over_mcp(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    """The library stored the kind as given and the database's check refused it: integrity_violation (409
    over HTTP), as if two writes had conflicted. It is invalid_input naming the kinds, before anything is
    written, whatever calls it."""
    from beliefdb.interfaces.mcp import build

    bdb.ingest_text(TEXT, source="policy.md")
    for text in (None, TEXT):
        with pytest.raises(errors.InvalidInput, match=r"^invalid kind 'rumour' \(choose from: fact, rule, policy,"):
            bdb.remember("The return window is 7 days.", "return_policy", "window", "7 days", "7 days",
                         source="chat.md" if text else "policy.md", text=text, kind="rumour")
    before = cli.json("beliefs", "--all")

    async def call() -> None:
        async with Client(build(local=bdb)) as client:
            for tool, arguments, field, choices in [
                    ("remember", {"statement": "s", "subject": "a", "attribute": "b", "value": "c", "quote": "7 days",
                                  "source": "chat.md", "text": TEXT, "kind": "rumour"}, "kind", BELIEF_KINDS),
                    ("ingest_text", {"source": "p.md", "text": TEXT, "authority": "boss"}, "authority", AUTHORITIES),
                    ("ingest_text", {"source": "p.md", "text": TEXT, "label": "draft"}, "label", LABELS),
                    ("record_step", {"kind": "thinking"}, "kind", STEP_KINDS)]:
                result = await client.call_tool(tool, arguments)
                answer = json.loads(result.content[0].text)
                assert result.is_error and answer["error"] == "invalid_input", (tool, answer)
                _names_every(answer["message"], field, choices)

    anyio.run(call)
    assert cli.json("beliefs", "--all") == before


# --- 4. a body that is not JSON --------------------------------------------------------------------

@pytest.mark.parametrize("document", [
    '{"source": "p.md", "text": }',
    '{"source": "p.md",\n "text": "The fee is 10%."\n "preview": true}',
    '{"source": "p.md", "text": "The fee is 10%.",}',
    "{'source': 'p.md'}",
])
def test_a_body_that_is_not_json_says_where_it_stops_being_json(http_client: TestClient, db_url: str,
                                                                document: str) -> None:
    """It said "13: JSON decode error" (the position, and pydantic's words)."""
    with pytest.raises(json.JSONDecodeError) as parsed:
        json.loads(document)
    found = parsed.value
    response = http_client.post("/sources", content=document.encode(),
                                headers=bearer(db_url) | {"Content-Type": "application/json"})
    assert refused(response, 400, "invalid_input") == (
        f"the request body is not valid JSON: {found.msg} at line {found.lineno} column {found.colno}")


@pytest.mark.parametrize(("content", "said"), [
    (b"", "the request body is missing (send a JSON object)"),
    (b'["p.md"]', "the request body must be a JSON object"),
    (b'"p.md"', "the request body must be a JSON object"),
    (b'{"source": "p.md", "text": "The fee is 10%.", "colour": "red"}',
     "colour: not one of the fields this request takes (source, text, authority, label, origin, version_label,"
     " extractor, preview)"),
])
def test_a_body_that_is_not_the_object_asked_for_is_one_line(http_client: TestClient, db_url: str, content: bytes,
                                                              said: str) -> None:
    response = http_client.post("/sources", content=content,
                                headers=bearer(db_url) | {"Content-Type": "application/json"})
    assert refused(response, 400, "invalid_input") == said


def test_a_field_named_like_a_place_of_the_request_is_named(http_client: TestClient, db_url: str,
                                                            bdb: beliefdb.BeliefDB) -> None:
    """A field the body does not take was named in the refusal unless its name was 'path', 'query', 'body',
    'header' or 'cookie': those were dropped as if they said where the value came from, so an agent that
    sent POST /jobs a path (which the API never reads) was told 'the request body: not one of the fields
    this request takes', naming nothing; the tools likewise for an argument named 'path'. Each is named."""
    for field in ("path", "query", "body"):
        said = refused(http_client.post("/jobs", headers=bearer(db_url),
                                        json={"source": "notes.md", "text": TEXT, field: "/etc/passwd"}),
                       400, "invalid_input")
        assert said == (f"{field}: not one of the fields this request takes (source, text, turns, authority, label,"
                        " version_label, extractor, max_attempts)"), said
    from beliefdb.interfaces.mcp import build

    async def call() -> Any:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("ingest_text", {"source": "notes.md", "text": TEXT, "path": "/etc"})
            assert result.is_error and result.content[0].type == "text"
            return json.loads(result.content[0].text)

    answer = anyio.run(call)
    assert answer["message"].startswith("path: not one of the arguments this tool takes ("), answer
