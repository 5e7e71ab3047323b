"""The queue of jobs (issue 20): documents submitted now and ingested later by workers.

Submitting reads and checks the documents and queues them in one transaction (all or none), taking
no workspace lock, so it returns at once while workers ingest. A worker runs each job in one
transaction: ``beliefdb.job_take`` locks the job's row until that transaction ends, the ingest
writes in it (a savepoint), and ``job_finish`` commits with those writes; a failure rolls the
ingest back to the savepoint and ``job_fail`` records the reason and a backoff in the same
transaction (or fails the job at once when every attempt would fail alike, :data:`REFUSALS`). A
worker killed at any point loses its connection, the server rolls its transaction back, and the job
is queued again as it was: no document is lost or ingested twice. The start of
each attempt is recorded at once on another connection (``job_started``), so a document that brings
its worker down every time uses up its attempts and is failed with the reason. A worker that lives on
but lost the job's connection (a server restart, pg_terminate_backend) says that start was no attempt
once it reaches the database again (``job_start_lost``): a lost database is not the document's fault.
The workers' loop is :mod:`beliefdb.store.workers`.

The llm is asked in the job's transaction (its row lock holds the job), whose idle timeout is raised to the
longest the llm may take (``job_extraction_time``): a slow endpoint is no hung client, nor the document's fault.

The new beliefs are embedded after the job commits, as ``ingest`` does (a model is far slower than
the writes, and the workspace's write lock is held until commit). A worker killed between the
commit and the embedding leaves them without vectors: a worker embeds every belief without one
when it starts and whenever it finds the queue empty (as ``beliefdb embed`` does).
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import shown, storable
from beliefdb.models import IngestReport, Job, JobOutcome, Submitted, Turn, UnchangedText
from beliefdb.store import ingest
from beliefdb.store.beliefs import check_page_limit
from beliefdb.store.conversations import CHAT_SUFFIXES, read_chat_file
from beliefdb.store.documents import named_documents
from beliefdb.text.registry import EXTRACTORS, extractor_build
from beliefdb.text.turns import TurnSpan, lay_out
from beliefdb.vocabulary import AUTHORITIES, LABELS, ORIGINS

#: how often an idle worker looks for work, in seconds (at most: it wakes when a backoff ends)
POLL_SECONDS = 1.0
#: first wait before a failed job is tried again, in seconds, doubled for each attempt before
BACKOFF_SECONDS = 1.0
MAX_ATTEMPTS = 5
#: what fails a job at its first attempt: an endpoint that refused the request (a bad key, an unknown model)
#: refuses every attempt alike until its settings change (``jobs retry`` then), and so does input the ingest
#: refuses (turns for a document's source, a document for a conversation's): the job's payload, the same at
#: every attempt. What may pass is tried again, and so is what this worker's settings refused
#: (:func:`_check_worker`). (The worker embeds after a job commits and never fails a job for its vectors:
#: only the extractor's reach here today.)
REFUSALS: tuple[type[errors.BeliefDBError], ...] = (errors.ExtractorRefused, errors.InvalidInput)


def default_worker_name() -> str:
    """host:pid, recorded on each job a worker runs."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _payload(text: str, options: ingest.SourceOptions, extractor: str, path: str | None,
             turns: Sequence[TurnSpan] | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"source": options.name, "text": text, "path": path, "authority": options.authority,
                               "label": options.provenance, "origin": options.origin,
                               "version_label": options.version_label, "extractor": extractor,
                               "extractor_build": extractor_build(extractor)}
    if turns is not None:  # a conversation: where each turn lies in the text, who said it, when
        payload["turns"] = [t.to_json() for t in turns]
    return payload


def _turns(payload: dict[str, Any]) -> list[TurnSpan] | None:
    """A conversation job's turns (None: a document)."""
    if payload.get("turns") is None:
        return None
    return [TurnSpan.from_json(t) for t in payload["turns"]]


