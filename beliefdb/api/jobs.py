"""The queue :class:`~beliefdb.BeliefDB` submits documents to and works through (it inherits these from
:class:`Jobs`): ``submit`` returns at once with job ids, ``work`` runs them (``beliefdb worker``), ``jobs``
lists them. Each job's ingest and its completion commit in one transaction, so a worker killed at any
point loses nothing and ingests nothing twice (:mod:`beliefdb.store.jobs`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.inputs import check_callback, given_path
from beliefdb.models import DatabaseWait, Job, JobOutcome, Submitted, Turn, WorkReport
from beliefdb.store import jobs as queue
from beliefdb.store import workers
from beliefdb.store.ingest import SourceOptions


class Jobs:
    """The queue methods of :class:`~beliefdb.BeliefDB`."""

    database: Database

    def submit(self, *paths: str | Path, text: str | None = None, turns: Sequence[Turn] | None = None,
               source: str | None = None, authority: str | None = None, label: str | None = None,
               version_label: str | None = None, extractor: str = "rules", max_attempts: int = queue.MAX_ATTEMPTS,
               max_bytes: int | None = None) -> Submitted:
        """Queue documents for a worker (:meth:`work`, ``beliefdb worker``) and return their job ids at once:
        the files or directories' files (their text is read now), or ``text`` as the next version of
        ``source``, or ``turns`` as the next version of the conversation ``source`` (as
        :meth:`ingest_conversation` stores them). All or none:
        a bad file is an error and nothing is queued, as is ``extractor="llm"`` with no endpoint configured
        (``BELIEFDB_LLM_URL``, which the workers need too), and turns for a document's source, which every
        attempt would refuse. A job is tried up to ``max_attempts`` times. A text that would change nothing is
        not queued (rule 18 of docs/rules.md): the text its source holds in force (a document, read by a done job
        with the same extractor, its options changing nothing of the source), or the text the newest job of its
        source still to run carries (submitted by this principal, with the same options); the list returned
        names them in ``unchanged`` (:class:`~beliefdb.models.Submitted`)."""
        options = SourceOptions(name=source, authority=authority, provenance=label, version_label=version_label)
        if (text is not None) + (turns is not None) + bool(paths) > 1:
            raise errors.InvalidInput("give files, text= or turns=: one of them")
        if text is not None:
            return queue.submit_texts(self.database, [(text, options)], extractor=extractor,
                                     max_attempts=max_attempts, max_bytes=max_bytes)
        if turns is not None:
            return queue.submit_conversations(self.database, [(turns, options, None)], extractor=extractor,
                                             max_attempts=max_attempts, max_bytes=max_bytes)
        files = [given_path(p, "paths") for p in paths]
        return queue.submit_paths(self.database, files, options, extractor=extractor,
                                  max_attempts=max_attempts, max_bytes=max_bytes)

    def submit_transcripts(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
                           label: str | None = None, version_label: str | None = None, extractor: str = "rules",
                           max_attempts: int = queue.MAX_ATTEMPTS, max_bytes: int | None = None) -> Submitted:
        """Queue chat files (JSONL of ``{speaker, time, text}``, or transcripts; a directory: its chat
        files) as :meth:`ingest_transcripts` reads them, one conversation a job, and return the job ids at
        once. All or none: a bad file is an error naming it (and its line), and nothing is queued. A conversation
        the newest job of its source still to run carries already is not queued (:meth:`submit`)."""
        options = SourceOptions(name=source, authority=authority, provenance=label, version_label=version_label)
        files = [given_path(p, "paths") for p in paths]
        return queue.submit_transcripts(self.database, files, options, extractor=extractor,
                                        max_attempts=max_attempts, max_bytes=max_bytes)

    def jobs(self, *, status: str | None = None, limit: int = 100, before: int | None = None) -> list[Job]:
        """The workspace's jobs, newest first: queued, running (a live worker holds it), done (with a
        summary of its ingest) or failed (with the reason); only ``status`` when given; at most ``limit``,
        older than the job ``before`` (the last id of the page before) when given."""
        return queue.list_jobs(self.database, status, limit, before)

    def job_totals(self, *, status: str | None = None, before: int | None = None) -> dict[str, int]:
        """How many of the workspace's jobs are queued, running, done and failed, as :meth:`jobs` shows them:
        of ``status`` only when given (the others 0), older than the job ``before`` when given."""
        return queue.job_totals(self.database, status, before)

    def retry(self, *ids: int, all_failed: bool = False) -> list[int]:
        """Queue failed jobs again, each with its attempts afresh and ready at once (its last error kept until
        it is tried): the ``ids`` given, or with ``all_failed`` every failed job this principal may retry
        (acting as a named principal, or an agent's login: its own; the schema owner's session acting as no
        principal: every one). One transaction, all or none: an id that is not a failed job of this
        workspace is an error and nothing is queued, as is a job whose source was forgotten. The ids queued
        again, in order (none failed: an empty list)."""
        if bool(ids) == all_failed:
            # (an agent over HTTP or MCP sets a field or an argument, not a Python keyword)
            every = errors.spelled("all_failed=True", "--all-failed", http="set all_failed", mcp="set all_failed")
            raise errors.InvalidInput(f"give the ids of the failed jobs to retry, or {every}: one of them")
        return queue.retry_jobs(self.database, None if all_failed else list(ids))

    def cancel(self, *ids: int, source: str | None = None) -> list[int]:
        """Cancel queued or failed jobs: each is deleted with the text it carries (a document queued and
        never stored is in no source, so ``forget`` cannot reach it). The ``ids`` given, or with ``source``
        every queued or failed job of that source name this principal may cancel (as :meth:`retry`: a
        named principal's own: another's is :class:`~beliefdb.errors.NotOwner`, naming who queued it). One
        transaction, all or none: a running, done or unknown job is an error and nothing is cancelled. The ids
        cancelled (a ``source`` with no queued or failed job: an empty list, as :meth:`retry` with none)."""
        if bool(ids) == (source is not None):
            raise errors.InvalidInput(f"give the ids of the jobs to cancel, or {errors.argument('source')}:"
                                      " one of them")
        return queue.cancel_jobs(self.database, list(ids) if ids else None, source)

    def work(self, *, concurrency: int = 1, stop_when_empty: bool = False, once: bool = False, embed: bool = True,
             backoff: float = queue.BACKOFF_SECONDS, worker: str | None = None, stop: threading.Event | None = None,
             on_outcome: Callable[[JobOutcome], None] | None = None,
             on_database: Callable[[DatabaseWait], None] | None = None) -> WorkReport:
        """Ingest queued documents, each job in one transaction with its completion, with ``concurrency``
        threads (at most the pool's size less one), until ``stop`` is set (the job under way is finished), or no
        job is left (``stop_when_empty``; retries waiting for their backoff are waited for), or after one
        job (``once``). A failed document is tried again after ``backoff`` seconds, doubled each attempt.
        With ``embed``, new beliefs are embedded after each job commits, and any belief left without a
        vector (a worker killed in between) when the worker starts or finds the queue empty. A lost database is
        waited for (the job under way stays queued), and told to ``on_database`` once when the wait starts and
        once when the database answers again, with how long it was waited for
        (:class:`~beliefdb.models.DatabaseWait`)."""
        check_callback(on_outcome, "on_outcome")
        check_callback(on_database, "on_database")
        if concurrency >= self.database.max_size:
            # (each job holds a connection for its transaction, and records its start on another)
            raise errors.InvalidInput(f"concurrency {concurrency} needs {concurrency + 1} connections, and this"
                                      f" BeliefDB has {self.database.max_size}: connect with a larger max_size")
        return workers.work(self.database, worker=worker, concurrency=concurrency, stop_when_empty=stop_when_empty,
                         once=once, embed=embed, backoff=backoff, stop=stop, on_outcome=on_outcome,
                         on_database=on_database)
