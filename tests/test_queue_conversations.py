"""Conversations through the queue (issue 20): chat files and turns submitted now are ingested by a worker as
``ingest_transcripts`` and ``ingest_conversation`` ingest them, each turn a fragment with its speaker and
time, so a belief's evidence is its turn; a bad chat file queues nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors
from beliefdb.models import Turn

CHAT = [{"speaker": "Maya", "time": "2026-01-05T09:00:00Z", "text": "I live in Berlin."},
        {"speaker": "Tom", "time": "2026-01-06T09:00:00Z", "text": "Nice."},
        {"speaker": "Maya", "time": "2026-03-01T09:00:00Z", "text": "I moved to Munich."}]


def jsonl(turns: list[dict[str, str]]) -> str:
    return "".join(json.dumps(t) + "\n" for t in turns)


def test_a_queued_chat_file_is_ingested_by_a_worker_as_a_conversation(bdb: beliefdb.BeliefDB,
                                                                      write_doc: Any) -> None:
    path = write_doc("maya.jsonl", jsonl(CHAT))
    (job,) = bdb.submit_transcripts(path)
    assert [(j.id, j.status) for j in bdb.jobs()] == [(job, "queued")]
    assert bdb.beliefs(subject="maya") == []
    report = bdb.work(stop_when_empty=True, embed=False)
    assert (report.done, report.failed) == (1, 0)
    (munich,) = bdb.beliefs(subject="maya")
    assert munich.value == "Munich"
    (turn,) = bdb.why(munich.id).evidence
    assert (turn.speaker, turn.spoken_at, turn.quote) == (
        "Maya", datetime(2026, 3, 1, 9, tzinfo=UTC), "I moved to Munich.")
    # the same file ingested directly now is the text in force: nothing new (the worker stored the same)
    (again,) = bdb.ingest_transcripts(path, embed=False)
    assert not isinstance(again, beliefdb.models.IngestFailure)
    assert not again.new_version and again.accepted == []


def test_turns_queued_by_the_library_grow_the_conversation_as_ingest_would(bdb: beliefdb.BeliefDB) -> None:
    turns = [Turn(t["speaker"], t["text"], datetime.fromisoformat(t["time"])) for t in CHAT]
    bdb.submit(turns=turns[:2], source="chat-1")
    bdb.submit(turns=turns, source="chat-1")
    assert bdb.work(stop_when_empty=True, embed=False).done == 2
    # the second job grew the first's version in place (rule 18): one version, Berlin replaced by Munich
    assert {(b.value, b.status) for b in bdb.beliefs(subject="maya", include_all=True)} == {
        ("Berlin", "superseded"), ("Munich", "current")}
    (done, first) = bdb.jobs()
    assert done.result is not None and "appended" in (done.result.get("note") or "")
    assert first.result is not None and first.result["new_version"] is True


def test_bad_conversations_queue_nothing(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    good = write_doc("good.jsonl", jsonl(CHAT))
    bad = write_doc("bad.jsonl", jsonl(CHAT) + '{"speaker": "Tom"}\n')
    with pytest.raises(errors.InvalidInput, match=r"bad\.jsonl"):
        bdb.submit_transcripts(good, bad)
    with pytest.raises(errors.InvalidInput, match="one of them"):
        bdb.submit(good, turns=[Turn("Ana", "Hi.")], source="chat")
    with pytest.raises(errors.InvalidInput, match="at least one turn"):
        bdb.submit(turns=[], source="chat")
    with pytest.raises(errors.InvalidInput, match="name is required"):
        bdb.submit(turns=[Turn("Ana", "Hi.")])
    assert bdb.jobs() == []


def test_the_command_line_queues_chat_files(cli: Cli, write_doc: Any) -> None:
    path = write_doc("maya.jsonl", jsonl(CHAT))
    result = cli("ingest", path, "--queue")
    assert result.exit_code == 0, result.output
    assert "queued job" in result.output and "maya.jsonl" in result.output
    assert cli.json("ingest", path, "--queue", "--format", "chat")["jobs"]
    report = cli.json("worker", "--until-empty", "--no-embed")
    assert (report["done"], report["failed"]) == (2, 0)
    shown = cli.json("beliefs", "--subject", "maya")
    assert [b["value"] for b in shown] == ["Munich"]
