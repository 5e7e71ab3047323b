"""Dependency-guided rollback repair (truth rule 10 of docs/rules.md).

The plan and its store side are SQL (``beliefdb.repair_plan`` / ``beliefdb.repair_apply``); this
module presents them and drives the replay, which needs the caller's executor: a callable per
step kind that re-runs one step from its (repaired) inputs. beliefdb feeds it exactly the steps
the plan lists for replay, in execution order, records the new steps as a branch of the old
run, and the memories they write.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import psycopg

from beliefdb import errors
from beliefdb.db import composites
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.db.reports import plan_items
from beliefdb.inputs import refs_of
from beliefdb.models import Belief, Changes, PlanItem, RepairPlan, RepairResult, ReplayResult, TraceStep
from beliefdb.store import trace
from beliefdb.store.beliefs import get_belief, list_beliefs
from beliefdb.vocabulary import REPAIR_ACTIONS, StepStatus


@dataclass(frozen=True)
class _RunNames:
    task: str
    agent: str


@dataclass(frozen=True)
class MemoryWrite:
    """A memory a replayed step writes."""

    subject: str
    attribute: str
    value: str
    statement: str | None = None
    kind: str = "fact"


@dataclass(frozen=True)
class StepOutput:
    """What the executor made of one step: its new payload, the memories it read (memory reads:
    these become its inputs), the memories it wrote and the memories it deleted."""

    payload: dict[str, Any]
    reads: Sequence[UUID] = ()
    memories: Sequence[MemoryWrite] = ()
    deletes: Sequence[UUID] = ()


@dataclass(frozen=True)
class ReplayInput:
    """One input of a step being replayed. For a step (only those that hold now), the payload of its
    replayed version when it was replayed, else the original; for a memory, its subject, attribute,
    value, statement, status."""

    edge: str
    node: UUID
    node_kind: str
    payload: dict[str, Any]
    alternative: bool = False


class MemoryView:
    """Read-only view of the repaired memory: current beliefs only."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, subject: str, attribute: str) -> Belief | None:
        """The latest current memory for a subject and attribute, if any."""
        found = list_beliefs(self._db, subject=subject, attribute=attribute)
        return max(found, key=lambda b: (b.recorded_at, str(b.id))) if found else None

    def current(self, subject: str | None = None) -> list[Belief]:
        return list_beliefs(self._db, subject=subject)


@dataclass(frozen=True)
class ReplayStep:
    """A step to re-run: the old step, its inputs as they are now (a step input that does not hold now is
    left out, so there may be fewer than the old step had: find them by edge or kind, not position), the
    repaired memory, and the repair."""

    step: TraceStep
    inputs: list[ReplayInput]
    memory: MemoryView
    repair_id: UUID = field(default_factory=lambda: UUID(int=0))


Executor = Mapping[str, Callable[[ReplayStep], StepOutput]]


def _check_faulty(refs: Sequence[str | UUID]) -> list[str]:
    if not refs:
        said = errors.spelled("faulty=[ID, ...]", "--faulty ID")
        raise errors.InvalidInput(f"name at least one faulty memory ({said})")
    return refs_of(refs, "faulty")


def plan(db: Database, faulty: Sequence[str | UUID], *, independent_evidence: bool = True, untouched: bool = False,
         conn: psycopg.Connection[Any] | None = None) -> RepairPlan:
    """The repair plan for these faulty memories; nothing is written. With ``untouched``, preserve
    also lists every step of the affected runs that nothing faulty reaches (the rest of "everything
    else"); without, it lists the candidates that still hold."""
    refs = _check_faulty(faulty)
    with db.transaction(conn) as c:
        # the plan lists its faulty memories by id (beliefdb.repair_plan returns its items only)
        ids = list(dict.fromkeys(UUID(str(db.scalar(Q.resolve_memory, (str(ref),), c))) for ref in refs))
        items: list[PlanItem] = db.fetch_all(PlanItem, Q.repair_plan,
            ([str(i) for i in ids], independent_evidence, untouched, list(REPAIR_ACTIONS)), c)
    return RepairPlan(faulty=ids, items=items)


