"""Stored supports (issue 21; rule 2 of docs/rules.md): every node that holds stores the
justification it holds by, ranked above what that rests on, and ``beliefdb.impact`` answers a
retraction by walking only what rests on it by those supports, looking for another support only
for them. The property tests (tests/test_holding_properties.py, tests/test_model.py) compare the
answers with the reference; here: that the check they run can fail, what the walk reads, and the
plan of its level statement."""

from __future__ import annotations

import json
import re
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest

import beliefdb
from tests.test_closure_reads import support_drift
from tests.test_holding_properties import Graph, Stored, check, current, reference, store

# q (0) and x (1) are fragments. a (2) rests on q, or on x and e (3) jointly, where e rests on q:
# the fixpoint meets a by q before e holds, so a holds by q. 150 beliefs (4 .. 153) rest on a
# alone: x's forward closure has 155 nodes, few of which hold by x. c rests on x, or on q and a
# jointly, and holds by x (a holds only after q and x are both met); d and f rest on c.
FAN = 150
C, D, F = 4 + FAN, 5 + FAN, 6 + FAN
GRAPH = Graph(premises=2, beliefs=5 + FAN,
              justifications=((2, (0,)), (2, (1, 3)), (3, (0,)), *((n, (2,)) for n in range(4, 4 + FAN)),
                              (C, (1,)), (C, (0, 2)), (D, (C,)), (F, (C,))))


def built(conn: psycopg.Connection[Any], db_url: str) -> Stored:
    stored = store(conn, db_url, GRAPH)
    stored.propagate(stored.ids)
    return stored


def supports(stored: Stored) -> dict[int, list[int]]:
    """Each node's support, as the indexes of its antecedents (premises: [])."""
    index = {i: n for n, i in enumerate(stored.ids)}
    rows = stored.conn.execute("""
        select n.id, coalesce(array_agg(a.antecedent) filter (where a.antecedent is not null), '{}')
          from beliefdb.node n
          left join beliefdb.justification_antecedent a
            on a.workspace_id = n.workspace_id and a.justification_id = n.support
         where n.workspace_id = %s and n.holds
         group by n.id""", (stored.ws,)).fetchall()
    stored.conn.commit()
    return {index[i]: sorted(index[a] for a in ants) for i, ants in rows}


def adjacency_entries_read(conn: psycopg.Connection[Any], query: str, params: Any) -> tuple[list[Any], int]:
    """Run ``query`` in a transaction of its own; its rows and the index entries of beliefdb.adjacency
    the transaction read (the statistics of this transaction's own reads, not yet reported)."""
    with conn.transaction():
        def read() -> int:
            row = conn.execute("""select coalesce(sum(pg_stat_get_xact_tuples_returned(i.indexrelid)), 0)::bigint
                                    from pg_index i where i.indrelid = 'beliefdb.adjacency'::regclass""").fetchone()
            assert row is not None
            return int(row[0])
        before = read()
        rows = conn.execute(query, params).fetchall()
        return rows, read() - before


def test_each_node_stores_the_support_it_holds_by(postgresql: psycopg.Connection[Any], db_url: str) -> None:
    stored = built(postgresql, db_url)
    got = supports(stored)
    assert got[0] == got[1] == []
    assert got[2] == got[3] == [0] and all(got[n] == [2] for n in range(4, 4 + FAN))
    assert got[C] == [1] and got[D] == [C]
    assert support_drift(stored.conn, stored.ws) == []

    # retracting x: c holds by q and a now, d still by c, and the ranks are well-founded again
    stored.set_retracted(1, True)
    stored.propagate([stored.ids[1]])
    got = supports(stored)
    assert 1 not in got and got[C] == [0, 2] and got[D] == [C]
    assert support_drift(stored.conn, stored.ws) == []


