"""Corrections are evidence, not edits (truth rules 6 and 7 of docs/rules.md): preview, then apply atomically.

Both are single SQL calls: ``beliefdb.correction_preview`` and ``beliefdb.apply_correction``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db import composites
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import check_integer
from beliefdb.models import CorrectionPreview, CorrectionResult
from beliefdb.store.vectors import embed_written


def preview(db: Database, belief: str | UUID, statement: str | None = None, value: str | None = None,
            conn: psycopg.Connection[Any] | None = None) -> CorrectionPreview:
    """Exactly what correcting ``belief`` (with ``statement`` and ``value``, if given) would change:
    decisions flagged, actions held, decisions left supported, what stops being or becomes current,
    with the revision it saw. For another principal's belief the apply only proposes the correction
    (``proposed``) and ``if_approved`` shows what the owner's approval would change. Without ``statement``,
    the belief's own; a blank one is refused as :func:`apply` refuses it."""
    if statement is not None:
        _check_statement(statement)
    seen: CorrectionPreview = db.fetch_one(composites.correction_preview, Q.correction_preview,
                                           (str(belief), statement, value), conn)
    return seen


def apply(db: Database, belief: str | UUID, statement: str, *, reviewer: str, expect_revision: int,
          value: str | None = None, reason: str | None = None, idempotency_key: str | None = None,
          conn: psycopg.Connection[Any] | None = None) -> CorrectionResult:
    """Apply a correction in one transaction. A belief that cannot be corrected now (superseded or
    retracted since the preview) raises NotCorrectable, naming what replaced it, whatever
    ``expect_revision`` is (as a new preview would); otherwise a revision other than ``expect_revision``
    raises StaleCorrectionPreview; the same correction again returns the existing one, already_applied.
    A belief the session's principal does not own is not changed: the correction is proposed to
    its owner in the review queue (``proposed``, ``review_item``). A replacement stored without its
    embedding says why (``embedding_deferred``)."""
    _check_statement(statement)
    if not reviewer.strip():
        raise errors.InvalidInput(f"a correction needs {errors.argument('reviewer')}")
    check_integer(expect_revision, "expect_revision")
    if idempotency_key is not None and not idempotency_key.strip():  # (a stored "" would name every request)
        raise errors.InvalidInput(f"{errors.argument('idempotency_key')} is blank: give a key that names this"
                                  " correction, or leave it out")
    result: CorrectionResult = db.fetch_one(
        CorrectionResult, Q.apply_correction,
        (str(belief), statement, value, reviewer, reason, expect_revision, idempotency_key), conn)
    # the replacement is searchable like any belief (best effort: 'beliefdb embed' backfills)
    if result.proposed or result.replacement is None:
        return result
    deferred = embed_written(db, [result.replacement], conn)
    return replace(result, embedding_deferred=deferred) if deferred else result


def _check_statement(statement: str) -> None:
    """What the apply refuses of a statement, and so its preview (the database refuses it too:
    ``beliefdb.apply_correction``, ``beliefdb.correction_preview``)."""
    if not statement.strip():
        raise errors.InvalidInput("a correction needs the new statement")
