"""Regressions found in review: supersession, re-verification, lock order, derived confidence."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb import errors


def _one(report: Any) -> Any:
    (accepted,) = report.accepted
    return accepted.id


def _claim(db: beliefdb.BeliefDB, source: str, text: str, value: str, authority: str) -> Any:
    return _one(db.remember(text, "return_policy", "window", value, text, source=source, text=text,
                            authority=authority))


def test_a_superseded_belief_keeps_support_through_a_new_version_and_returns(bdb: beliefdb.BeliefDB) -> None:
    seven = _claim(bdb, "s1", "Returns within 7 days.", "7 days", "internal")
    fifteen = _claim(bdb, "s2", "Returns within 15 days.", "15 days", "official")
    report = bdb.ingest_text("Returns within 7 days. Call us.", source="s1", extractor="none")
    assert report.reverified == [seven]
    bdb.retract(source="s2", reason="withdrawn")
    statuses = {b.id: b.status for b in bdb.beliefs(subject="return_policy", include_all=True)}
    assert statuses == {seven: "current", fifteen: "unsupported"}


def test_beliefs_current_again_are_settled_by_rule_8(bdb: beliefdb.BeliefDB) -> None:
    seven = _claim(bdb, "s1", "Returns within 7 days.", "7 days", "internal")
    fifteen = _claim(bdb, "s2", "Returns within 15 days.", "15 days", "official")
    ten = _claim(bdb, "s3", "Returns within 10 days.", "10 days", "internal")
    bdb.retract(source="s2", reason="withdrawn")
    statuses = {b.id: b.status for b in bdb.beliefs(subject="return_policy", include_all=True)}
    # the later internal belief wins among the two that came back; the withdrawn one is unsupported
    assert statuses == {seven: "superseded", ten: "current", fifteen: "unsupported"}
    assert [b.value for b in bdb.beliefs(subject="return_policy")] == ["10 days"]


@pytest.mark.slow
def test_a_correction_waits_for_another_writer_instead_of_deadlocking(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    belief = _claim(bdb, "s1", "Returns within 7 days.", "7 days", "internal")
    revision = bdb.preview_correction(belief).revision
    fragment = bdb.why(belief).evidence[0].fragment_id
    with psycopg.connect(db_url) as other:
        other.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
        other.execute("set role beliefdb_app")
        other.execute("select beliefdb.lock_workspace()")  # holds the workspace write lock
        outcome: list[object] = []

        def apply() -> None:
            try:
                outcome.append(bdb.apply_correction(belief, "Returns within 10 days.", value="10 days",
                                                    reviewer="rita", expect_revision=revision))
            except beliefdb.BeliefDBError as exc:
                outcome.append(exc)

        applier = threading.Thread(target=apply)
        applier.start()
        applier.join(timeout=1.0)
        assert applier.is_alive(), "the correction must wait for the other writer"
        other.execute("select beliefdb.retract('node', %s::text, 'bad quote')", (fragment,))
        other.commit()
        applier.join(timeout=30)
    assert not applier.is_alive()
    # the retraction committed first and moved the belief's revision: the preview is stale (and
    # nothing deadlocked, which would surface as a database error here instead)
    assert len(outcome) == 1 and isinstance(outcome[0], errors.StaleCorrectionPreview), outcome


def test_derived_confidence_follows_its_sources_through_a_chain(bdb: beliefdb.BeliefDB) -> None:
    sky = _one(bdb.remember("The sky is blue.", "sky", "colour", "blue", "The sky is blue.", source="a1",
                            text="The sky is blue.", authority="internal"))
    first = bdb.derive("Photos will be blue.", "photo", "colour", "blue", [sky])
    second = bdb.derive("Prints will be blue.", "print", "colour", "blue", [first.id])
    bdb.remember("The sky is blue.", "sky", "colour", "blue", "The sky is blue.", source="a2",
                 text="From the almanac. The sky is blue.", authority="official")
    confidence = {b.id: b.confidence for b in bdb.beliefs(include_all=True)}
    assert confidence[sky] > 0.95
    assert confidence[first.id] == confidence[sky] and confidence[second.id] == confidence[sky]


@pytest.mark.slow
def test_a_long_product_of_confidences_is_small_not_an_error(bdb: beliefdb.BeliefDB) -> None:
    """A belief derived from a hundred unverified ones (0.3 each) has confidence 0.3**100, below
    what a real can hold: it is floored at 1e-9 instead of failing every statement that computes
    it (found when the benchmark's graph was first loaded with the confidences the rules give)."""
    text = "".join(f"Item {i}: value {i}\n" for i in range(100))
    report = bdb.ingest_text(text, source="inventory", authority="unverified")
    facts = [b.id for b in report.accepted]
    assert len(facts) == 100
    derived = bdb.derive("Everything in the inventory holds.", "inventory", "complete", "yes", facts)
    confidence = {b.id: b.confidence for b in bdb.beliefs(include_all=True)}
    assert confidence[facts[0]] == pytest.approx(0.3)
    assert confidence[derived.id] == pytest.approx(1e-9)
    assert {f.factor: f.weight for f in bdb.why(derived.id).confidence}["derived"] == pytest.approx(1e-9)


@pytest.mark.slow
def test_a_belief_without_sources_keeps_no_confidence(bdb: beliefdb.BeliefDB) -> None:
    """No source is no product: a belief whose only source was retracted has confidence 0, through a
    recompute of everything (the floor on products must not turn an empty product into one). An
    agent's memory has no quoted source either: it has the explained weight of an agent's memory
    (confidence_policy trace/memory), not 0 and not an empty product floored to 1."""
    from beliefdb.store import lifecycle
    from tests.test_repair import record_story

    story = record_story(bdb)
    quoted = _claim(bdb, "s1", "Returns within 7 days.", "7 days", "internal")
    bdb.retract(source="s1", reason="withdrawn")
    lifecycle.decay(bdb.database)
    confidence = {b.id: b.confidence for b in bdb.beliefs(include_all=True)}
    assert confidence[story.m_bad] == pytest.approx(0.5) and confidence[story.m_home] == pytest.approx(0.5)
    assert confidence[quoted] == 0
