"""The agent-run methods of :class:`~beliefdb.api.async_memory.AsyncBeliefDB` (it inherits them): runs and their
steps, their traces and rollback repair, each :class:`~beliefdb.BeliefDB` method of the same name awaited
on a worker thread."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from uuid import UUID

from beliefdb.api.async_part import AsyncPart
from beliefdb.models import (
    RepairPlan,
    RepairResult,
    ReplayResult,
    Run,
    RunTrace,
    SourceExcerpt,
    StepRecorded,
    TraceStep,
)
from beliefdb.store import repair, trace


class AsyncTraces(AsyncPart):
    """Agent runs: recording them, reading them back, and repairing what a faulty step left."""


    async def record_run(self, *, task: str = "", agent: str | None = None,
                         parent: UUID | None = None) -> trace.RunRecorder:
        """Record an agent run: ``run.step(...)`` buffers its steps (no I/O); ``await db.call(run.flush)``
        writes them (leaving ``with run:`` flushes too, but synchronously)."""
        return await self.call(self.sync.record_run, task=task, agent=agent, parent=parent)

    async def record_step(self, kind: str, payload: Mapping[str, Any] | None = None, *, run: str | UUID | None = None,
                          task: str = "", inputs: Sequence[tuple[str, str | UUID]] = (),
                          supports: Sequence[str | UUID] = (), memory: Mapping[str, str] | None = None) -> StepRecorded:
        return await self.call(self.sync.record_step, kind, payload, run=run, task=task, inputs=inputs,
                               supports=supports, memory=memory)

    async def source_excerpts(self, fragments: Sequence[UUID], *, context: int = 1000) -> list[SourceExcerpt]:
        return await self.call(self.sync.source_excerpts, fragments, context=context)

    async def runs(self, *, limit: int | None = None, offset: int = 0, newest_first: bool = False) -> list[Run]:
        return await self.call(self.sync.runs, limit=limit, offset=offset, newest_first=newest_first)

    async def run_count(self) -> int:
        return await self.call(self.sync.run_count)

    async def run(self, run: str | UUID) -> Run:
        return await self.call(self.sync.run, run)

    async def steps(self, run: str | UUID) -> list[TraceStep]:
        return await self.call(self.sync.steps, run)

    async def run_trace(self, run: str | UUID) -> RunTrace:
        return await self.call(self.sync.run_trace, run)

    async def repair_plan(self, faulty: Sequence[str | UUID], *, independent_evidence: bool = True,
                          untouched: bool = False) -> RepairPlan:
        return await self.call(self.sync.repair_plan, faulty, independent_evidence=independent_evidence,
                               untouched=untouched)

    async def repair_apply(self, faulty: Sequence[str | UUID], *, independent_evidence: bool = True) -> RepairResult:
        return await self.call(self.sync.repair_apply, faulty, independent_evidence=independent_evidence)

    async def repair_replay(self, repair_id: str | UUID, executor: repair.Executor) -> ReplayResult:
        return await self.call(self.sync.repair_replay, repair_id, executor)

