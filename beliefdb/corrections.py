"""Corrections are evidence, not edits (truth rules 6 and 7): preview, then apply atomically.

Both are single SQL calls: ``beliefdb.correction_preview`` and ``beliefdb.apply_correction``.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.beliefs import resolve
from beliefdb.connector import Database
from beliefdb.embeddings import embed_new
from beliefdb.models import CorrectionPreview, CorrectionResult, StillSupported


def _ids(values: list[str]) -> list[UUID]:
    return [UUID(v) for v in values]


def preview(db: Database, belief: str | UUID, conn: psycopg.Connection[Any] | None = None) -> CorrectionPreview:
    """What correcting ``belief`` would flag, hold and leave supported, with the revision it saw."""
    with db.transaction(conn) as c:
        belief_id = resolve(db, belief, c)
        row = c.execute("select beliefdb.correction_preview(%s)", (belief_id,)).fetchone()
    assert row is not None
    raw = row[0]
    return CorrectionPreview(
        belief=UUID(raw["belief"]), revision=raw["revision"], would_flag=_ids(raw["would_flag"]),
        would_hold=_ids(raw["would_hold"]),
        still_supported=[StillSupported(decision=UUID(s["decision"]), by=[_ids(group) for group in s["by"] or []])
                         for s in raw["still_supported"]])


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
        row = c.execute("select beliefdb.apply_correction(%s, %s, %s, %s, %s, %s, %s)",
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
        already_applied=raw["already_applied"])