def _check_options(options: ingest.SourceOptions, extractor: str, max_attempts: int) -> None:
    for name, value, choices in (("authority", options.authority, AUTHORITIES),
                                 ("label", options.provenance, LABELS), ("origin", options.origin, ORIGINS)):
        if value is not None and value not in choices:
            raise errors.InvalidInput(f"invalid {name} '{value}' (choose from: {', '.join(choices)})")
    # an unknown extractor is refused now, not by every worker later; so is the llm without an endpoint
    # configured here (the workers read their own: they need it too), which failed every attempt of every job
    if extractor not in EXTRACTORS:
        raise errors.InvalidInput(f"unknown extractor '{extractor}' (choose from: {', '.join(sorted(EXTRACTORS))})")
    if extractor == "llm":
        from beliefdb.text.llm import NO_ENDPOINT, LLMConfig  # (only here: most commands never need the llm)

        try:
            LLMConfig.from_env()
        except errors.InvalidInput as exc:
            said = exc.message if exc.message != NO_ENDPOINT else f"{NO_ENDPOINT} here and for the workers"
            raise errors.InvalidInput(f"{said}; nothing was queued") from None
    if not 1 <= max_attempts <= 100:
        raise errors.InvalidInput(f"max attempts must be between 1 and 100, not {max_attempts}")


def submit(db: Database, payloads: Sequence[dict[str, Any]], max_attempts: int = MAX_ATTEMPTS) -> Submitted:
    """Queue one ingest job per payload in one transaction, but none that would change nothing
    (``beliefdb.job_submit`` decides: the text its source holds in force, or the newest job of its source
    carries); their ids, in order, and the payloads left out as unchanged."""
    with db.transaction() as c:
        rows = c.execute(Q.job_submit, ("ingest", Jsonb(list(payloads)), max_attempts)).fetchall()
    return Submitted([int(job) for job, _ in rows if job is not None],
                     [UnchangedText(source=p["source"], path=p.get("path"), reason=str(why))
                      for p, (job, why) in zip(payloads, rows, strict=True) if job is None])


def submit_texts(db: Database, texts: Sequence[tuple[str, ingest.SourceOptions]], *, extractor: str = "rules",
                 max_attempts: int = MAX_ATTEMPTS, max_bytes: int | None = None) -> Submitted:
    """Queue (text, source options) pairs: each is checked as ``ingest_text`` checks it first."""
    if not texts:
        raise errors.InvalidInput("nothing to submit")
    payloads = []
    for text, options in texts:
        _check_options(options, extractor, max_attempts)
        if options.name is None or not options.name.strip():  # blanks only: no name to see or give again
            raise errors.InvalidInput("a source name is required")
        ingest.check_size(options.name, text, max_bytes)
        if not text.strip():
            raise errors.InvalidInput(f"{options.name}: empty text")
        payloads.append(_payload(text, options, extractor, None))
    return submit(db, payloads, max_attempts)


def submit_paths(db: Database, paths: Sequence[Path], options: ingest.SourceOptions, *, extractor: str = "rules",
                 max_attempts: int = MAX_ATTEMPTS, max_bytes: int | None = None) -> Submitted:
    """Read and queue documents (a directory: its documents, :func:`beliefdb.store.documents.documents`;
    their text is queued, so a worker need not see the files); a bad file is an error naming it, and every
    other bad file with it, and then nothing is queued."""
    named = named_documents(paths, "submit", source=options.name)
    _check_options(options, extractor, max_attempts)
    limit = ingest.max_ingest_bytes(max_bytes)
    payloads = []
    refused: list[errors.BeliefDBError] = []
    for path, name in named.items():
        try:
            ingest.check_file_size(path, limit)  # (a file too large is refused without being read)
            text = ingest.read_document(path)
            ingest.check_size(shown(path), text, limit)
        except (errors.InvalidInput, errors.NotFound, errors.DocumentTooLarge) as exc:
            refused.append(exc)
            continue
        payloads.append(_payload(text, ingest.file_source(options, path, name=name), extractor, shown(path)))
    if refused:
        raise _all_refused(refused)
    return submit(db, payloads, max_attempts)


#: at most this many of the other refused files named in the one error (then how many more)
SHOWN_REFUSED = 10


