"""Impact and retraction (truth rules 4 and 5 of docs/rules.md): what stops holding when something is withdrawn.

``impact`` is a dry run of ``beliefdb.impact``; ``retract`` stores the change through
``beliefdb.retract``, which propagates it in the same transaction; ``preview`` is
``beliefdb.retract_preview``: the retraction itself, rolled back, so exactly what ``retract`` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db import composites
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.models import Changes, ImpactRow
from beliefdb.store.beliefs import resolve, resolve_node


def resolve_target(db: Database, ref: str | UUID, conn: psycopg.Connection[Any]) -> UUID:
    """A source name, a source-version id, or any node's id or unique prefix (beliefdb.resolve_node)."""
    text = str(ref)
    source = db.scalar(Q.source_id_by_name, (text,), conn)
    if source is not None:
        return UUID(str(source))
    version = db.scalar(Q.source_version_by_id, (text,), conn)
    if version is not None:
        return UUID(str(version))
    try:
        return resolve_node(db, text, None, conn)
    except errors.NotFound as exc:
        raise errors.NotFound(f"no node, source or source version is named {text}") from exc


def source_id(db: Database, name: str, conn: psycopg.Connection[Any]) -> UUID:
    found = db.scalar(Q.source_id_by_name, (name,), conn)
    if found is None:
        raise errors.NotFound(f"unknown source '{name}'")
    return UUID(str(found))


def _check_target(belief: object, fragment: object, source: object, version: int | None) -> None:
    if len([x for x in (belief, fragment, source) if x is not None]) != 1:
        raise errors.InvalidInput("retract exactly one of --belief, --fragment or --source")
    if version is not None and source is None:
        raise errors.InvalidInput("--version goes with --source")


def impact(db: Database, refs: Sequence[str | UUID], conn: psycopg.Connection[Any] | None = None) -> list[ImpactRow]:
    """If these beliefs, fragments, decisions or sources stopped holding: the effects, nothing written."""
    if not refs:
        raise errors.InvalidInput("name at least one belief, fragment, decision or source")
    with db.transaction(conn) as c:
        ids = [resolve_target(db, ref, c) for ref in refs]
        return db.fetch_all(ImpactRow, Q.impact, (ids,), c)


def retract(db: Database, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
            source: str | None = None, version: int | None = None, reason: str, undo: bool = False,
            conn: psycopg.Connection[Any] | None = None) -> Changes:
    """Retract (or, with ``undo``, restore) one belief, fragment, source or source version."""
    _check_target(belief, fragment, source, version)
    if not undo and not reason.strip():
        raise errors.InvalidInput("a retraction needs --reason")
    with db.transaction(conn) as c:
        if source is not None:
            target, target_id = ("version" if version is not None else "source"), source_id(db, source, c)
        elif belief is not None:
            target, target_id = "node", resolve(db, belief, c)
        else:
            target, target_id = "node", resolve_target(db, str(fragment), c)
        changes: Changes = db.fetch_one(composites.changes, Q.retract, (target, target_id, reason, version, undo), c)
    return changes


def preview(db: Database, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
            source: str | None = None, version: int | None = None, undo: bool = False,
            conn: psycopg.Connection[Any] | None = None) -> Changes:
    """Exactly what ``retract`` (or, with ``undo``, the restore) would change, nothing written. For
    another principal's source ``proposed`` is set: the apply would only propose it to the owner,
    and the report shows what the owner's approval would change."""
    _check_target(belief, fragment, source, version)
    with db.transaction(conn) as c:
        if source is not None:
            target, target_id = ("version" if version is not None else "source"), source_id(db, source, c)
        elif belief is not None:
            target, target_id = "node", resolve(db, belief, c)
        else:
            target, target_id = "node", resolve_target(db, str(fragment), c)
        changes: Changes = db.fetch_one(composites.changes, Q.retract_preview, (target, target_id, version, undo), c)
    return changes
