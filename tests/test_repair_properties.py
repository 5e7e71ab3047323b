"""Rollback repair (truth rule 10) as properties: on random agent traces, the plan of
``beliefdb.repair_plan`` equals a small, obviously correct Python reference, node by node.

A trace is a few runs recorded one after the other (one ``record_trace`` call per run). Steps
come in execution order; a step's joint inputs and its ``supports`` are drawn only from earlier
steps (of any run) and from memories written earlier; memory reads read memories, memory writes
write one or two memories, some of which supersede an earlier memory they do not rest on; some
steps are answers; some steps ``follow`` an earlier one (pure time order). One to three memories
are faulty.

The reference follows the rule text (docs/rules.md, rules 2, 3 and 10, and sql/api/66_traces.sql):

* a step with no recorded reason (or a user input) is a premise; a memory holds while the step
  that wrote it does; any other node holds if one of its reasons (the joint inputs together, or
  one ``supports`` input) has every antecedent *current*: holding, and not superseded by a memory
  that holds. The dependencies form a DAG (inputs are earlier, a winner never rests on its
  loser), so the least fixpoint is plain memoised recursion;
* the candidates are the forward closure of the faulty memories over reasons (antecedent ->
  consequent) and supersession (winner -> loser), never over ``follows``;
* a candidate is affected if it is faulty, or it was on before (a step held, a memory was
  current) and, with the faulty memories off, it does not hold any more (with independent
  evidence off: whether or not it still holds). A memory that still holds but is superseded now,
  by one the faulty memories held down, is kept: rule 10 keeps what still holds by rule 2 and
  quarantines only what is left without support;
* the final answer of a run is its answer step of largest seq; the steps to replay are the
  affected, non-faulty steps from which an affected final answer is reachable through affected
  nodes (a faulty memory on the way too: when what produced it is itself affected, the answer
  needs it re-produced);
* actions: faulty -> delete; not affected -> preserve; an affected memory -> quarantine; a step
  to replay -> replay; any other affected step -> invalidate. A candidate that was never on and
  is not on after is not listed; the steps of a run with an affected step that the faulty
  memories do not reach are listed as preserve;
* owners (rule 17): asked by another principal than the one that recorded the trace, the plan says
  beside exactly the items of those four undoing actions that they are not its call, and its
  repair is refused with nothing written.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import hypothesis.strategies as st
import psycopg
import pytest
from hypothesis import HealthCheck, event, example, given, settings

import beliefdb
from beliefdb import errors
from beliefdb.store import trace
from beliefdb.store.repair import ReplayStep, StepOutput
from beliefdb.store.workspaces import create_workspace

STEP_KINDS = ("user_input", "memory_read", "claim", "plan", "tool_call", "observation", "answer", "memory_write")
JOINT = ("cites", "initiates", "derives", "produces", "updates", "consolidates")
# the kinds of steps after the first of a run, weighted towards reads and memory writes
MIX = ("memory_read", "memory_read", "claim", "claim", "plan", "tool_call", "observation", "answer", "memory_write",
       "memory_write", "user_input")
UNDONE = ("delete", "quarantine", "invalidate", "replay")   # the actions of affected nodes

# ---------------------------------------------------------------------------------------------
# the trace and the reference


@dataclass(frozen=True)
class Step:
    run: int
    seq: int
    kind: str
    joint: tuple[tuple[str, int], ...] = ()   # (edge kind, earlier node): one reason needing all of them
    supports: tuple[int, ...] = ()            # earlier nodes, each a reason of its own
    follows: tuple[int, ...] = ()             # earlier steps: time order only


@dataclass(frozen=True)
class Memory:
    step: int                                 # the memory_write step that wrote it
    supersedes: int | None = None             # an earlier memory it does not rest on


Node = Step | Memory


@dataclass(frozen=True)
class Trace:
    nodes: tuple[Node, ...]                   # execution order; a memory right after its step
    faulty: frozenset[int]

    def run_of(self, n: int) -> int:
        node = self.nodes[n]
        return node.run if isinstance(node, Step) else self.run_of(node.step)

    @property
    def runs(self) -> int:
        return 1 + max(self.run_of(n) for n in range(len(self.nodes)))

    def is_step(self, n: int) -> bool:
        return isinstance(self.nodes[n], Step)

    def reasons(self, n: int) -> list[frozenset[int]]:
        node = self.nodes[n]
        if isinstance(node, Memory):
            return [frozenset({node.step})]
        found = [frozenset(a for _, a in node.joint)] if node.joint else []
        return found + [frozenset({s}) for s in node.supports]

    def winners(self, n: int) -> list[int]:
        return [m for m, node in enumerate(self.nodes) if isinstance(node, Memory) and node.supersedes == n]


def holding(t: Trace, off: frozenset[int]) -> tuple[dict[int, bool], dict[int, bool]]:
    """(holds, current) of every node with the nodes ``off`` blocked: rules 2 and 3."""
    holds: dict[int, bool] = {}
    visiting: set[int] = set()

    def h(n: int) -> bool:
        if n not in holds:
            assert n not in visiting, "the trace is not stratified"
            visiting.add(n)
            node = t.nodes[n]
            reasons = t.reasons(n)
            premise = isinstance(node, Step) and (node.kind == "user_input" or not reasons)
            holds[n] = n not in off and (premise or any(all(current(a) for a in r) for r in reasons))
            visiting.discard(n)
        return holds[n]

    def current(n: int) -> bool:
        return h(n) and not any(h(w) for w in t.winners(n))

    cur = {n: current(n) for n in range(len(t.nodes))}
    return holds, cur


def consequents(t: Trace) -> dict[int, set[int]]:
    """Reasons, forwards: antecedent -> the nodes it is a reason of."""
    forward: dict[int, set[int]] = {n: set() for n in range(len(t.nodes))}
    for n in range(len(t.nodes)):
        for r in t.reasons(n):
            for a in r:
                forward[a].add(n)
    return forward


def final_answers(t: Trace) -> set[int]:
    last: dict[int, tuple[int, int]] = {}   # run -> (seq, node)
    for n, node in enumerate(t.nodes):
        if isinstance(node, Step) and node.kind == "answer" and (node.seq, n) > last.get(node.run, (-1, -1)):
            last[node.run] = (node.seq, n)
    return {n for _, n in last.values()}


def reference_plan(t: Trace, independent_evidence: bool) -> dict[int, str]:
    faulty = t.faulty
    held, was_current = holding(t, frozenset())
    held_after, current_after = holding(t, faulty)
    forward = consequents(t)
    for n, node in enumerate(t.nodes):
        if isinstance(node, Memory) and node.supersedes is not None:
            forward[n].add(node.supersedes)
    closure, todo = set(faulty), list(faulty)
    while todo:
        for nxt in forward[todo.pop()]:
            if nxt not in closure:
                closure.add(nxt)
                todo.append(nxt)

    def was_on(n: int) -> bool:
        return held[n] and (t.is_step(n) or was_current[n])

    # without the independent-evidence check: whatever rests on a faulty memory through reasons
    reach, todo = set(faulty), list(faulty)
    plain = consequents(t)
    while todo:
        for nxt in plain[todo.pop()]:
            if nxt not in reach:
                reach.add(nxt)
                todo.append(nxt)
    affected = {n for n in closure
                if n in faulty or (was_on(n) and (not held_after[n] if independent_evidence else n in reach))}
    # replay: affected steps from which an affected final answer is reachable through affected nodes
    path = final_answers(t) & affected
    todo = list(path)
    while todo:
        for r in t.reasons(todo.pop()):
            for a in r:
                if a in affected and a not in path:
                    path.add(a)
                    todo.append(a)
    plan: dict[int, str] = {}
    for n in closure:
        if n in faulty:
            plan[n] = "delete"
        elif n not in affected:
            if was_on(n) or current_after[n]:
                plan[n] = "preserve"
        elif not t.is_step(n):
            plan[n] = "quarantine"
        else:
            plan[n] = "replay" if n in path else "invalidate"
    runs = {t.run_of(n) for n in affected if t.is_step(n)}
    for n in range(len(t.nodes)):
        if t.is_step(n) and n not in closure and t.run_of(n) in runs:
            plan[n] = "preserve"
    return plan


# ---------------------------------------------------------------------------------------------
# random traces


def inputs_of(node: Node) -> list[int]:
    return [node.step] if isinstance(node, Memory) else [a for _, a in node.joint] + list(node.supports)


def ancestors(nodes: list[Node], n: int) -> set[int]:
    """``n`` and what it rests on, transitively (its reasons' antecedents)."""
    seen, todo = {n}, [n]
    while todo:
        for a in inputs_of(nodes[todo.pop()]):
            if a not in seen:
                seen.add(a)
                todo.append(a)
    return seen


def influenced(nodes: list[Node], n: int) -> set[int]:
    """``n`` and what depends on it, over reasons and supersession (winner -> loser)."""
    forward: dict[int, set[int]] = {}
    for m, node in enumerate(nodes):
        for a in inputs_of(node):
            forward.setdefault(a, set()).add(m)
        if isinstance(node, Memory) and node.supersedes is not None:
            forward.setdefault(m, set()).add(node.supersedes)
    seen, todo = {n}, [n]
    while todo:
        for nxt in forward.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    nodes: list[Node] = []
    memories: list[int] = []
    runs = draw(st.integers(1, 3), label="runs")
    for run in range(runs):
        start = len(nodes)
        length = draw(st.integers(3, 8))
        for seq in range(length):
            here = [n for n in range(start, len(nodes)) if isinstance(nodes[n], Step)]
            # mostly steps of this run, sometimes anything earlier (other runs, memories)
            pools = [p for p in (here, here, list(range(len(nodes)))) if p]

            def earlier(lo: int, hi: int, pools: list[list[int]] = pools) -> list[int]:
                if not pools:
                    return []
                pool = draw(st.sampled_from(pools))
                return draw(st.lists(st.sampled_from(pool), min_size=lo, max_size=hi, unique=True))

            if run == 0 and seq == 1:
                kind = "memory_write"   # something to be faulty, early enough to be read
            elif seq == 0:
                kind = draw(st.sampled_from(("user_input", "memory_read", "observation")))
            elif seq == length - 1 and draw(st.booleans()):
                kind = "answer"     # most runs end with their answer
            else:
                kind = draw(st.sampled_from(MIX))
            joint: list[tuple[str, int]] = []
            supports: list[int] = []
            if kind == "memory_read":
                if memories:
                    joint = [("reads", m) for m in draw(st.lists(st.sampled_from(memories), min_size=1, max_size=2,
                                                                 unique=True))]
                supports = earlier(0, 1)
            elif kind in ("tool_call", "observation"):
                joint = [(draw(st.sampled_from(JOINT)), a) for a in earlier(0, 2)]
            elif kind != "user_input":
                # mostly with inputs (a step without any is a premise), sometimes with alternatives
                joint = [(draw(st.sampled_from(JOINT)), a) for a in earlier(draw(st.sampled_from((0, 1, 1, 1))), 3)]
                supports = earlier(0, draw(st.sampled_from((0, 0, 1, 2))))
            follows = tuple(draw(st.lists(st.sampled_from(here), max_size=1))) if here else ()
            step = len(nodes)
            nodes.append(Step(run, seq, kind, tuple(joint), tuple(supports), follows))
            if kind == "memory_write":
                for _ in range(draw(st.integers(1, 2))):
                    loser = None
                    # stratified (rule 3): the loser must not influence what the new memory rests on
                    rests_on = ancestors(nodes, step)
                    candidates = [m for m in memories if not influenced(nodes, m) & rests_on]
                    if candidates and draw(st.booleans()):
                        loser = draw(st.sampled_from(candidates))
                    memories.append(len(nodes))
                    nodes.append(Memory(step, loser))
    if not memories:   # a trace needs a memory to be faulty
        last = nodes[-1]
        run = last.run if isinstance(last, Step) else 0
        seq = 1 + max(node.seq for node in nodes if isinstance(node, Step) and node.run == run)
        nodes.append(Step(run, seq, "memory_write", (("cites", len(nodes) - 1),)))
        memories.append(len(nodes))
        nodes.append(Memory(len(nodes) - 1))
    # mostly memories something read (else the plan is a lone delete), then any others
    read = [m for m in memories if any(isinstance(node, Step) and ("reads", m) in node.joint for node in nodes)]
    first = draw(st.sampled_from(read if read and draw(st.integers(0, 3)) else memories))
    more = draw(st.lists(st.sampled_from(memories), max_size=2, unique=True))
    faulty = {first, *more}
    return Trace(tuple(nodes), frozenset(faulty))


# ---------------------------------------------------------------------------------------------
# the trace in the database



@dataclass
class Recorded:
    db: beliefdb.BeliefDB
    ws: UUID
    ids: list[UUID]
    runs: list[UUID]
    name: str = "default"

    @property
    def index(self) -> dict[UUID, int]:
        return {i: n for n, i in enumerate(self.ids)}

    def faulty(self, t: Trace) -> list[UUID]:
        return [self.ids[n] for n in sorted(t.faulty)]

    def actions(self, plan: beliefdb.models.RepairPlan) -> dict[int, str]:
        index = self.index
        got = {index[i.node]: i.action for i in plan.items}
        assert len(got) == len(plan.items), "a node is listed twice"
        return got


@contextlib.contextmanager
def recorded(db_url: str, t: Trace) -> Iterator[Recorded]:
    """``t`` recorded in a workspace of its own, one ``record_trace`` call per run."""
    name = "repair-" + uuid.uuid4().hex[:12]
    ws = create_workspace(db_url, name).id
    with beliefdb.connect(db_url, workspace=name) as db:
        ids: dict[int, UUID] = {}
        runs: list[UUID] = []
        for run in range(t.runs):
            with db.record_run(task=f"run {run}") as rec:
                for n, node in enumerate(t.nodes):
                    if t.run_of(n) != run:
                        continue
                    if isinstance(node, Step):
                        ids[n] = rec.step(node.kind, {"n": n}, inputs=[(k, ids[a]) for k, a in node.joint],
                                          supports=[ids[a] for a in node.supports],
                                          follows=[ids[a] for a in node.follows])
                    else:
                        loser = ids[node.supersedes] if node.supersedes is not None else None
                        ids[n] = rec.memory(ids[node.step], f"memory:{n}", "value", f"v{n}", supersedes=loser)
            runs.append(rec.id)
        yield Recorded(db, ws, [ids[n] for n in range(len(t.nodes))], runs, name)


def check_stored(conn: psycopg.Connection[Any], r: Recorded, expected: tuple[dict[int, bool], dict[int, bool]],
                 t: Trace) -> None:
    """The stored holding (and currency) of the trace's nodes is ``expected``."""
    rows = conn.execute("select id, holds, current from beliefdb.node where workspace_id = %s", (r.ws,)).fetchall()
    conn.commit()
    index = r.index
    stored = {index[i]: (h, c) for i, h, c in rows if i in index}
    assert set(stored) == set(index.values())
    holds, current = expected
    wrong = {n: (stored[n], (holds[n], current[n])) for n in stored if stored[n] != (holds[n], current[n])}
    assert not wrong, (t, wrong)


def check_closed_and_minimal(t: Trace, action: dict[int, str], replay: list[int]) -> None:
    """Directly on the SQL plan: the replay set is closed, minimal and in execution order."""
    undone = {n for n, a in action.items() if a in UNDONE}
    finals = final_answers(t) & undone
    assert finals <= set(replay), "an affected final answer is not replayed"
    forward = consequents(t)
    for s in replay:
        assert t.is_step(s) and action[s] == "replay"
        for reason in t.reasons(s):
            for a in reason:
                # closed: what it rests on is replayed, deleted or quarantined, or not undone at all
                assert action.get(a) != "invalidate", (t, s, a)
                if a in undone:
                    assert action[a] == "replay" or (not t.is_step(a) and action[a] in ("delete", "quarantine")), \
                        (t, s, a, action[a])
        # minimal: it leads to an affected final answer through affected nodes
        seen, todo = {s}, [s]
        while todo:
            for nxt in forward[todo.pop()]:
                if nxt in undone and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        assert seen & finals, (t, s)
    assert replay == sorted(replay, key=lambda n: (t.run_of(n), t.nodes[n].seq)), "replay not in execution order"


def trivial(step: ReplayStep) -> StepOutput:
    return StepOutput(dict(step.step.payload, replayed=True))


EXECUTOR = dict.fromkeys(STEP_KINDS, trivial)

# ---------------------------------------------------------------------------------------------
# hand-built traces every run covers


def _steps(run: int, first: int, *steps: tuple[str, tuple[tuple[str, int], ...], tuple[int, ...]]) -> list[Step]:
    return [Step(run, seq, kind, joint, supports) for seq, (kind, joint, supports) in enumerate(steps, start=first)]


# the travel story of tests/test_repair.py, node for node
STORY = Trace((
    Step(0, 0, "user_input"), Step(0, 1, "memory_write", (("initiates", 0),)), Memory(1),
    Step(0, 2, "observation"), Step(0, 3, "memory_write", (("cites", 3),)), Memory(4),
    Step(1, 0, "user_input"),                                                    # 6 u2
    Step(1, 1, "memory_read", (("reads", 2),)),                                  # 7 r_home
    Step(1, 2, "memory_read", (("reads", 5),)),                                  # 8 r_bad
    Step(1, 3, "claim", (("cites", 7),)),                                        # 9 c_home
    Step(1, 4, "claim", (("cites", 8),)),                                        # 10 c_tier
    Step(1, 5, "tool_call", (("initiates", 6),)),                                # 11 t_crm
    Step(1, 6, "observation", (("produces", 11),)),                              # 12 o_crm
    Step(1, 7, "claim", (("cites", 8),), (12,)),                                 # 13 c_crm
    Step(1, 8, "plan", (("initiates", 6), ("cites", 9), ("cites", 10))),         # 14 plan
    Step(1, 9, "tool_call", (("initiates", 14),)),                               # 15 t_book
    Step(1, 10, "observation", (("produces", 15),)),                             # 16 o_book
    Step(1, 11, "claim", (("cites", 10),)),                                      # 17 upsell
    Step(1, 12, "memory_write", (("cites", 10),)), Memory(18),                   # 18 w_fare, 19 m_fare
    Step(1, 13, "plan", (("initiates", 6),), (), (14,)),                         # 20 note
    Step(1, 14, "answer", (("cites", 16), ("cites", 9), ("cites", 13))),         # 21 answer
), frozenset({5}))

# a superseding memory rests on the faulty one: the old memory is current again, and what reads it holds
REVIVED = Trace((
    Step(0, 0, "user_input"), Step(0, 1, "memory_write", (("initiates", 0),)), Memory(1),      # 2 seat
    Step(1, 0, "observation"), Step(1, 1, "memory_write", (("cites", 3),)), Memory(4),         # 5 bad
    Step(2, 0, "memory_read", (("reads", 5),)), Step(2, 1, "memory_write", (("cites", 6),)),
    Memory(7, supersedes=2),                                                                    # 8 aisle
    Step(2, 2, "answer", (("cites", 7),)),
    Step(3, 0, "memory_read", (("reads", 2),)), Step(3, 1, "answer", (("cites", 10),)),
), frozenset({5}))

# two faulty memories; a later answer of the run that does not need them; a cross-run memory chain
TWO_FAULTS = Trace((
    Step(0, 0, "observation"), Step(0, 1, "memory_write", (("cites", 0),)), Memory(1), Memory(1),   # 2, 3
    Step(0, 2, "memory_read", (("reads", 2),)), Step(0, 3, "answer", (("cites", 4),)),
    Step(0, 4, "user_input"), Step(0, 5, "answer", (("initiates", 6),)),
    Step(1, 0, "memory_read", (("reads", 3),)), Step(1, 1, "memory_write", (("derives", 8),)), Memory(9),
    Step(1, 2, "claim", (("cites", 8),), (6,)), Step(1, 3, "answer", (("cites", 11),)),
    Step(2, 0, "memory_read", (("reads", 10),)), Step(2, 1, "answer", (("cites", 13),)),
), frozenset({2, 3}))

# a read that held by a memory that turns out faulty, beside an alternative that never held (it read
# a superseded memory): its new version must not rest on that alternative alone
NEVER_HELD = Trace((
    Step(0, 0, "user_input"), Step(0, 1, "memory_write", (("cites", 0),)), Memory(1), Memory(1, supersedes=2),
    Step(0, 2, "memory_write", (("cites", 0),)), Memory(4),                                     # 5 bad
    Step(0, 3, "memory_read", (("reads", 2),)),                                                 # 6 never holds
    Step(0, 4, "memory_read", (("reads", 5),), (6,)),
    Step(0, 5, "answer", (("cites", 7),)),
), frozenset({5}))

# a read whose one reason needs a step that never held, beside the memory it held by that turns out
# faulty: the new version is computed without that step, and says so
JOINT_NEVER_HELD = Trace((
    Step(0, 0, "user_input"), Step(0, 1, "memory_write", (("cites", 0),)), Memory(1), Memory(1, supersedes=2),
    Step(0, 2, "memory_write", (("cites", 0),)), Memory(4),                                     # 5 bad
    Step(0, 3, "memory_read", (("reads", 2),)),                                                 # 6 never holds
    Step(0, 4, "memory_read", (("cites", 0), ("cites", 6)), (5,)),
    Step(0, 5, "answer", (("cites", 7),)),
), frozenset({5}))


# a faulty memory superseded another, which a later memory rests on: with the faulty one off, that later
# memory holds and supersedes a memory that was current. The superseded memory still holds (rule 2), so it
# is kept, not quarantined (rule 10); what read it is undone
SUPERSEDED_AGAIN = Trace((
    Step(0, 0, "user_input"), Step(0, 1, "memory_write", (("initiates", 0),)), Memory(1),      # 2 old
    Step(0, 2, "observation"), Step(0, 3, "memory_write", (("cites", 3),)), Memory(4),         # 5 held down
    Step(0, 4, "memory_write", (("cites", 3),)), Memory(6, supersedes=5),                      # 7 bad
    Step(0, 5, "memory_read", (("reads", 5),)), Step(0, 6, "memory_write", (("cites", 8),)),
    Memory(9, supersedes=2),                                                                    # 10 new
    Step(0, 7, "memory_read", (("reads", 2),)), Step(0, 8, "answer", (("cites", 11),)),
), frozenset({7}))

def test_the_reference_itself() -> None:
    """The reference on the hand-checked story of tests/test_repair.py (its exact expected plan)."""
    run1 = {6, 7, 9, 11, 12, 20}
    assert reference_plan(STORY, True) == {
        5: "delete", 19: "quarantine", 17: "invalidate", 18: "invalidate",
        8: "replay", 10: "replay", 14: "replay", 15: "replay", 16: "replay", 21: "replay", 13: "preserve",
        **dict.fromkeys(run1, "preserve")}
    without = reference_plan(STORY, False)
    assert without[13] == "replay" and sorted(n for n, a in without.items() if a == "replay") == [
        8, 10, 13, 14, 15, 16, 21]
    assert reference_plan(REVIVED, True) == {5: "delete", 8: "quarantine", 6: "replay", 7: "replay", 9: "replay",
                                             2: "preserve", 10: "preserve", 11: "preserve"}
    assert reference_plan(NEVER_HELD, True) == {5: "delete", 7: "replay", 8: "replay", 0: "preserve", 1: "preserve",
                                                4: "preserve", 6: "preserve"}
    two = reference_plan(TWO_FAULTS, True)
    assert (two[4], two[5], two[8], two[9], two[10]) == ("invalidate", "invalidate", "replay", "replay", "quarantine")
    assert two[11] == "preserve" and two[13] == "replay" and two[14] == "replay"
    # the memory superseded again still holds: kept, and only what read it is undone
    assert reference_plan(SUPERSEDED_AGAIN, True) == {
        7: "delete", 11: "replay", 12: "replay", **dict.fromkeys((0, 1, 2, 3, 4, 5, 6, 8, 9, 10), "preserve")}


# ---------------------------------------------------------------------------------------------
# the properties
#
# The database fixture is per test, not per example: each example records its trace in a workspace
# of its own, so examples never see each other's nodes and sharing the function-scoped fixture is safe.


@pytest.mark.slow
@settings(max_examples=35, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(t=traces())
@example(t=STORY)
@example(t=REVIVED)
@example(t=TWO_FAULTS)
@example(t=NEVER_HELD)
@example(t=SUPERSEDED_AGAIN)
def test_plan_equals_the_reference(postgresql: psycopg.Connection[Any], db_url: str, t: Trace) -> None:
    with recorded(db_url, t) as r:
        check_stored(postgresql, r, holding(t, frozenset()), t)
        for independent_evidence in (True, False):
            plan = r.db.repair_plan(r.faulty(t), independent_evidence=independent_evidence, untouched=True)
            got = r.actions(plan)
            expected = reference_plan(t, independent_evidence)
            diff = {n: (got.get(n), expected.get(n)) for n in set(got) | set(expected) if got.get(n) != expected.get(n)}
            assert not diff, (independent_evidence, t, diff)
            event(f"independent_evidence={independent_evidence}: "
                  + (" ".join(sorted(set(got.values()))) or "empty plan"))
            index = r.index
            check_closed_and_minimal(t, got, [index[i.node] for i in plan.replay])
        # a plan writes nothing
        check_stored(postgresql, r, holding(t, frozenset()), t)
        # another principal's plan says, beside exactly each item the repair would change by hand (every
        # node is the recorder's), that it is not its call; its repair is refused, and writes nothing (rule 17)
        with beliefdb.connect(db_url, workspace=r.name, principal="mallory") as other:
            theirs = other.repair_plan(r.faulty(t), untouched=True)
            flagged = {r.index[i.node] for i in theirs.items if i.reason.endswith(" may apply this repair")}
            assert flagged == {n for n, a in r.actions(theirs).items() if a in UNDONE}, t
            with pytest.raises(errors.NotOwner):
                other.repair_apply(r.faulty(t))
        check_stored(postgresql, r, holding(t, frozenset()), t)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(t=traces(), independent_evidence=st.booleans())
@example(t=STORY, independent_evidence=True)
@example(t=REVIVED, independent_evidence=True)
@example(t=TWO_FAULTS, independent_evidence=False)
@example(t=NEVER_HELD, independent_evidence=True)
@example(t=NEVER_HELD, independent_evidence=False)
@example(t=JOINT_NEVER_HELD, independent_evidence=True)
@example(t=SUPERSEDED_AGAIN, independent_evidence=True)
def test_apply_and_replay(postgresql: psycopg.Connection[Any], db_url: str, t: Trace,
                          independent_evidence: bool) -> None:
    with recorded(db_url, t) as r:
        planned = r.actions(r.db.repair_plan(r.faulty(t), independent_evidence=independent_evidence,
                                                untouched=True))
        applied = r.db.repair_apply(r.faulty(t), independent_evidence=independent_evidence)
        assert r.actions(applied.plan) == planned
        result = r.db.repair_replay(applied.repair_id, EXECUTOR)
        # exactly the plan's replay steps, in its order, each once
        assert [old for old, _ in result.replayed] == [i.node for i in applied.plan.replay]
        assert result.calls == len(applied.plan.replay)

        # the store: everything the plan undid is off; the rest is the fixpoint without the faulty memories
        undone = frozenset(n for n, a in planned.items() if a in UNDONE)
        expected = holding(t, undone)
        if independent_evidence:
            # only what stopped holding was undone: the same as taking the faulty memories off
            assert expected == holding(t, t.faulty), (t, planned)
        check_stored(postgresql, r, expected, t)
        status = {st_.id: st_.status for run in r.runs for st_ in r.db.steps(run)}
        index = r.index
        for n in range(len(t.nodes)):
            if t.is_step(n):
                want = {"replay": "replayed", "invalidate": "invalidated"}.get(planned.get(n, ""), "recorded")
                assert status[r.ids[n]] == want, (t, n)
        # the new versions of the replayed steps hold and point back at what they replay
        new = {s.id: s for run in set(result.run_ids.values()) for s in r.db.steps(run)}
        assert set(new) == {n for _, n in result.replayed}
        assert all(s.holds for s in new.values()), t
        assert sorted(index[s.replay_of] for s in new.values() if s.replay_of) == sorted(
            n for n, a in planned.items() if a == "replay")


def test_a_replayed_step_rests_on_the_steps_it_was_computed_from(db_url: str) -> None:
    """The executor is given the step inputs that hold now, and the new version records exactly those
    (with the memory it reads): a step that never held is neither given nor recorded, so the new version
    never holds or fails to hold by an input it did not use."""
    t = JOINT_NEVER_HELD
    seen: dict[UUID, list[UUID]] = {}

    def remembering(step: ReplayStep) -> StepOutput:
        seen[step.step.id] = sorted(i.node for i in step.inputs if i.node_kind == "step")
        return trivial(step)

    with recorded(db_url, t) as r:
        applied = r.db.repair_apply(r.faulty(t), independent_evidence=True)
        result = r.db.repair_replay(applied.repair_id, dict.fromkeys(STEP_KINDS, remembering))
        index = r.index
        assert sorted(index[old] for old, _ in result.replayed) == [7, 8]
        assert seen[r.ids[7]] == [r.ids[0]], "the step that never held was given to the executor"
        new = dict(result.replayed)
        recorded_steps = {i.node for i in trace.inputs(r.db.database, [new[r.ids[7]]]) if i.node_kind == "step"}
        assert recorded_steps == {r.ids[0]}
        assert all(s.holds for run in set(result.run_ids.values()) for s in r.db.steps(run))
