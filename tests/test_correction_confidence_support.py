"""Rules 9 and 6: a reviewer's correction weighs (confidence_policy correction/human_correction) only
while the correction's own quote, the reviewer's text, still supports its replacement. With that text
retracted, the replacement's confidence is what still supports it (noisy-or of the sources in force),
0 when nothing does; the stored confidence (propagation), `why` (confidence_factors) and as-of
(confidence_factors_at) agree."""

from __future__ import annotations

import datetime as dt
import time
from uuid import UUID

import pytest

import beliefdb

UTC = dt.UTC


def _stored(bdb: beliefdb.BeliefDB, belief: UUID) -> tuple[str, float]:
    (b,) = [x for x in bdb.beliefs(include_all=True) if x.id == belief]
    return b.status, b.confidence


def _as_of_now(bdb: beliefdb.BeliefDB, belief: UUID) -> float:
    with bdb.database.transaction() as c:  # as of now
        rows = c.execute("select factor, weight from beliefdb.confidence_factors_at("
                         "beliefdb.current_workspace_id(), %s, now())", (belief,)).fetchall()
    assert rows[-1][0] == "confidence"
    return float(rows[-1][1])


def _all_agree(bdb: beliefdb.BeliefDB, belief: UUID) -> tuple[str, float]:
    status, stored = _stored(bdb, belief)
    why = bdb.why(belief).confidence
    assert why[-1].factor == "confidence"
    assert why[-1].weight == pytest.approx(stored, abs=1e-6)
    assert _as_of_now(bdb, belief) == pytest.approx(stored, abs=1e-6)
    bdb.recompute()
    assert _stored(bdb, belief)[1] == pytest.approx(stored, abs=1e-6)  # the fixpoint: nothing moves
    return status, stored


def test_a_corrections_weight_ends_with_its_reviewers_text(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Return window: 7 days\n", source="pol", authority="official", embed=False)
    (old,) = bdb.beliefs()
    res = bdb.apply_correction(old.id, "Returns are accepted within 15 days.", value="15 days", reviewer="rita",
                               expect_revision=bdb.preview_correction(old.id).revision)
    new = res.replacement
    assert _all_agree(bdb, new) == ("current", pytest.approx(0.95, abs=1e-6))
    bdb.ingest_text("Return window: 15 days\n", source="forum", authority="unverified", embed=False)
    assert _all_agree(bdb, new) == ("current", pytest.approx(0.95, abs=1e-6))  # corroborated: still the correction's
    (reviewer,) = [e.source for e in bdb.why(new).evidence if e.source.startswith("correction:")]
    bdb.retract(source=reviewer, reason="reviewer was wrong")
    # held by the unverified forum quote alone: the forum's weight, not the reviewer's
    assert _all_agree(bdb, new) == ("current", pytest.approx(0.30, abs=1e-6))
    factors = [f.factor for f in bdb.why(new).confidence]
    assert "correction" not in factors and "authority" in factors, factors
    bdb.retract(source="forum", reason="spam")
    assert _all_agree(bdb, new) == ("unsupported", 0.0)
    bdb.retract(source=reviewer, reason="restored", undo=True)
    assert _all_agree(bdb, new) == ("current", pytest.approx(0.95, abs=1e-6))


def test_as_of_a_correction_weighs_only_while_its_text_was_in_force(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Return window: 7 days\n", source="pol", authority="official", embed=False)
    (old,) = bdb.beliefs()
    res = bdb.apply_correction(old.id, "Returns are accepted within 15 days.", value="15 days", reviewer="rita",
                               expect_revision=bdb.preview_correction(old.id).revision)
    time.sleep(0.01)
    before = dt.datetime.now(UTC)
    (reviewer,) = [e.source for e in bdb.why(res.replacement).evidence if e.source.startswith("correction:")]
    bdb.retract(source=reviewer, reason="reviewer was wrong")
    (then,) = [x for x in bdb.beliefs(as_of=before) if x.id == res.replacement]
    assert then.confidence == pytest.approx(0.95, abs=1e-6)
    assert _all_agree(bdb, res.replacement) == ("unsupported", 0.0)
