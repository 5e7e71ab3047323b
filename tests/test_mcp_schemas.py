"""The tools' schemas as a model reads them: which tools only read (``readOnlyHint``) and which erase or
take back (``destructiveHint``), so a client can ask before the latter and not before the former; an
optional argument sent as JSON null (what an OpenAI strict-mode bridge sends for every argument it was not
given: ``"k": null``) taken as not given, where it was refused ("k: Input should be a valid integer"); and
``remember_turn``'s ``time`` described as ``submit_job``'s ``turns[].time`` is (a date-time), with its
speaker a person's name (a role like "user" is someone else in each conversation)."""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.client import Client

import beliefdb

READS = {"ask", "why", "beliefs", "impact", "decisions", "actions", "review_list", "jobs"}
DESTRUCTIVE = {"forget", "retract", "cancel_jobs", "correct"}


def listed(bdb: beliefdb.BeliefDB) -> dict[str, Any]:
    from beliefdb.interfaces.mcp import build

    async def run() -> dict[str, Any]:
        async with Client(build(local=bdb)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    return anyio.run(run)


def test_read_tools_say_they_only_read_and_erasing_ones_that_they_erase(bdb: beliefdb.BeliefDB) -> None:
    tools = listed(bdb)
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints is not None, name
        assert hints.read_only_hint is (name in READS), (name, hints)
        if name not in READS:
            assert hints.destructive_hint is (name in DESTRUCTIVE), (name, hints)


def test_remember_turns_time_is_a_date_time_and_its_speaker_a_persons_name(bdb: beliefdb.BeliefDB) -> None:
    tools = listed(bdb)
    turn = tools["remember_turn"]
    time = turn.input_schema["properties"]["time"]
    queued = tools["submit_job"].input_schema["$defs"]["TurnBody"]["properties"]["time"]
    assert time["anyOf"] == queued["anyOf"] == [{"type": "string", "format": "date-time"}, {"type": "null"}], time
    assert "ISO 8601 with a zone" in time["description"] and "now" in time["description"], time
    assert "person's name" in turn.description and "user" in turn.description, turn.description


def test_an_optional_argument_sent_as_null_is_taken_as_not_given(bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.interfaces.mcp import build

    async def run() -> list[tuple[bool, dict[str, Any]]]:
        async with Client(build(local=bdb)) as client:
            answers = []
            for tool, arguments in (
                    ("remember_turn", {"conversation": "chat-1", "speaker": "Maya", "text": "I moved to Porto.",
                                       "time": None, "extractor": None}),
                    ("ask", {"question": "where does Maya live?", "k": None, "as_of": None, "scope": None,
                             "min_confidence": None, "include_fixtures": None, "run": None}),
                    ("beliefs", {"limit": None, "include_all": None}),
                    ("retract", {"source": "chat-1", "reason": None, "undo": None, "preview": True,
                                 "version": None}),
                    ("ask", {"question": None}),  # (a required one is still required)
                    ("ask", {"question": "where?", "nope": None})):  # (and one it does not take, refused)
                result = await client.call_tool(tool, arguments)
                answers.append((result.is_error, json.loads(result.content[0].text)))  # type: ignore[union-attr]
            return answers

    stored, asked, browsed, previewed, required, stranger = anyio.run(run)
    assert not stored[0] and stored[1]["accepted"], stored
    assert not asked[0] and asked[1]["beliefs"][0]["value"] == "Porto", asked
    assert not browsed[0] and [b["value"] for b in browsed[1]] == ["Porto"], browsed
    assert not previewed[0] and previewed[1]["fingerprint"], previewed
    assert required[0] and required[1]["error"] == "invalid_input" and "question" in required[1]["message"]
    assert stranger[0] and "nope" in stranger[1]["message"], stranger
