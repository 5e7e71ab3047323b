"""The async client: ``await beliefdb.aconnect()`` gives an :class:`AsyncBeliefDB`, every method of
:class:`~beliefdb.api.memory.BeliefDB` as a coroutine with the same parameters and the same result.

One door. Each method runs the very ``BeliefDB`` method on one of the client's worker threads, over BeliefDB's
connection pool sized for as many calls as the client runs at once (``max_size``), and not over psycopg's
``AsyncConnectionPool``: an async pool would need an async twin of every operation of ``beliefdb.store``, a second
implementation of each rule's Python side that would drift from the first, while a thread per call costs little
because psycopg releases the GIL while it waits on the server, so concurrent awaits really do overlap in PostgreSQL
(``tests/test_async.py`` holds N calls waiting in the server at once, each on its own backend). ``beliefdb serve``
runs BeliefDB from threads the same way.

What follows from it:

* at most ``max_size`` calls run at once; more wait for a worker, and the event loop never blocks;
* cancelling an await does not stop the call in flight: it finishes (one transaction, committed as it
  would be) and its result is dropped; a call still waiting for a worker is not run at all; ``work``
  cancelled, or the client closed under it, sets its ``stop`` (the job under way is finished, and the
  worker returns);
* callbacks (``ingest``'s and ``embed``'s ``progress``, ``work``'s ``on_outcome``, ``repair_replay``'s executor)
  run on the worker thread, with the caller's context variables: plain functions (an ``async def`` one is refused);
* ``record_run`` returns the same buffered ``RunRecorder``: its ``flush`` (also on leaving ``with``) writes
  synchronously, so in a coroutine flush it with ``await db.call(run.flush)`` (or use ``record_step``);
* :meth:`AsyncBeliefDB.call` runs any function on those threads, e.g. several BeliefDB calls in one hop
  (the framework adapters of :mod:`beliefdb.adapters` do).

>>> async with await beliefdb.aconnect(workspace="default") as db:    # doctest: +SKIP
...     answer = await db.ask("how many days for returns?")
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import ParamSpec, TypeVar
from uuid import UUID

from beliefdb import errors
from beliefdb.api.async_pictures import AsyncPictures
from beliefdb.api.async_queue import AsyncQueue
from beliefdb.api.async_traces import AsyncTraces
from beliefdb.api.memory import BeliefDB, Progress, connect
from beliefdb.db.pooling import opened_here
from beliefdb.embedders import Embedder
from beliefdb.inputs import check_callback
from beliefdb.models import (
    Action,
    Answer,
    AskResult,
    AuditResult,
    Belief,
    BulkReport,
    Calibration,
    Changes,
    ConfidenceReport,
    CorrectionPreview,
    CorrectionResult,
    Decision,
    DerivedBelief,
    EmbedReport,
    Expired,
    Forgotten,
    ImpactRow,
    IngestFailure,
    IngestReport,
    OutcomeRecorded,
    Recorded,
    ReviewItem,
    ReviewResolution,
    RunDecision,
    Turn,
    Why,
    Workspace,
    WorkspaceDeleted,
)
from beliefdb.store.bulk import DEFAULT_BATCH
from beliefdb.store.calibrate import DEFAULT_BINS

__all__ = ["DEFAULT_MAX_SIZE", "AsyncBeliefDB", "aconnect"]

#: calls an async client runs at once (and connections its pool opens) unless told otherwise
DEFAULT_MAX_SIZE = 8

P = ParamSpec("P")
T = TypeVar("T")


class AsyncBeliefDB(AsyncPictures, AsyncQueue, AsyncTraces):
    """Memory bound to one workspace, for asyncio: each method is :class:`BeliefDB`'s of the same name
    (parameters, result, docstring), awaited while it runs on a worker thread.

    >>> db = await aconnect(workspace="default")          # doctest: +SKIP
    >>> await db.ingest_text("Returns are accepted within 7 days.", source="policy.md")   # doctest: +SKIP
    """

    def __init__(self, sync: BeliefDB, *, max_workers: int | None = None) -> None:
        #: the BeliefDB every call runs on (closing this client closes it)
        self.sync = sync
        workers = max_workers if max_workers is not None else sync.database.max_size
        if workers < 1:
            raise errors.InvalidInput("max_workers must be at least 1")
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="beliefdb")
        self._pid = os.getpid()
        self._closed = False
        #: the close under way or done, which every aclose waits for (from any event loop)
        self._closing: concurrent.futures.Future[None] | None = None
        self._working = set()

    @property
    def workspace(self) -> str:
        """The name of the workspace this memory is bound to."""
        return self.sync.workspace

    async def call(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on one of the client's worker threads, with the caller's context
        variables: several BeliefDB calls in one hop, or a run recorder's ``flush``. ``fn`` is a plain function:
        an ``async def`` one is refused (InvalidInput; its coroutine would never be awaited there)."""
        check_callback(fn, "fn")
        if self._closed:
            raise errors.DatabaseUnavailable("this async beliefdb client is closed")
        opened_here(self._pid)  # (a child of fork has none of the executor's threads: the call would hang)
        context = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        try:  # (another thread's loop may close the client after the check above: its executor refuses)
            running = loop.run_in_executor(self._executor, lambda: context.run(fn, *args, **kwargs))
        except RuntimeError:
            if self._closed:
                raise errors.DatabaseUnavailable("this async beliefdb client is closed") from None
            raise
        return await running

    async def ingest(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
                     label: str | None = None, version_label: str | None = None, claims: str | Path | None = None,
                     extractor: str = "rules", embed: bool = True, preview: bool = False,
                     progress: Callable[[Path], None] | None = None,
                     max_bytes: int | None = None) -> list[IngestReport | IngestFailure]:
        return await self.call(self.sync.ingest, *paths, source=source, authority=authority, label=label,
                               version_label=version_label, claims=claims, extractor=extractor, embed=embed,
                               preview=preview, progress=progress, max_bytes=max_bytes)

    async def bulk_ingest(self, *items: str | Path | tuple[str, str], authority: str | None = None,
                          label: str | None = None, origin: str | None = None, version_label: str | None = None,
                          extractor: str = "rules", batch: int = DEFAULT_BATCH, embed: bool = True,
                          progress: Progress | None = None, max_bytes: int | None = None,
                          embed_progress: Progress | None = None) -> BulkReport:
        return await self.call(self.sync.bulk_ingest, *items, authority=authority, label=label, origin=origin,
                               version_label=version_label, extractor=extractor, batch=batch, embed=embed,
                               progress=progress, max_bytes=max_bytes, embed_progress=embed_progress)

    async def ingest_text(self, text: str, *, source: str, authority: str | None = None, label: str | None = None,
                          origin: str | None = None, version_label: str | None = None, extractor: str = "rules",
                          embed: bool = True, preview: bool = False) -> IngestReport:
        return await self.call(self.sync.ingest_text, text, source=source, authority=authority, label=label,
                               origin=origin, version_label=version_label, extractor=extractor, embed=embed,
                               preview=preview)

    async def ingest_conversation(self, turns: Sequence[Turn], *, source: str, authority: str | None = None,
                                  label: str | None = None, version_label: str | None = None,
                                  extractor: str = "rules", embed: bool = True, preview: bool = False) -> IngestReport:
        return await self.call(self.sync.ingest_conversation, turns, source=source, authority=authority, label=label,
                               version_label=version_label, extractor=extractor, embed=embed, preview=preview)

    async def remember_turn(self, conversation: str, speaker: str, text: str, *, time: datetime | str | None = None,
                            extractor: str = "rules", embed: bool = True,
                            idempotency_key: str | None = None) -> IngestReport:
        return await self.call(self.sync.remember_turn, conversation, speaker, text, time=time, extractor=extractor,
                               embed=embed, idempotency_key=idempotency_key)

    async def ingest_transcripts(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
                                 label: str | None = None, version_label: str | None = None,
                                 extractor: str = "rules", embed: bool = True, preview: bool = False,
                                 progress: Callable[[Path], None] | None = None,
                                 max_bytes: int | None = None) -> list[IngestReport | IngestFailure]:
        return await self.call(self.sync.ingest_transcripts, *paths, source=source, authority=authority, label=label,
                               version_label=version_label, extractor=extractor, embed=embed, preview=preview,
                               progress=progress, max_bytes=max_bytes)

    async def remember(self, statement: str, subject: str, attribute: str, value: str, quote: str, *, source: str,
                       text: str | None = None, kind: str = "fact", scope: Mapping[str, str] | None = None,
                       valid_from: datetime | str | None = None, valid_to: datetime | str | None = None,
                       authority: str | None = None, origin: str | None = None) -> IngestReport:
        return await self.call(self.sync.remember, statement, subject, attribute, value, quote, source=source,
                               text=text, kind=kind, scope=scope, valid_from=valid_from, valid_to=valid_to,
                               authority=authority, origin=origin)

    async def beliefs(self, *, subject: str | None = None, attribute: str | None = None, include_all: bool = False,
                      as_of: datetime | None = None, include_fixtures: bool = False, limit: int | None = None,
                      after: str | UUID | None = None) -> list[Belief]:
        return await self.call(self.sync.beliefs, subject=subject, attribute=attribute, include_all=include_all,
                               as_of=as_of, include_fixtures=include_fixtures, limit=limit, after=after)

    async def why(self, belief: str | UUID, *, as_of: datetime | None = None, include_fixtures: bool = False,
                  run: str | UUID | None = None) -> Why:
        return await self.call(self.sync.why, belief, as_of=as_of, include_fixtures=include_fixtures, run=run)

    async def ask(self, question: str, *, k: int = 5, as_of: datetime | None = None,
                  scope: Mapping[str, str] | None = None, min_confidence: float = 0.0, include_fixtures: bool = False,
                  embedder: str | Embedder | None = None, run: str | UUID | None = None,
                  subjects: Sequence[str] | None = None) -> AskResult:
        return await self.call(self.sync.ask, question, k=k, as_of=as_of, scope=scope, min_confidence=min_confidence,
                               include_fixtures=include_fixtures, embedder=embedder, run=run, subjects=subjects)

    async def newest(self, *, subjects: Sequence[str] | None = None, limit: int = 20, offset: int = 0,
                     after: str | UUID | None = None, include_fixtures: bool = False) -> list[Belief]:
        return await self.call(self.sync.newest, subjects=subjects, limit=limit, offset=offset, after=after,
                               include_fixtures=include_fixtures)

    async def subjects(self, *, under: str | None = None, include_fixtures: bool = False) -> list[str]:
        return await self.call(self.sync.subjects, under=under, include_fixtures=include_fixtures)

    async def answers(self, *, subject: str | None = None, attribute: str | None = None,
                      ids: Sequence[UUID] | None = None, as_of: datetime | None = None,
                      include_fixtures: bool = False, exact_subject: bool = False) -> list[Answer]:
        return await self.call(self.sync.answers, subject=subject, attribute=attribute, ids=ids, as_of=as_of,
                               include_fixtures=include_fixtures, exact_subject=exact_subject)

    async def embed(self, *, embedder: str | None = None, batch: int = 64,
                    progress: Progress | None = None) -> EmbedReport:
        return await self.call(self.sync.embed, embedder=embedder, batch=batch, progress=progress)

    async def reembed(self, *, embedder: str | None = None, batch: int = 64,
                      progress: Progress | None = None) -> EmbedReport:
        return await self.call(self.sync.reembed, embedder=embedder, batch=batch, progress=progress)

    async def forget(self, *, source: str | None = None, subject: str | None = None, belief: str | UUID | None = None,
                     preview: bool = False, expect: str | None = None, mask_mentions: bool = False) -> Forgotten:
        return await self.call(self.sync.forget, source=source, subject=subject, belief=belief, preview=preview,
                               expect=expect, mask_mentions=mask_mentions)

    async def impact(self, *refs: str | UUID, source: str | None = None, version: int | None = None
                     ) -> list[ImpactRow]:
        return await self.call(self.sync.impact, *refs, source=source, version=version)

    async def preview_correction(self, belief: str | UUID, statement: str | None = None,
                                 value: str | None = None) -> CorrectionPreview:
        return await self.call(self.sync.preview_correction, belief, statement, value)

    async def apply_correction(self, belief: str | UUID, statement: str, *, reviewer: str, expect_revision: int,
                               value: str | None = None, reason: str | None = None,
                               idempotency_key: str | None = None) -> CorrectionResult:
        return await self.call(self.sync.apply_correction, belief, statement, reviewer=reviewer,
                               expect_revision=expect_revision, value=value, reason=reason,
                               idempotency_key=idempotency_key)

    async def retract(self, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
                      source: str | None = None, version: int | None = None, reason: str = "",
                      undo: bool = False, expect: str | None = None) -> Changes:
        return await self.call(self.sync.retract, belief=belief, fragment=fragment, source=source, version=version,
                               reason=reason, undo=undo, expect=expect)

    async def retract_beliefs(self, beliefs: Sequence[str | UUID], *, reason: str,
                              skip_retracted: bool = False) -> list[Changes]:
        return await self.call(self.sync.retract_beliefs, beliefs, reason=reason, skip_retracted=skip_retracted)

    async def retract_attribute(self, subject: str, attribute: str, *, reason: str,
                                exact_subject: bool = False) -> list[Changes]:
        return await self.call(self.sync.retract_attribute, subject, attribute, reason=reason,
                               exact_subject=exact_subject)

    async def preview_retract(self, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
                              source: str | None = None, version: int | None = None, undo: bool = False) -> Changes:
        return await self.call(self.sync.preview_retract, belief=belief, fragment=fragment, source=source,
                               version=version, undo=undo)

    async def expire(self) -> Expired:
        return await self.call(self.sync.expire)

    async def decay(self, *, now: datetime | None = None, preview: bool = False) -> ConfidenceReport:
        return await self.call(self.sync.decay, now=now, preview=preview)

    async def recompute(self, *, preview: bool = False) -> ConfidenceReport:
        return await self.call(self.sync.recompute, preview=preview)

    async def calibrate(self, labels: str | Path, *, bins: int = DEFAULT_BINS,
                        plot: str | Path | None = None) -> Calibration:
        return await self.call(self.sync.calibrate, labels, bins=bins, plot=plot)

    async def decide(self, title: str, *, because: Sequence[str | UUID] = (),
                     all_of: Sequence[Sequence[str | UUID]] = (), idempotency_key: str | None = None) -> Recorded:
        return await self.call(self.sync.decide, title, because=because, all_of=all_of,
                               idempotency_key=idempotency_key)

    async def decide_in_run(self, run: str | UUID, title: str, *, because: Sequence[str | UUID] = (),
                            all_of: Sequence[Sequence[str | UUID]] = (),
                            idempotency_key: str | None = None) -> RunDecision:
        return await self.call(self.sync.decide_in_run, run, title, because=because, all_of=all_of,
                               idempotency_key=idempotency_key)

    async def act(self, decision: str | UUID, description: str, *, idempotency_key: str | None = None) -> Recorded:
        return await self.call(self.sync.act, decision, description, idempotency_key=idempotency_key)

    async def derive(self, statement: str, subject: str, attribute: str, value: str, sources: Sequence[str | UUID], *,
                     kind: str = "fact") -> DerivedBelief:
        return await self.call(self.sync.derive, statement, subject, attribute, value, sources, kind=kind)

    async def decisions(self, status: str | None = None, of: str | UUID | None = None, *, limit: int | None = None,
                        after: str | UUID | None = None) -> list[Decision]:
        return await self.call(self.sync.decisions, status, of, limit=limit, after=after)

    async def actions(self, status: str | None = None, *, limit: int | None = None,
                      after: str | UUID | None = None) -> list[Action]:
        return await self.call(self.sync.actions, status, limit=limit, after=after)

    async def record_outcome(self, node: str | UUID, outcome: str, *, note: str | None = None,
                             idempotency_key: str | None = None) -> OutcomeRecorded:
        return await self.call(self.sync.record_outcome, node, outcome, note=note, idempotency_key=idempotency_key)

    async def review_count(self) -> int:
        return await self.call(self.sync.review_count)

    async def review_items(self, *, limit: int | None = None, after: str | UUID | None = None,
                           kind: str | Sequence[str] | None = None) -> list[ReviewItem]:
        return await self.call(self.sync.review_items, limit=limit, after=after, kind=kind)

    async def resolve_review(self, item: str | UUID, verdict: str, *, note: str | None = None,
                             winner: str | UUID | None = None) -> ReviewResolution:
        return await self.call(self.sync.resolve_review, item, verdict, note=note, winner=winner)

    async def audit_verify(self) -> AuditResult:
        return await self.call(self.sync.audit_verify)

    async def create_workspace(self, name: str) -> Workspace:
        return await self.call(self.sync.create_workspace, name)

    async def workspaces(self, *, match: str | None = None, limit: int | None = None) -> list[Workspace]:
        return await self.call(self.sync.workspaces, match=match, limit=limit)

    async def delete_workspace(self, name: str, *, force: bool = False) -> WorkspaceDeleted:
        return await self.call(self.sync.delete_workspace, name, force=force)

    async def close(self) -> None:
        """The same as :meth:`aclose`."""
        await self.aclose()

    async def aclose(self) -> None:
        """Wait for the calls in flight, then close the pool (idempotent); a worker in flight (:meth:`work`)
        is told to stop first: it finishes the job under way and returns."""
        if self._closing is None:  # (a second aclose waits for the first's close: it returned at once)
            self._closed = True
            for stop in list(self._working):
                stop.set()
            self._closing = concurrent.futures.Future()
            threading.Thread(target=self._shutdown, args=(self._closing,), name="beliefdb-aclose").start()
        # (shielded: an aclose cancelled, a timeout, leaves the close running for the others)
        await asyncio.shield(asyncio.wrap_future(self._closing))

    def _shutdown(self, closing: concurrent.futures.Future[None]) -> None:
        try:
            self._executor.shutdown(wait=True)
            self.sync.close()
        except BaseException as exc:
            closing.set_exception(exc)
        else:
            closing.set_result(None)

    async def __aenter__(self) -> AsyncBeliefDB:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# one description of each operation: the BeliefDB method's
