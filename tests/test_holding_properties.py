"""Truth rules 2 and 3 as properties: on random support graphs, the holding that
``beliefdb.propagate`` stores equals a small, obviously correct Python reference.

The graphs are built directly as the superuser, the way the schema stores them: premises are
fragments of one source version in force; every other node is a belief (or, for some, a decision)
with 0-3 justifications of 1-3 antecedents each (cycles, self-support, shared and multi-antecedent
justifications allowed); some nodes are retracted; some beliefs supersede others. Decisions make
leaves (a node with one justification and nothing resting on it, which the closure walk takes from
the edge into it) as well as decisions that other nodes rest on.

The reference follows the rule text:

* a premise (fragment of a version in force) holds unless it is retracted;
* a belief or decision that is not retracted holds if one of its justifications has every
  antecedent *current*: holding, and not superseded by a belief that holds (rule 3);
* holding is the *least* fixpoint, so circular support keeps nothing alive.

Supersession is only generated where it keeps rules 2 and 3 stratified (the loser does not lead
to the winner through reasons or supersession), so there is exactly one answer; the reference
computes it stratum by stratum.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
import psycopg
import pytest
from hypothesis import HealthCheck, example, given, settings

from beliefdb.store.workspaces import create_workspace
from tests.test_closure_reads import adjacency_drift, support_drift

# ---------------------------------------------------------------------------------------------
# the graph and the reference


@dataclass(frozen=True)
class Graph:
    premises: int                                        # nodes 0 .. premises-1 are fragments
    beliefs: int                                         # nodes premises .. premises+beliefs-1 are beliefs
    justifications: tuple[tuple[int, tuple[int, ...]], ...] = ()   # (consequent belief, antecedents)
    supersedes: tuple[tuple[int, int], ...] = ()         # (winner belief, loser belief)
    retracted: frozenset[int] = frozenset()
    decisions: frozenset[int] = frozenset()              # of the nodes after the premises: decisions, not beliefs

    @property
    def size(self) -> int:
        return self.premises + self.beliefs

    def is_belief(self, n: int) -> bool:
        return n >= self.premises and n not in self.decisions


@dataclass
class Answer:
    holds: dict[int, bool] = field(default_factory=dict)
    status: dict[int, str] = field(default_factory=dict)    # beliefs only


def current(answer: Answer, n: int) -> bool:
    """Holding and not superseded (premises and decisions have no status: current while they hold)."""
    return answer.holds[n] and answer.status.get(n, "current") == "current"


def reference(g: Graph, retracted: frozenset[int] | None = None) -> Answer:
    """Rules 2 and 3, evaluated stratum by stratum (least fixpoint inside each stratum)."""
    retracted = g.retracted if retracted is None else retracted
    reasons: dict[int, list[tuple[int, ...]]] = {n: [] for n in range(g.size)}
    for consequent, antecedents in g.justifications:
        reasons[consequent].append(antecedents)
    winners: dict[int, list[int]] = {n: [] for n in range(g.size)}
    for winner, loser in g.supersedes:
        winners[loser].append(winner)

    # stratum(x) >= stratum(a) for each antecedent a; > stratum(w) for each w superseding an antecedent
    stratum = dict.fromkeys(range(g.size), 0)
    for _ in range(g.size + 2):
        changed = False
        for n, js in reasons.items():
            for j in js:
                for a in j:
                    need = max([stratum[a]] + [stratum[w] + 1 for w in winners[a]])
                    if need > stratum[n]:
                        stratum[n], changed = need, True
        if not changed:
            break
    else:
        raise AssertionError("the generated graph is not stratified")

    holds: dict[int, bool] = {}

    def live(a: int) -> bool:
        return holds.get(a, False) and not any(holds[w] for w in winners[a])

    for level in range(max(stratum.values()) + 1):
        members = [n for n in range(g.size) if stratum[n] == level]
        for n in members:
            holds[n] = n < g.premises and n not in retracted
        grew = True
        while grew:
            grew = False
            for n in members:
                if not holds[n] and n not in retracted and any(all(live(a) for a in j) for j in reasons[n]):
                    holds[n] = grew = True

    answer = Answer(holds=holds)
    for n in filter(g.is_belief, range(g.size)):
        superseded = any(holds[w] for w in winners[n])
        answer.status[n] = ("retracted" if n in retracted else "superseded" if superseded
                            else "unsupported" if not holds[n] else "current")
    return answer


def leads_to(g_justifications: list[tuple[int, tuple[int, ...]]], supersedes: list[tuple[int, int]],
             start: int, goal: int) -> bool:
    """Whether ``goal`` is reachable from ``start`` over reasons (antecedent -> consequent) and
    supersession (winner -> loser)."""
    forward: dict[int, set[int]] = {}
    for consequent, antecedents in g_justifications:
        for a in antecedents:
            forward.setdefault(a, set()).add(consequent)
    for winner, loser in supersedes:
        forward.setdefault(winner, set()).add(loser)
    seen, todo = {start}, [start]
    while todo:
        for nxt in forward.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return goal in seen


@st.composite
def graphs(draw: st.DrawFn) -> Graph:
    size = draw(st.integers(6, 25))
    premises = draw(st.integers(1, max(1, size // 3)))
    beliefs = size - premises
    node = st.integers(0, size - 1)
    justifications: list[tuple[int, tuple[int, ...]]] = []
    for b in range(premises, size):
        # mostly premises and earlier nodes, so that a good share holds; sometimes any node (cycles)
        antecedent = st.one_of(st.integers(0, premises - 1), st.integers(0, b - 1), st.integers(0, b - 1), node)
        for _ in range(draw(st.integers(0, 3))):
            antecedents = draw(st.lists(antecedent, min_size=1, max_size=3, unique=True))
            justifications.append((b, tuple(antecedents)))
    supersedes: list[tuple[int, int]] = []
    belief = st.integers(premises, size - 1)
    for winner, loser in draw(st.lists(st.tuples(belief, belief), max_size=6)):
        # keep rules 2 and 3 stratified: the loser must not lead back to the winner
        if winner != loser and (winner, loser) not in supersedes \
                and not leads_to(justifications, supersedes, loser, winner):
            supersedes.append((winner, loser))
    retracted = draw(st.frozensets(node, max_size=3))
    in_supersession = {n for pair in supersedes for n in pair}
    decisions = frozenset(n for n in draw(st.frozensets(st.integers(premises, size - 1)))
                          if n not in in_supersession)
    return Graph(premises, beliefs, tuple(justifications), tuple(supersedes), retracted, decisions)


# ---------------------------------------------------------------------------------------------
# the graph in the database


@dataclass
class Stored:
    conn: psycopg.Connection[Any]
    ws: uuid.UUID
    ids: list[uuid.UUID]

    def propagate(self, seeds: list[uuid.UUID]) -> dict[str, Any]:
        row = self.conn.execute("select beliefdb.propagate(%s, %s::uuid[])", (self.ws, seeds)).fetchone()
        self.conn.commit()
        assert row is not None
        result: dict[str, Any] = row[0]
        return result

    def read(self) -> Answer:
        holds = dict(self.conn.execute("select id, holds from beliefdb.node where workspace_id = %s",
                                       (self.ws,)).fetchall())
        status = dict(self.conn.execute("select id, status::text from beliefdb.belief where workspace_id = %s",
                                        (self.ws,)).fetchall())
        viewed = dict(self.conn.execute("select id, current from beliefdb.holding where workspace_id = %s",
                                        (self.ws,)).fetchall())
        self.conn.commit()
        index = {i: n for n, i in enumerate(self.ids)}
        assert set(holds) == set(index)
        answer = Answer(holds={index[i]: h for i, h in holds.items()},
                        status={index[i]: s for i, s in status.items()})
        # the holding view agrees with the stored values
        for i, c in viewed.items():
            assert c == current(answer, index[i]), index[i]
        return answer

    def set_retracted(self, n: int, retracted: bool) -> None:
        self.conn.execute("update beliefdb.node set retracted_at = case when %s then now() end where id = %s",
                          (retracted, self.ids[n]))
        self.conn.commit()


def store(conn: psycopg.Connection[Any], db_url: str, g: Graph) -> Stored:
    """Build ``g`` in a fresh workspace (one transaction, as the superuser)."""
    ws = create_workspace(db_url, "holding-" + uuid.uuid4().hex[:12]).id
    conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(ws),))
    source = conn.execute("insert into beliefdb.source (workspace_id, name) values (%s, 'premises') returning id",
                          (ws,)).fetchone()[0]  # type: ignore[index]
    version = conn.execute(
        "insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256)"
        " values (%s, %s, 1, %s, '') returning id", (ws, source, "p" * g.premises)).fetchone()[0]  # type: ignore[index]
    fragments = [r[0] for r in conn.execute(
        """insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)
           select %s, %s, i, i + 1, 'p' from generate_series(0, %s - 1) i returning id, start_offset""",
        (ws, version, g.premises)).fetchall()]
    offsets = dict(conn.execute("select id, start_offset from beliefdb.fragment where source_version_id = %s",
                                (version,)).fetchall())
    fragments.sort(key=lambda i: offsets[i])
    beliefs = dict(conn.execute(
        """insert into beliefdb.belief (workspace_id, statement, subject, attribute, value)
           select %s, 'belief ' || i, 'node', 'n' || i, i::text from unnest(%s::integer[]) i
           returning value::integer, id""", (ws, [n for n in range(g.premises, g.size) if g.is_belief(n)])).fetchall())
    decisions = {n: conn.execute("insert into beliefdb.decision (workspace_id, title) values (%s, %s) returning id",
                                 (ws, f"decision {n}")).fetchone()[0]  # type: ignore[index]
                 for n in sorted(g.decisions)}
    ids = fragments + [beliefs[n] if g.is_belief(n) else decisions[n] for n in range(g.premises, g.size)]

    jids = [uuid.uuid4() for _ in g.justifications]
    conn.execute("""insert into beliefdb.justification (workspace_id, id, consequent)
                    select %s, j, c from unnest(%s::uuid[], %s::uuid[]) t (j, c)""",
                 (ws, jids, [ids[c] for c, _ in g.justifications]))
    pairs = [(jid, ids[a]) for jid, (_, ants) in zip(jids, g.justifications, strict=True) for a in ants]
    conn.execute("""insert into beliefdb.justification_antecedent
                           (workspace_id, justification_id, antecedent, edge_kind)
                    select %s, j, a, 'derives' from unnest(%s::uuid[], %s::uuid[]) t (j, a)""",
                 (ws, [j for j, _ in pairs], [a for _, a in pairs]))
    for winner, loser in g.supersedes:
        conn.execute("""insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind)
                        values (%s, %s, %s, 'supersedes')""", (ws, ids[winner], ids[loser]))
    conn.execute("update beliefdb.node set retracted_at = now() where id = any(%s)",
                 ([ids[n] for n in g.retracted],))
    conn.commit()
    return Stored(conn, ws, ids)


def check(stored: Stored, expected: Answer, g: Graph) -> None:
    got = stored.read()
    assert got.holds == expected.holds, (g, {n for n in got.holds if got.holds[n] != expected.holds[n]})
    assert got.status == expected.status, (g, {n: (got.status[n], expected.status[n]) for n in got.status
                                               if got.status[n] != expected.status[n]})
    # what evaluation reads instead of the nodes: each justification's count of antecedents that are
    # not current, and each antecedent edge's copy of its consequent, agree with the rows they summarise
    drift = stored.conn.execute("""
        select j.id, j.unmet, (select count(*) from beliefdb.justification_antecedent a
                                 join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
                                where a.workspace_id = j.workspace_id and a.justification_id = j.id
                                  and not n.current)
          from beliefdb.justification j
         where j.workspace_id = %(ws)s
           and j.unmet <> (select count(*) from beliefdb.justification_antecedent a
                             join beliefdb.node n on n.workspace_id = a.workspace_id and n.id = a.antecedent
                            where a.workspace_id = j.workspace_id and a.justification_id = j.id and not n.current)
        union all
        select a.justification_id, null, null
          from beliefdb.justification_antecedent a
          join beliefdb.justification j on j.workspace_id = a.workspace_id and j.id = a.justification_id
         where a.workspace_id = %(ws)s and a.consequent <> j.consequent""", {"ws": stored.ws}).fetchall()
    stored.conn.commit()
    assert drift == [], (g, drift)
    # and what the closure walk reads, each node's standing, edges out and justifications, is
    # exactly what the three tables say
    assert adjacency_drift(stored.conn, stored.ws) == set(), g
    # what a retraction's walk reads: each node's stored support is well-founded (ranks strictly
    # decrease along supports) and agrees with the holding just compared with the reference
    assert support_drift(stored.conn, stored.ws) == [], g


# ---------------------------------------------------------------------------------------------
# hand-picked graphs every run covers, whatever hypothesis draws

PURE_CYCLE = Graph(premises=1, beliefs=5, justifications=((1, (2,)), (2, (1,)), (3, (3,)), (4, (0, 5)), (5, (4,))))
SHARED_AND_JOINT = Graph(premises=2, beliefs=4, justifications=((2, (0, 1)), (3, (2,)), (3, (1,)), (4, (2, 3)),
                                                                (5, (4,)), (5, (0,))), retracted=frozenset({1}))
SUPERSEDED_CHAIN = Graph(premises=2, beliefs=4, justifications=((2, (0,)), (3, (1,)), (4, (2,)), (5, (4,))),
                         supersedes=((3, 2),))
WINNER_RETRACTED = Graph(premises=2, beliefs=4, justifications=((2, (0,)), (3, (1,)), (4, (2,)), (5, (3,))),
                         supersedes=((3, 2),), retracted=frozenset({1}))
# leaves: 3 rests on 2 alone; 5 on decision 4, which has two reasons; 6 on 2 and 1 jointly, so a
# walk from 0 reaches it by one edge and one from both premises by two
LEAVES = Graph(premises=2, beliefs=5, justifications=((2, (0,)), (3, (2,)), (4, (2,)), (4, (1,)), (5, (4,)),
                                                      (6, (2, 1))), decisions=frozenset({3, 4, 5, 6}))
# 1 rests on the premise 0 by its support, or on 2, which rests on 1, as 3 does: taking 0 away, 2
# must not keep 1 (they would rest on each other), though the walk has not reached 2 when it looks at 1
CIRCULAR_OTHER = Graph(premises=1, beliefs=3, justifications=((1, (0,)), (1, (2,)), (2, (1,)), (3, (1,))))
# 2 rests on the premise 0 by its support, or on the premise 1 and 3 jointly, where 3 rests on 0 as
# well; 4 and 5 rest on 2: taking 0 away, the walk reaches 2 and 3 together, and 3 must not keep 2
SAME_LEVEL = Graph(premises=2, beliefs=4, justifications=((2, (0,)), (2, (1, 3)), (3, (0,)), (4, (2,)), (5, (2,))))


# The database fixture is per test, not per example: each example builds its graph in a workspace of
# its own, so examples never see each other's nodes and sharing the function-scoped fixture is safe.
@pytest.mark.slow
@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=graphs())
@example(g=PURE_CYCLE)
@example(g=SHARED_AND_JOINT)
@example(g=SUPERSEDED_CHAIN)
@example(g=WINNER_RETRACTED)
@example(g=LEAVES)
def test_holding_is_the_least_fixpoint(postgresql: psycopg.Connection[Any], db_url: str, g: Graph) -> None:
    stored = store(postgresql, db_url, g)
    stored.propagate(stored.ids)
    check(stored, reference(g), g)


# Same reason as above for sharing the function-scoped fixture across examples.
@pytest.mark.slow
@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=graphs(), data=st.data())
@example(g=PURE_CYCLE, data=None)
@example(g=SUPERSEDED_CHAIN, data=None)
@example(g=LEAVES, data=None)
def test_propagating_from_one_change_equals_recomputing_everything(
        postgresql: psycopg.Connection[Any], db_url: str, g: Graph, data: st.DataObject | None) -> None:
    """After a full propagate, toggle the retraction of a few nodes, each time propagating from that
    node alone: the stored result must equal the reference, and a full recomputation changes nothing."""
    stored = store(postgresql, db_url, g)
    stored.propagate(stored.ids)
    toggles = (data.draw(st.lists(st.integers(0, g.size - 1), min_size=1, max_size=3), label="toggles")
               if data is not None else [0, 2, 0])
    retracted = set(g.retracted)
    for n in toggles:
        retracted ^= {n}
        stored.set_retracted(n, n in retracted)
        stored.propagate([stored.ids[n]])
        check(stored, reference(g, frozenset(retracted)), g)
        full = stored.propagate(stored.ids)
        assert (full["stopped_holding"], full["started_holding"]) == ([], []), (g, toggles, n)
        check(stored, reference(g, frozenset(retracted)), g)


# Same reason as above for sharing the function-scoped fixture across examples.
@pytest.mark.slow
@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(g=graphs(), data=st.data())
@example(g=LEAVES, data=None)
@example(g=SHARED_AND_JOINT, data=None)
@example(g=CIRCULAR_OTHER, data=None)
@example(g=SAME_LEVEL, data=None)
def test_impact_is_the_difference_of_two_evaluations(
        postgresql: psycopg.Connection[Any], db_url: str, g: Graph, data: st.DataObject | None) -> None:
    """impact of one node, a dry run of that node not holding, says stops_holding of exactly the
    nodes that hold now (current or superseded) and do not once it is retracted too (as the
    retraction's stopped_holding: it said only those current now); flags exactly the decisions that
    stop holding; and lists as surviving exactly the decisions that still hold but lose a reason
    (a justification whose antecedents were all current stops being live)."""
    stored = store(postgresql, db_url, g)
    stored.propagate(stored.ids)
    n = data.draw(st.integers(0, g.size - 1), label="assumed off") if data is not None else 0
    before, after = reference(g), reference(g, g.retracted | {n})
    reasons = [ants for _, ants in g.justifications]
    consequents = [c for c, _ in g.justifications]
    rows = postgresql.execute("select node, effect from beliefdb.impact(%s::uuid[]::text[])",
                              ([stored.ids[n]],)).fetchall()
    postgresql.commit()
    # the same answer from the walk a level at a time, which stops where another support keeps a
    # node (a walk this small is otherwise read whole by one statement: beliefdb.support_walk_rows)
    with postgresql.transaction():
        postgresql.execute("select set_config('beliefdb.support_walk_rows', '0', true)")
        by_levels = postgresql.execute("select node, effect from beliefdb.impact(%s::uuid[]::text[])",
                                       ([stored.ids[n]],)).fetchall()
    postgresql.commit()
    assert sorted(by_levels) == sorted(rows), (g, n)
    got = {effect: {node for node, e in rows if e == effect} for effect in ("stops_holding", "flag", "survives")}
    ids = stored.ids
    assert got["stops_holding"] == {ids[m] for m in range(g.size) if before.holds[m] and not after.holds[m]}, \
        (g, n)
    assert got["flag"] == {ids[m] for m in g.decisions if before.holds[m] and not after.holds[m]}, (g, n)
    assert got["survives"] == {
        ids[m] for m in g.decisions
        if after.holds[m] and any(c == m and all(current(before, a) for a in ants)
                                  and not all(current(after, a) for a in ants)
                                  for c, ants in zip(consequents, reasons, strict=True))}, (g, n)


def test_the_reference_itself() -> None:
    """The reference on hand-checked graphs, so that the property compares against the rule."""
    assert reference(PURE_CYCLE).holds == {0: True, 1: False, 2: False, 3: False, 4: False, 5: False}
    assert reference(SHARED_AND_JOINT).holds == {0: True, 1: False, 2: False, 3: False, 4: False, 5: True}
    chain = reference(SUPERSEDED_CHAIN)
    assert chain.holds == {0: True, 1: True, 2: True, 3: True, 4: False, 5: False}
    assert chain.status == {2: "superseded", 3: "current", 4: "unsupported", 5: "unsupported"}
    won = reference(WINNER_RETRACTED)
    assert won.holds == {0: True, 1: False, 2: True, 3: False, 4: True, 5: False}
    assert won.status == {2: "current", 3: "unsupported", 4: "current", 5: "unsupported"}
    leaves = reference(LEAVES, frozenset({0}))
    assert leaves.holds == {0: False, 1: True, 2: False, 3: False, 4: True, 5: True, 6: False}
    assert leaves.status == {2: "unsupported"}