def apply(db: Database, faulty: Sequence[str | UUID], *, independent_evidence: bool = True,
          conn: psycopg.Connection[Any] | None = None) -> RepairResult:
    """Carry out the store side of the plan in one transaction (audited); replay comes after."""
    # (the result lists the faulty memories as beliefdb.repair_apply resolved them)
    result: RepairResult = db.fetch_one(composites.repair_result, Q.repair_apply,
                                        (_check_faulty(faulty), independent_evidence), conn)
    return result


def load(db: Database, repair_id: str | UUID, conn: psycopg.Connection[Any] | None = None) -> RepairResult:
    """An applied repair and the plan it carried out, to replay: for the owner of the runs it replays or the
    principal that applied it (else :class:`~beliefdb.errors.NotOwner`, rule 17)."""
    try:
        key = UUID(str(repair_id))
    except ValueError as exc:
        raise errors.NotFound(f"unknown repair {repair_id}") from exc
    with db.transaction(conn) as c:
        row = c.execute(Q.load_repair, (key,)).fetchone()
    if row is None:
        raise errors.NotFound(f"unknown repair {repair_id}")
    return RepairResult(repair_id=key, plan=RepairPlan(faulty=list(row[0]), items=plan_items(row[1])),
                        changes=Changes([], [], [], []))


