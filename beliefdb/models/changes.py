"""Decisions and actions, and what a change does to what was built on beliefs: impact, corrections, review.
Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID


@dataclass(frozen=True)
class Decision:
    id: UUID
    title: str
    status: str
    revision: int
    owner: str
    created_at: datetime
    holds: bool
    #: its reasons, each {"justification", "live", "beliefs": [{"id", "statement", "status"}]}: the
    #: beliefs one reason needs together, live while every one of them is current (rule 4)
    reasons: list[dict[str, Any]] = field(default_factory=list)
    #: how many reasons it had were forgotten: they went with what they cited (rule 14)
    forgotten_reasons: int = 0



@dataclass(frozen=True)
class Action:
    id: UUID
    decision_id: UUID
    description: str
    status: str
    owner: str
    created_at: datetime



@dataclass(frozen=True)
class Recorded:
    """A decision or action just recorded (a derived belief: :class:`DerivedBelief`), with the status the truth
    rules gave it."""

    id: UUID
    status: str
    #: the same request again (its idempotency key; a derivation: the same one), nothing recorded: this is
    #: what the first one recorded, its status now (rule 18)
    already_applied: bool = False


@dataclass(frozen=True)
class DerivedBelief(Recorded):
    """A derived belief just recorded (``derive``), with the status the truth rules gave it."""

    #: why its embedding waits, when it does (the belief is stored; ``beliefdb embed`` does it later)
    embedding_deferred: str | None = None
    #: the world it belongs to (rule 15): derived from any fixture or synthetic belief, that world's,
    #: and left out of production answers
    provenance: str = "production"


@dataclass(frozen=True)
class ImpactRow:
    """One effect of a change: stops_holding, stops_current (no longer current, still holding: superseded
    anew by what a retraction brings back, or, in a correction's ``if_approved``, by its replacement),
    becomes_current, flag (decision), hold (action) or survives (decision)."""

    node: UUID
    kind: str
    effect: str
    detail: dict[str, Any]



@dataclass(frozen=True)
class StillSupported:
    """A decision that lost a reason and still holds by others (the antecedents of each)."""

    decision: UUID
    by: list[list[UUID]]



@dataclass(frozen=True)
class Changes:
    """The net difference a change made to the support graph (or, from a preview, would make):
    nodes that stopped or started holding, stopped being or became current (a superseded belief
    whose winner stopped holding is current again), decisions flagged, actions held, and the
    decisions that lost a reason but survive on other support. A retraction of another
    principal's source only proposes it (``proposed``, ``review_item``, ``owner``): nothing changed.
    Every change report has this one shape, whatever produced it: ``review_item`` and ``owner`` are
    set on a proposal only (the owner it waits for), None otherwise."""

    stopped_holding: list[UUID]
    started_holding: list[UUID]
    flagged: list[UUID]
    held: list[UUID]
    stopped_current: list[UUID] = field(default_factory=list)
    became_current: list[UUID] = field(default_factory=list)
    survives: list[StillSupported] = field(default_factory=list)
    proposed: bool = False
    review_item: UUID | None = None
    owner: str | None = None

    def fingerprint(self) -> str:
        """What this report says, in a few characters a form carries back from a preview: the same
        nodes in each group, whether it would only be proposed, and to whom (``retract(expect=...)``)."""
        parts = [sorted(map(str, ids)) for ids in (self.stopped_holding, self.started_holding, self.flagged,
                                                  self.held, self.stopped_current, self.became_current)]
        parts.append(sorted(f"{s.decision}:{s.by}" for s in self.survives))
        parts.append([str(self.proposed), str(self.owner)])
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]



@dataclass(frozen=True)
class CorrectionPreview:
    """What a correction would change (exactly: the apply's own change, rolled back), with the
    revision it saw. For a belief another principal owns, applying only proposes (``proposed``):
    ``if_approved`` is the dry run of what the owner's approval would change: the same correction,
    run as the owner (None for a session that may not act as the owner: an agent's own login)."""

    belief: UUID
    revision: int
    would_flag: list[UUID]
    would_hold: list[UUID]
    still_supported: list[StillSupported]
    owner: str | None = None
    proposed: bool = False
    changes: Changes | None = None
    if_approved: list[ImpactRow] | None = field(default_factory=list)



@dataclass(frozen=True)
class CorrectionResult:
    """An applied correction, or (``proposed``) one waiting in the review queue for the owner of
    the belief: then ``correction`` and ``replacement`` are None and ``review_item`` is set."""

    correction: UUID | None
    replacement: UUID | None
    superseded: list[UUID]
    flagged: list[UUID]
    held: list[UUID]
    already_applied: bool
    proposed: bool = False
    review_item: UUID | None = None
    owner: str | None = None
    #: the net change report of the apply (what its preview showed)
    changes: Changes | None = None
    #: why the replacement was stored without its embedding (``beliefdb embed`` backfills), if it was (not
    #: a field of SQL's ``correction_result``: the replacement is embedded after the apply commits)
    embedding_deferred: str | None = None



@dataclass(frozen=True)
class ReviewItem:
    id: UUID
    kind: str
    #: the belief, decision or action it is about (None for a proposed version or retraction of a source)
    node: UUID | None
    other_node: UUID | None
    subject: str | None
    reason: str
    created_at: datetime
    proposed_by: str | None = None
    proposal: dict[str, Any] | None = None
    source_id: UUID | None = None
    #: whether the node it is about holds now (None for an item of a source): a flagged decision whose
    #: support came back holds again, its item open until a person approves or rejects it (rule 4)
    node_holds: bool | None = None
    #: a conflict's other belief (``other_node``): its statement, as ``subject`` is the first's
    other_subject: str | None = None
    #: who may resolve it (rule 17): the owner of the decision a flagged decision or held action is about, of
    #: the belief a proposed correction would change, of the source a proposed version or retraction would
    #: change; a conflict's, both beliefs' owners (either rejects it; only the loser's owner lets it lose)
    owners: list[str] = field(default_factory=list)



@dataclass(frozen=True)
class ReviewResolution:
    """A review item approved or rejected. ``correction``: the report of an approved proposed
    correction (as ``beliefdb.apply_correction`` gives it); ``applied``: that of an approved proposed
    version (an ingest report) or retraction (a change report), or an approved conflict's ``{"winner",
    "loser"}`` with the change report of the loser's supersession (``flagged`` decisions, ``held``
    actions, ``stopped_current``, ...)."""

    item: UUID
    kind: str
    node: UUID | None
    source_id: UUID | None
    status: str
    correction: dict[str, Any] | None = None
    applied: dict[str, Any] | None = None
    #: the other review items the verdict resolved, in the order it did, each ``{"id", "kind", "node",
    #: "source_id", "status", "note"}`` (the note says why): settled by what it changed (status closed: a
    #: correction proposed of the belief a conflict's approval superseded, a tie that is no longer one), or
    #: resolved with it (a flagged decision's held actions)
    closed: list[dict[str, Any]] = field(default_factory=list)
    #: why the beliefs an approval made (an approved correction's replacement, an approved version's) were
    #: stored without embeddings (``beliefdb embed`` backfills), if they were (not a field of SQL's
    #: ``review_resolution``: they are embedded after the verdict commits)
    embedding_deferred: str | None = None
