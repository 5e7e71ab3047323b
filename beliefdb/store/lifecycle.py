"""Belief lifecycle: decay and recompute of confidence (rule 9), outcomes of decisions and
actions, and forgetting (rule 14). Each is one call to a SQL function; this module resolves
names and ids and types the results.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.models import Changes, ConfidenceReport, Expired, Forgotten, OutcomeRecorded
from beliefdb.store.beliefs import resolve, resolve_node
from beliefdb.store.retraction import source_id
from beliefdb.vocabulary import OUTCOMES


def decay(db: Database, now: datetime | None = None, *, preview: bool = False,
          conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Recompute every confidence of the workspace as of ``now`` (half-lives, policy weights), to the
    fixpoint over derived beliefs. With ``preview``, the same counts and nothing written."""
    result: dict[str, Any] = db.scalar(Q.decay, (now, preview), conn)
    return result


def recompute(db: Database, *, preview: bool = False, conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Recompute every confidence after a DBA changed confidence_policy or confidence_half_life."""
    result: dict[str, Any] = db.scalar(Q.recompute, (preview,), conn)
    return result


def expire(db: Database, conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Process the beliefs whose valid time has ended (rule 16): they stop being current, and what
    rested on them is re-evaluated (decisions flagged, actions held). Every command does this first."""
    result: dict[str, Any] = db.scalar(Q.expire, None, conn)
    return result


def record_outcome(db: Database, ref: str | UUID, outcome: str, note: str | None = None,
                   conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """What actually happened after a decision or action: succeeded, failed, rolled_back, disputed."""
    if outcome not in OUTCOMES:
        raise errors.InvalidInput(f"invalid outcome '{outcome}' (choose from: {', '.join(OUTCOMES)})")
    with db.transaction(conn) as c:
        node = _node(db, ref, c)
        result: dict[str, Any] = db.scalar(Q.record_outcome, (node, outcome, note), c)
    return result


def _node(db: Database, ref: str | UUID, conn: psycopg.Connection[Any]) -> UUID:
    return resolve_node(db, ref, ["decision", "action"], conn)


def forget(db: Database, *, source: str | None = None, subject: str | None = None, belief: str | UUID | None = None,
           preview: bool = False, conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Forget a source, a subject's beliefs, or one belief, and every belief left without support;
    decisions that lose their last support are flagged. ``preview``: counts only."""
    if len([x for x in (source, subject, belief) if x is not None]) != 1:
        raise errors.InvalidInput("forget exactly one of --source, --subject or --belief")
    with db.transaction(conn) as c:
        if source is not None:
            args: tuple[Any, ...] = ("source", source_id(db, source, c), None, preview)
        elif subject is not None:
            args = ("subject", None, subject, preview)
        else:
            assert belief is not None
            args = ("belief", resolve(db, belief, c), None, preview)
        result: dict[str, Any] = db.scalar(Q.forget, args, c)
    return result


# The typed forms of the reports above (the SQL functions return jsonb).


def _moment(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value))


def _ids(values: Any) -> list[UUID]:
    return [UUID(str(x)) for x in values or []]


def confidence_report(raw: Mapping[str, Any]) -> ConfidenceReport:
    """The typed report of ``decay`` or ``recompute``."""
    return ConfidenceReport(now=_moment(raw["now"]), beliefs=raw["beliefs"], changed=raw["changed"],
                            lowered=raw["lowered"], raised=raw["raised"], became_low=raw["became_low"],
                            recovered=raw["recovered"], low_confidence=raw["low_confidence"],
                            threshold=float(raw["threshold"]), preview=bool(raw.get("preview")))


def expired(raw: Mapping[str, Any]) -> Expired:
    """The typed report of ``expire``."""
    return Expired(expired=raw["expired"], beliefs=_ids(raw["beliefs"]), now=_moment(raw["now"]),
                   changes=Changes.from_json(raw["changes"]))


def outcome_recorded(raw: Mapping[str, Any]) -> OutcomeRecorded:
    """The typed report of ``record_outcome``."""
    return OutcomeRecorded(id=UUID(str(raw["id"])), node=UUID(str(raw["node"])), kind=raw["kind"],
                           outcome=raw["outcome"], status=raw.get("status"))


def forgotten(raw: Mapping[str, Any]) -> Forgotten:
    """The typed report of ``forget`` (or its preview)."""
    return Forgotten(target=raw["target"], versions=raw["versions"], fragments=raw["fragments"],
                     beliefs=raw["beliefs"], evidence=raw["evidence"], embeddings=raw["embeddings"],
                     redacted=raw.get("redacted", 0), flagged=_ids(raw.get("flagged")),
                     would_flag=_ids(raw.get("would_flag")), held=_ids(raw.get("held")),
                     changes=Changes.from_json(raw.get("changes") or {}), preview=bool(raw.get("preview")))
