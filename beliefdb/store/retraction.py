"""Impact and retraction (truth rules 4 and 5 of docs/rules.md): what stops holding when something is withdrawn.

``impact`` is a dry run of ``beliefdb.impact``; ``retract`` stores the change through
``beliefdb.retract``, which propagates it in the same transaction; ``preview`` is
``beliefdb.retract_preview``: the retraction itself, rolled back, so exactly what ``retract`` does.
Each takes what the caller names as it is (an id or a unique prefix, a source's name): the SQL
functions resolve it (``beliefdb.resolve_target``, ``beliefdb.resolve_belief``).
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
from beliefdb.inputs import check_expect, check_integer, refs_of
from beliefdb.models import Changes, ImpactRow
from beliefdb.store.beliefs import list_beliefs


def _target(belief: str | UUID | None, fragment: str | UUID | None, source: str | None,
            version: int | None) -> tuple[str, str]:
    """What ``beliefdb.retract`` is to retract, and the reference naming it: a belief, any node
    (``--fragment`` takes a node's id or prefix, a source's name or a source version's id), a
    source, or one version of it (by the source's name)."""
    if len([x for x in (belief, fragment, source) if x is not None]) != 1:
        raise errors.InvalidInput("retract exactly one of belief, fragment or source")
    if version is not None and source is None:
        raise errors.InvalidInput(f"{errors.argument('version')} goes with {errors.argument('source')}")
    if version is not None:
        check_integer(version, "version")
    if source is not None:
        return ("version" if version is not None else "source"), source
    if belief is not None:
        return "belief", str(belief)
    return "node", str(fragment)


def impact_refs(db: Database, refs: Sequence[str | UUID], source: str | None, version: int | None,
                conn: psycopg.Connection[Any]) -> list[str]:
    """What an impact names: ``refs`` as given, and ``source`` (a source's name), or one ``version`` of it
    by number, as ``retract`` names them (``beliefdb.resolve_source``: its id)."""
    wrong = next((ref for ref in refs if not isinstance(ref, str | UUID)), None)
    if wrong is not None:  # (a list given as one of them: impact(*ids), not impact(ids))
        raise errors.InvalidInput(f"impact takes ids (or unique prefixes) or source names, each a str or a UUID,"
                                  f" not {type(wrong).__name__}: impact(*refs)")
    if version is not None and source is None:
        raise errors.InvalidInput(f"{errors.argument('version')} goes with {errors.argument('source')}")
    if version is not None:
        check_integer(version, "version")
    if source is not None and not isinstance(source, str):
        raise errors.InvalidInput(f"{errors.argument('source')} is a source's name, not {type(source).__name__}")
    named = [str(ref) for ref in refs]
    if source is not None:
        named.append(str(db.scalar(Q.resolve_source, (source, version), conn)))
    if not named:
        raise errors.InvalidInput("name at least one belief, fragment, decision or source")
    return named


def impact(db: Database, refs: Sequence[str | UUID], conn: psycopg.Connection[Any] | None = None, *,
           source: str | None = None, version: int | None = None) -> list[ImpactRow]:
    """If these beliefs, fragments, decisions or sources (and ``source``, or its ``version``) stopped
    holding: the effects, nothing written."""
    with db.transaction(conn) as c:
        return db.fetch_all(ImpactRow, Q.impact, (impact_refs(db, refs, source, version, c),), c)


def retract(db: Database, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
            source: str | None = None, version: int | None = None, reason: str, undo: bool = False,
            expect: str | None = None, conn: psycopg.Connection[Any] | None = None) -> Changes:
    """Retract (or, with ``undo``, restore) one belief, fragment, source or source version. With
    ``expect`` (the :meth:`Changes.fingerprint` of a preview) only that change: in one transaction
    holding the workspace's write lock, so no other writer changes it between the two, the preview is
    taken again and the retraction applied only if it is the same; else :class:`errors.StalePreview`
    and nothing is written."""
    expect = check_expect(expect)
    target, ref = _target(belief, fragment, source, version)
    if not undo and not reason.strip():
        raise errors.InvalidInput(f"a retraction needs {errors.argument('reason')}")
    with db.transaction(conn) as c:
        if expect is not None:
            c.execute(Q.lock_workspace)
            seen = preview(db, belief=belief, fragment=fragment, source=source, version=version, undo=undo, conn=c)
            if seen.fingerprint() != expect:
                raise errors.StalePreview("what retracting it would change is no longer what the preview showed:"
                                          " nothing was written; preview again")
        changes: Changes = db.fetch_one(composites.changes, Q.retract, (target, ref, reason, version, undo), c)
    return changes


def retract_beliefs(db: Database, beliefs: Sequence[str | UUID], *, reason: str,
                    skip_retracted: bool = False) -> list[Changes]:
    """Retract these beliefs (ids or unique prefixes) in this order, in one transaction: each of them, or
    (one refused, or any failure on the way) none. Each is ``beliefdb.retract`` of one belief, as
    :func:`retract` calls it; their change reports in the same order. With ``skip_retracted``, one that
    ``beliefdb.retract`` finds already retracted, or gone, in this transaction (which holds the workspace's
    write lock from its start: no other writer changes one meanwhile) is skipped, its savepoint rolled
    back, and has no report: another session retracted it since the caller listed it."""
    refs = refs_of(beliefs, "beliefs")
    with db.transaction() as c:  # (a blank reason: the first retract refuses it, before anything is written)
        c.execute(Q.lock_workspace)  # first, held to the end (a savepoint rolled back would release its own)
        reports = []
        for ref in refs:
            try:
                reports.append(retract(db, belief=ref, reason=reason, conn=c))
            except errors.NotFound as exc:  # (an unknown workspace is no belief gone: refused still)
                if not skip_retracted or isinstance(exc, errors.UnknownWorkspace):
                    raise
        return reports


def retract_attribute(db: Database, subject: str, attribute: str, *, reason: str,
                      exact_subject: bool = False) -> list[Changes]:
    """Retract every value of ``subject``'s ``attribute`` that is not retracted (production history), in one
    transaction that lists them once it holds the workspace's write lock: a value another session writes
    meanwhile is listed, as it committed first. History first, what is current last (no older value is
    current again in between); every one of them, or (one refused: another principal's, not_owner; or any
    failure) none. Their change reports in that order. ``subject`` as ``list_beliefs`` resolves it (a person's
    name names their subject), or only as given with ``exact_subject``."""
    with db.transaction() as c:
        c.execute(Q.lock_workspace)
        standing = [b for b in list_beliefs(db, subject=subject, attribute=attribute, include_all=True,
                                             exact_subject=exact_subject, conn=c)
                    if b.status != "retracted"]
        standing.sort(key=lambda b: (b.status in ("current", "conflicting"), b.recorded_at))
        return [retract(db, belief=b.id, reason=reason, conn=c) for b in standing]


def preview(db: Database, *, belief: str | UUID | None = None, fragment: str | UUID | None = None,
            source: str | None = None, version: int | None = None, undo: bool = False,
            conn: psycopg.Connection[Any] | None = None) -> Changes:
    """Exactly what ``retract`` (or, with ``undo``, the restore) would change, nothing written. For
    another principal's source ``proposed`` is set: the apply would only propose it to the owner,
    and the report shows what the owner's approval would change."""
    target, ref = _target(belief, fragment, source, version)
    changes: Changes = db.fetch_one(composites.changes, Q.retract_preview, (target, ref, version, undo), conn)
    return changes
