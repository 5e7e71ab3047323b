"""Agent traces and rollback repair through :class:`~beliefdb.BeliefDB` (it inherits them from
:class:`Traces`): runs and their steps as recorded, and the repair of what a faulty memory reached.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from uuid import UUID

from beliefdb.db.connector import Database
from beliefdb.errors import InvalidInput, argument
from beliefdb.inputs import ids_of
from beliefdb.models import RepairPlan, RepairResult, ReplayResult, Run, RunTrace, StepRecorded, TraceStep
from beliefdb.store import repair, trace


class Traces:
    """The trace and repair methods of :class:`~beliefdb.BeliefDB`."""

    database: Database

    def record_run(self, *, task: str = "", agent: str | None = None,
                   parent: UUID | None = None) -> trace.RunRecorder:
        """Record an agent run: ``with db.record_run(task=...) as run: run.step(...)``; written on flush."""
        return trace.record_run(self.database, task=task, agent=agent, parent=parent)

    def record_step(self, kind: str, payload: Mapping[str, Any] | None = None, *, run: str | UUID | None = None,
                    task: str = "", inputs: Sequence[tuple[str, str | UUID]] = (),
                    supports: Sequence[str | UUID] = (), memory: Mapping[str, str] | None = None) -> StepRecorded:
        """Record one step at once, for agents that reach memory a call at a time (the servers): appended
        to ``run`` (id or unique prefix), else the first step of a new run for ``task``. ``inputs`` are
        (edge, node) pairs needed jointly (over HTTP and MCP, objects ``{"edge": ..., "node": ...}``),
        ``supports`` independent reasons; ``memory`` ({subject, attribute, value, statement?, kind?}) is a
        belief the step writes, holding while the step does, of the highest world (rule 15) among what the
        step rests on: a step resting on fixture material writes a fixture memory, which no decision may cite.
        A memory_read step that reads beliefs is recorded only by :meth:`ask` and :meth:`why` with
        ``run`` (rule 19: a decision of the run may cite what it read, so a read nobody was shown
        cannot be written here). The arguments are checked before the run is looked up."""
        if isinstance(supports, str | UUID):  # (one id alone, read as a list of its characters: refused)
            ids_of(supports, "supports")
        inputs = _pairs(inputs)
        if kind == "memory_read" and any(edge == "reads" for edge, _ in inputs):
            raise InvalidInput("a memory_read step's reads are recorded by ask and why given the run, not by"
                                      " record_step: a decision may cite only what the run was shown (rule 19)")
        joint = [(trace.edge_kind(edge), _uuid(node)) for edge, node in inputs]
        independent = [_uuid(node) for node in supports]
        trace.check_step(kind, independent)
        trace.payload_of(payload)
        if memory is not None:
            trace.check_memory(memory.get("subject", ""), memory.get("attribute", ""), memory.get("kind") or "fact")
        with self.database.transaction() as c:  # (appended after the run's last step, under its lock)
            recorder = trace.continue_run(self.database, run, c) if run is not None else trace.record_run(
                self.database, task=task)
            seq = recorder.next_seq
            step = recorder.step(kind, payload, inputs=joint, supports=independent)
            wrote = None
            if memory is not None:
                wrote = recorder.memory(step, memory.get("subject", ""), memory.get("attribute", ""),
                                        memory.get("value", ""), memory.get("statement"),
                                        kind=memory.get("kind") or "fact")
            recorder.flush(c)
        return StepRecorded(run=recorder.id, step=step, seq=seq, memory=wrote)

    def runs(self, *, limit: int | None = None, offset: int = 0, newest_first: bool = False) -> list[Run]:
        """Recorded agent runs, oldest (or newest) first, ``limit`` of them (None: all) from ``offset`` (a
        replay names the run it branches from); :meth:`run_count` says how many there are."""
        return trace.list_runs(self.database, limit=limit, offset=offset, newest_first=newest_first)

    def run_count(self) -> int:
        """How many agent runs are recorded (what :meth:`runs` pages through)."""
        return trace.count_runs(self.database)

    def run(self, run: str | UUID) -> Run:
        """One run (by id or unique prefix) with its number of steps."""
        return trace.run_info(self.database, run)

    def steps(self, run: str | UUID) -> list[TraceStep]:
        """A run's steps (by id or unique prefix) in execution order."""
        return trace.steps(self.database, trace.run_id(self.database, run))

    def run_trace(self, run: str | UUID) -> RunTrace:
        """A run (by id or unique prefix): its steps in order, and the recorded inputs of each."""
        with self.database.transaction() as c:
            steps = trace.steps(self.database, trace.run_id(self.database, run, c), conn=c)
            return RunTrace(steps=steps, inputs=trace.inputs(self.database, [s.id for s in steps], c))

    def repair_plan(self, faulty: Sequence[str | UUID], *, independent_evidence: bool = True,
                    untouched: bool = False) -> RepairPlan:
        """What repairing these faulty memories would delete, quarantine, invalidate, replay and preserve
        (``untouched``: preserve also lists the affected runs' steps nothing faulty reaches)."""
        return repair.plan(self.database, faulty, independent_evidence=independent_evidence, untouched=untouched)

    def repair_apply(self, faulty: Sequence[str | UUID], *, independent_evidence: bool = True) -> RepairResult:
        """Carry out the store side of the repair plan in one transaction; replay with repair_replay. Only
        what this principal owns is changed (rule 17): a plan that would quarantine another's memory or
        invalidate a step of another's run raises NotOwner (the plan says so beside each such item)."""
        return repair.apply(self.database, faulty, independent_evidence=independent_evidence)

    def repair_replay(self, repair_id: str | UUID, executor: repair.Executor) -> ReplayResult:
        """Re-run the plan's replay steps, in order, through ``executor`` (a callable per step kind): the
        repaired runs' owner or the principal that applied the repair only (else NotOwner)."""
        return repair.replay(self.database, repair_id, executor)


def _pairs(inputs: Any) -> list[tuple[str, str | UUID]]:
    """The (edge, node) pairs ``inputs`` lists, else InvalidInput naming the argument (one pair alone too)."""
    listed: list[Any] = [inputs] if isinstance(inputs, str | UUID) or not isinstance(inputs, Iterable) else [*inputs]
    wrong = next((p for p in listed if isinstance(p, str | bytes) or not isinstance(p, Sequence) or len(p) != 2), None)
    if wrong is not None:
        raise InvalidInput(f"{argument('inputs')} takes a list of (edge, node) pairs, each a pair, not"
                           f" {type(wrong).__name__}: inputs=[('reads', node)]")
    return [(edge, node) for edge, node in listed]


def _uuid(node: str | UUID) -> UUID:
    try:
        return node if isinstance(node, UUID) else UUID(str(node))
    except ValueError:
        raise InvalidInput(f"not a node id: {node!r} (a full id)") from None
