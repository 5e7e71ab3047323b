"""An agent's runs and steps, and the rollback repair of what a faulty memory fed. Rules cited as
"rule N" are those of docs/rules.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from beliefdb.models.changes import Changes


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
class StepRecorded:
    """One step recorded on its own (``BeliefDB.record_step``): its run, its id and seq, and the memory
    it wrote, if it wrote one."""

    run: UUID
    step: UUID
    seq: int
    memory: UUID | None = None


@dataclass(frozen=True)
class Refusal:
    """A citation a decision recorded in a run may not make (rule 19: a search hit is not evidence), and why."""

    belief: str
    reason: str


@dataclass(frozen=True)
class RunDecision:
    """A decision recorded in a run (``BeliefDB.decide_in_run``): its status, and the citations refused
    because the run did not read them, they are no longer current or they are fixture or synthetic
    material (rule 15). With none left it needs review."""

    id: UUID
    status: str
    run: UUID
    refused: list[Refusal] = field(default_factory=list)
    #: the same request again by its idempotency key, nothing recorded: the decision the first one recorded
    #: (its status now) and the citations it refused (rule 18)
    already_applied: bool = False
