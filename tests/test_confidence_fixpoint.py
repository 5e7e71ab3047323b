"""Confidence is right in one pass (rule 9): decay and recompute reach the fixpoint over derived
beliefs in one run, and an agent's memory has an explained confidence."""

from __future__ import annotations

import pytest
from conftest import url_at

import beliefdb
from beliefdb.store import lifecycle


def stored(db: beliefdb.BeliefDB) -> dict[object, float]:
    return {b.id: b.confidence for b in db.beliefs(include_all=True)}


def test_one_decay_run_reaches_the_fixpoint_over_derived_levels(db_url: str) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as db:
        (base,) = db.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="official").accepted
        one = db.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id])
        two = db.derive("Late holiday returns cost 10%", "late_holiday_return", "fee", "10%", [one.id])
        three = db.derive("Late holiday returns of sale items cost 10%", "late_sale_return", "fee", "10%", [two.id])
        before = stored(db)
        assert before[three.id] == pytest.approx(before[base.id])
    with beliefdb.connect(url_at(db_url, "2027-01-01T00:00:00Z")) as db:
        report = lifecycle.decay(db.database)
        after = stored(db)
        # a year on, the policy faded (half-life 90 days); every level derived from it follows in the same run
        recency = {f.factor: f.weight for f in db.why(base.id).confidence}["recency"]
        assert recency < 0.1 and after[base.id] == pytest.approx(before[base.id] * recency, rel=1e-3)
        assert after[one.id] == after[two.id] == after[three.id] == pytest.approx(after[base.id])
        assert report.changed == 4
        # and why agrees with the stored value, factor by factor
        factors = {f.factor: f.weight for f in db.why(three.id).confidence}
        assert factors["confidence"] == pytest.approx(after[three.id]) == pytest.approx(factors["derived"])
        # a second run has nothing left to do
        assert lifecycle.decay(db.database).changed == 0


def test_recompute_reaches_the_fixpoint_too(bdb: beliefdb.BeliefDB, postgresql: object) -> None:
    import psycopg

    assert isinstance(postgresql, psycopg.Connection)
    (base,) = bdb.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="official").accepted
    one = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id])
    two = bdb.derive("Late holiday returns cost 10%", "late_holiday_return", "fee", "10%", [one.id])
    postgresql.execute("update beliefdb.confidence_policy set weight = 0.6 where factor = 'authority' "
                       "and key = 'official'")
    postgresql.commit()
    try:
        lifecycle.recompute(bdb.database)
        after = stored(bdb)
        assert after[base.id] == pytest.approx(0.6) and after[two.id] == pytest.approx(0.6)
    finally:
        postgresql.execute("update beliefdb.confidence_policy set weight = 0.9 where factor = 'authority' "
                           "and key = 'official'")
        postgresql.commit()


def test_an_agents_memory_has_an_explained_confidence(bdb: beliefdb.BeliefDB) -> None:
    with bdb.record_run(task="remember the traveller", agent="travel") as run:
        said = run.step("user_input", {"text": "I fly from SFO"})
        wrote = run.step("memory_write", {"key": "home_airport"}, inputs=[("initiates", said)])
        memory = run.memory(wrote, "user:42", "home_airport", "SFO", kind="preference")
    why = bdb.why(memory)
    factors = {f.factor: (f.weight, f.detail) for f in why.confidence}
    assert why.belief.confidence == pytest.approx(0.5)
    assert factors["agent_memory"][0] == pytest.approx(0.5) and "trace/memory" in factors["agent_memory"][1]
    assert factors["confidence"][0] == pytest.approx(0.5)
    answer = bdb.ask("what is the home airport of user 42?", min_confidence=0.1)
    assert [a.belief.id for a in answer.beliefs] == [memory]
