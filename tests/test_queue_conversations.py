"""Conversations through the queue (issue 20): chat files and turns submitted now are ingested by a worker as
``ingest_transcripts`` and ``ingest_conversation`` ingest them, each turn a fragment with its speaker and
time, so a belief's evidence is its turn; a bad chat file queues nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import psycopg
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
    with pytest.raises(errors.InvalidInput, match="unknown extractor 'nope'"):  # checked before a file is read
        bdb.submit_transcripts(bad, extractor="nope")
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
    # (the same conversation again, its job still to run: not queued twice)
    again = cli.json("ingest", path, "--queue", "--format", "chat")
    assert again["jobs"] == [] and again["unchanged"][0]["reason"].endswith("still to run, carries the same text")
    report = cli.json("worker", "--until-empty", "--no-embed")
    assert (report["done"], report["failed"]) == (1, 0)
    shown = cli.json("beliefs", "--subject", "maya")
    assert [b["value"] for b in shown] == ["Munich"]


def test_a_queued_conversation_does_not_turn_a_document_into_one(bdb: beliefdb.BeliefDB,
                                                                 postgresql: psycopg.Connection[Any]) -> None:
    turns = [Turn("Maya", "The return window is 30 days.", datetime(2026, 1, 5, tzinfo=UTC)),
             Turn("Maya", "I live in Berlin.", datetime(2026, 1, 6, tzinfo=UTC))]
    # (queued before the document was stored: the worker refuses it)
    bdb.submit(turns=turns, source="policy.md", max_attempts=1)
    bdb.ingest_text("The return window is 30 days.", source="policy.md")
    report = bdb.work(stop_when_empty=True, embed=False)
    assert (report.done, report.failed) == (0, 1)
    (job,) = bdb.jobs()
    assert job.status == "failed" and "policy.md is a document, not a conversation" in (job.last_error or "")
    # the document is as it was: not relabelled, not grown, no turn stored
    assert postgresql.execute(
        "select s.origin_type::text, count(v.*), max(length(v.content)), count(f.speaker)"
        " from beliefdb.source s join beliefdb.source_version v on v.source_id = s.id"
        " left join beliefdb.fragment f on f.source_version_id = v.id group by s.origin_type").fetchall() == [
        ("document", 1, len("The return window is 30 days."), 0)]
    assert bdb.beliefs(subject="maya") == []
    # the document stored, they are refused when they are queued, as ingest_conversation refuses them
    with pytest.raises(errors.InvalidInput, match=r"^policy.md is a document, not a conversation: .*queued$"):
        bdb.submit(turns=turns, source="policy.md")
    assert [j.status for j in bdb.jobs()] == ["failed"]


def test_a_permanent_input_error_fails_the_job_at_its_first_attempt(bdb: beliefdb.BeliefDB,
                                                                     postgresql: psycopg.Connection[Any]) -> None:
    """Turns queued for a document's source are refused by every attempt alike (invalid_input): the job was
    tried again 5 times, for the same error. It is failed at its first attempt, with the reason."""
    (job,) = bdb.submit(turns=[Turn("Maya", "I live in Berlin.", datetime(2026, 1, 6, tzinfo=UTC))],
                        source="policy.md")
    bdb.ingest_text("The return window is 30 days.", source="policy.md")  # (after: refused when queued)
    report = bdb.work(stop_when_empty=True, embed=False, backoff=0)
    assert (report.done, report.retried, report.failed) == (0, 0, 1), report
    (failed,) = bdb.jobs()
    assert (failed.id, failed.status, failed.attempts, failed.max_attempts) == (job, "failed", 1, 5)
    assert failed.finished_at is not None
    assert "policy.md is a document, not a conversation" in (failed.last_error or "")
    assert postgresql.execute("select count(*) from beliefdb.job_start where job_id = %s", (job,)).fetchone() == (1,)


def test_a_queued_turns_time_without_a_zone_is_fixed_when_it_is_submitted(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    said = datetime(2026, 1, 5, 9)  # local time, as a chat file's '2026-01-05T09:00' is
    bdb.submit(turns=[Turn("Maya", "I live in Berlin.", said)], source="chat-1")
    (payload,) = postgresql.execute("select payload -> 'turns' -> 0 ->> 'time' from beliefdb.job").fetchone() or ()
    # the job carries the moment with its offset: a worker's session in another time zone reads the same
    assert datetime.fromisoformat(payload) == said.astimezone() and datetime.fromisoformat(payload).tzinfo is not None
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    (berlin,) = bdb.beliefs(subject="maya")
    assert bdb.why(berlin.id).evidence[0].spoken_at == said.astimezone()
