"""beliefdb's vocabulary: every closed list of names it keeps, listed once.

Each list is the Python side of an enum type or a check constraint of the schema
(``sql/schema/10_tables.sql``), of an order the SQL sorts by, or of the rows of ``beliefdb.error_code``;
``tests/test_vocabulary.py`` compares them with a migrated database. The members are strings
(:class:`~enum.StrEnum`), so ``"fact" in BELIEF_KINDS`` and ``BeliefKind.fact == "fact"`` hold.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final


class BeliefKind(StrEnum):
    """What kind of statement a belief is (``belief.kind``; its half-life: ``confidence_half_life.kind``)."""

    fact = "fact"
    rule = "rule"
    policy = "policy"
    preference = "preference"
    procedure = "procedure"
    event = "event"
    observation = "observation"
    other = "other"


class Authority(StrEnum):
    """Authority tier of a source, strongest first as beliefdb lists them (type ``authority``
    declares them weakest first, so that ``>`` ranks them)."""

    official = "official"
    internal = "internal"
    user = "user"
    agent = "agent"
    unverified = "unverified"


class Label(StrEnum):
    """A source's provenance label, real history or made-up material (type ``provenance``): labels
    are separate worlds (rule 15)."""

    production = "production"
    fixture = "fixture"
    synthetic = "synthetic"


class Origin(StrEnum):
    """Where a source's text comes from (type ``origin_type``)."""

    document = "document"
    conversation = "conversation"
    api_feed = "api_feed"
    agent = "agent"
    human_reviewer = "human_reviewer"


class NodeKind(StrEnum):
    """What a node is (type ``node_kind``): everything that can hold."""

    fragment = "fragment"
    belief = "belief"
    decision = "decision"
    action = "action"
    correction = "correction"
    step = "step"


class BeliefStatus(StrEnum):
    """A belief's status (type ``belief_status``); current and conflicting beliefs are true now."""

    current = "current"
    conflicting = "conflicting"
    superseded = "superseded"
    unsupported = "unsupported"
    retracted = "retracted"
    quarantined = "quarantined"
    expired = "expired"


class ConfidenceKind(StrEnum):
    """How a belief's confidence came about (type ``confidence_kind``)."""

    extracted = "extracted"
    human_correction = "human_correction"
    derived = "derived"
    agent_asserted = "agent_asserted"


class RelationKind(StrEnum):
    """A relation between two beliefs that is not a reason (type ``relation_kind``)."""

    supersedes = "supersedes"
    conflicts_with = "conflicts_with"
    clarifies = "clarifies"
    refines = "refines"


class EdgeKind(StrEnum):
    """A propagating edge from antecedent to consequent (type ``edge_kind``)."""

    evidence = "evidence"
    cites = "cites"
    supports = "supports"
    carries_out = "carries_out"
    derives = "derives"
    produces = "produces"
    updates = "updates"
    consolidates = "consolidates"
    reads = "reads"
    initiates = "initiates"


class EvidenceRole(StrEnum):
    """What a fragment does for a belief (``evidence.role``); only ``supports`` is a reason."""

    supports = "supports"
    contradicts = "contradicts"
    mentions = "mentions"


class DecisionStatus(StrEnum):
    """A decision's status (``decision.status``)."""

    active = "active"
    needs_review = "needs_review"
    approved = "approved"
    rejected = "rejected"


class ActionStatus(StrEnum):
    """An action's status (``action.status``)."""

    scheduled = "scheduled"
    held = "held"
    done = "done"
    failed = "failed"
    rolled_back = "rolled_back"
    cancelled = "cancelled"


class Outcome(StrEnum):
    """What actually happened after a decision or action (``outcome.outcome``)."""

    succeeded = "succeeded"
    failed = "failed"
    rolled_back = "rolled_back"
    disputed = "disputed"


class ReviewItemKind(StrEnum):
    """What a review item asks a person about (``review_item.kind``)."""

    decision_flagged = "decision_flagged"
    action_held = "action_held"
    conflict = "conflict"
    correction_proposed = "correction_proposed"
    version_proposed = "version_proposed"
    retraction_proposed = "retraction_proposed"


class ReviewItemStatus(StrEnum):
    """A review item's status (``review_item.status``): closed when it settled by itself."""

    open = "open"
    approved = "approved"
    rejected = "rejected"
    closed = "closed"


