"""The six repair methods and how each case is scored.

Every (case, method) gets its own workspace: the faulty run is recorded there through the
beliefdb API (``record_run``), the method does what it does, and the store is then read back
through the API to score it. All methods re-execute steps with the same agent code
(``agent.execute``), so an executor call costs the same whichever method makes it.

* ``no_repair``: nothing.
* ``full_reset``: delete every memory, then re-run the last session (the task) from its user inputs.
* ``delete_retrieved``: delete every memory the last session retrieved, then re-run that session.
* ``full_replay``: delete the faulty memories and the memories derived from them, and re-execute
  every step reachable from them (no independent-evidence check, on or off the answer path).
* ``beliefdb_no_evidence``: ``repair_apply(..., independent_evidence=False)`` + ``repair_replay``.
* ``beliefdb``: ``repair_apply(...)`` + ``repair_replay`` (the plan's replay steps only).

Scores of one case (see ``Score``): recovered (final answer == the clean run's), bad memories
(the faulty ones and those written from them with a wrong value) no longer current, benign
memories (current at the end of the faulty run, with the value the clean run has) still current,
steps re-executed, executor calls, and whether a fault's wrong value comes back in a follow-up
session run on the repaired memory.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from agent import DOMAINS, JSON, Agent, Input, Trace, execute, history_before
from cases import Case, follow_up, recurs

import beliefdb
from beliefdb.store.repair import MemoryWrite, ReplayStep, StepOutput

STEP_KINDS = ("user_input", "memory_read", "claim", "plan", "tool_call", "observation", "answer", "memory_write")
METHODS = ("no_repair", "full_reset", "delete_retrieved", "full_replay", "beliefdb_no_evidence", "beliefdb")


@dataclass
class Score:
    method: str
    case: int
    compound: bool
    recovered: bool
    bad: int
    bad_removed: int
    benign: int
    benign_kept: int
    replayed: int
    steps: int
    calls: int
    recurred: bool


# ---------------------------------------------------------------------------------------------
# memory as the store has it


class StoreMemory:
    """The latest current memory of a key, read from beliefdb (what a follow-up session sees)."""

    def __init__(self, db: beliefdb.BeliefDB) -> None:
        self.db = db

    def get(self, subject: str, attribute: str) -> tuple[uuid.UUID, str] | None:
        found = self.db.beliefs(subject=subject, attribute=attribute)
        if not found:
            return None
        b = max(found, key=lambda b: (b.recorded_at, str(b.id)))
        return b.id, b.value


class Mirror:
    """The memory of a client-side method: the recorded memory (by store id) minus what it deleted
    plus what it wrote, latest last (plain memory-store semantics)."""

    def __init__(self, trace: Trace, ids: Mapping[uuid.UUID, uuid.UUID]) -> None:
        self.rows = [(m.subject, m.attribute, m.value, ids[m.id]) for m in
                     sorted(trace.current(), key=lambda m: m.order)]
        self.deleted: set[uuid.UUID] = set()

    def add(self, subject: str, attribute: str, value: str, mid: uuid.UUID) -> None:
        self.rows.append((subject, attribute, value, mid))

    def get(self, subject: str, attribute: str) -> tuple[uuid.UUID, str] | None:
        for s, a, v, mid in reversed(self.rows):
            if s == subject and a == attribute and mid not in self.deleted:
                return mid, v
        return None

    def current(self) -> set[uuid.UUID]:
        return {r[3] for r in self.rows} - self.deleted


class ReplayMemory:
    """beliefdb's MemoryView as the agent's memory interface."""

    def __init__(self, view: Any) -> None:
        self.view = view

    def get(self, subject: str, attribute: str) -> tuple[uuid.UUID, str] | None:
        b = self.view.get(subject, attribute)
        return (b.id, b.value) if b is not None else None


# ---------------------------------------------------------------------------------------------
# recording


def record(db: beliefdb.BeliefDB, trace: Trace) -> dict[uuid.UUID, uuid.UUID]:
    """Record a Python trace through the API; returns local id -> store id (runs, steps, memories)."""
    ids: dict[uuid.UUID, uuid.UUID] = {}
    for run in trace.runs:
        with db.record_run(task=run.task, agent=run.agent,
                           parent=ids[run.parent] if run.parent else None) as rec:
            ids[run.id] = rec.id
            for what, ev in run.events:
                if what == "step":
                    ids[ev.id] = rec.step(ev.kind, ev.payload, inputs=[(e, ids[n]) for e, n in ev.inputs],
                                          supports=[ids[s] for s in ev.supports])
                elif what == "memory":
                    ids[ev.id] = rec.memory(ids[ev.step], ev.subject, ev.attribute, ev.value, kind=ev.kind)
                else:
                    rec.delete_memory(ids[ev[0]], ids[ev[1]])
    return ids


def _delete(db: beliefdb.BeliefDB, memories: set[uuid.UUID], why: str) -> None:
    if not memories:
        return
    with db.record_run(task=why, agent="repair-baseline") as rec:
        s = rec.step("memory_write", {"op": "delete", "why": why})
        for m in sorted(memories):
            rec.delete_memory(s, m)


# ---------------------------------------------------------------------------------------------
# the methods: each returns (final answer, steps re-executed, executor calls, mirror or None)

Outcome = tuple[JSON | None, int, int, Mirror | None]


def no_repair(db: beliefdb.BeliefDB, case: Case, ids: dict[uuid.UUID, uuid.UUID]) -> Outcome:
    return case.faulty.answer, 0, 0, None


def _rerun_last_session(db: beliefdb.BeliefDB, case: Case, ids: dict[uuid.UUID, uuid.UUID],
                        mirror: Mirror) -> Outcome:
    """Re-run the last session's tasks from their user inputs on the memory as it is now, as a
    branch of the old run; its notes replace the old run's."""
    trace = case.faulty.trace
    last = trace.runs[-1]
    history = history_before(DOMAINS[case.domain], case.sessions[:-1])
    old_notes = {ids[e[1].id] for e in last.events if e[0] == "memory"} & mirror.current()
    agent = Agent(case.world, mirror)
    counter = _Counting(db, last, ids, mirror)
    with counter.rec:
        answer = agent.session(counter, len(case.sessions), case.sessions[-1], history, consolidate=False)
        if old_notes:
            s = counter.rec.step("memory_write", {"op": "delete", "why": "the re-run's notes replace the old run's"})
            for m in sorted(old_notes):
                counter.rec.delete_memory(s, m)
                mirror.deleted.add(m)
    return answer, counter.calls, counter.calls, mirror