def test_the_check_finds_a_support_that_is_not_well_founded(postgresql: psycopg.Connection[Any],
                                                             db_url: str) -> None:
    """The check the property tests run after every step fails on a rank that does not decrease
    along a support, on a support of a node that does not hold, and on a derived node without one."""
    stored = built(postgresql, db_url)
    ids, conn = stored.ids, stored.conn
    conn.execute("set session_replication_role = replica")  # (the adjacency keeps what it said)
    try:
        conn.execute("update beliefdb.node set support_rank = 0 where id = %s", (ids[2],))
        assert [r[0] for r in support_drift(conn, stored.ws)] != [], "a rank not above its antecedents'"
        conn.execute("update beliefdb.node set support_rank = (select support_rank from beliefdb.node"
                     " where id = %s) where id = %s", (ids[4], ids[2]))
        # equal ranks along a support are no more well-founded than a cycle: what rests on a is wrong
        assert {r[0] for r in support_drift(conn, stored.ws)} == {ids[n] for n in range(4, 4 + FAN)}
        # the DBA's rewrite puts them right (a propagation trusts what is stored, as it trusts holding)
        assert conn.execute("select beliefdb.rebuild_supports(%s)", (stored.ws,)).fetchone() == (2,)
        assert support_drift(conn, stored.ws) == []
        conn.execute("update beliefdb.node set support = null where id = %s", (ids[D],))
        assert [r[0] for r in support_drift(conn, stored.ws)] == [ids[D]], "a derived node without support"
        conn.execute("update beliefdb.node set holds = false, current = false where id = %s", (ids[C],))
        assert ids[C] in {r[0] for r in support_drift(conn, stored.ws)}, "a support of a node that does not hold"
        conn.commit()
    finally:
        conn.execute("set session_replication_role = origin")
        conn.commit()


def test_impact_reads_what_rests_on_the_change_by_its_support(postgresql: psycopg.Connection[Any],
                                                               db_url: str) -> None:
    """Retracting x: of its 155-node forward closure only c, d and f rest on x by their support; the
    walk reads those (c finds its other support) and x's edges out, a few dozen adjacency entries,
    where the walk of the whole closure reads every node of it."""
    stored = built(postgresql, db_url)
    conn, ids = stored.conn, stored.ids
    # (index scans count the dead entries the graph's building left behind too)
    conn.autocommit = True
    conn.execute("vacuum beliefdb.adjacency")
    conn.autocommit = False
    rows, walked = adjacency_entries_read(
        conn, "select node, effect from beliefdb.impact(%s::uuid[]::text[])", ([ids[1]],))
    assert rows == [(ids[1], "stops_holding")]
    _, closure = adjacency_entries_read(
        conn, "select cardinality(o_ids) from beliefdb.evaluate_closure(%s, %s::uuid[], %s::uuid[])",
        (stored.ws, [ids[1]], [ids[1]]))
    assert walked <= 30, walked
    assert closure >= 3 * FAN, closure

    # retracting q takes a and everything on it down: the walk reaches all of it, and the answer
    # is the same as the whole closure's
    rows, _ = adjacency_entries_read(
        conn, "select node, effect from beliefdb.impact(%s::uuid[]::text[])", ([ids[0]],))
    assert {n for n, effect in rows if effect == "stops_holding"} == {ids[n] for n in range(0, 4 + FAN) if n != 1}


