"""A queued job whose llm endpoint refuses the request (HTTP 400, 401, 403, 404, 422: a bad key, an unknown
model: ``extractor_refused``) was tried again up to its max attempts, each asking the endpoint again for the
same refusal: it is failed at its first attempt with the reason, so ``beliefdb jobs`` says what to fix at
once (and ``jobs retry`` queues it again once the settings are fixed). A failure that may pass (timeouts,
429, 5xx: ``extractor_unavailable``) is still tried again after a backoff. Real workers, a real database, and
the endpoint a real HTTP server on 127.0.0.1 (:class:`test_extract_llm.ChatServer`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from test_extract_llm import DOC, TABLES, WINDOW, ChatServer, Reply, answer, counts, serving_llm

import beliefdb
from beliefdb.db.queries import Q

BAD_KEY = b'{"error": {"message": "Incorrect API key provided: sk-wrong.", "code": "invalid_api_key"}}'


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


def test_a_refusal_fails_the_job_at_its_first_attempt_with_the_reason(
        llm: ChatServer, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    llm.answers(Reply(status=401, body=BAD_KEY))
    (job,) = bdb.submit(text=DOC, source="return-policy.md", extractor="llm", max_attempts=5)
    report = bdb.work(stop_when_empty=True, embed=False, backoff=0)
    assert (report.done, report.retried, report.failed) == (0, 0, 1), report
    assert report.outcomes[0].attempts == 1 and "HTTP 401" in (report.outcomes[0].error or "")
    (failed,) = bdb.jobs(status="failed")
    said = failed.last_error or ""
    assert (failed.id, failed.attempts) == (job, 1) and failed.finished_at is not None, failed
    assert said.startswith(f"the llm endpoint {llm.url}/chat/completions refused the request with HTTP 401:"
                           " Incorrect API key provided: sk-wrong.;") and "BELIEFDB_LLM_API_KEY" in said, said
    assert len(llm.seen) == 1  # asked once, for all its attempts
    assert counts(postgresql) == dict.fromkeys(TABLES, 0)
    # the settings fixed, it is queued again and done
    llm.answers(Reply(answer(WINDOW)))
    assert bdb.retry(job) == [job]
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert [b.value for b in bdb.beliefs()] == ["7 days"]


def test_a_failure_that_may_pass_is_still_tried_again_after_a_backoff(
        llm: ChatServer, bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch,
        postgresql: psycopg.Connection[Any]) -> None:
    monkeypatch.setenv("BELIEFDB_LLM_HTTP_RETRIES", "0")
    llm.answers(Reply(status=503))
    (job,) = bdb.submit(text=DOC, source="return-policy.md", extractor="llm", max_attempts=3)
    first = bdb.work(once=True, embed=False, backoff=30)
    assert (first.retried, first.failed) == (1, 0), first
    (queued,) = bdb.jobs(status="queued")
    assert queued.attempts == 1 and "failed after 1 attempt: HTTP 503" in (queued.last_error or ""), queued
    assert (queued.run_after - queued.started_at).total_seconds() >= 29  # type: ignore[operator]
    postgresql.execute("update beliefdb.job set run_after = now()")
    postgresql.commit()
    llm.answers(Reply(answer(WINDOW)))
    last = bdb.work(stop_when_empty=True, embed=False)
    assert (last.done, last.failed) == (1, 0) and last.outcomes[0].attempts == 2 and last.outcomes[0].id == job


@pytest.mark.parametrize("body", [b'{"error": {"message": "bad \\u0000 key \\ud800 here"}}', b"bad \x00 key"])
def test_a_refusal_in_words_text_cannot_hold_fails_the_job_with_them_shown(
        llm: ChatServer, bdb: beliefdb.BeliefDB, body: bytes) -> None:
    """An endpoint's message with a NUL or a lone surrogate was passed on as the job's reason: storing it failed
    (InvalidInput, or a UnicodeEncodeError), so every worker run stopped at that job, which stayed queued."""
    llm.answers(Reply(status=401, body=body))
    (job,) = bdb.submit(text=DOC, source="return-policy.md", extractor="llm", max_attempts=5)
    report = bdb.work(stop_when_empty=True, embed=False, backoff=0)
    assert (report.done, report.failed) == (0, 1), report
    (failed,) = bdb.jobs(status="failed")
    assert failed.id == job and "bad \ufffd key" in (failed.last_error or ""), failed


def test_a_slow_llm_is_no_client_idle_too_long_in_the_jobs_transaction(
        llm: ChatServer, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An endpoint slower than BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT (within BELIEFDB_LLM_TIMEOUT) had the server
    end the job's transaction at every attempt ("terminating connection due to idle-in-transaction timeout"),
    until the job failed as "its worker died during 5 of its 5 attempts", where a direct ingest, asking before its
    transaction, worked. The job's transaction may stay idle as long as the llm may take: the job is done."""
    monkeypatch.setenv("BELIEFDB_LLM_TIMEOUT", "20")
    monkeypatch.setenv("BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT", "0.3")
    llm.answers(Reply(answer(WINDOW), delay=1.0))
    with beliefdb.connect(db_url) as bdb:
        (job,) = bdb.submit(text=DOC, source="return-policy.md", extractor="llm")
        report = bdb.work(once=True, embed=False)
        assert (report.done, report.failed) == (1, 0) and report.outcomes[0].id == job, report
        assert [b.value for b in bdb.beliefs()] == ["7 days"]
        # (raised for the job's transaction only: the session's own is as it was)
        assert bdb.database.scalar("show idle_in_transaction_session_timeout") == "300ms"


def test_the_llm_jobs_idle_time_is_capped_at_what_the_setting_takes(bdb: beliefdb.BeliefDB) -> None:
    """(review) The longest an llm may take for a large document (an 8M-character text at the defaults:
    2,734,290,000 ms) is past the setting's integer range: setting it failed the job's transaction, and the
    job's failure could not be recorded on it. It is capped at 2^31 - 1 ms."""
    with bdb.database.transaction() as c:
        c.execute(Q.job_extraction_time, (2_734_290_000,))
        assert c.execute("show idle_in_transaction_session_timeout").fetchone() == ("2147483647ms",)
