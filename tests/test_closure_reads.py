"""What impact reads, where it reads it, kept by triggers (revision 0007):

- beliefdb.adjacency: each node's standing, the edges out of it and its justifications side by
  side, so that the closure walk reads each node it reaches with one index descent;
- decision.reasons: each decision's justifications with their antecedents, so that impact lists
  what a surviving decision rests on from the decision row it reads anyway.

These tests check both copies against the rows they repeat, through every way those rows change,
and impact's "by" lists against the decision_support view. (The holding property tests check the
adjacency after every random graph too.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest

import beliefdb
from beliefdb.store import lifecycle
from tests.test_repair import record_story
from tests.test_truth_maintenance import Su, fact

REVISIONS = Path(__file__).parents[1] / "migrations" / "versions"


@pytest.fixture
def su(postgresql: psycopg.Connection[Any], bdb: beliefdb.BeliefDB) -> Su:
    return Su(postgresql, bdb.database.workspace_id)


def revision_statement(start: str, revision_file: str = "0007_closure_reads.sql") -> str:
    """The statement of a revision's frozen SQL (0007's unless named) that begins with ``start``."""
    revision = (REVISIONS / revision_file).read_text(encoding="utf-8")
    statement = revision[revision.index(start):]
    return statement[:statement.index(";") + 1]


def stored(su: Su, decision: UUID) -> dict[str, list[str]]:
    reasons: dict[str, list[str]] = su.one("select reasons from beliefdb.decision where id = %s", (decision,))
    return reasons


def from_edges(su: Su, decision: UUID) -> dict[str, list[str]]:
    """What the reasons should be, read from the justification tables themselves."""
    return {str(j): sorted(str(a) for a in ants) for j, ants in su.all(
        """select j.id, array_agg(a.antecedent)
             from beliefdb.justification j
             join beliefdb.justification_antecedent a on a.workspace_id = j.workspace_id and a.justification_id = j.id
            where j.consequent = %s
            group by j.id""", (decision,))}


def antecedent_sets(reasons: dict[str, list[str]]) -> set[tuple[str, ...]]:
    return {tuple(a) for a in reasons.values()}


def test_a_decision_carries_each_reason_with_its_antecedents(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b, c, d = (fact(bdb, s) for s in "abcd")
    decision = bdb.decide("mixed", because=[a, b], all_of=[[d, c]]).id

    reasons = stored(su, decision)
    assert reasons == from_edges(su, decision)
    assert antecedent_sets(reasons) == {(str(a),), (str(b),), tuple(sorted((str(c), str(d))))}


def test_forgetting_a_cited_belief_takes_it_out_of_the_reasons(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    decision = bdb.decide("on a or b", because=[a, b]).id
    other = bdb.decide("on b", because=[b]).id

    lifecycle.forget(bdb.database, belief=a)

    assert stored(su, decision) == from_edges(su, decision)
    assert antecedent_sets(stored(su, decision)) == {(str(b),)}
    assert antecedent_sets(stored(su, other)) == {(str(b),)}


def test_a_justification_moved_by_a_dba_moves_its_reason_and_adjacency(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    first = bdb.decide("first", because=[a, b]).id
    second = bdb.decide("second", because=[b]).id
    moved = su.one("""select j.id from beliefdb.justification j
                       join beliefdb.justification_antecedent x on x.justification_id = j.id
                      where j.consequent = %s and x.antecedent = %s""", (first, a))

    su.all("update beliefdb.justification set consequent = %s where id = %s", (second, moved))

    assert stored(su, first) == from_edges(su, first)
    assert stored(su, second) == from_edges(su, second)
    assert str(moved) not in stored(su, first) and stored(su, second)[str(moved)] == [str(a)]
    assert adjacency_drift(su.conn, su.ws) == set()
    assert su.one("select node from beliefdb.adjacency where entry = 'in' and justification = %s", (moved,)) == second


def test_refresh_mends_reasons_written_with_triggers_off(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    decision = bdb.decide("on a", because=[a]).id
    untouched = bdb.decide("on b", because=[b]).id
    # a bulk load as the benchmark does it: rows written with the triggers off
    su.all("set session_replication_role = replica")
    jid = su.one("insert into beliefdb.justification (workspace_id, consequent) values (%s, %s) returning id",
                 (su.ws, decision))
    su.all("""insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind,
                                                             consequent)
              values (%s, %s, %s, 'cites', %s)""", (su.ws, jid, b, decision))
    su.all("set session_replication_role = origin")
    assert str(jid) not in stored(su, decision)

    assert su.one("select beliefdb.refresh_decision_reasons(%s, %s::uuid[])", (su.ws, [decision, untouched, a])) == 1
    assert stored(su, decision) == from_edges(su, decision)
    assert stored(su, decision)[str(jid)] == [str(b)]
    assert su.one("select beliefdb.refresh_decision_reasons(%s, %s::uuid[])", (su.ws, [decision, untouched])) == 0


def test_the_revision_fills_the_reasons_of_existing_decisions(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """The frozen backfill of revision 0007 writes what the triggers would have."""
    a, b, c = fact(bdb, "a"), fact(bdb, "b"), fact(bdb, "c")
    decisions = [bdb.decide("one", because=[a], all_of=[[b, c]]).id, bdb.decide("two", because=[c]).id]
    kept = {d: stored(su, d) for d in decisions}
    su.all("set session_replication_role = replica")
    su.all("update beliefdb.decision set reasons = '{}' where workspace_id = %s", (su.ws,))
    su.all(revision_statement("update beliefdb.decision d"))
    su.all("set session_replication_role = origin")

    assert {d: stored(su, d) for d in decisions} == kept
    assert all(kept.values())


def test_impact_lists_each_survivor_by_its_live_reasons(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b, c, d = (fact(bdb, s) for s in "abcd")
    survivor = bdb.decide("on a, b or (c and d)", because=[a, b], all_of=[[c, d]]).id

    (row,) = [r for r in bdb.impact(a) if r.effect == "survives"]
    assert row.node == survivor

    live = {tuple(ants) for ants, is_live in su.all(
        "select antecedents, live from beliefdb.decision_support where decision = %s", (survivor,))
        if is_live and a not in ants}
    assert {tuple(UUID(x) for x in by) for by in row.detail["by"]} == live
    assert live == {(b,), tuple(sorted((c, d), key=str))}


# ---------------------------------------------------------------------------------------------
# beliefdb.adjacency


def adjacency_drift(conn: psycopg.Connection[Any], workspace_id: Any) -> set[tuple[Any, ...]]:
    """Rows of a workspace's adjacency that node, justification and justification_antecedent do not
    say, and rows they say that it lacks: empty when they agree."""
    with conn.transaction():
        adjacency = set(conn.execute("""
            select node, entry::text, justification, consequent, unmet, kind::text, holds, current, retracted,
                   related, support
              from beliefdb.adjacency where workspace_id = %(ws)s""", {"ws": workspace_id}).fetchall())
        tables = set(conn.execute("""
            select id, 'self', id, null::uuid, null::integer, kind::text, holds, current, retracted_at is not null,
                   -- a supersession or a tie involves the node
                   exists (select from beliefdb.relation r
                            where r.workspace_id = n.workspace_id and n.id in (r.from_belief, r.to_belief)
                              and r.kind::text in ('supersedes', 'conflicts_with')),
                   null::boolean
              from beliefdb.node n where workspace_id = %(ws)s
            union all
            select a.antecedent, 'out', a.justification_id, a.consequent, null, leaf.kind::text, leaf.holds,
                   leaf.current, leaf.retracted, null,
                   -- the edge carries its consequent's support
                   (select true from beliefdb.node c
                     where c.workspace_id = a.workspace_id and c.id = a.consequent and c.support = a.justification_id)
              from beliefdb.justification_antecedent a
              -- an edge into a leaf (not a belief, one justification of one antecedent, no edge out)
              -- carries the leaf
              left join lateral (
                    select n.kind, n.holds, n.current, n.retracted_at is not null as retracted
                      from beliefdb.node n
                     where n.workspace_id = a.workspace_id and n.id = a.consequent and n.kind <> 'belief'
                       and (select count(*) from beliefdb.justification c
                             where c.workspace_id = n.workspace_id and c.consequent = n.id) = 1
                       and (select count(*) from beliefdb.justification_antecedent e
                             where e.workspace_id = n.workspace_id and e.justification_id = a.justification_id) = 1
                       and (select count(*) from beliefdb.justification_antecedent e
                             where e.workspace_id = n.workspace_id and e.antecedent = n.id) = 0) leaf on true
             where a.workspace_id = %(ws)s
            union all
            select consequent, 'in', id, null, unmet, null, null, null, null, null, null
              from beliefdb.justification where workspace_id = %(ws)s""", {"ws": workspace_id}).fetchall())
    return adjacency ^ tables


def support_drift(conn: psycopg.Connection[Any], workspace_id: Any) -> list[tuple[Any, ...]]:
    """The nodes of a workspace whose stored support (node.support, node.support_rank) is not a
    well-founded support of what the node table says holds: empty when every node that holds is a
    premise of rank 0 or rests on a justification of its own whose antecedents are all current and
    rank strictly below it, and every node that does not hold has neither."""
    with conn.transaction():
        return conn.execute("""
            select n.id, n.kind::text, n.holds, n.support, n.support_rank
              from beliefdb.node n
             where n.workspace_id = %(ws)s
               and case
                   when not n.holds then n.support is not null or n.support_rank is not null
                   -- a premise: a fragment (of a version in force), a correction, a user input or a
                   -- step nothing was recorded as feeding
                   when n.support is null then
                        n.support_rank is distinct from 0
                        or not (n.kind in ('fragment', 'correction')
                                or n.kind = 'step'
                                   and (exists (select from beliefdb.step s where s.workspace_id = n.workspace_id
                                                   and s.id = n.id and s.kind = 'user_input')
                                        or not exists (select from beliefdb.justification j
                                                        where j.workspace_id = n.workspace_id
                                                          and j.consequent = n.id)))
                   else n.support_rank is null
                        or not exists (select from beliefdb.justification j
                                        where j.workspace_id = n.workspace_id and j.id = n.support
                                          and j.consequent = n.id)
                        or exists (select from beliefdb.justification_antecedent a
                                     join beliefdb.node m on m.workspace_id = a.workspace_id and m.id = a.antecedent
                                    where a.workspace_id = n.workspace_id and a.justification_id = n.support
                                      and not (m.current and m.support_rank < n.support_rank))
                   end""", {"ws": workspace_id}).fetchall()


@pytest.mark.slow
def test_the_adjacency_follows_every_kind_of_change(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """Ingest, decisions and actions, a new version, a correction, retraction and its undoing,
    forgetting, an agent's trace and its repair: after each, the adjacency is what the tables say."""
    a, b = fact(bdb, "a"), fact(bdb, "b")
    derived = bdb.derive("derived", "d", "v", "1", [a, b]).id
    decision = bdb.decide("on derived or b", because=[derived, b]).id
    bdb.act(decision, "go")
    assert su.one("select count(*) from beliefdb.adjacency where workspace_id = %s", (su.ws,)) > 10
    assert adjacency_drift(su.conn, su.ws) == set()

    fact(bdb, "a", "no")  # a new version of a's source without its quote
    assert adjacency_drift(su.conn, su.ws) == set()
    revision = next(x.revision for x in bdb.beliefs(include_all=True) if x.id == b)
    bdb.apply_correction(b, "b value is maybe.", reviewer="rita", expect_revision=revision)
    assert adjacency_drift(su.conn, su.ws) == set()
    bdb.retract(source="a", reason="withdrawn")
    assert adjacency_drift(su.conn, su.ws) == set()
    bdb.retract(source="a", reason="", undo=True)
    assert adjacency_drift(su.conn, su.ws) == set()
    lifecycle.forget(bdb.database, belief=derived)
    assert adjacency_drift(su.conn, su.ws) == set()

    story = record_story(bdb)
    assert adjacency_drift(su.conn, su.ws) == set()
    bdb.repair_apply([story.m_bad])
    assert adjacency_drift(su.conn, su.ws) == set()
    lifecycle.forget(bdb.database, source="a")
    assert adjacency_drift(su.conn, su.ws) == set()