class _Counting:
    """A recorder for a re-run: records through the API, counts executor calls (every step the
    agent computes, user inputs excepted), and keeps the mirror up to date."""

    def __init__(self, db: beliefdb.BeliefDB, old: Any, ids: dict[uuid.UUID, uuid.UUID], mirror: Mirror) -> None:
        self.rec = db.record_run(task=old.task + " (re-run)", agent=old.agent, parent=ids[old.id])
        self.id = self.rec.id
        self.mirror = mirror
        self.calls = 0

    def step(self, kind: str, payload: JSON, *, inputs: Any = (), supports: Any = ()) -> uuid.UUID:
        sid = self.rec.step(kind, payload, inputs=inputs, supports=supports)
        if kind != "user_input":
            self.calls += 1
        return sid

    def memory(self, step: uuid.UUID, subject: str, attribute: str, value: str, *, kind: str = "fact") -> uuid.UUID:
        mid = self.rec.memory(step, subject, attribute, value, kind=kind)
        self.mirror.add(subject, attribute, value, mid)
        return mid


def full_reset(db: beliefdb.BeliefDB, case: Case, ids: dict[uuid.UUID, uuid.UUID]) -> Outcome:
    mirror = Mirror(case.faulty.trace, ids)
    everything = {b.id for b in db.beliefs()}
    _delete(db, everything, "full memory reset")
    mirror.deleted |= everything
    return _rerun_last_session(db, case, ids, mirror)


