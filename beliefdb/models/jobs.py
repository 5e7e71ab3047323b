"""The queue of jobs (issue 20): a submitted document and what became of it, and what a worker did."""

from __future__ import annotations

from collections.abc import Iterable
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
class UnchangedText:
    """A text :meth:`~beliefdb.BeliefDB.submit` did not queue: it would change nothing (``reason``: the text its
    source holds in force, read with the same extractor, or the text the newest job of its source still to run
    carries). ``path`` is the file's, as shown (None for a text given as such)."""

    source: str
    path: str | None
    reason: str


class Submitted(list[int]):
    """The job ids :meth:`~beliefdb.BeliefDB.submit` queued, in order (a list, as it always was), and
    ``unchanged``: the texts it did not queue because they would change nothing."""

    unchanged: list[UnchangedText]

    def __init__(self, ids: Iterable[int] = (), unchanged: Iterable[UnchangedText] = ()) -> None:
        super().__init__(ids)
        self.unchanged = list(unchanged)


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


@dataclass(frozen=True)
class DatabaseWait:
    """A worker lost the database and waits for it (``back`` False, with the ``reason``), or reached it again
    (``back`` True, after ``seconds`` of waiting): what :meth:`~beliefdb.BeliefDB.work` tells ``on_database``."""

    back: bool
    seconds: float
    reason: str | None = None