def _all_refused(refused: list[errors.BeliefDBError]) -> errors.BeliefDBError:
    """The first refusal (its kind and code), naming the others: a drop folder with three bad files was
    fixed and submitted again three times, each run naming the next one only."""
    first, others = refused[0], refused[1:]
    if not others:
        return first
    named = "; ".join(e.message for e in others[:SHOWN_REFUSED])
    more = f"; and {len(others) - SHOWN_REFUSED} more" if len(others) > SHOWN_REFUSED else ""
    said = f"{first.message} (and {len(others)} other file(s) refused: {named}{more}; nothing was queued)"
    return type(first)(said)  # (each kind's own bound on what it echoes)


def submit_conversations(db: Database, conversations: Sequence[tuple[Sequence[Turn], ingest.SourceOptions, str | None]],
                         *, extractor: str = "rules", max_attempts: int = MAX_ATTEMPTS,
                         max_bytes: int | None = None) -> Submitted:
    """Queue conversations (turns, source options, the file they came from): each laid out and checked as
    ``ingest_conversation`` does first, ingested by a worker as one."""
    if not conversations:
        raise errors.InvalidInput("nothing to submit")
    payloads = []
    for turns, options, path in conversations:
        _check_options(options, extractor, max_attempts)
        if options.name is None or not options.name.strip():  # blanks only: no name to see or give again
            raise errors.InvalidInput("a conversation name is required")
        text, spans = lay_out(turns)
        ingest.check_size(options.name, text, max_bytes)
        payloads.append(_payload(text, options, extractor, path, spans))
    return submit(db, payloads, max_attempts)


def submit_transcripts(db: Database, paths: Sequence[Path], options: ingest.SourceOptions, *,
                       extractor: str = "rules", max_attempts: int = MAX_ATTEMPTS,
                       max_bytes: int | None = None) -> Submitted:
    """Read and queue chat files (JSONL of turns, or transcripts; a directory: its chat files, each named by
    its path below it), one conversation each; a bad file is an error naming it (and its line), and then
    nothing is queued."""
    named = named_documents(paths, "submit", CHAT_SUFFIXES, source=options.name)
    _check_options(options, extractor, max_attempts)  # (before any file is read, as submit_paths does)
    limit = ingest.max_ingest_bytes(max_bytes)
    return submit_conversations(
        db, [(read_chat_file(path, limit), ingest.file_source(options, path, name=name), shown(path))
             for path, name in named.items()], extractor=extractor, max_attempts=max_attempts, max_bytes=limit)


def list_jobs(db: Database, status: str | None = None, limit: int = 100, before: int | None = None) -> list[Job]:
    """The workspace's jobs, newest first (of ``status`` only, when given; older than the job ``before``,
    the last of the page before, when given): at most ``limit``, a page of up to 100,000 as for beliefs."""
    check_page_limit(limit)
    if before is not None and (isinstance(before, bool) or not isinstance(before, int)):
        raise errors.InvalidInput(f"{errors.argument('before')} must be a job id (a whole number), not {before!r}")
    if before is not None and not 1 <= before < 2**63:
        raise errors.InvalidInput(f"{errors.argument('before')} must be a job id (at least 1), not {before}")
    rows: list[Job] = db.fetch_all(Job, Q.jobs_list, (status, limit, before))
    return rows


def job_totals(db: Database, status: str | None = None, before: int | None = None) -> dict[str, int]:
    """How many of the workspace's jobs are queued, running, done and failed (of ``status`` only, the others 0;
    older than the job ``before``), each status a key, as :func:`list_jobs` shows them."""
    with db.transaction() as c:
        rows = c.execute(Q.job_totals, (status, before)).fetchall()
    return {str(status_): int(n) for status_, n in rows}


def _known_ids(ids: Sequence[int] | None) -> None:
    """Job ids outside the database's bigint name no job (the database could not even be asked)."""
    for i in ids or ():
        if not 1 <= i < 2**63:
            raise errors.NotFound(f"unknown job {i}")


def retry_jobs(db: Database, ids: Sequence[int] | None) -> list[int]:
    """Queue failed jobs again with their attempts afresh (``None``: every failed job this session may
    retry), in one transaction; the ids queued again, in order. An id that is not a failed job is
    refused, and then nothing is queued."""
    if ids is not None and not ids:
        raise errors.InvalidInput("give the ids of the failed jobs to retry")
    _known_ids(ids)
    with db.transaction() as c:
        rows = c.execute(Q.job_retry, (list(ids) if ids is not None else None,)).fetchall()
    return [int(r[0]) for r in rows]