class StepKind(StrEnum):
    """Kind of a recorded agent step (type ``step_kind``)."""

    user_input = "user_input"
    memory_read = "memory_read"
    claim = "claim"
    plan = "plan"
    tool_call = "tool_call"
    observation = "observation"
    answer = "answer"
    memory_write = "memory_write"


class JobStatus(StrEnum):
    """Where a queued document is (``job.status``); running is seen only while a live worker holds it."""

    queued = "queued"
    running = "running"
    done = "done"
    failed = "failed"


class StepStatus(StrEnum):
    """What a repair made of a step (``step.status``)."""

    recorded = "recorded"
    invalidated = "invalidated"
    replay_pending = "replay_pending"
    replayed = "replayed"


class TraceEdgeKind(StrEnum):
    """A trace edge that never propagates holding (``trace_edge.kind``)."""

    follows = "follows"
    deletes = "deletes"


class RepairAction(StrEnum):
    """What a repair plan does to a node, in the order a plan lists and carries them out
    (``beliefdb.repair_plan_json`` sorts by it)."""

    delete = "delete"
    quarantine = "quarantine"
    invalidate = "invalidate"
    replay = "replay"
    preserve = "preserve"


class ErrorCode(StrEnum):
    """The SQLSTATEs beliefdb's SQL raises, by name: the rows of ``beliefdb.error_code`` (whose
    ``meaning`` says what each means). The name is the ``code`` of the exception it maps to
    (:data:`beliefdb.errors.BY_ERROR_CODE`) and what the CLI prints with ``--json``."""

    evidence_mismatch = "BD001"
    integrity_violation = "BD002"
    unknown_workspace = "BD003"
    not_found = "BD004"
    invalid_input = "BD005"
    ambiguous_id = "BD006"
    stale_correction_preview = "BD007"
    not_owner = "BD008"
    idempotency_key_reused = "BD009"
    clock_not_allowed = "BD010"
    embedding_model_mismatch = "BD011"
    #: internal: beliefdb._dry_run rolls a preview back with it and catches it; never raised to a caller
    preview_rolled_back = "BD900"


def values(names: type[StrEnum]) -> tuple[str, ...]:
    """The plain strings of a list, in its order (for messages, JSON schemas and SQL parameters)."""
    return tuple(member.value for member in names)


BELIEF_KINDS: Final = values(BeliefKind)
AUTHORITIES: Final = values(Authority)
LABELS: Final = values(Label)
ORIGINS: Final = values(Origin)
DECISION_STATUSES: Final = values(DecisionStatus)
ACTION_STATUSES: Final = values(ActionStatus)
OUTCOMES: Final = values(Outcome)
REVIEW_ITEM_KINDS: Final = values(ReviewItemKind)
STEP_KINDS: Final = values(StepKind)
REPAIR_ACTIONS: Final = values(RepairAction)
#: the propagating edge kinds a step's inputs may have (needed jointly; ``supports`` is separate)
JOINT_EDGE_KINDS: Final = tuple(kind.value for kind in (
    EdgeKind.reads, EdgeKind.cites, EdgeKind.initiates, EdgeKind.derives, EdgeKind.produces, EdgeKind.updates,
    EdgeKind.consolidates))

#: The enum type of schema beliefdb that holds each list.
ENUM_TYPES: Final[Mapping[str, type[StrEnum]]] = MappingProxyType({
    "authority": Authority,
    "provenance": Label,
    "origin_type": Origin,
    "node_kind": NodeKind,
    "belief_status": BeliefStatus,
    "confidence_kind": ConfidenceKind,
    "relation_kind": RelationKind,
    "edge_kind": EdgeKind,
    "step_kind": StepKind,
})

#: The (table, column) whose check constraint lists the allowed values of each list.
CHECKED_COLUMNS: Final[Mapping[tuple[str, str], type[StrEnum]]] = MappingProxyType({
    ("belief", "kind"): BeliefKind,
    ("confidence_half_life", "kind"): BeliefKind,
    ("evidence", "role"): EvidenceRole,
    ("decision", "status"): DecisionStatus,
    ("action", "status"): ActionStatus,
    ("outcome", "outcome"): Outcome,
    ("review_item", "kind"): ReviewItemKind,
    ("review_item", "status"): ReviewItemStatus,
    ("step", "status"): StepStatus,
    ("job", "status"): JobStatus,
    ("trace_edge", "kind"): TraceEdgeKind,
})
