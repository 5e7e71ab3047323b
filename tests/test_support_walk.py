"""Stored supports (issue 21; rule 2 of docs/rules.md): every node that holds stores the
justification it holds by, ranked above what that rests on, and ``beliefdb.impact`` answers a
retraction by walking only what rests on it by those supports, looking for another support only
for them. The property tests (tests/test_holding_properties.py, tests/test_model.py) compare the
answers with the reference; here: that the check they run can fail, what the walk reads, and the
plan of its level statement."""

from __future__ import annotations

import json
from typing import Any

import psycopg

from tests.test_closure_reads import support_drift
from tests.test_holding_properties import Graph, Stored, store

# q (0) and x (1) are fragments. a (2) rests on q, or on x and e (3) jointly, where e rests on q:
# the fixpoint meets a by q before e holds, so a holds by q. 150 beliefs (4 .. 153) rest on a
# alone: x's forward closure has 152 nodes, none of which holds by x. c rests on x, or on q and a
# jointly, and holds by x (a holds only after q and x are both met); d rests on c.
FAN = 150
C, D = 4 + FAN, 5 + FAN
GRAPH = Graph(premises=2, beliefs=4 + FAN,
              justifications=((2, (0,)), (2, (1, 3)), (3, (0,)), *((n, (2,)) for n in range(4, 4 + FAN)),
                              (C, (1,)), (C, (0, 2)), (D, (C,))))


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
    """Retracting x: of its 154-node forward closure only c and d rest on x by their support; the
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


def test_the_walk_takes_the_edges_that_carry_a_support_by_their_index(db_url: str,
                                                                      postgresql: psycopg.Connection[Any]) -> None:
    """The level statement of beliefdb.support_walk reads the partial index adjacency_support (the
    out rows that carry a support), not the primary key's rows of every edge out, as the
    application role with the plan its session caches."""
    stored = built(postgresql, db_url)
    plans: list[dict[str, Any]] = []
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("load 'auto_explain'")
        for setting, value in (("log_min_duration", "0"), ("log_nested_statements", "on"),
                               ("log_level", "notice"), ("log_format", "json")):
            conn.execute(f"set auto_explain.{setting} = {value}")
        conn.add_notice_handler(
            lambda n: plans.append(json.loads((n.message_primary or "").split("plan:", 1)[1]))
            if "plan:" in (n.message_primary or "") else None)
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(stored.ws),))
        conn.execute("set role beliefdb_app")
        conn.execute("select * from beliefdb.impact(%s::uuid[]::text[])", ([stored.ids[1]],))
    level = [p for p in plans if "x.support" in p["Query Text"] and "array_agg(x.consequent)" in p["Query Text"]]
    assert level, [p["Query Text"] for p in plans]
    scans = json.dumps(level)
    assert '"Index Name": "adjacency_support"' in scans, scans
    assert '"Index Name": "adjacency_pkey"' not in scans, scans


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