def cancel_jobs(db: Database, ids: Sequence[int] | None, source: str | None) -> list[int]:
    """Delete queued or failed jobs with their text (``ids``, or every such job of ``source``), in one
    transaction; the ids cancelled, in order. A running, done or unknown job is refused, and then
    nothing is cancelled (``beliefdb.job_cancel``)."""
    _known_ids(ids)
    with db.transaction() as c:
        rows = c.execute(Q.job_cancel, (list(ids) if ids is not None else None, source)).fetchall()
    return [int(r[0]) for r in rows]


def _summary(report: IngestReport, extractor: str) -> dict[str, Any]:  # (the build that read it: job_submit)
    return {"extractor_build": extractor_build(extractor), "source": report.source, "version": report.version,
            "new_version": report.new_version, "accepted": len(report.accepted), "rejected": len(report.rejected),
            "corroborated": len(report.corroborated), "unchanged": len(report.unchanged),
            "superseded": len(report.superseded), "conflicts": len(report.conflicts),
            "proposed": report.proposed, "note": report.note}


def _message(exc: Exception) -> str:
    said = exc.message if isinstance(exc, errors.BeliefDBError) else f"{type(exc).__name__}: {exc}"
    return " ".join(storable(said).split()) or type(exc).__name__


def _check_worker(payload: dict[str, Any]) -> float | None:
    """InvalidInput when this worker's own settings refuse the job: its ingest size limit, its llm endpoint;
    else the longest its llm extractor may take to read it, in seconds (None: another extractor)."""
    # These are the worker's settings, not the job's input: another worker (a higher limit, an endpoint
    # configured) may take the job, so they use up its attempts rather than fail it at once (as before:
    # tests/test_queue_retry.py fails over-limit documents through their attempts and retries them).
    ingest.check_size(payload["source"], payload["text"], argument=False)
    if payload.get("extractor") == "llm":
        from beliefdb.text.llm import LLMConfig  # (only here: most jobs never need the llm)

        return LLMConfig.from_env().longest(payload["text"])
    return None


def _started(db: Database, job_id: int, worker: str) -> int:
    """Record the start of a job, committed at once on another connection (if this worker dies, the attempt
    still counts); the start's id."""
    with db.transaction() as c:
        c.execute(Q.job_started, (job_id, worker))
        row = c.execute(Q.job_start_id, (job_id, worker)).fetchone()
    assert row is not None and row[0] is not None
    return int(row[0])


def _lost(conn: psycopg.Connection[Any], exc: BaseException) -> bool:
    """Whether the job's connection was lost while this worker lives: ended by the server (a restart,
    pg_terminate_backend), not by the job's own doing (a transaction left idle too long, 25P03: a rule
    extraction longer than BELIEFDB_IDLE_IN_TRANSACTION_TIMEOUT uses up its attempts, as before)."""
    cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    return conn.broken and not (isinstance(cause, psycopg.Error) and cause.sqlstate == "25P03")


@dataclass
class LostStarts:
    """A worker's starts whose connection was lost (:func:`_lost`), to say once the database answers, and the
    jobs they were of: only a job's first loss in a worker is no attempt (a document that brings the server
    down at every attempt, a backend's crash restarting it, uses up its attempts like one that kills its worker).
    Shared by the threads of one worker: each says them all before it takes a job, so that none takes a job
    another lost (its lost start would count) before that start is said."""

    starts: list[int] = field(default_factory=list)
    jobs: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, job_id: int, start: int) -> None:
        with self.lock:
            if job_id not in self.jobs:
                self.jobs.add(job_id)
                self.starts.append(start)


def record_lost(db: Database, lost: LostStarts) -> None:
    """Say which starts were no attempts: deleted, they use up none of their jobs' attempts.
    DatabaseUnavailable while the database is away (those not said stay in ``lost``)."""
    with lost.lock:
        pending = list(lost.starts)
    for start in pending:  # (said twice by two threads: the second finds it deleted, and changes nothing)
        db.scalar(Q.job_start_lost, (start,))
        with lost.lock:
            if start in lost.starts:
                lost.starts.remove(start)


