"""Workers (issue 20): threads that run the queue's jobs (:func:`beliefdb.store.jobs.run_one`) until stopped,
the queue is empty, or one job was run, and embed what an earlier worker left without vectors."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.embedders import get_embedder
from beliefdb.models import DatabaseWait, JobOutcome, WorkReport
from beliefdb.store import vectors as embeddings
from beliefdb.store.jobs import BACKOFF_SECONDS, POLL_SECONDS, LostStarts, default_worker_name, run_one


def heal_embeddings(db: Database) -> int:
    """Embed every belief left without a vector (a worker killed between a job's commit and its
    embedding); 0 when the embedder cannot be had (``beliefdb embed`` says why)."""
    try:
        return embeddings.backfill(db, get_embedder()).embedded
    except (errors.EmbedderUnavailable, errors.ModelMismatch):
        return 0


@dataclass
class _Tally:
    report: WorkReport = field(default_factory=WorkReport)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, outcome: JobOutcome | None = None, embedded: int = 0) -> None:
        with self.lock:
            r = self.report
            if outcome is None:
                self.report = WorkReport(r.done, r.retried, r.failed, r.embedded + embedded, r.outcomes, r.waited)
                return
            self.report = WorkReport(done=r.done + (outcome.status == "done"),
                                     retried=r.retried + (outcome.status == "queued"),
                                     failed=r.failed + (outcome.status == "failed"),
                                     embedded=r.embedded + embedded, outcomes=[*r.outcomes, outcome],
                                     waited=r.waited + (outcome.status == "waiting"))


@dataclass
class _Outage:
    """When the worker lost the database (None: it answers), shared by its threads: its first thread to lose it
    says so once, the first to reach it again says how long the worker waited (``on_database``)."""

    notify: Callable[[DatabaseWait], None] | None
    since: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def lost(self, exc: errors.DatabaseUnavailable) -> None:
        with self.lock:
            if self.since is None:
                self.since = time.monotonic()
                if self.notify is not None:
                    self.notify(DatabaseWait(back=False, seconds=0.0, reason=exc.message))

    def answered(self) -> None:
        if self.since is None:  # (the common case: no lock taken)
            return
        with self.lock:
            if self.since is not None:
                waited, self.since = time.monotonic() - self.since, None
                if self.notify is not None:
                    self.notify(DatabaseWait(back=True, seconds=waited))


def _seconds_until(moment: datetime | None) -> float | None:
    return None if moment is None else (moment - datetime.now(UTC)).total_seconds()


@dataclass(frozen=True)
class _NextReady:
    at: datetime | None
    workspace_exists: bool


def work(db: Database, *, worker: str | None = None, concurrency: int = 1, stop_when_empty: bool = False,
         once: bool = False, embed: bool = True, backoff: float = BACKOFF_SECONDS, poll: float = POLL_SECONDS,
         stop: threading.Event | None = None, on_outcome: Callable[[JobOutcome], None] | None = None,
         on_database: Callable[[DatabaseWait], None] | None = None) -> WorkReport:
    """Run jobs with ``concurrency`` threads until ``stop`` is set (a job under way is finished first),
    or the queue holds no job (``stop_when_empty``: jobs waiting for a backoff are waited for), or
    after one job (``once``: the oldest ready one, if any). A workspace deleted under it stops it with
    UnknownWorkspace when it finds no job ready (a job under way finishes or fails first). A database
    lost is waited for (but with ``once``), told to ``on_database`` when the wait starts and when it ends."""
    if concurrency < 1:
        raise errors.InvalidInput(f"concurrency must be at least 1, not {concurrency}")
    if backoff < 0 or poll <= 0:
        raise errors.InvalidInput("backoff must not be negative and poll must be positive")
    name = worker or default_worker_name()
    stop = stop or threading.Event()
    tally = _Tally()
    if embed:
        tally.add(embedded=heal_embeddings(db))
    failures: list[BaseException] = []
    lost = LostStarts()  # (starts whose connection was lost, to say once the database is back: every thread's)
    outage = _Outage(on_database)

    def wait_for_database(exc: errors.DatabaseUnavailable) -> None:
        if once or isinstance(exc, errors.SchemaMismatch):  # (no wait mends a schema to migrate)
            raise exc
        if not isinstance(exc, errors.WorkspaceBusy):  # (another writer is no outage: it is said per job)
            outage.lost(exc)
        stop.wait(poll)  # (the job stays queued; the server may be back in a moment)

    def loop() -> None:
        idle_healed = True
        while not stop.is_set():
            try:
                outcomes = run_one(db, name, embed=embed, backoff=backoff, lost=lost)
            except errors.DatabaseUnavailable as exc:
                wait_for_database(exc)
                continue
            outage.answered()
            for outcome in outcomes:  # (a job failed for a worker that died is failed for good too)
                tally.add(outcome)
                if on_outcome is not None:
                    on_outcome(outcome)
            if outcomes:
                idle_healed = False
                if once:
                    return
                continue
            if once:
                return
            try:  # (the database lost between a job and this is waited for as during one)
                if embed and not idle_healed:
                    tally.add(embedded=heal_embeddings(db))
                    idle_healed = True
                ready = db.fetch_one(_NextReady, Q.jobs_next_ready)
            except errors.DatabaseUnavailable as exc:
                wait_for_database(exc)
                continue
            if not ready.workspace_exists:
                raise errors.UnknownWorkspace(f"workspace '{db.workspace_name}' was deleted: the worker stops")
            wait = _seconds_until(ready.at)
            if wait is None and stop_when_empty:
                return
            stop.wait(poll if wait is None else min(max(wait, 0.05), poll))

    def guarded() -> None:
        try:
            loop()
        except BaseException as exc:
            failures.append(exc)
            stop.set()

    # (each thread in a copy of the caller's context: a thread starts in an empty one, and the messages
    # of a worker run from the command line spoke to a program, "embed the rest with db.embed()")
    threads = [threading.Thread(target=contextvars.copy_context().run, args=(guarded,), name=f"beliefdb-worker-{i}",
                                daemon=True)
               for i in range(1 if once else concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.2)  # (short joins: the main thread stays free to handle a signal)
    if failures:
        raise failures[0]
    return tally.report
