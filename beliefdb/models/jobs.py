"""The queue of jobs (issue 20): a submitted document and what became of it, and what a worker did."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class Job:
    """One queued document: ``status`` is queued, running (a live worker holds it), done or failed;
    ``last_error`` is the reason of the last failed attempt, on one line (None to a principal that did
    not submit it: it may quote the document; the operator sees every one); ``result`` summarises the
    ingest once done."""

    id: int
    kind: str
    status: str
    source: str | None
    path: str | None
    attempts: int
    max_attempts: int
    run_after: datetime
    last_error: str | None
    result: dict[str, Any] | None
    submitted_by: str
    worker: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


@dataclass(frozen=True)
class JobOutcome:
    """What a worker made of one job: done, queued again (a retry after a backoff), waiting (another writer held
    the workspace: queued as it was, no attempt used) or failed for good."""

    id: int
    source: str
    status: str
    attempts: int
    error: str | None = None
    #: why the new beliefs were left without vectors (the worker embeds them later), if they were
    embedding_deferred: str | None = None


@dataclass(frozen=True)
class WorkReport:
    """What :meth:`~beliefdb.BeliefDB.work` did: jobs done, retried (queued again after a failure) and
    failed for good, and the beliefs it embedded that an earlier run had left without vectors."""

    done: int = 0
    retried: int = 0
    failed: int = 0
    embedded: int = 0
    outcomes: list[JobOutcome] = field(default_factory=list)
    #: the times a job waited for the workspace another writer held (no attempt used: tried again)
    waited: int = 0
