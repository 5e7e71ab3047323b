"""Belief lifecycle: decay and recompute of confidence (rule 9), outcomes of decisions and
actions, and forgetting (rule 14). Each is one call to a SQL function, whose result is typed
(beliefdb/models), taking a belief, decision or action by its id or a unique prefix and a source
by its name (the SQL functions resolve them).

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import check_expect, check_moment
from beliefdb.models import ConfidenceReport, Expired, Forgotten, OutcomeRecorded
from beliefdb.store.decisions import check_idempotency_key
from beliefdb.store.statistics_turns import taking_turns
from beliefdb.text.naming import speaker_subject
from beliefdb.vocabulary import OUTCOMES


def decay(db: Database, now: datetime | None = None, *, preview: bool = False,
          conn: psycopg.Connection[Any] | None = None) -> ConfidenceReport:
    """Recompute every confidence of the workspace as of ``now`` (half-lives, policy weights), to the
    fixpoint over derived beliefs. With ``preview``, the same counts and nothing written."""
    if now is not None:
        now = check_moment(now, "now")
    report: ConfidenceReport = db.fetch_one(ConfidenceReport, Q.decay, (now, preview), conn)
    return report


def recompute(db: Database, *, preview: bool = False,
              conn: psycopg.Connection[Any] | None = None) -> ConfidenceReport:
    """Recompute every confidence after a DBA changed confidence_policy or confidence_half_life."""
    report: ConfidenceReport = db.fetch_one(ConfidenceReport, Q.recompute, (preview,), conn)
    return report


def expire(db: Database, conn: psycopg.Connection[Any] | None = None) -> Expired:
    """Process the beliefs whose valid time has ended (rule 16): they stop being current, and what
    rested on them is re-evaluated (decisions flagged, actions held). Every command does this first."""
    expired: Expired = db.fetch_one(Expired, Q.expire, None, conn)
    return expired


def record_outcome(db: Database, ref: str | UUID, outcome: str, note: str | None = None, *,
                   idempotency_key: str | None = None,
                   conn: psycopg.Connection[Any] | None = None) -> OutcomeRecorded:
    """What actually happened after a decision or action: succeeded, failed, rolled_back, disputed.
    ``idempotency_key`` names the request (rule 18): the same node, outcome and note again with it return
    that outcome, ``already_applied``; another request with it is refused."""
    if outcome not in OUTCOMES:
        raise errors.InvalidInput(f"invalid outcome '{outcome}' (choose from: {', '.join(OUTCOMES)})")
    check_idempotency_key(idempotency_key, "outcome")
    recorded: OutcomeRecorded = db.fetch_one(OutcomeRecorded, Q.record_outcome,
                                             (str(ref), outcome, note, idempotency_key), conn)
    return recorded


def forget(db: Database, *, source: str | None = None, subject: str | None = None, belief: str | UUID | None = None,
           preview: bool = False, expect: str | None = None, mask_mentions: bool = False,
           conn: psycopg.Connection[Any] | None = None) -> Forgotten:
    """Forget a source, a subject's beliefs and what it said (the turns of the speakers whose name is
    the subject: "Maya" for ``maya``), or one belief, and every belief left without support or whose
    every quote lay in it;
    decisions that lose their last support are flagged. ``preview``: counts only. With ``expect``
    (the :meth:`Forgotten.fingerprint` of a preview) only that: in one transaction holding the
    workspace's write lock, the preview is taken again and the forget applied only if it is the same;
    else :class:`errors.StalePreview` and nothing is forgotten (as ``retraction.retract``).
    ``mask_mentions`` (a subject's alone): mask its name too where other speakers and documents wrote it in
    the stored source texts (the report's ``text_mentions``, listed either way) and in the texts waiting to be
    stored (``pending_mentions``: queued documents, proposed versions)."""
    if len([x for x in (source, subject, belief) if x is not None]) != 1:
        raise errors.InvalidInput("forget exactly one of source, subject or belief")
    if mask_mentions and subject is None:
        raise errors.InvalidInput(f"{errors.argument('mask_mentions')} goes with forgetting a subject (a person's"
                                  " name), not a source or a belief")
    if preview and expect is not None:
        raise errors.InvalidInput(f"{errors.argument('expect')} goes with the apply, not with"
                                  f" {errors.argument('preview')} (a preview changes nothing)")
    expect = check_expect(expect)
    if conn is None:  # (a transaction of its own: made again whole when the statistics were busy)
        return taking_turns(lambda: _forget(db, source, subject, belief, preview, expect, mask_mentions, None))
    return _forget(db, source, subject, belief, preview, expect, mask_mentions, conn)


def _forget(db: Database, source: str | None, subject: str | None, belief: str | UUID | None, preview: bool,
            expect: str | None, mask_mentions: bool, conn: psycopg.Connection[Any] | None) -> Forgotten:
    speakers: list[str] = []
    with db.transaction(conn) as c:
        if expect is not None:
            c.execute(Q.lock_workspace)
            # (the fingerprint counts no mentions: they are looked for once, by the forget below, not
            # twice with the lock held; a failure rolls the setting back with the transaction)
            c.execute(Q.forget_mentions, ("off",))
            seen = forget(db, source=source, subject=subject, belief=belief, preview=True,
                          mask_mentions=mask_mentions, conn=c)
            c.execute(Q.forget_mentions, ("on",))
            if seen.fingerprint() != expect:
                raise errors.StalePreview("what forgetting it would take away is no longer what the preview showed:"
                                          " nothing was forgotten; preview again")
        if source is not None:
            args = ("source", source)
        elif subject is not None:
            # the subject a speaker's words about themselves are about is the extractors' rule, and a
            # person is forgotten by their name too ("Maya López" for maya_lopez) when no belief has
            # the name itself as its subject
            named = c.execute(Q.subject_exists, (subject,)).fetchone()
            given = subject
            if named is not None and not named[0]:
                subject = speaker_subject(subject)
            args = ("subject", subject)
            # (a speaker whose name is the subject as written, "Maya López" or "MAYA LOPEZ" when a belief has
            # the subject "Maya López", is that subject's speaker too: rule 14's "a speaker whose name is that
            # subject", in any letter case and with or without accents, as the extractors name a speaker)
            speakers = [r["speaker"] for r in db.fetch_all(dict, Q.speakers, None, c)
                        if speaker_subject(r["speaker"]) in (subject, speaker_subject(subject))]
            # the name as given is a speaker's of that subject too (no turn of it yet, perhaps): where it
            # is typed ("Maya López" in a title), the report finds it
            if given != subject and given not in speakers:
                speakers.append(given)
        else:
            args = ("belief", str(belief))
        forgotten: Forgotten = db.fetch_one(Forgotten, Q.forget, (*args, preview, speakers, mask_mentions), c)
    return forgotten