def delete_retrieved(db: beliefdb.BeliefDB, case: Case, ids: dict[uuid.UUID, uuid.UUID]) -> Outcome:
    mirror = Mirror(case.faulty.trace, ids)
    retrieved = {ids[n] for s in case.faulty.trace.runs[-1].steps for e, n in s.inputs if e == "reads"}
    _delete(db, retrieved, "delete the memories the failed task retrieved")
    mirror.deleted |= retrieved
    return _rerun_last_session(db, case, ids, mirror)


def affected(trace: Trace, faulty: set[uuid.UUID]) -> tuple[list[uuid.UUID], set[uuid.UUID]]:
    """Every step and memory reachable from the faulty memories over recorded inputs and supports
    (time order alone never counts), steps in execution order."""
    bad_nodes = set(faulty)
    steps: list[uuid.UUID] = []
    memories: set[uuid.UUID] = set()
    for run in trace.runs:
        for what, ev in run.events:
            if what == "step":
                if any(n in bad_nodes for _, n in ev.inputs) or any(n in bad_nodes for n in ev.supports):
                    bad_nodes.add(ev.id)
                    steps.append(ev.id)
            elif what == "memory" and ev.step in bad_nodes and ev.id not in faulty:
                bad_nodes.add(ev.id)
                memories.add(ev.id)
    return steps, memories


def full_replay(db: beliefdb.BeliefDB, case: Case, ids: dict[uuid.UUID, uuid.UUID]) -> Outcome:
    trace = case.faulty.trace
    mirror = Mirror(trace, ids)
    todo, derived = affected(trace, set(case.faulty.faults))
    gone = ({ids[m] for m in case.faulty.faults} | {ids[m] for m in derived}) & mirror.current()
    _delete(db, gone, "delete the faulty memories and everything derived from them")
    mirror.deleted |= gone
    new_ids: dict[uuid.UUID, uuid.UUID] = {}
    payloads: dict[uuid.UUID, JSON] = {}
    todo_set = set(todo)
    for run in trace.runs:
        mine = [s for s in run.steps if s.id in todo_set]
        if not mine:
            continue
        with db.record_run(task=run.task + " (replay)", agent=run.agent, parent=ids[run.id]) as rec:
            for s in mine:
                inputs = [Input(e, "step", payloads.get(n, trace.steps[n].payload)) for e, n in s.inputs
                          if n in trace.steps]
                out = execute(case.world, s.kind, s.payload, inputs, mirror)
                joint = [(e, new_ids.get(n, ids[n])) for e, n in s.inputs if n in trace.steps]
                joint += [("reads", m) for m in out.reads]
                sid = rec.step(s.kind, out.payload, inputs=joint,
                               supports=[new_ids.get(n, ids[n]) for n in s.supports])
                new_ids[s.id] = sid
                payloads[s.id] = out.payload
                for subject, attribute, value, kind in out.writes:
                    mirror.add(subject, attribute, value, rec.memory(sid, subject, attribute, value, kind=kind))
    answer = payloads.get(case.faulty.final_step, trace.steps[case.faulty.final_step].payload)
    return answer, len(todo), len(todo), mirror


def executor(case: Case, sink: dict[uuid.UUID, JSON]) -> dict[str, Callable[[ReplayStep], StepOutput]]:
    """The agent as a beliefdb replay executor: the same ``execute`` as in the original run."""

    def run(rs: ReplayStep) -> StepOutput:
        inputs = [Input("supports" if i.alternative else i.edge, i.node_kind, i.payload) for i in rs.inputs]
        out = execute(case.world, rs.step.kind, rs.step.payload, inputs, ReplayMemory(rs.memory))
        sink[rs.step.id] = out.payload
        return StepOutput(out.payload, reads=out.reads,
                          memories=[MemoryWrite(s, a, v, kind=k) for s, a, v, k in out.writes])

    return dict.fromkeys(STEP_KINDS, run)