for _name, _method in {**vars(AsyncPictures), **vars(AsyncQueue), **vars(AsyncTraces), **vars(AsyncBeliefDB)}.items():
    if inspect.iscoroutinefunction(_method) and _method.__doc__ is None and hasattr(BeliefDB, _name):
        _method.__doc__ = getattr(BeliefDB, _name).__doc__


async def aconnect(url: str | None = None, workspace: str | None = None, *, principal: str | None = None,
                   home: str | Path | None = None, max_size: int = DEFAULT_MAX_SIZE) -> AsyncBeliefDB:
    """Open beliefdb for asyncio as :func:`~beliefdb.api.memory.connect` does (``url``, else the embedded
    server under ``home``, else ``BELIEFDB_URL``, else the embedded server of ``BELIEFDB_HOME``), running up
    to ``max_size`` calls at once, each on its own pooled connection: ``async with await beliefdb.aconnect()
    as db: ...``. Cancelled while it opens (a timeout), it closes what it opened."""
    lock, opened, given_up = threading.Lock(), list[BeliefDB](), threading.Event()

    def opening() -> BeliefDB:
        db = connect(url, workspace, principal=principal, home=home, max_size=max_size)
        with lock:
            if not given_up.is_set():
                opened.append(db)
                return db
        db.close()  # the caller stopped waiting while it opened: nobody else would close it
        return db

    try:
        return AsyncBeliefDB(await asyncio.to_thread(opening), max_workers=max_size)
    except asyncio.CancelledError:  # (a timeout too): what is open or still opening is closed, off the loop
        with lock:
            given_up.set()
        for db in opened:
            threading.Thread(target=db.close, name="beliefdb-close", daemon=True).start()
        raise
