"""The queue's methods of :class:`~beliefdb.api.async_memory.AsyncBeliefDB` (it inherits them), each
:class:`~beliefdb.api.jobs.Jobs`' method of the same name awaited on a worker thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from beliefdb.api.async_part import AsyncPart
from beliefdb.models import DatabaseWait, Job, JobOutcome, Submitted, Turn, WorkReport
from beliefdb.store import jobs as queue


class AsyncQueue(AsyncPart):
    """Documents queued for workers: submit them, list, retry or cancel the jobs, and work them off."""

    #: the stops of the workers in flight, which aclose sets before it waits for them
    _working: set[threading.Event]

    async def submit(self, *paths: str | Path, text: str | None = None, turns: Sequence[Turn] | None = None,
                     source: str | None = None, authority: str | None = None, label: str | None = None,
                     version_label: str | None = None, extractor: str = "rules",
                     max_attempts: int = queue.MAX_ATTEMPTS, max_bytes: int | None = None) -> Submitted:
        return await self.call(self.sync.submit, *paths, text=text, turns=turns, source=source, authority=authority,
                               label=label, version_label=version_label, extractor=extractor,
                               max_attempts=max_attempts, max_bytes=max_bytes)

    async def submit_transcripts(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
                                 label: str | None = None, version_label: str | None = None,
                                 extractor: str = "rules", max_attempts: int = queue.MAX_ATTEMPTS,
                                 max_bytes: int | None = None) -> Submitted:
        return await self.call(self.sync.submit_transcripts, *paths, source=source, authority=authority, label=label,
                               version_label=version_label, extractor=extractor, max_attempts=max_attempts,
                               max_bytes=max_bytes)

    async def jobs(self, *, status: str | None = None, limit: int = 100, before: int | None = None) -> list[Job]:
        return await self.call(self.sync.jobs, status=status, limit=limit, before=before)

    async def job_totals(self, *, status: str | None = None, before: int | None = None) -> dict[str, int]:
        return await self.call(self.sync.job_totals, status=status, before=before)

    async def retry(self, *ids: int, all_failed: bool = False) -> list[int]:
        return await self.call(self.sync.retry, *ids, all_failed=all_failed)

    async def cancel(self, *ids: int, source: str | None = None) -> list[int]:
        return await self.call(self.sync.cancel, *ids, source=source)

    async def work(self, *, concurrency: int = 1, stop_when_empty: bool = False, once: bool = False,
                   embed: bool = True, backoff: float = queue.BACKOFF_SECONDS, worker: str | None = None,
                   stop: threading.Event | None = None,
                   on_outcome: Callable[[JobOutcome], None] | None = None,
                   on_database: Callable[[DatabaseWait], None] | None = None) -> WorkReport:
        # cancelled (a task stopped, a timeout), the await sets the worker's stop: it finishes the job under
        # way and returns, where it would otherwise run on, unawaited, and keep aclose (and exit) waiting
        until = stop if stop is not None else threading.Event()
        self._working.add(until)
        try:
            return await self.call(self.sync.work, concurrency=concurrency, stop_when_empty=stop_when_empty,
                                   once=once, embed=embed, backoff=backoff, worker=worker, stop=until,
                                   on_outcome=on_outcome, on_database=on_database)
        except asyncio.CancelledError:
            until.set()
            raise
        finally:
            self._working.discard(until)