def _beliefdb(evidence: bool) -> Callable[[beliefdb.BeliefDB, Case, dict[uuid.UUID, uuid.UUID]], Outcome]:
    def method(db: beliefdb.BeliefDB, case: Case, ids: dict[uuid.UUID, uuid.UUID]) -> Outcome:
        applied = db.repair_apply([ids[m] for m in case.faulty.faults], independent_evidence=evidence)
        sink: dict[uuid.UUID, JSON] = {}
        result = db.repair_replay(applied.repair_id, executor(case, sink))
        final = ids[case.faulty.final_step]
        answer = sink.get(final, case.faulty.trace.steps[case.faulty.final_step].payload)
        return answer, len(result.replayed), result.calls, None

    return method


RUNNERS: dict[str, Callable[[beliefdb.BeliefDB, Case, dict[uuid.UUID, uuid.UUID]], Outcome]] = {
    "no_repair": no_repair, "full_reset": full_reset, "delete_retrieved": delete_retrieved,
    "full_replay": full_replay, "beliefdb_no_evidence": _beliefdb(False), "beliefdb": _beliefdb(True)}


# ---------------------------------------------------------------------------------------------
# scoring


def tainted(trace: Trace, faulty: set[uuid.UUID]) -> set[uuid.UUID]:
    """Ground truth from the generated trace: the nodes whose only reasons rest on the faulty
    memories. A step is tainted when one of its joint inputs is and no untainted independent
    support (a tool observation that says the same) remains; a memory when the step that wrote it is."""
    bad = set(faulty)
    for run in trace.runs:
        for what, ev in run.events:
            if what == "step":
                if any(n in bad for _, n in ev.inputs) and all(s in bad for s in ev.supports):
                    bad.add(ev.id)
            elif what == "memory" and ev.step in bad:
                bad.add(ev.id)
    return bad


def memory_classes(case: Case) -> tuple[set[uuid.UUID], set[uuid.UUID]]:
    """(bad, benign) among the memories current at the end of the faulty run. Bad: the faulty ones
    and those whose value the clean run does not have. Benign: untainted ones (they all have the
    clean run's value). Tainted memories that happen to have the right value are neither: nothing
    but a re-run can tell that they are right."""
    clean = {(m.subject, m.attribute, m.value) for m in case.clean.trace.current()}
    taint = tainted(case.faulty.trace, set(case.faulty.faults))
    bad, benign = set(), set()
    for m in case.faulty.trace.current():
        right = (m.subject, m.attribute, m.value) in clean
        if m.id in case.faulty.faults or not right:
            bad.add(m.id)
        elif m.id not in taint:
            benign.add(m.id)
    if bad & (set(case.faulty.trace.memories) - taint):
        raise AssertionError(f"case {case.index}: a wrong memory no fault explains (an unrecorded dependency)")
    return bad, benign


def score(db: beliefdb.BeliefDB, case: Case, method: str) -> Score:
    """Record the faulty run in ``db`` (a fresh workspace), apply ``method``, read the store back."""
    ids = record(db, case.faulty.trace)
    answer, replayed, calls, mirror = RUNNERS[method](db, case, ids)
    reader: StoreMemory | Mirror
    if mirror is None:
        current = {b.id: (b.subject, b.attribute, b.value) for b in db.beliefs()}
        reader = StoreMemory(db)
    else:
        # a baseline's memory is what it deleted and wrote, as in a plain memory store: beliefdb
        # would also drop whatever rested on the memories it deleted, which is not the baseline
        current = {r[3]: (r[0], r[1], r[2]) for r in mirror.rows if r[3] not in mirror.deleted}
        reader = mirror
    bad, benign = memory_classes(case)
    clean = {(m.subject, m.attribute, m.value) for m in case.clean.trace.current()}
    originals = {ids[m] for m in case.faulty.trace.memories}
    new_bad = [i for i, key in current.items() if i not in originals and key not in clean]
    recovered = answer is not None and answer.get("answer") == (case.clean.answer or {}).get("answer")
    again = follow_up(case.world, reader, case.faults)
    steps = sum(len(r.steps) for r in case.faulty.trace.runs)
    return Score(method, case.index, case.compound, recovered,
                 bad=len(bad) + len(new_bad), bad_removed=sum(ids[m] not in current for m in bad),
                 benign=len(benign), benign_kept=sum(ids[m] in current for m in benign),
                 replayed=replayed, steps=steps, calls=calls, recurred=recurs(case, again))
