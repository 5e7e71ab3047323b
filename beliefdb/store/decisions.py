"""Decisions, actions and derived beliefs: what was built on beliefs (truth rules 2 and 4 of docs/rules.md).

Recording is one call to a SQL function that also runs the dependency check, so a decision
citing a belief that is no longer current is flagged at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg.types.json import Jsonb

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import check_cursor, refs_groups, refs_of
from beliefdb.models import Action, Decision, DerivedBelief, Recorded
from beliefdb.store.beliefs import a_page, check_page_limit
from beliefdb.store.vectors import embed_written
from beliefdb.vocabulary import ACTION_STATUSES, DECISION_STATUSES


def decide(db: Database, title: str, *, because: Sequence[str | UUID] = (),
           all_of: Sequence[Sequence[str | UUID]] = (), idempotency_key: str | None = None,
           conn: psycopg.Connection[Any] | None = None) -> Recorded:
    """Record a decision. Each ``because`` belief is an alternative reason on its own; each
    ``all_of`` group is one reason needing all of its beliefs. With no reason at all it is recorded
    as needs_review ("No source-backed answer yet"), and nothing may carry it out until a person
    approves it. ``idempotency_key`` names this request (rule 18 of docs/rules.md): the same title and
    reasons again with it record nothing and return that decision, ``already_applied``; another
    request with it raises IdempotencyKeyReused."""
    if not title.strip():
        raise errors.InvalidInput("a decision needs a title")
    check_idempotency_key(idempotency_key, "decision")
    # each belief by its id or a unique prefix, resolved by beliefdb.decide
    recorded: Recorded = db.fetch_one(Recorded, Q.decide,
                                      (title, Jsonb(reasons_of(because, all_of)), idempotency_key), conn)
    return recorded


def check_idempotency_key(key: str | None, what: str) -> None:
    """Refuse a blank idempotency key (stored, "" would name every later request of its kind as a reuse
    of it; the database refuses it too)."""
    if key is not None and not key.strip():
        raise errors.InvalidInput(f"{errors.argument('idempotency_key')} is blank: give a key that names this"
                                  f" {what}, or leave it out")


def reasons_of(because: Any, all_of: Any) -> list[list[str]]:
    """A decision's reasons as beliefdb.decide takes them: each ``because`` id alone, each ``all_of`` group
    jointly; a group naming no belief is InvalidInput, as the SQL refuses it (it was dropped, and
    ``all_of=[[]]`` recorded a decision without any reason, needing review)."""
    alone = [[ref] for ref in refs_of(because, "because")]
    groups = [refs_of(group, "all_of") for group in refs_groups(all_of)]
    empty = next((n for n, group in enumerate(groups, 1) if not group), None)
    if empty is not None:
        raise errors.InvalidInput(f"{errors.argument('all_of')} takes groups of at least one belief each: group"
                                  f" {empty} is empty (each group is one reason, needing all of its beliefs)")
    return alone + groups


def act(db: Database, decision: str | UUID, description: str, *, idempotency_key: str | None = None,
        conn: psycopg.Connection[Any] | None = None) -> Recorded:
    """Record an action carrying out a decision, by id or unique prefix (held at once if the
    decision needs review; refused for a rejected decision, or one without reasons nobody approved).
    ``idempotency_key``: the same decision and description again with it return that action,
    ``already_applied``, whatever became of the decision since; another request with it is refused."""
    if not description.strip():
        raise errors.InvalidInput("an action needs a description")
    check_idempotency_key(idempotency_key, "action")
    recorded: Recorded = db.fetch_one(Recorded, Q.act, (str(decision), description, idempotency_key), conn)
    return recorded


def derive(db: Database, statement: str, subject: str, attribute: str, value: str, sources: Sequence[str | UUID],
           *, kind: str = "fact", conn: psycopg.Connection[Any] | None = None) -> DerivedBelief:
    """Record a belief derived from others: it holds while all of them are current. It is embedded, as
    any new belief (or says why that waits: ``embedding_deferred``); ``provenance`` is its world (rule
    15: derived from any fixture belief, a fixture)."""
    if not sources:
        raise errors.InvalidInput(f"a derived belief needs {errors.argument('sources', option='--from')} beliefs")
    recorded: DerivedBelief = db.fetch_one(
        DerivedBelief, Q.derive, (statement, subject, attribute, value, refs_of(sources, "sources"), kind), conn)
    deferred = embed_written(db, [recorded.id], conn)
    world: str = db.scalar(Q.belief_world, (recorded.id,), conn)
    return replace(recorded, embedding_deferred=deferred, provenance=world)


@dataclass(frozen=True)
class _Cursor:
    """Where a page goes on: the listing's order of the last decision or action of the page before."""

    created_at: datetime
    id: UUID


def _page(db: Database, kind: str, limit: int | None, after: str | UUID | None,
          conn: psycopg.Connection[Any] | None) -> dict[str, Any]:
    """A listing's page: at most ``limit``, after the node of ``kind`` that ``after`` names (its id or a
    unique prefix: the last one of the page before)."""
    check_cursor(after)
    cursor: _Cursor | None = (db.fetch_one(_Cursor, Q.listing_cursor, (str(after), kind), conn)
                              if after is not None else None)
    return {"limit": limit, "after_at": cursor.created_at if cursor else None, "after": cursor.id if cursor else None}


def list_decisions(db: Database, status: str | None = None, of: str | UUID | None = None, *,
                   limit: int | None = None, after: str | UUID | None = None,
                   conn: psycopg.Connection[Any] | None = None) -> list[Decision]:
    """Decisions with their reasons, oldest first (of ``status``; only the decision ``of`` names, a
    decision's or an action's id or unique prefix, when given): at most ``limit`` (all when None),
    those after the decision ``after``."""
    if status is not None and status not in DECISION_STATUSES:
        raise errors.InvalidInput(f"invalid status '{status}' (choose from: {', '.join(DECISION_STATUSES)})")
    check_page_limit(limit)
    with a_page(db, conn) if limit is not None else db.transaction(conn) as c:
        params = {"status": status, "of": str(of) if of is not None else None,
                  **_page(db, "decision", limit, after, c)}
        return db.fetch_all(Decision, Q.list_decisions, params, c)


def list_actions(db: Database, status: str | None = None, *, limit: int | None = None,
                 after: str | UUID | None = None, conn: psycopg.Connection[Any] | None = None) -> list[Action]:
    """Actions, oldest first (of ``status``): at most ``limit`` (all when None), those after the action
    ``after``."""
    if status is not None and status not in ACTION_STATUSES:
        raise errors.InvalidInput(f"invalid status '{status}' (choose from: {', '.join(ACTION_STATUSES)})")
    check_page_limit(limit)
    with a_page(db, conn) if limit is not None else db.transaction(conn) as c:
        return db.fetch_all(Action, Q.list_actions, {"status": status, **_page(db, "action", limit, after, c)}, c)
