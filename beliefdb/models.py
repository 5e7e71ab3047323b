"""Typed rows that cross module boundaries. Field names match the SQL columns they come from."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg.types.range import Range


@dataclass(frozen=True)
class Workspace:
    id: UUID
    name: str
    created_at: datetime


@dataclass(frozen=True)
class Belief:
    id: UUID
    statement: str
    subject: str
    attribute: str
    value: str
    kind: str
    scope: dict[str, Any]
    valid_time: Range[datetime]
    confidence: float
    confidence_kind: str
    status: str
    revision: int
    owner: str
    recorded_at: datetime
    evidence_count: int
    #: the world it belongs to (rule 15): production, or fixture / synthetic (the label of the source
    #: that first stated it; all of its evidence comes from that world)
    provenance: str = "production"


@dataclass(frozen=True)
class Evidence:
    belief_id: UUID
    role: str
    quote: str
    fragment_id: UUID
    start_offset: int
    end_offset: int
    source: str
    origin_type: str
    authority: str
    provenance: str
    version: int
    version_label: str | None
    version_sha256: str
    in_force: bool
    created_at: datetime


@dataclass(frozen=True)
class ConfidenceFactor:
    factor: str
    detail: str
    weight: float


@dataclass(frozen=True)
class HistoryEntry:
    new_belief: UUID
    new_statement: str
    new_value: str
    old_belief: UUID
    old_statement: str
    old_value: str
    kind: str
    reason: str
    at: datetime


@dataclass(frozen=True)
class BuiltOn:
    """A decision citing a belief, with its status and the actions carrying it out."""

    decision_id: UUID
    title: str
    decision_status: str
    actions: list[dict[str, Any]]
    #: the latest recorded outcome ({"outcome", "note", "at", "by"}), if any
    outcome: dict[str, Any] | None = None


@dataclass(frozen=True)
class Why:
    """A belief with everything that explains it."""

    belief: Belief
    evidence: list[Evidence]
    confidence: list[ConfidenceFactor]
    replaced: list[HistoryEntry]
    replaced_by: list[HistoryEntry]
    conflicts: list[HistoryEntry]
    built_on: list[BuiltOn] = field(default_factory=list)


@dataclass(frozen=True)
class Accepted:
    id: UUID
    statement: str
    subject: str
    attribute: str
    value: str
    quote: str
    start: int
    end: int


@dataclass(frozen=True)
class Rejected:
    statement: str
    quote: str
    reason: str


@dataclass(frozen=True)
class Corroborated:
    id: UUID
    statement: str
    quote: str
    start: int
    end: int


@dataclass(frozen=True)
class Unchanged:
    """A candidate the memory already held with this very evidence."""

    id: UUID
    statement: str


@dataclass(frozen=True)
class Superseded:
    old: UUID
    new: UUID


@dataclass(frozen=True)
class Conflict:
    a: UUID
    b: UUID
    #: why it is a conflict, not a supersession: equal authority and recency, or the loser belongs to
    #: another principal (who must choose)
    reason: str = "equal authority and recency: a person must choose (rule 8)"


@dataclass(frozen=True)
class IngestReport:
    """What one ingest of one text did."""

    source: str
    #: the version the text is (None when it was only proposed to the source's owner)
    version: int | None
    new_version: bool
    fragments: int
    path: str | None = None
    accepted: list[Accepted] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    corroborated: list[Corroborated] = field(default_factory=list)
    unchanged: list[Unchanged] = field(default_factory=list)
    superseded: list[Superseded] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    reverified: list[UUID] = field(default_factory=list)
    unsupported: list[UUID] = field(default_factory=list)
    flagged: list[UUID] = field(default_factory=list)
    held: list[UUID] = field(default_factory=list)
    #: why the new beliefs were stored without embeddings (``beliefdb embed`` backfills), if they were
    embedding_deferred: str | None = None
    #: the net change report (what stopped being or became current, flags, holds)
    changes: Changes | None = None
    #: another principal's source: the text waits for its owner as a review item; nothing changed
    proposed: bool = False
    review_item: UUID | None = None
    owner: str | None = None
    #: what a text that changed nothing was (the same as a version in force, or a retracted one)
    note: str | None = None
    #: a preview: nothing was written
    preview: bool = False


@dataclass(frozen=True)
class IngestFailure:
    """A file that could not be ingested; nothing of it was stored."""

    path: str
    error: str
    message: str


@dataclass(frozen=True)
class AuditResult:
    ok: bool
    events: int
    first_broken: int | None


@dataclass(frozen=True)
class Decision:
    id: UUID
    title: str
    status: str
    revision: int
    owner: str
    created_at: datetime
    holds: bool


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
    """A decision, action or derived belief just recorded, with the status the truth rules gave it."""

    id: UUID
    status: str


@dataclass(frozen=True)
class ImpactRow:
    """One effect of a change: stops_holding, flag (decision), hold (action) or survives (decision)."""

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
    principal's source only proposes it (``proposed``, ``review_item``, ``owner``): nothing changed."""

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

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Changes:
        """The change report beliefdb's SQL returns (beliefdb._changes), typed."""

        def ids(key: str) -> list[UUID]:
            return [UUID(x) for x in raw.get(key) or []]

        return cls(stopped_holding=ids("stopped_holding"), started_holding=ids("started_holding"),
                   flagged=ids("flagged"), held=ids("held"), stopped_current=ids("stopped_current"),
                   became_current=ids("became_current"),
                   survives=[StillSupported(decision=UUID(s["decision"]),
                                            by=[[UUID(x) for x in group] for group in s.get("by") or []])
                             for s in raw.get("survives") or []],
                   proposed=bool(raw.get("proposed")),
                   review_item=UUID(raw["review_item"]) if raw.get("review_item") else None,
                   owner=raw.get("owner"))


