"""A failed job's reason may quote its text: an llm endpoint that refuses a document often says why with the
words it was sent ("input rejected: Maya López says her new phone is ..."). Forgetting a subject masked
the name, the forgotten quotes and the forgotten speaker's turns in the job's text, and the report said the
text was masked, while the job's ``last_error`` kept the same words in clear: ``beliefdb jobs``, ``GET
/jobs`` and the table showed them after the erasure (rule 14). A forget that masks a job's text now clears
the reason recorded with it, as forgetting a source does. Real workers, a real database, and the endpoint
a real HTTP server on 127.0.0.1 (:class:`test_extract_llm.ChatServer`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from test_extract_llm import ChatServer, Reply, serving_llm

import beliefdb
from beliefdb.models import Turn

NOTE = "Maya López says her new phone is +351 933 000 111 and she is pregnant.\n"
SAID = "I am pregnant and my new phone is +351 933 000 111."


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


def refusing(words: str) -> Reply:
    """The endpoint's refusal, quoting what it was sent, as moderation endpoints do."""
    return Reply(status=400, body=json.dumps({"error": {"message": f"input rejected by moderation: {words}"}},
                                             ensure_ascii=False).encode())


def failed_error(postgresql: psycopg.Connection[Any], job: int) -> str:
    row = postgresql.execute("select status, last_error from beliefdb.job where id = %s", (job,)).fetchone()
    postgresql.commit()
    assert row is not None and row[0] == "failed", row
    return str(row[1])


def test_masking_a_name_in_a_failed_job_clears_the_reason_that_quotes_it(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.remember("Maya López lives in Porto.", "maya_lopez", "lives_in", "Porto", "Maya López lives in Porto.",
                 source="crm.txt", text="Maya López lives in Porto.\n")
    llm.answers(refusing(NOTE))
    (job,) = bdb.submit(text=NOTE, source="note.txt", extractor="llm")
    assert bdb.work(stop_when_empty=True, embed=False, backoff=0).failed == 1
    assert "Maya López says" in failed_error(postgresql, job)
    preview = bdb.forget(subject="Maya López", preview=True, mask_mentions=True)
    assert [(m.kind, m.id, m.masked) for m in preview.pending_mentions] == [("queued", str(job), True)]
    bdb.forget(subject="Maya López", mask_mentions=True, expect=preview.fingerprint())
    error = failed_error(postgresql, job)
    assert "López" not in error and "pregnant" not in error, error
    assert "forget masked its text" in error, error
    (shown,) = bdb.jobs(status="failed")
    assert "López" not in (shown.last_error or ""), shown


def test_forgetting_a_speakers_turns_in_a_failed_job_clears_the_reason_that_quotes_them(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    at = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    bdb.ingest_conversation([Turn("Maya López", "I live in Lisbon.", at)], source="chat-1", embed=False)
    llm.answers(refusing(SAID))
    (job,) = bdb.submit(turns=[Turn("Maya López", SAID, at), Turn("Agent", "Noted.", at)], source="chat-2",
                        extractor="llm")
    assert bdb.work(stop_when_empty=True, embed=False, backoff=0).failed == 1
    assert "pregnant" in failed_error(postgresql, job)
    preview = bdb.forget(subject="maya_lopez", preview=True)
    assert preview.jobs == 1, preview
    bdb.forget(subject="maya_lopez", expect=preview.fingerprint())
    error = failed_error(postgresql, job)
    assert "pregnant" not in error and "933" not in error, error
    assert "forget masked its text" in error, error


def test_a_masked_job_that_cannot_be_stored_has_a_way_out_that_works(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A failed job whose text a forget masked, of a source never stored (the endpoint refuses it whatever
    it is sent): forget --source said "cancel its jobs with their text (beliefdb jobs cancel --source ...)",
    and the cancel was refused ("let a worker store it masked"), which the refusing endpoint never lets
    happen: the rest of the text (her phone, her health) stayed in the queue with no way to erase it. Each
    now names what works: store the same text as that source (its masked lines stay masked), then forget
    the source, which clears its jobs."""
    bdb.remember("Maya López lives in Porto.", "maya_lopez", "lives_in", "Porto", "Maya López lives in Porto.",
                 source="crm.txt", text="Maya López lives in Porto.\n")
    llm.answers(refusing(NOTE))
    (job,) = bdb.submit(text=NOTE, source="note.txt", extractor="llm")
    assert bdb.work(stop_when_empty=True, embed=False, backoff=0).failed == 1
    preview = bdb.forget(subject="Maya López", preview=True, mask_mentions=True)
    bdb.forget(subject="Maya López", mask_mentions=True, expect=preview.fingerprint())
    with pytest.raises(beliefdb.errors.NotFound) as unknown:
        bdb.forget(source="note.txt", preview=True)
    assert "jobs cancel" not in str(unknown.value), unknown.value
    assert "ingest the same text as source note.txt" in str(unknown.value), unknown.value
    with pytest.raises(beliefdb.errors.InvalidInput) as refused:
        bdb.cancel(job)
    assert "ingest the same text as source note.txt yourself" in str(refused.value), refused.value
    # the way out, as both say
    stored = bdb.ingest_text(NOTE, source="note.txt", embed=False)
    assert stored.version == 1
    postgresql.commit()
    assert "López" not in str(postgresql.execute("select content from beliefdb.source_version v join"
                                                 " beliefdb.source s on s.id = v.source_id"
                                                 " where s.name = 'note.txt'").fetchone())
    seen = bdb.forget(source="note.txt", preview=True)
    assert seen.jobs == 1, seen
    bdb.forget(source="note.txt", expect=seen.fingerprint())
    row = postgresql.execute("select payload::text, last_error from beliefdb.job where id = %s", (job,)).fetchone()
    assert row is not None and "pregnant" not in row[0] and "933" not in str(row), row
