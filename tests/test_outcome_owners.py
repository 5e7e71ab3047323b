"""Who records an outcome (rule 17): an outcome reports what happened, whoever saw it; it is not a
change of a belief. Any principal of the workspace records one for any decision or action, the
outcome names who recorded it, and an action's status follows it, as the action's owner's would."""

from __future__ import annotations

import psycopg

import beliefdb


def test_any_principal_records_an_outcome_and_is_named(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB,
                                                      db_url: str) -> None:
    belief = alice.remember("Refunds above 500 euros need a manager", "refund", "approval", "manager",
                            "Refunds above 500 euros need a manager.", source="finance.md",
                            text="Refunds above 500 euros need a manager.").accepted[0].id
    decision = alice.decide("Ask a manager for refund 77", because=[belief]).id
    action = alice.act(decision, "email the manager").id
    recorded = bob.record_outcome(action, "rolled_back", note="the manager was away")
    assert recorded.status == "rolled_back"
    assert {a.id: a.status for a in alice.actions()} == {action: "rolled_back"}
    with psycopg.connect(db_url) as conn:
        row = conn.execute("select recorded_by, outcome from beliefdb.outcome where node = %s", (action,)).fetchone()
    assert row == ("bob", "rolled_back")