class _Replay:
    """The state of one replay: which old steps and memories map to which new ones."""

    def __init__(self, db: Database, repaired: RepairResult, executor: Executor) -> None:
        self.db = db
        self.repaired = repaired
        self.executor = executor
        self.memory = MemoryView(db)
        self.step_map: dict[UUID, UUID] = {}
        self.memory_map: dict[UUID, UUID] = {}
        self.payloads: dict[UUID, dict[str, Any]] = {}
        self.recorders: dict[UUID, trace.RunRecorder] = {}
        self.result = ReplayResult(repair_id=repaired.repair_id, run_ids={}, replayed=[], memories=[], calls=0)
        self.calls = 0

    def pending(self) -> list[TraceStep]:
        ids = [i.node for i in self.repaired.plan.replay]
        if not ids:
            return []
        todo = [s for s in trace.steps(self.db, ids=ids) if s.status == StepStatus.replay_pending]
        missing = {s.kind for s in todo} - set(self.executor)
        if missing:
            raise errors.InvalidInput(f"the executor has no callable for step kind(s): {', '.join(sorted(missing))}")
        for kind in sorted({s.kind for s in todo}):
            if inspect.iscoroutinefunction(self.executor[kind]):  # (its coroutine would never be awaited)
                raise errors.InvalidInput(f"the executor for {kind} is an async function: replay calls each one on a"
                                          " thread (the async client's too) and needs its StepOutput back; give a"
                                          " plain function")
        self._resume(ids)
        return todo

    def _resume(self, ids: list[UUID]) -> None:
        """Steps an interrupted replay already re-ran keep their new versions."""
        with self.db.transaction() as c:
            rows = c.execute(Q.replayed_steps, (ids,)).fetchall()
        for old, new, run, payload, parent in rows:
            self.step_map[old] = new
            self.payloads[new] = payload
            self.result.run_ids[parent] = run

    def _recorder(self, old_run: UUID) -> trace.RunRecorder:
        if old_run not in self.recorders:
            branch = self.result.run_ids.get(old_run)
            first = 0
            if branch is not None:
                first = int(self.db.scalar(Q.next_step_seq, (branch,)))
            # (a replay is the same agent's run again: its task and agent, recorded by whoever replays it)
            names: _RunNames = self.db.fetch_one(_RunNames, Q.run_task, (old_run,))
            self.recorders[old_run] = trace.RunRecorder(self.db, task=names.task, agent=names.agent, parent=old_run,
                                                        run_id=branch, first_seq=first)
            self.result.run_ids[old_run] = self.recorders[old_run].id
        return self.recorders[old_run]

    def _input_view(self, edge: str, node: UUID, node_kind: str, alternative: bool) -> ReplayInput:
        if node_kind == "step":
            mapped = self.step_map.get(node, node)
            if mapped not in self.payloads:
                found = trace.steps(self.db, ids=[mapped])
                self.payloads[mapped] = found[0].payload if found else {}
            return ReplayInput(edge, mapped, node_kind, self.payloads[mapped], alternative)
        if node_kind == "belief":
            mapped = self.memory_map.get(node, node)
            b = get_belief(self.db, mapped)
            return ReplayInput(edge, mapped, node_kind,
                               {"subject": b.subject, "attribute": b.attribute, "value": b.value,
                                "statement": b.statement, "status": b.status}, alternative)
        return ReplayInput(edge, node, node_kind, {}, alternative)

    def run_step(self, step: TraceStep) -> None:
        recorded = trace.inputs(self.db, [step.id])
        views = [self._input_view(i.edge, i.node, i.node_kind, i.alternative) for i in recorded]
        # a step input that does not hold now is neither given to the executor nor recorded: what the
        # new version rests on is what it was computed from (a step that never held, beside the memory
        # the old version held by, would alone decide that the new version does not hold; left out of
        # the record only, a shorter joint reason would hold though the executor used the step)
        holding = self._holding([v.node for v in views if v.node_kind == "step"])
        views = [v for v in views if v.node_kind != "step" or holding.get(v.node, False)]
        output = self.executor[step.kind](ReplayStep(step=step, inputs=views, memory=self.memory,
                                                     repair_id=self.repaired.repair_id))
        self.calls += 1
        if not isinstance(output, StepOutput):
            raise errors.InvalidInput(f"the executor for {step.kind} must return a StepOutput")
        # the new step's inputs: the old ones as they are now, memory reads as the executor says (a
        # memory no longer current is left out)
        joint: list[tuple[str, UUID]] = []
        supports: list[UUID] = []
        for view in views:
            if view.node_kind == "belief" and (output.reads or view.payload["status"] not in ("current",
                                                                                              "conflicting")):
                continue
            if view.alternative:
                supports.append(view.node)
            else:
                joint.append((view.edge, view.node))
        joint += [("reads", m) for m in output.reads]
        recorder = self._recorder(step.run_id)
        new_step = recorder.step(step.kind, output.payload, inputs=joint, supports=supports, replay_of=step.id)
        old_memories = self._written_by(step.id)
        for write in output.memories:
            new_memory = recorder.memory(new_step, write.subject, write.attribute, write.value, write.statement,
                                         kind=write.kind)
            self.result.memories.append(new_memory)
            for old_id, subject, attribute in old_memories:
                if (subject, attribute) == (write.subject, write.attribute):
                    self.memory_map[old_id] = new_memory
        for memory in output.deletes:
            recorder.delete_memory(new_step, memory)
        recorder.flush()
        self.step_map[step.id] = new_step
        self.payloads[new_step] = output.payload
        self.result.replayed.append((step.id, new_step))
        if step.kind == "answer":
            self.result.answers[step.run_id] = output.payload

    def _holding(self, steps: list[UUID]) -> dict[UUID, bool]:
        """Whether each of these steps holds now."""
        return {s.id: s.holds for s in trace.steps(self.db, ids=steps)} if steps else {}

    def _written_by(self, step: UUID) -> list[tuple[UUID, str, str]]:
        with self.db.transaction() as c:
            rows = c.execute(Q.beliefs_produced_by_step, (step,)).fetchall()
        return [(UUID(str(r[0])), r[1], r[2]) for r in rows]


def replay(db: Database, repair_id: str | UUID, executor: Executor,
           progress: Callable[[int, int], None] | None = None) -> ReplayResult:
    """Re-run the steps the plan lists for replay, in order, through ``executor``.

    Each replayed step is its own transaction, so an interrupted replay resumes where it stopped
    (steps already re-run are not run again).
    """
    repaired = load(db, repair_id)
    state = _Replay(db, repaired, executor)
    todo = state.pending()
    for done, step in enumerate(todo, start=1):
        state.run_step(step)
        if progress is not None:
            progress(done, len(todo))
    with db.transaction() as c:
        c.execute(Q.repair_replayed, (repaired.repair_id,))
    r = state.result
    return ReplayResult(repair_id=r.repair_id, run_ids=r.run_ids, replayed=r.replayed, memories=r.memories,
                        calls=state.calls, answers=r.answers)
