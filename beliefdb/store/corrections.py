"""Corrections are evidence, not edits (truth rules 6 and 7 of docs/rules.md): preview, then apply atomically.

Both are single SQL calls: ``beliefdb.correction_preview`` and ``beliefdb.apply_correction``.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.models import Changes, CorrectionPreview, CorrectionResult, ImpactRow
from beliefdb.store.beliefs import resolve
from beliefdb.store.vectors import embed_new


def _ids(values: list[str]) -> list[UUID]:
    return [UUID(v) for v in values]


def preview(db: Database, belief: str | UUID, statement: str | None = None, value: str | None = None,
            conn: psycopg.Connection[Any] | None = None) -> CorrectionPreview:
    """Exactly what correcting ``belief`` (with ``statement`` and ``value``, if given) would change:
    decisions flagged, actions held, decisions left supported, what stops being or becomes current,
    with the revision it saw. For another principal's belief the apply only proposes the correction
    (``proposed``) and ``if_approved`` shows what the owner's approval would take away."""
    with db.transaction(conn) as c:
        belief_id = resolve(db, belief, c)
        row = c.execute(Q.correction_preview, (belief_id, statement, value)).fetchone()
    assert row is not None
    raw = row[0]
    changes = Changes.from_json(raw["changes"])
    return CorrectionPreview(
        belief=UUID(raw["belief"]), revision=raw["revision"], would_flag=changes.flagged, would_hold=changes.held,
        still_supported=changes.survives, owner=raw.get("owner"), proposed=bool(raw.get("proposed")),
        changes=changes,
        if_approved=[ImpactRow(node=UUID(r["node"]), kind=r["kind"], effect=r["effect"], detail=r["detail"])
                     for r in raw.get("if_approved") or []])


def apply(db: Database, belief: str | UUID, statement: str, *, reviewer: str, expect_revision: int,
          value: str | None = None, reason: str | None = None, idempotency_key: str | None = None,
          conn: psycopg.Connection[Any] | None = None) -> CorrectionResult:
    """Apply a correction in one transaction. A revision other than ``expect_revision`` raises
    StaleCorrectionPreview; the same correction again returns the existing one, already_applied.
    A belief the session's principal does not own is not changed: the correction is proposed to
    its owner in the review queue (``proposed``, ``review_item``)."""
    if not statement.strip():
        raise errors.InvalidInput("a correction needs the new statement")
    if not reviewer.strip():
        raise errors.InvalidInput("a correction needs --reviewer")
    with db.transaction(conn) as c:
        belief_id = resolve(db, belief, c)
        row = c.execute(Q.apply_correction,
                        (belief_id, statement, value, reviewer, reason, expect_revision, idempotency_key)).fetchone()
        assert row is not None
        raw = row[0]
        if not raw["proposed"]:
            # the replacement is searchable like any belief (best effort: 'beliefdb embed' backfills)
            embed_new(db, [UUID(raw["replacement"])], c)
    return result_from(raw)


def result_from(raw: dict[str, Any]) -> CorrectionResult:
    """The typed result of ``beliefdb.apply_correction`` (applied, or proposed to the owner)."""
    if raw["proposed"]:
        return CorrectionResult(correction=None, replacement=None, superseded=[], flagged=[], held=[],
                                already_applied=raw["already_applied"], proposed=True,
                                review_item=UUID(raw["review_item"]), owner=raw["owner"])
    return CorrectionResult(
        correction=UUID(raw["correction"]), replacement=UUID(raw["replacement"]),
        superseded=_ids(raw["superseded"]), flagged=_ids(raw["flagged"]), held=_ids(raw["held"]),
        already_applied=raw["already_applied"],
        changes=Changes.from_json(raw["changes"]) if raw.get("changes") else None)
