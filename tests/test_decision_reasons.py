"""decision.reasons: each decision carries its justifications with their antecedents, kept by
triggers on the antecedent edges, so impact lists what a surviving decision rests on from the
decision row it reads anyway. These tests check the copy against the edges it summarises, through
every way the edges change, and impact's "by" lists against the decision_support view.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest

import beliefdb
from beliefdb import lifecycle
from tests.test_truth_maintenance import Su, fact

REVISION_SQL = Path(__file__).parents[1] / "migrations" / "versions" / "0007_decision_reasons.sql"


@pytest.fixture
def su(postgresql: psycopg.Connection[Any], bdb: beliefdb.BeliefDB) -> Su:
    return Su(postgresql, bdb.database.workspace_id)


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


def test_a_justification_moved_by_a_dba_moves_its_reason(bdb: beliefdb.BeliefDB, su: Su) -> None:
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
    backfill = REVISION_SQL.read_text(encoding="utf-8").split("alter table beliefdb.decision add column", 1)[1]
    su.all(backfill.split(";", 1)[1])  # the statements after the column is added
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
