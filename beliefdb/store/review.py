"""The review queue: durable items a person approves or rejects (flagged decisions, held
actions, unresolved conflicts, corrections proposed to a belief's owner). Resolution is
``beliefdb.review_resolve`` in SQL, which lets only a belief's owner approve a correction of it
or the supersession of it in a conflict."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database, sql_detail
from beliefdb.db.queries import Q
from beliefdb.inputs import check_cursor
from beliefdb.models import ReviewItem, ReviewResolution
from beliefdb.store.beliefs import check_page_limit
from beliefdb.store.vectors import embed_written
from beliefdb.vocabulary import REVIEW_ITEM_KINDS


def list_items(db: Database, *, limit: int | None = None, after: str | UUID | None = None,
               kind: str | Sequence[str] | None = None,
               conn: psycopg.Connection[Any] | None = None) -> list[ReviewItem]:
    """The open review items, oldest first: at most ``limit`` (all when None), those after the item
    ``after`` (the last one of the page before: its id or a prefix, as :func:`resolve_item` takes it; an item
    resolved since still marks the place), read from that item on, of the kind or kinds ``kind`` (all when
    None) (``beliefdb.review_items``)."""
    check_page_limit(limit)
    check_cursor(after)
    return db.fetch_all(ReviewItem, Q.list_review_items,
                        {"limit": limit, "after": str(after) if after is not None else None,
                         "kinds": kinds_of(kind)}, conn)


def kinds_of(kind: str | Sequence[str] | None) -> list[str] | None:
    """The review item kinds a listing keeps (None: every kind), each one of :data:`REVIEW_ITEM_KINDS`:
    ``kind`` one kind or several, a list or comma-separated (``"conflict,action_held"``, as ``--kind`` and a
    query parameter take them)."""
    if kind is None:
        return None
    given: list[Any] = [kind] if isinstance(kind, str) else list(kind) if isinstance(kind, list | tuple) else [kind]
    choices = ", ".join(REVIEW_ITEM_KINDS)
    wrong = next((k for k in given if not isinstance(k, str)), None)
    if wrong is not None:
        raise errors.InvalidInput(f"{errors.argument('kind')} takes review item kinds (strings: {choices}),"
                                  f" not {type(wrong).__name__}")
    kinds = [part.strip() for k in given for part in k.split(",") if part.strip()]
    if not kinds:
        raise errors.InvalidInput(f"{errors.argument('kind')} names no review item kind: give one or more"
                                  f" (of {choices}), or leave it out for every kind")
    unknown = [k for k in kinds if k not in REVIEW_ITEM_KINDS]
    if unknown:
        raise errors.InvalidInput(f"unknown review item kind {', '.join(map(repr, unknown))}"
                                  f" (choose from: {choices})")
    return list(dict.fromkeys(kinds))


def count_items(db: Database, conn: psycopg.Connection[Any] | None = None) -> int:
    """How many review items are open (``beliefdb.review_count``: its index alone, not the items)."""
    return int(db.scalar(Q.review_count, None, conn))


def resolve_item(db: Database, item: str | UUID, verdict: str, *, note: str | None = None,
                 winner: str | UUID | None = None,
                 conn: psycopg.Connection[Any] | None = None) -> ReviewResolution:
    """Approve or reject an open item (``verdict`` is approved or rejected): the item by its id or a
    prefix of it, the winner of a conflict by its id or a unique prefix (``beliefdb.review_resolve``
    resolves both). The beliefs an approval makes are embedded after it commits; if that must wait,
    ``embedding_deferred`` says why."""
    with _naming_the_winner(), db.transaction(conn) as c:
        result: ReviewResolution = db.fetch_one(
            ReviewResolution, Q.review_resolve,
            (str(item), verdict, note, str(winner) if winner is not None else None), c)
        # (an approved proposal's report, correction or ingest, keeps its own jsonb shape)
        applied = result.correction
        new: list[UUID] = []
        if applied and not applied.get("already_applied") and not applied.get("proposed"):
            # an approved proposal's replacement is searchable like any belief
            new.append(UUID(applied["replacement"]))
        version = result.applied if result.kind == "version_proposed" else None
        if version and version.get("accepted"):
            # an approved new version's beliefs are searchable like any ingested ones
            new += [UUID(a["id"]) for a in version["accepted"]]
    deferred = embed_written(db, new, conn)
    return replace(result, embedding_deferred=deferred) if deferred else result


@contextmanager
def _naming_the_winner() -> Iterator[None]:
    """The SQL's refusal of a conflict approved without its winner (": A or B", words for psql; its detail
    ``{"needs": "winner", "candidates": [A, B]}`` says it to a program) as the caller passes the winner:
    ``winner='A'`` or ``winner='B'`` from the library, ``--winner A`` at the command line."""
    try:
        yield
    except errors.InvalidInput as exc:
        detail = sql_detail(exc)
        candidates = detail.get("candidates")
        if detail.get("needs") != "winner" or not isinstance(candidates, list) or len(candidates) != 2:
            raise
        one, other = (str(candidate) for candidate in candidates)
        raise errors.InvalidInput(f"approving a conflict needs {errors.argument('winner', one)} or"
                                  f" {errors.argument('winner', other)}") from exc