def test_rebuild_rewrites_a_workspace_written_with_triggers_off(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a = fact(bdb, "a")
    bdb.decide("on a", because=[a])
    rows = su.one("select count(*) from beliefdb.adjacency where workspace_id = %s", (su.ws,))
    su.all("set session_replication_role = replica")
    su.all("delete from beliefdb.adjacency where workspace_id = %s and entry = 'in'", (su.ws,))
    su.all("update beliefdb.node set holds = not holds where id = %s", (a,))
    su.all("set session_replication_role = origin")
    assert adjacency_drift(su.conn, su.ws) != set()

    assert su.one("select beliefdb.rebuild_adjacency(%s)", (su.ws,)) == rows
    assert adjacency_drift(su.conn, su.ws) == set()
    su.all("update beliefdb.node set holds = not holds where id = %s", (a,))
    assert adjacency_drift(su.conn, su.ws) == set()


def decision_edge_drift(conn: psycopg.Connection[Any], workspace_id: Any) -> list[tuple[Any, ...]]:
    """The adjacency rows of a workspace whose into_decision is not what the node table says (out
    rows: whether the consequent is a decision; other rows: null): empty when they agree."""
    with conn.transaction():
        return conn.execute("""
            select x.node, x.entry::text, x.justification, x.into_decision
              from beliefdb.adjacency x
              left join beliefdb.node c on c.workspace_id = x.workspace_id and c.id = x.consequent
             where x.workspace_id = %(ws)s
               and x.into_decision is distinct from case when x.entry = 'out' then c.kind = 'decision' end""",
                            {"ws": workspace_id}).fetchall()


def test_out_rows_say_whether_their_consequent_is_a_decision(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """adjacency.into_decision (revision 0030), through the changes of the graph's edges, a rebuild
    and the revision's own backfill."""
    a, b = fact(bdb, "a"), fact(bdb, "b")
    derived = bdb.derive("derived", "d", "v", "1", [a, b]).id
    decision = bdb.decide("on derived or b", because=[derived, b]).id
    bdb.act(decision, "go")
    bdb.decide("on a and b", all_of=[[a, b]])
    assert su.one("select count(*) from beliefdb.adjacency where workspace_id = %s and entry = 'out' "
                  "and into_decision", (su.ws,)) == 4
    assert decision_edge_drift(su.conn, su.ws) == []
    revision = next(x.revision for x in bdb.beliefs(include_all=True) if x.id == b)
    bdb.apply_correction(b, "b value is maybe.", reviewer="rita", expect_revision=revision)
    bdb.retract(source="a", reason="withdrawn")
    bdb.retract(source="a", reason="", undo=True)
    lifecycle.forget(bdb.database, belief=derived)
    assert decision_edge_drift(su.conn, su.ws) == []
    story = record_story(bdb)
    bdb.repair_apply([story.m_bad])
    assert decision_edge_drift(su.conn, su.ws) == []

    rows = su.one("select count(*) from beliefdb.adjacency where workspace_id = %s", (su.ws,))
    assert su.one("select beliefdb.rebuild_adjacency(%s)", (su.ws,)) == rows
    assert decision_edge_drift(su.conn, su.ws) == []
    # the revision's backfill, of rows that carry none (its constraints taken away first, as it does)
    su.all("alter table beliefdb.adjacency drop constraint adjacency_check")
    su.all("update beliefdb.adjacency set into_decision = null")
    su.all(revision_statement("update beliefdb.adjacency x", "0030_decision_edges.sql"))
    assert decision_edge_drift(su.conn, su.ws) == []


def test_the_revisions_fill_the_adjacency_of_existing_nodes(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """The frozen backfills of revisions 0007 (the rows), 0008 (the leaf columns of the out rows)
    and 0009 (which beliefs a supersession or a tie involves) write what the triggers would have,
    and 0009's check holds for it."""
    a, b = fact(bdb, "a"), fact(bdb, "b")
    bdb.act(bdb.decide("on a and b", all_of=[[a, b]]).id, "go")
    bdb.decide("on a", because=[a])
    revision = next(x.revision for x in bdb.beliefs(include_all=True) if x.id == b)
    replacement = bdb.apply_correction(b, "b value is maybe.", reviewer="rita", expect_revision=revision).replacement
    # the table as revision 0008 left it
    su.all("""alter table beliefdb.adjacency drop constraint adjacency_check, drop constraint adjacency_pkey,
                                             drop column related""")
    su.all("set session_replication_role = replica")
    su.all("delete from beliefdb.adjacency")
    su.all(revision_statement("insert into beliefdb.adjacency"))
    su.all(revision_statement("update beliefdb.adjacency x", "0008_leaf_entries.sql"))
    su.all("set session_replication_role = origin")
    assert su.one("select count(*) from beliefdb.adjacency where workspace_id = %s and entry = 'out' "
                  "and kind is not null", (su.ws,)) == 2  # into the action and into "on a"
    su.all(revision_statement("alter table beliefdb.adjacency add constraint", "0008_leaf_entries.sql"))
    su.all("alter table beliefdb.adjacency add constraint adjacency_pkey primary key "
           "(workspace_id, node, entry, justification) include (consequent, unmet, kind, holds, current, retracted)")

    su.all((REVISIONS / "0009_related_beliefs.sql").read_text(encoding="utf-8"))
    # and 0022's supports, of nodes that had none: the nodes' from the holding, level by level,
    # then the out rows that carry them
    su.all("set session_replication_role = replica")
    su.all("update beliefdb.node set support = null, support_rank = null")
    su.all("set session_replication_role = origin")
    supports = (REVISIONS / "0022_supports.sql").read_text(encoding="utf-8")
    su.all(supports[supports.index("do $$"):supports.index("$$;", supports.index("do $$") + 5) + 3])
    assert su.one("select count(*) filter (where support is not null)"
                  " = count(*) filter (where holds and kind in ('belief', 'decision', 'action'))"
                  " and count(*) filter (where support is not null) > 3"
                  " from beliefdb.node where workspace_id = %s", (su.ws,))
    su.all(revision_statement("update beliefdb.adjacency x", "0022_supports.sql"))
    assert support_drift(su.conn, su.ws) == []
    assert adjacency_drift(su.conn, su.ws) == set()
    assert {r[0] for r in su.all("select node from beliefdb.adjacency where workspace_id = %s and related",
                                 (su.ws,))} == {b, replacement}
    assert su.one("select count(*) from beliefdb.adjacency where workspace_id = %s", (su.ws,)) > 5


@pytest.mark.slow
def test_a_belief_is_related_while_a_supersession_or_a_tie_names_it(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """adjacency.related (revision 0009) follows the relations that name a belief, through their
    insert, update and delete and through changes of the belief's own standing: the walk looks up
    the relations of related beliefs alone."""
    a, b, c = fact(bdb, "a"), fact(bdb, "b"), fact(bdb, "c")

    def related() -> set[UUID]:
        return {r[0] for r in su.all(
            "select node from beliefdb.adjacency where workspace_id = %s and entry = 'self' and related", (su.ws,))}

    assert related() == set()
    tie = su.one("""insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind)
                    values (%s, %s, %s, 'clarifies') returning id""", (su.ws, a, b))
    assert related() == set()  # not a relation the walk follows
    su.all("update beliefdb.relation set kind = 'conflicts_with' where id = %s", (tie,))
    assert related() == {a, b}
    su.all("update beliefdb.relation set to_belief = %s where id = %s", (c, tie))
    assert related() == {a, c}
    bdb.retract(belief=a, reason="wrong")  # a's standing changes: its self row is written again
    assert related() == {a, c}
    assert adjacency_drift(su.conn, su.ws) == set()
    su.all("delete from beliefdb.relation where id = %s", (tie,))
    assert related() == set()

    revision = next(x.revision for x in bdb.beliefs(include_all=True) if x.id == b)
    replacement = bdb.apply_correction(b, "b value is maybe.", reviewer="rita", expect_revision=revision).replacement
    assert related() == {b, replacement}
    lifecycle.forget(bdb.database, belief=replacement)
    assert related() == set()
    assert adjacency_drift(su.conn, su.ws) == set()


def test_the_app_reads_only_its_workspace_adjacency(bdb: beliefdb.BeliefDB, su: Su) -> None:
    fact(bdb, "a")
    other = su.one("insert into beliefdb.workspace (name) values ('other') returning id")
    su.all("insert into beliefdb.node (workspace_id, kind) values (%s, 'correction')", (other,))
    assert su.one("select count(*) from beliefdb.adjacency where workspace_id = %s", (other,)) == 1
    with bdb.database.transaction() as conn:
        seen = conn.execute("select array_agg(distinct workspace_id) from beliefdb.adjacency").fetchone()
    assert seen is not None and seen[0] == [UUID(su.ws)]


# ---------------------------------------------------------------------------------------------
# leaves (revision 0008): an edge into a node that is not a belief, has one justification of one
# antecedent and no edge out carries that node's standing, so the walk never reads it


def leaf_columns(su: Su, antecedent: UUID, consequent: UUID) -> tuple[Any, ...] | None:
    """The leaf columns of the out row from ``antecedent`` into ``consequent``; None when empty."""
    (row,) = su.all("""select kind::text, holds, current, retracted from beliefdb.adjacency
                        where workspace_id = %s and node = %s and entry = 'out' and consequent = %s""",
                    (su.ws, antecedent, consequent))
    return None if row[0] is None else row


def test_an_edge_into_a_leaf_carries_the_leaf_through_its_changes(bdb: beliefdb.BeliefDB, su: Su) -> None:
    a, b = fact(bdb, "a"), fact(bdb, "b")
    decision = bdb.decide("on a", because=[a]).id
    # nothing carries the decision out and it has one reason: a leaf
    assert leaf_columns(su, a, decision) == ("decision", True, True, False)
    action = bdb.act(decision, "go").id
    # carried out, it is no leaf (the walk must read its edge out); the action is
    assert leaf_columns(su, a, decision) is None
    assert leaf_columns(su, decision, action) == ("action", True, True, False)

    # the decision stops holding, and so does its action: the edge into the action says so
    bdb.retract(belief=a, reason="wrong")
    assert leaf_columns(su, decision, action) == ("action", False, False, False)
    bdb.retract(belief=a, reason="", undo=True)
    assert leaf_columns(su, decision, action) == ("action", True, True, False)

    # a second reason makes a leaf no leaf, and losing it a leaf again
    other = bdb.decide("on b", because=[b]).id
    assert leaf_columns(su, b, other) == ("decision", True, True, False)
    second = su.one("insert into beliefdb.justification (workspace_id, consequent) values (%s, %s) returning id",
                    (su.ws, other))
    assert leaf_columns(su, b, other) is None
    su.all("insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)"
           " values (%s, %s, %s, 'cites')", (su.ws, second, a))
    assert leaf_columns(su, b, other) is None and leaf_columns(su, a, other) is None
    su.all("delete from beliefdb.justification where id = %s", (second,))
    assert leaf_columns(su, b, other) == ("decision", True, True, False)
    # one reason of two antecedents: no leaf (what it misses is not its one antecedent's standing)
    (only,) = su.all("select id from beliefdb.justification where consequent = %s", (other,))
    su.all("insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)"
           " values (%s, %s, %s, 'cites')", (su.ws, only[0], a))
    assert leaf_columns(su, b, other) is None and leaf_columns(su, a, other) is None
    su.all("delete from beliefdb.justification_antecedent where justification_id = %s and antecedent = %s",
           (only[0], a))
    assert leaf_columns(su, b, other) == ("decision", True, True, False)

    # retracted, the leaf says so on its edge
    su.all("update beliefdb.node set retracted_at = now() where id = %s", (action,))
    assert leaf_columns(su, decision, action) == ("action", True, True, True)
    # forgetting what the action carries out takes the edge with it; nothing is left to drift
    su.all("delete from beliefdb.justification_antecedent where antecedent = %s", (decision,))
    assert su.all("select 1 from beliefdb.adjacency where node = %s and entry = 'out'", (decision,)) == []
    assert leaf_columns(su, a, decision) == ("decision", True, True, False)
    assert adjacency_drift(su.conn, su.ws) == set()


def test_impact_reads_no_leaf_yet_reports_it(bdb: beliefdb.BeliefDB, su: Su) -> None:
    """The walk takes an action from the edge into it: impact still says it stops holding and is
    held, and naming the leaf itself still works, alone or with what it rests on (then it is read
    as a seed and reached by its edge too, and counted once)."""
    a, b = fact(bdb, "a"), fact(bdb, "b")
    decision = bdb.decide("on a", because=[a]).id
    action = bdb.act(decision, "go").id
    kept = bdb.decide("on a or b", because=[a, b]).id
    effects = {(row.node, row.effect) for row in bdb.impact(a)}
    assert effects == {(a, "stops_holding"), (decision, "stops_holding"), (decision, "flag"),
                       (action, "stops_holding"), (action, "hold"), (kept, "survives")}
    assert {(row.node, row.effect) for row in bdb.impact(action)} == {(action, "stops_holding")}
    both = [(row.node, row.effect) for row in bdb.impact(a, action)]
    assert len(both) == len(set(both)) and set(both) == effects
