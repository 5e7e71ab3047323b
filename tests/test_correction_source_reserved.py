"""Rule 6: a correction's evidence is the reviewer's text, a source of its own (``correction:<uuid>``) that
holds that text alone. No other text goes to it: a text ingested there became its version 2, the reviewer's
fragment went out of force and the replacement stopped holding, a correction undone by an ingest. Nor is a
new source named so: the name says it is a reviewer's correction."""

from __future__ import annotations

import pytest

import beliefdb
from beliefdb import errors


def _corrected(bdb: beliefdb.BeliefDB) -> tuple[str, str]:
    bdb.ingest_text("Return window: 7 days\n", source="pol", authority="official", embed=False)
    (old,) = bdb.beliefs()
    res = bdb.apply_correction(old.id, "Returns are accepted within 15 days.", value="15 days", reviewer="rita",
                               expect_revision=bdb.preview_correction(old.id).revision)
    (reviewer,) = [e.source for e in bdb.why(res.replacement).evidence if e.source.startswith("correction:")]
    return str(res.replacement), reviewer


def test_no_text_goes_to_a_corrections_source(bdb: beliefdb.BeliefDB) -> None:
    replacement, reviewer = _corrected(bdb)
    with pytest.raises(errors.InvalidInput, match="correction"):
        bdb.ingest_text("Return window: 30 days\n", source=reviewer, embed=False)
    with pytest.raises(errors.InvalidInput, match="correction"):
        bdb.remember("Returns are accepted within 15 days.", "return_policy", "window", "15 days",
                     quote="Returns are accepted within 15 days.", source=reviewer,
                     text="Returns are accepted within 15 days.")
    assert [b.value for b in bdb.beliefs()] == ["15 days"]
    assert str(bdb.beliefs()[0].id) == replacement


def test_no_new_source_is_named_as_a_correction(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput, match="correction:"):
        bdb.ingest_text("Return window: 30 days\n", source="correction:mine", embed=False)
    assert bdb.beliefs() == []