def test_the_walk_reads_each_node_it_reaches_with_one_probe_of_the_primary_key(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """The walk of beliefdb.support_walk reads a level at a time, in one statement (a row a level),
    every row of each node it reaches with one index-only probe of the adjacency's primary key, which
    carries adjacency.support (revision 0028): the seeds by their ids, then the consequents of the out
    rows that carry a support, by their ids. Retracting x: x, then c, which its other justification
    keeps: two levels, and d and f, which rest on c, are not read. Nothing else reads the walked nodes'
    rows again, as the application role with the plans its session caches."""
    stored = built(postgresql, db_url)
    plans = impact_plans(db_url, stored, stored.ids[1])
    level = [p for p in plans if "any(lv.frontier)" in p["Query Text"] and "beliefdb.adjacency" in p["Query Text"]]
    assert len(level) == 1, [p["Query Text"] for p in plans]
    # one probe per node of a level, by its id (a hash join would read every row of the workspace),
    # once a level
    scans = [s for s in scans_of(level[0]["Plan"]) if s["Relation Name"] == "adjacency"]
    assert [(s["Node Type"], s["Index Name"], s["Actual Loops"]) for s in scans] == [
        ("Index Only Scan", "adjacency_pkey", 2)], scans
    assert "(node = ANY (" in scans[0]["Index Cond"], scans
    # (no second read of the walked nodes, no recursive walk of them, and the partial index of
    # revision 0022 is gone)
    assert not [p for p in plans if "beliefdb.adjacency" in p["Query Text"] and p not in level
                and "beliefdb.support_walk(" not in p["Query Text"] and "beliefdb.impact(" not in p["Query Text"]], \
        [p["Query Text"] for p in plans]
    assert "adjacency_support" not in json.dumps(plans)


def impact_plans(db_url: str, stored: Stored, target: UUID, rows: int = 0) -> list[dict[str, Any]]:
    """The plans (auto_explain, JSON, with row counts) of every statement beliefdb.impact runs for
    ``target``, as the application role; by default with the walk a level at a time (a small walk
    is read by one statement first: beliefdb.support_walk_rows)."""
    plans: list[dict[str, Any]] = []
    with psycopg.connect(db_url, autocommit=True) as conn:
        # (the planner's statistics, as a workspace in use has them)
        conn.execute("vacuum (analyze) beliefdb.adjacency")
        conn.execute("load 'auto_explain'")
        for setting, value in (("log_min_duration", "0"), ("log_nested_statements", "on"),
                               ("log_analyze", "on"), ("log_timing", "off"),
                               ("log_level", "notice"), ("log_format", "json")):
            conn.execute(f"set auto_explain.{setting} = {value}")
        conn.add_notice_handler(
            lambda n: plans.append(json.loads((n.message_primary or "").split("plan:", 1)[1]))
            if "plan:" in (n.message_primary or "") else None)
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(stored.ws),))
        conn.execute("select set_config('beliefdb.support_walk_rows', %s, false)", (str(rows),))
        conn.execute("set role beliefdb_app")
        conn.execute("select * from beliefdb.impact(%s::uuid[]::text[])", ([target],))
    return plans


def walked(stored: Stored, *targets: int, rows: int = 0) -> set[int]:
    """The nodes beliefdb.support_walk reads assuming ``targets`` stop holding, as indexes; by
    default a level at a time."""
    index = {i: n for n, i in enumerate(stored.ids)}
    stored.conn.execute("select set_config('beliefdb.support_walk_rows', %s, true)", (str(rows),))
    row = stored.conn.execute("select o_ids from beliefdb.support_walk(%s, %s::uuid[])",
                              (stored.ws, [stored.ids[t] for t in targets])).fetchone()
    stored.conn.commit()
    assert row is not None
    return {index[i] for i in row[0]}


def test_the_walk_stops_where_another_justification_keeps_a_node(postgresql: psycopg.Connection[Any],
                                                                  db_url: str) -> None:
    """Retracting x: c rests on x by its support, and on q and a jointly, neither of which the walk
    reaches and neither ranked above c: c keeps holding whatever else the walk finds, so d and f,
    which rest on c, are not walked. Retracting q: a rests on q by its support, and on x and e jointly,
    where e rests on q by its support too, so the walk reaches e with a, and a is not kept:
    everything on a is walked (c is not: it rests on x by its support). The answers are the
    reference's either way."""
    stored = built(postgresql, db_url)
    assert walked(stored, 1) == {1, C}
    assert walked(stored, 0) == set(range(0, 4 + FAN)) - {1}
    for n in (0, 1):
        rows = stored.conn.execute("select node, effect from beliefdb.impact(%s::uuid[]::text[])",
                                   ([stored.ids[n]],)).fetchall()
        stored.conn.commit()
        index = {i: m for m, i in enumerate(stored.ids)}
        got = {effect: {index[node] for node, e in rows if e == effect}
               for effect in ("stops_holding", "becomes_current", "flag", "survives")}
        assert got == expected_impact(GRAPH, n), n

    # RING, retracting q: x's other justification rests on y, which ranks above x and rests on x by
    # its support, so it cannot keep x (they would rest on each other): y and z are walked, and x
    # holds again by y, which holds by t
    ring = store(postgresql, db_url, RING)
    ring.propagate(ring.ids)
    assert walked(ring, 0) == {0, 2, 3, 6}
    rows = ring.conn.execute("select node, effect from beliefdb.impact(%s::uuid[]::text[])",
                             ([ring.ids[0]],)).fetchall()
    ring.conn.commit()
    assert rows == [(ring.ids[0], "stops_holding")]
    assert expected_impact(RING, 0)["stops_holding"] == {0}