def run_one(db: Database, worker: str, *, embed: bool = True, backoff: float = BACKOFF_SECONDS,
            lost: LostStarts | None = None) -> list[JobOutcome]:
    """Take the oldest ready job and run it in one transaction; what became of it, after the jobs the take
    failed on its way, their workers having died during every attempt (none: no job is ready). A document
    that fails is recorded (queued again after a backoff, or failed after its last attempt, or at once
    when every attempt would fail alike: :data:`REFUSALS`). A lost connection raises
    :class:`~beliefdb.errors.DatabaseUnavailable`, and the job stays queued with its attempts as they were:
    its start is said to be no attempt at once, or, while the database is away, kept in ``lost`` and said
    before the next job is taken (:func:`record_lost`; a job's first loss in this worker only, :class:`LostStarts`).
    (A worker that died says nothing: its start counts.)"""
    lost = LostStarts() if lost is None else lost
    record_lost(db, lost)
    report: IngestReport | None = None
    job_id: int | None = None
    start: int | None = None
    conn: psycopg.Connection[Any] | None = None
    try:
        with db.transaction() as c:
            conn = c
            row = c.execute(Q.job_take, (worker,)).fetchone()
            died = [JobOutcome(id=int(f[0]), source=str(f[1]), status="failed", attempts=int(f[2]), error=str(f[3]))
                    for f in c.execute(Q.job_taken_failed).fetchall()]
            if row is None:
                return died
            job_id, payload, attempts = int(row[0]), row[1], int(row[2])
            start = _started(db, job_id, worker)
            # (a conversation every turn of which a forget took out is a conversation still: no turn says so)
            origin = payload.get("origin") or ("conversation" if payload.get("turns") == [] else None)
            options = ingest.SourceOptions(name=payload["source"], authority=payload.get("authority"),
                                           provenance=payload.get("label"), origin=origin,
                                           version_label=payload.get("version_label"))
            checked = False  # (whether this worker's settings took the job: see _check_worker)
            try:
                longest = _check_worker(payload)
                checked = True
                if longest is not None:  # (the llm answers in this transaction: not a client idle too long)
                    c.execute(Q.job_extraction_time, (round(longest * 1000),))
                report = ingest.ingest_text(db, payload["text"], options,
                                            extractor=payload.get("extractor") or "rules", path=payload.get("path"),
                                            embed=False, conn=c, turns=_turns(payload))
            except Exception as exc:  # the document's failure is the job's, recorded; the worker goes on
                if c.broken:  # (the connection is gone: nothing can be recorded on it)
                    raise
                if isinstance(exc, errors.WorkspaceBusy | psycopg.errors.LockNotAvailable) and start is not None:
                    # another writer of the workspace (a sibling worker on a large document) is no fault of
                    # this document: queued as it was, its start deleted, in this transaction (five waits
                    # behind one large file failed small documents for good)
                    c.execute(Q.job_wait, (job_id, start))
                    return [*died, JobOutcome(id=job_id, source=options.name or "", status="waiting",
                                              attempts=attempts - 1, error=_message(exc))]
                final = checked and isinstance(exc, REFUSALS)
                failed = c.execute(Q.job_fail, (job_id, _message(exc), backoff, final)).fetchone()
                assert failed is not None
                return [*died, JobOutcome(id=job_id, source=options.name or "", status=str(failed[0]),
                                          attempts=attempts, error=_message(exc))]
            c.execute(Q.job_finish, (job_id, Jsonb(_summary(report, payload.get("extractor") or "rules"))))
    except Exception as exc:
        if job_id is not None and start is not None and conn is not None and _lost(conn, exc):
            lost.add(job_id, start)
            with contextlib.suppress(errors.DatabaseUnavailable):
                record_lost(db, lost)
        raise
    deferred = ingest.embed_accepted(db, report, embed)
    return [*died, JobOutcome(id=job_id, source=report.source, status="done", attempts=attempts,
                              embedding_deferred=deferred)]