@dataclass(frozen=True)
class CorrectionPreview:
    """What a correction would change (exactly: the apply's own change, rolled back), with the
    revision it saw. For a belief another principal owns, applying only proposes (``proposed``):
    ``if_approved`` is the dry run of what the owner's approval would take away."""

    belief: UUID
    revision: int
    would_flag: list[UUID]
    would_hold: list[UUID]
    still_supported: list[StillSupported]
    owner: str | None = None
    proposed: bool = False
    changes: Changes | None = None
    if_approved: list[ImpactRow] = field(default_factory=list)


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


@dataclass(frozen=True)
class Run:
    id: UUID
    agent: str
    task: str
    parent_run_id: UUID | None
    created_at: datetime
    steps: int


@dataclass(frozen=True)
class TraceStep:
    id: UUID
    run_id: UUID
    seq: int
    kind: str
    payload: dict[str, Any]
    status: str
    replay_of: UUID | None
    holds: bool


@dataclass(frozen=True)
class TraceInput:
    """One recorded input of a step: the edge, the node it comes from, and whether it is an
    independent alternative (``supports``) or needed jointly with the others."""

    step_id: UUID
    edge: str
    node: UUID
    node_kind: str
    alternative: bool


@dataclass(frozen=True)
class PlanItem:
    node: UUID
    node_kind: str
    step_kind: str | None
    run_id: UUID | None
    seq: int | None
    action: str
    reason: str
    saved_by: list[UUID]


@dataclass(frozen=True)
class RepairPlan:
    faulty: list[UUID]
    items: list[PlanItem]

    def of(self, action: str) -> list[PlanItem]:
        return [i for i in self.items if i.action == action]

    @property
    def delete(self) -> list[PlanItem]:
        return self.of("delete")

    @property
    def quarantine(self) -> list[PlanItem]:
        return self.of("quarantine")

    @property
    def invalidate(self) -> list[PlanItem]:
        return self.of("invalidate")

    @property
    def replay(self) -> list[PlanItem]:
        """Steps to re-run, in execution order."""
        return self.of("replay")

    @property
    def preserve(self) -> list[PlanItem]:
        return self.of("preserve")


@dataclass(frozen=True)
class RepairResult:
    repair_id: UUID
    plan: RepairPlan
    changes: Changes


@dataclass(frozen=True)
class ReplayResult:
    repair_id: UUID
    run_ids: dict[UUID, UUID]
    replayed: list[tuple[UUID, UUID]]
    memories: list[UUID]
    calls: int
    answers: dict[UUID, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class RunTrace:
    """A run's steps in execution order, with the recorded inputs of each."""

    steps: list[TraceStep]
    inputs: list[TraceInput]


@dataclass(frozen=True)
class ReviewResolution:
    """A review item approved or rejected. ``correction``: the report of an approved proposed
    correction (as ``beliefdb.apply_correction`` gives it); ``applied``: that of an approved proposed
    version (an ingest report) or retraction (a change report)."""

    item: UUID
    kind: str
    node: UUID | None
    source_id: UUID | None
    status: str
    correction: dict[str, Any] | None = None
    applied: dict[str, Any] | None = None


@dataclass(frozen=True)
class ConfidenceReport:
    """What a decay or recompute of every confidence moved as of ``now`` (``preview``: would move):
    beliefs under ``threshold`` are low confidence."""

    now: datetime
    beliefs: int
    changed: int
    lowered: int
    raised: int
    became_low: int
    recovered: int
    low_confidence: int
    threshold: float
    preview: bool = False


@dataclass(frozen=True)
class Expired:
    """Beliefs whose valid time had ended by ``now``, processed (rule 16), and the change they made."""

    expired: int
    beliefs: list[UUID]
    now: datetime
    changes: Changes


@dataclass(frozen=True)
class OutcomeRecorded:
    """An outcome recorded for a decision or action; ``status``: the action's status after it."""

    id: UUID
    node: UUID
    kind: str
    outcome: str
    status: str | None = None


@dataclass(frozen=True)
class Forgotten:
    """What forgetting a source, a subject or a belief took away (``preview``: would take away).
    ``would_flag`` is ``flagged`` under the name a preview gives it."""

    target: str
    versions: int
    fragments: int
    beliefs: int
    evidence: int
    embeddings: int
    redacted: int
    flagged: list[UUID]
    would_flag: list[UUID]
    held: list[UUID]
    changes: Changes
    preview: bool = False


@dataclass(frozen=True)
class Migration:
    """The schema revision before and after a migration (equal: it was already current)."""

    before: str | None
    after: str


@dataclass(frozen=True)
class WorkspaceDeleted:
    """A deleted workspace and what it held; all of it, its audit chain too, went with it."""

    id: UUID
    name: str
    sources: int
    beliefs: int
    decisions: int
    runs: int


@dataclass(frozen=True)
class Setting:
    """One ``BELIEFDB_*`` variable as beliefdb sees it now (``beliefdb config``)."""

    name: str
    #: str, int, float, path or secret (a secret's value is masked)
    type: str
    value: str | int | float | None
    default: str | int | float | None
    #: environment or default
    source: str
    help: str
