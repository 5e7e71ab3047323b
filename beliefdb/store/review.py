"""The review queue: durable items a person approves or rejects (flagged decisions, held
actions, unresolved conflicts, corrections proposed to a belief's owner). Resolution is
``beliefdb.review_resolve`` in SQL, which lets only a belief's owner approve a correction of it
or the supersession of it in a conflict."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.models import ReviewItem, ReviewResolution
from beliefdb.store.beliefs import resolve
from beliefdb.store.vectors import embed_new


def list_items(db: Database, conn: psycopg.Connection[Any] | None = None) -> list[ReviewItem]:
    return db.fetch_all(ReviewItem, Q.list_review_items, None, conn)


def resolve_item(db: Database, item: str | UUID, verdict: str, *, note: str | None = None,
                 winner: str | UUID | None = None,
                 conn: psycopg.Connection[Any] | None = None) -> ReviewResolution:
    """Approve or reject an open item (``verdict`` is approved or rejected)."""
    with db.transaction(conn) as c:
        matches = [UUID(str(r[0])) for r in c.execute(
            Q.review_item_by_prefix,
            (str(item).lower() + "%",)).fetchall()]
        if len(matches) != 1:
            raise (errors.NotFound(f"no open review item {item}") if not matches
                   else errors.AmbiguousId(f"review item prefix {item} is ambiguous"))
        winner_id = None
        if winner is not None:
            winner_id = resolve(db, winner, c)
        result: ReviewResolution = db.fetch_one(ReviewResolution, Q.review_resolve,
                                                (matches[0], verdict, note, winner_id), c)
        # (an approved proposal's report, correction or ingest, keeps its own jsonb shape)
        applied = result.correction
        if applied and not applied.get("already_applied") and not applied.get("proposed"):
            # an approved proposal's replacement is searchable like any belief
            embed_new(db, [UUID(applied["replacement"])], c)
        version = result.applied if result.kind == "version_proposed" else None
        if version and version.get("accepted"):
            # an approved new version's beliefs are searchable like any ingested ones
            embed_new(db, [UUID(a["id"]) for a in version["accepted"]], c)
    return result
