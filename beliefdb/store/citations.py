"""A search hit is not evidence (rule 19 of docs/rules.md, in a recorded run): what a run's reads
returned to the agent is recorded as a ``memory_read`` step reading those beliefs, and a decision
recorded in the run may cite only those, and only while they are current (``beliefdb.decide_in_run``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import check_moment
from beliefdb.models import RunDecision
from beliefdb.store import decisions, trace


def record_reads(db: Database, run: str | UUID, beliefs: Sequence[UUID], payload: Mapping[str, Any],
                 as_of: datetime | None = None) -> UUID:
    """Record that a read of ``run`` returned ``beliefs`` to the agent: one memory_read step (with the
    moment it read memory ``as_of``, when it read the past: ``beliefdb.decide_in_run`` says whether what
    it cites was current when the run read it, and names the moment so, in UTC as every moment an answer gives
    back: a local time or another offset was the caller's); its id."""
    recorded = ({**payload, "as_of": check_moment(as_of, "as_of").astimezone(UTC).isoformat()} if as_of is not None
                else dict(payload))
    with db.transaction() as c:
        recorder = trace.continue_run(db, run, c)
        step = recorder.step("memory_read", recorded, inputs=[("reads", b) for b in dict.fromkeys(beliefs)])
        recorder.flush(c)
    return step


def decide_in_run(db: Database, run: str | UUID, title: str, *, because: Sequence[str | UUID] = (),
                  all_of: Sequence[Sequence[str | UUID]] = (), idempotency_key: str | None = None) -> RunDecision:
    """Record a decision of ``run`` that cites only what the run read and is current; the rest refused.
    ``idempotency_key`` names the request (rule 18): the same one again returns that decision and what it
    refused, ``already_applied``."""
    if not title.strip():
        raise errors.InvalidInput("a decision needs a title")
    decisions.check_idempotency_key(idempotency_key, "decision")
    reasons = decisions.reasons_of(because, all_of)
    with db.transaction() as c:
        found = trace.run_id(db, run, c)
        decided: RunDecision = db.fetch_one(RunDecision, Q.decide_in_run,
                                            (found, title, Jsonb(reasons), idempotency_key), c)
    return decided