def test_a_small_walk_is_one_statement(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A walk of fewer adjacency rows than beliefdb.support_walk_rows (60 by default) is read by
    one recursive statement, each node with one index-only probe of the adjacency's primary key,
    and keeps nothing: retracting x, it reads c and what rests on c (d and f) too, and the answer is
    the same. Beyond the setting the walk goes a level at a time."""
    stored = built(postgresql, db_url)
    assert walked(stored, 1, rows=60) == {1, C, D, F}
    assert walked(stored, 1, rows=10) == walked(stored, 1) == {1, C}
    plans = impact_plans(db_url, stored, stored.ids[1], rows=60)
    reading = [p for p in plans if "beliefdb.adjacency" in p["Query Text"]
               and "beliefdb.impact(" not in p["Query Text"] and "beliefdb.support_walk(" not in p["Query Text"]]
    assert len(reading) == 1 and "with recursive" in reading[0]["Query Text"], [p["Query Text"] for p in reading]
    scans = scans_of(reading[0]["Plan"])
    assert [(s["Node Type"], s["Index Name"]) for s in scans] == [("Index Only Scan", "adjacency_pkey")] * 2, scans
    assert re.search(r"\(node = w(_\d+)?\.consequent\)", scans[1]["Index Cond"]), scans
    rows = stored.conn.execute("select node, effect from beliefdb.impact(%s::uuid[]::text[])",
                               ([stored.ids[1]],)).fetchall()
    stored.conn.commit()
    assert rows == [(stored.ids[1], "stops_holding")]


# x (2) rests on the fragment q (0) or on y (3); y rests on x, or on t (5), which rests on s (4),
# which rests on the fragment r (1); z (6) rests on x: x holds by q, y and z by x
RING = Graph(premises=2, beliefs=5,
             justifications=((2, (0,)), (2, (3,)), (3, (2,)), (3, (5,)), (5, (4,)), (4, (1,)), (6, (2,))))


# a (2) rests on the fragment q (0) or on the fragment x (1) alone; 150 beliefs rest on a alone
SWITCH = Graph(premises=2, beliefs=3 + FAN,
               justifications=((2, (0,)), (2, (1,)), *((n, (2,)) for n in range(3, 3 + FAN))))


def test_a_change_writes_the_supports_it_moves_not_what_rests_on_them(postgresql: psycopg.Connection[Any],
                                                                       db_url: str) -> None:
    """Retracting the premise a hub holds by: the hub changes support, with a rank still above the
    other premise's, so the propagation writes the hub's node row (and the premise's) and not one of
    the 150 that rest on the hub, whose ranks stay above it. Restoring it: the hub keeps the support
    it has, which the change did not touch. The supports stay well-founded."""
    stored = store(postgresql, db_url, SWITCH)
    stored.propagate(stored.ids)
    conn, ids = stored.conn, stored.ids

    def versions() -> dict[Any, str]:
        rows = conn.execute("select id, xmin::text from beliefdb.node where workspace_id = %s", (stored.ws,))
        got = dict(rows.fetchall())
        conn.commit()
        return got

    def ranks() -> list[Any]:
        rows = conn.execute("select support_rank from beliefdb.node where id = any(%s) order by id",
                            (ids[3:],)).fetchall()
        conn.commit()
        return rows

    [p] = supports(stored)[2]
    fan = ranks()
    for retracted in (True, False):
        stored.set_retracted(p, retracted)
        before = versions()
        stored.propagate([ids[p]])
        after = versions()
        written = {n for n, i in enumerate(ids) if before[i] != after[i]}
        # retracted, a holds by the other premise; restored, it keeps that support (still valid)
        # though the fixpoint meets it by p first: only p's holding is written
        assert supports(stored)[2] == [1 - p]
        assert written == ({p, 2} if retracted else {p}), sorted(written)
        assert ranks() == fan
        assert support_drift(conn, stored.ws) == []


# a (3) rests on the fragment q (0) or on the fragment x (1); 150 beliefs rest on a, or on e (5),
# which rests on w (4), which rests on the fragment y (2): the fixpoint meets them by a first
DEEP = Graph(premises=3, beliefs=6 + FAN,
             justifications=((3, (0,)), (3, (1,)), (4, (2,)), (5, (4,)),
                             *((n, (3,)) for n in range(6, 6 + FAN)), *((n, (5,)) for n in range(6, 6 + FAN))))


def test_what_rests_on_a_moved_support_keeps_its_own(postgresql: psycopg.Connection[Any], db_url: str) -> None:
    """Retracting the premise a hub holds by: the hub moves to the other premise, and the 150
    beliefs that rest on the hub keep it as their support (still current, its rank unchanged),
    though the change's fixpoint meets them by e, outside it, first: only the premise's and the
    hub's node rows are written, and the supports stay well-founded."""
    stored = store(postgresql, db_url, DEEP)
    stored.propagate(stored.ids)
    conn, ids = stored.conn, stored.ids
    fan = range(6, 6 + FAN)
    assert all(supports(stored)[n] == [3] for n in fan)

    def versions() -> dict[Any, str]:
        rows = conn.execute("select id, xmin::text, support_rank from beliefdb.node where workspace_id = %s",
                            (stored.ws,))
        got = {i: (v, r) for i, v, r in rows.fetchall()}
        conn.commit()
        return got

    [p] = supports(stored)[3]
    before = versions()
    stored.set_retracted(p, True)
    stored.propagate([ids[p]])
    after = versions()
    written = {n for n, i in enumerate(ids) if before[i][0] != after[i][0]}
    got = supports(stored)
    assert got[3] == [1 - p] and all(got[n] == [3] for n in fan)
    assert written == {p, 3}, sorted(written)
    assert all(after[ids[n]][1] == before[ids[n]][1] for n in fan)
    assert support_drift(conn, stored.ws) == []


# x (2) rests on the fragment q (0) or on y (3); y rests on x, or on t (5), which rests on s (4),
# which rests on the fragment r (1): y holds by x (met a level before t)
LOOP = Graph(premises=2, beliefs=4,
             justifications=((2, (0,)), (2, (3,)), (3, (2,)), (3, (5,)), (5, (4,)), (4, (1,))))


def test_a_kept_support_gives_way_where_it_would_close_a_cycle(postgresql: psycopg.Connection[Any],
                                                                db_url: str) -> None:
    """Retracting q: x holds by y now, and y's stored support (x) is still current, but keeping it
    would make x and y rest on each other: y takes t, and the supports stay well-founded."""
    stored = store(postgresql, db_url, LOOP)
    stored.propagate(stored.ids)
    assert supports(stored)[2] == [0] and supports(stored)[3] == [2]
    stored.set_retracted(0, True)
    stored.propagate([stored.ids[0]])
    got = supports(stored)
    assert got[2] == [3] and got[3] == [5], got
    assert support_drift(stored.conn, stored.ws) == []


def test_the_walk_reads_each_walked_node_once(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """beliefdb.support_walk reads the walked nodes' standing, justifications and edges out with one
    index-only probe of the adjacency's primary key each (a node's rows are side by side there);
    justification_antecedent only for the other justifications of the nodes a level may keep (c's
    on q and a), by its primary key; what rests outside the walk on what stops holding is read only
    where it is a decision, by its standing and justifications, not by its edges out (c keeps a,
    with its 150 edges out, outside the walk of x, and the hub must not be read whole: a is no
    decision, and is not read at all)."""
    stored = built(postgresql, db_url)
    plans = impact_plans(db_url, stored, stored.ids[1])
    texts = [p["Query Text"] for p in plans]
    inner = [p for p in plans if "beliefdb.impact(" not in p["Query Text"]
             and "beliefdb.support_walk(" not in p["Query Text"]]
    reading = [p for p in inner if "beliefdb.adjacency" in p["Query Text"]]
    assert len(reading) == 1 and "any(lv.frontier)" in reading[0]["Query Text"], texts
    # (x's level, where nothing can be kept, probes none; c's one: c's other justification)
    keeping = [p for p in inner if "justification_antecedent" in json.dumps(p["Plan"])]
    assert keeping == reading, texts
    scans = [s for s in scans_of(keeping[0]["Plan"]) if s["Relation Name"] == "justification_antecedent"]
    assert [(s["Node Type"], s["Index Name"], s["Actual Loops"]) for s in scans] == [
        ("Index Only Scan", "justification_antecedent_pkey", 1)], scans
    assert "(justification_id = " in scans[0]["Index Cond"], scans
    # a is no decision, and the out row into it says so (adjacency.into_decision, revision 0030):
    # nothing reads a's rows (before 0030, a's standing was read to find that out)
    outside = [p for p in plans if "any(v_next)" in p["Query Text"]]
    assert outside == [], texts


def scans_of(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The scans of a table in a plan tree (auto_explain's JSON)."""
    own = [plan] if "Relation Name" in plan else []
    return own + [s for child in plan.get("Plans", []) for s in scans_of(child)]


# 3 (w) rests on q (0) and supersedes 4 (l), which rests on x (1); 5 rests on l; the decision 6
# rests on w, the decision 7 on y (2) or on w
SUPERSEDED = Graph(premises=3, beliefs=5,
                   justifications=((3, (0,)), (4, (1,)), (5, (4,)), (6, (3,)), (7, (2,)), (7, (3,))),
                   supersedes=((3, 4),), decisions=frozenset({6, 7}))


def expected_impact(g: Graph, n: int) -> dict[str, set[int]]:
    """impact of node n by the reference: what stops holding (current or superseded: a superseded
    belief holds), what starts being current, the decisions that stop holding, and those that hold
    but lose a reason whose antecedents were all current."""
    before, after = reference(g), reference(g, g.retracted | {n})
    return {
        "stops_holding": {m for m in range(g.size) if before.holds[m] and not after.holds[m]},
        "becomes_current": {m for m in range(g.size) if g.is_belief(m) and not current(before, m)
                            and current(after, m)},
        "flag": {m for m in g.decisions if before.holds[m] and not after.holds[m]},
        "survives": {m for m in g.decisions
                     if after.holds[m] and any(c == m and all(current(before, a) for a in ants)
                                               and not all(current(after, a) for a in ants)
                                               for c, ants in g.justifications)}}


def test_impact_falls_back_where_the_walk_cannot_answer(postgresql: psycopg.Connection[Any], db_url: str) -> None:
    """A belief that stops holding in a supersession: the walk says it cannot answer alone. Taking
    the loser l down (x) brings nothing back: the closure's evaluation answers (x takes l down, which
    was superseded and held: it stops holding); taking the winner w
    down (q) brings l back, current again, and with it 5, which rests on l (a justification needs
    its antecedents current): the retraction's dry run answers. Each as the reference says, and as
    the walk says wherever it does settle (y: the decision 7 survives on w)."""
    stored = store(postgresql, db_url, SUPERSEDED)
    stored.propagate(stored.ids)
    ids, index = stored.ids, {i: n for n, i in enumerate(stored.ids)}
    for n, settled in ((1, False), (0, False), (2, True), (4, False), (6, True)):
        row = postgresql.execute("select o_settled from beliefdb.support_walk(%s, %s::uuid[])",
                                 (stored.ws, [ids[n]])).fetchone()
        assert row == (settled,), n
        rows = postgresql.execute("select node, effect from beliefdb.impact(%s::uuid[]::text[])",
                                  ([ids[n]],)).fetchall()
        postgresql.commit()
        got = {effect: {index[node] for node, e in rows if e == effect}
               for effect in ("stops_holding", "becomes_current", "flag", "survives")}
        assert got == expected_impact(SUPERSEDED, n), n
    # ids that are no node, and nulls, drop out of the walk: it walks what the nodes among them carry
    row = postgresql.execute("select o_ids, o_settled from beliefdb.support_walk(%s, %s::uuid[])",
                             (stored.ws, [uuid4(), None, ids[2], ids[2]])).fetchone()
    postgresql.commit()
    assert row is not None and sorted(row[0]) == sorted([ids[2], ids[7]]) and row[1], row
    assert postgresql.execute("select o_ids from beliefdb.support_walk(%s, %s::uuid[])",
                              (stored.ws, [uuid4()])).fetchone() == ([],)
    postgresql.commit()
    assert expected_impact(SUPERSEDED, 0)["becomes_current"] == {4, 5}
    assert expected_impact(SUPERSEDED, 1) == {"stops_holding": {1, 4}, "becomes_current": set(), "flag": set(),
                                              "survives": set()}
    assert expected_impact(SUPERSEDED, 2)["survives"] == {7}


def test_impact_takes_a_whole_id_of_each_kind(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A whole id names a source, a source version or a node, in that order, and only then a source of that
    name (one statement): a source named like another's id does not stand for it (anyone may name a source,
    the database makes ids); a whole id that names nothing is refused with the message a name gets."""
    ws = bdb.database.workspace_id
    quote = "Returns are accepted within 7 days."
    seven = bdb.remember(quote, "returns", "window", "7 days", quote, source="policy.md",
                         text=quote).accepted[0].id
    fee = bdb.remember("The fee is 10%.", "returns", "fee", "10%", "The fee is 10%.", source=str(seven),
                       text="The fee is 10%.").accepted[0].id
    source, version, fragment = postgresql.execute("""
        select s.id, v.id, f.id
          from beliefdb.source s
          join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
          join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
         where s.workspace_id = %s and s.name = 'policy.md'""", (ws,)).fetchone()  # type: ignore[misc]
    postgresql.commit()

    def stopped(*refs: str) -> set[UUID]:
        return {row.node for row in bdb.impact(*refs) if row.effect == "stops_holding"}

    assert stopped("policy.md") == stopped(str(source)) == stopped(str(source).upper()) == {fragment, seven}
    assert stopped(str(version)) == {fragment, seven}
    assert stopped(str(fragment)) == stopped(str(fragment).replace("-", "")) == {fragment, seven}
    assert seven in stopped(str(seven)) and fee not in stopped(str(seven))  # the belief, not the source named so
    # several references: node ids only (each once however often named), or mixed with a name
    assert stopped(str(fragment), f" {str(fragment).upper()} ") == {fragment, seven}
    assert stopped(str(fee), "policy.md") == {fee, fragment, seven}
    assert stopped(str(fragment), str(seven)) == {fragment, seven}
    named = postgresql.execute("select s.id from beliefdb.source s where s.workspace_id = %s and s.name = %s",
                               (ws, str(seven))).fetchone()
    assert named is not None and fee in stopped(str(named[0]))  # the source named so: by its own id
    with pytest.raises(beliefdb.BeliefDBError, match="no node, source or source version is named"):
        bdb.impact(str(uuid4()))


def working_set(stored: Stored) -> set[int]:
    """The nodes the session's last propagation evaluated (pg_temp.beliefdb_evaluation), by index."""
    index = {i: n for n, i in enumerate(stored.ids)}
    rows = stored.conn.execute("select id from pg_temp.beliefdb_evaluation").fetchall()
    stored.conn.commit()
    return {index[i] for (i,) in rows}


def test_a_propagation_evaluates_what_rests_on_the_change_by_its_support(postgresql: psycopg.Connection[Any],
                                                                         db_url: str) -> None:
    """Retracting x: the propagation evaluates x, what x's own edges reach (a and c) and what rests
    on those by its stored support (d and f), not the 150 beliefs that rest on a, which holds by q: x's
    forward closure has 155 nodes. Restoring x gives back: the whole forward closure is evaluated.
    Both as the reference says, the supports well-founded."""
    stored = built(postgresql, db_url)
    assert len(working_set(stored)) == GRAPH.size
    for retracted in (True, False):
        stored.set_retracted(1, retracted)
        stored.propagate([stored.ids[1]])
        walked = working_set(stored)
        if retracted:
            assert walked == {1, 2, C, D, F}, sorted(walked)
        else:
            assert walked == {1, 2, *range(4, 4 + FAN), C, D, F}, sorted(walked)
        want = reference(GRAPH, frozenset({1}) if retracted else frozenset())
        rows = postgresql.execute("select id, holds from beliefdb.node where workspace_id = %s",
                                  (stored.ws,)).fetchall()
        postgresql.commit()
        index = {i: n for n, i in enumerate(stored.ids)}
        assert {index[i]: holds for i, holds in rows} == want.holds
        assert support_drift(postgresql, stored.ws) == []


def test_a_propagation_that_brings_a_belief_back_evaluates_the_whole_closure(
        postgresql: psycopg.Connection[Any], db_url: str) -> None:
    """Retracting q takes w down, which superseded l: l is current again, and 5, which rests on l,
    holds again though nothing rests on l by a support to walk: the walk finds l current again and
    the whole closure is evaluated (5 among it). Retracting x then takes l down with 5 by the walk.
    Each step as the reference says."""
    stored = store(postgresql, db_url, SUPERSEDED)
    stored.propagate(stored.ids)
    index = {i: n for n, i in enumerate(stored.ids)}

    def standing() -> dict[int, tuple[bool, bool]]:
        rows = postgresql.execute("select id, holds, current from beliefdb.node where workspace_id = %s",
                                  (stored.ws,)).fetchall()
        postgresql.commit()
        return {index[i]: (holds, cur) for i, holds, cur in rows}

    assert standing()[5] == (False, False)
    stored.set_retracted(0, True)
    stored.propagate([stored.ids[0]])
    assert 5 in working_set(stored)
    want = reference(SUPERSEDED, frozenset({0}))
    assert {n: s for n, (s, _) in standing().items()} == want.holds
    assert standing()[4] == (True, True) and standing()[5] == (True, True)

    stored.set_retracted(1, True)
    stored.propagate([stored.ids[1]])
    assert working_set(stored) == {1, 4, 5}
    want = reference(SUPERSEDED, frozenset({0, 1}))
    assert {n: s for n, (s, _) in standing().items()} == want.holds
    assert support_drift(postgresql, stored.ws) == []


# w (2) rests on q (0) and supersedes t (3), which rests on x (1) and u (4) jointly; nothing holds u:
# t does not hold, and is superseded
LOSER_BESIDE = Graph(premises=2, beliefs=3, justifications=((2, (0,)), (3, (1, 4))), supersedes=((2, 3),))


def test_what_the_seeds_reach_beside_their_supports_keeps_its_supersession(
        postgresql: psycopg.Connection[Any], db_url: str) -> None:
    """Retracting x: t is reached by x's edge, which is no support (t does not hold), read last and
    not followed, and stays superseded by w: its status is written from what supersedes it, read
    with it, not as unsupported."""
    stored = store(postgresql, db_url, LOSER_BESIDE)
    stored.propagate(stored.ids)
    check(stored, reference(LOSER_BESIDE), LOSER_BESIDE)
    stored.set_retracted(1, True)
    stored.propagate([stored.ids[1]])
    assert working_set(stored) == {1, 3}
    check(stored, reference(LOSER_BESIDE, frozenset({1})), LOSER_BESIDE)
