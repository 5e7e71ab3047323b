"""The LLM extractor over a conversation's turns (issue 20), against the scripted chat-completions server
of test_extract_llm: one request for the turns (not one a turn), a prompt that names speakers as the
subjects of first-person statements, quotes anchored to their whole turn with the turn's time as the
start of valid time, the same evidence gate; without an endpoint, a clear error and nothing written."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_extract_llm import ChatServer, answer, serving_llm

import beliefdb
from beliefdb.errors import InvalidInput
from beliefdb.models import Turn

MOVED = {"statement": "Maya moved to Porto.", "subject": "Maya", "attribute": "lives in", "value": "Porto",
         "quote": "I moved to Porto last week.", "kind": "fact", "scope": []}
PARAPHRASED = {"statement": "Maya lives in Porto.", "subject": "Maya", "attribute": "lives_in", "value": "Porto",
               "quote": "I relocated to Porto.", "kind": "fact", "scope": []}
WHEN = datetime(2024, 6, 18, 14, 3, tzinfo=UTC)


@pytest.fixture
def chat_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


@pytest.mark.slow
def test_llm_over_turns_quotes_the_turn_with_its_time(bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    chat_llm.answers(answer(MOVED, PARAPHRASED))
    turns = [Turn("agent", "Any news?", None), Turn("Maya", "I moved to Porto last week.", WHEN)]
    report = bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    (seen,) = chat_llm.seen  # one request for the whole conversation
    assert "is about that speaker: use the speaker's name as the subject" in seen.user_text
    assert "[2024-06-18T14:03:00+00:00] Maya: I moved to Porto last week." in seen.user_text
    (accepted,) = report.accepted
    assert (accepted.subject, accepted.attribute, accepted.value, accepted.quote) == (
        "maya", "lives_in", "Porto", "I moved to Porto last week.")
    assert [r.quote for r in report.rejected] == ["I relocated to Porto."]  # the gate, as for documents
    (belief,) = bdb.beliefs(subject="maya")
    assert belief.valid_time.lower == WHEN


@pytest.mark.slow
def test_remember_turn_sends_only_the_new_turn(bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    chat_llm.answers(answer(), answer(MOVED))
    bdb.remember_turn("chat", "agent", "Any news from you?", extractor="llm", embed=False)
    report = bdb.remember_turn("chat", "Maya", "I moved to Porto last week.", time=WHEN, extractor="llm", embed=False)
    assert "Any news" not in chat_llm.seen[1].user_text and "Maya: I moved to Porto" in chat_llm.seen[1].user_text
    assert [(a.subject, a.value) for a in report.accepted] == [("maya", "Porto")]


def test_without_an_endpoint_llm_is_refused_before_anything_is_written(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_LLM_URL", raising=False)
    path = tmp_path / "chat.md"
    path.write_text("Maya: I moved to Porto last week.\n", encoding="utf-8")
    line = cli.one_line_error("ingest", path, "--format", "chat", "--extractor", "llm")
    assert "BELIEFDB_LLM_URL" in line
    assert cli.json("beliefs", "--all") == []


def test_remember_turn_with_llm_without_an_endpoint(bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_LLM_URL", raising=False)
    with pytest.raises(InvalidInput, match="BELIEFDB_LLM_URL"):
        bdb.remember_turn("chat", "Maya", "I moved to Porto.", extractor="llm")
