"""Belief lifecycle: decay and recompute of confidence (rule 9), outcomes of decisions and
actions, and forgetting (rule 14). Each is one call to a SQL function; this module resolves
names and ids and types the results."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.beliefs import resolve, resolve_node
from beliefdb.connector import Database
from beliefdb.retraction import source_id
from beliefdb.vocabulary import OUTCOMES


def decay(db: Database, now: datetime | None = None, *, preview: bool = False,
          conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Recompute every confidence of the workspace as of ``now`` (half-lives, policy weights), to the
    fixpoint over derived beliefs. With ``preview``, the same counts and nothing written."""
    result: dict[str, Any] = db.scalar("select beliefdb.decay(%s, 'decay', %s)", (now, preview), conn)
    return result


def recompute(db: Database, *, preview: bool = False, conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Recompute every confidence after a DBA changed confidence_policy or confidence_half_life."""
    result: dict[str, Any] = db.scalar("select beliefdb.decay(null, 'recompute', %s)", (preview,), conn)
    return result


def expire(db: Database, conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """Process the beliefs whose valid time has ended (rule 16): they stop being current, and what
    rested on them is re-evaluated (decisions flagged, actions held). Every command does this first."""
    result: dict[str, Any] = db.scalar("select beliefdb.expire()", None, conn)
    return result


def record_outcome(db: Database, ref: str | UUID, outcome: str, note: str | None = None,
                   conn: psycopg.Connection[Any] | None = None) -> dict[str, Any]:
    """What actually happened after a decision or action: succeeded, failed, rolled_back, disputed."""
    if outcome not in OUTCOMES:
        raise errors.InvalidInput(f"invalid outcome '{outcome}' (choose from: {', '.join(OUTCOMES)})")
    with db.transaction(conn) as c:
        node = _node(db, ref, c)
        result: dict[str, Any] = db.scalar("select beliefdb.record_outcome(%s, %s, %s)", (node, outcome, note), c)
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
        result: dict[str, Any] = db.scalar("select beliefdb.forget(%s, %s, %s, %s)", args, c)
    return result
