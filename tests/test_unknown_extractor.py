"""An unknown extractor is bad input, a ``beliefdb.errors.InvalidInput`` (code ``invalid_input``), from
every method that takes one: ``db.ingest(path, extractor="bogus")`` raised a bare ``ValueError``, which
``except BeliefDBError`` (the one class the README tells a library user to catch) let through, where
``db.submit`` already raised InvalidInput. Nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import beliefdb
from beliefdb import errors
from beliefdb.models import Turn


def test_every_method_refuses_an_unknown_extractor_as_bad_input(bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    doc = tmp_path / "policy.md"
    doc.write_text("The return window is 7 days.\n", encoding="utf-8")
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"speaker": "maya", "text": "I live in Lisbon."}\n', encoding="utf-8")
    turn = Turn("maya", "I live in Lisbon.", datetime(2024, 3, 4, tzinfo=UTC))
    calls: list[Callable[[], Any]] = [
        lambda: bdb.ingest(doc, extractor="bogus"),
        lambda: bdb.ingest_text("The return window is 7 days.\n", source="policy.md", extractor="bogus"),
        lambda: bdb.bulk_ingest(("policy.md", "The return window is 7 days.\n"), extractor="bogus"),
        lambda: bdb.ingest_conversation([turn], source="chat", extractor="bogus"),
        lambda: bdb.ingest_transcripts(chat, extractor="bogus"),
        lambda: bdb.remember_turn("chat", "maya", "I live in Lisbon.", extractor="bogus"),
        lambda: bdb.submit(doc, extractor="bogus"),
    ]
    for call in calls:
        with pytest.raises(errors.BeliefDBError) as refused:
            call()
        assert isinstance(refused.value, errors.InvalidInput) and refused.value.code == "invalid_input"
        assert refused.value.message == "unknown extractor 'bogus' (choose from: llm, none, rules)"
    assert bdb.beliefs(include_all=True) == [] and bdb.jobs() == []
