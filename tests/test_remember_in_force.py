"""Rule 2, the version in force, for `remember` without text (`beliefdb.add_claims_to_source`): a
claim is checked against the version in force, the latest version not retracted of a source not
retracted (`beliefdb.in_force`), not merely the latest version; with none in force it is refused
with the reason."""

from __future__ import annotations

import pytest
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb import errors


def _two_versions_second_retracted(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Return window: 7 days\nShipping fee: 5 EUR\n", source="pol", authority="official", embed=False)
    bdb.ingest_text("Return window: 9 days\nTax: 3 EUR\n", source="pol", embed=False)
    bdb.retract(source="pol", version=2, reason="v2 was wrong")  # v1 is back in force


def test_remember_without_text_quotes_the_version_back_in_force_not_a_retracted_later_one(
        bdb: beliefdb.BeliefDB) -> None:
    _two_versions_second_retracted(bdb)
    back = bdb.remember("Shipping is 5 EUR", "shipping", "fee", "5 EUR", quote="Shipping fee: 5 EUR", source="pol")
    assert [a.value for a in back.accepted] == ["5 EUR"], back.rejected
    assert back.version == 1
    assert {b.status for b in bdb.beliefs(include_all=True) if b.subject == "shipping"} == {"current"}
    retracted = bdb.remember("Tax is 3 EUR", "tax", "rate", "3 EUR", quote="Tax: 3 EUR", source="pol")
    assert retracted.accepted == []
    assert [r.reason for r in retracted.rejected] == ["quote is not in the source text"]
    assert not [b for b in bdb.beliefs(include_all=True) if b.subject == "tax"]


def test_add_claims_to_source_checks_claims_against_the_version_in_force(bdb: beliefdb.BeliefDB) -> None:
    _two_versions_second_retracted(bdb)
    claim = {"statement": "Shipping is 5 EUR", "subject": "shipping", "attribute": "fee", "value": "5 EUR",
             "quote": "Shipping fee: 5 EUR", "start": 22, "end": 41}
    with bdb.database.transaction() as c:
        out = c.execute("select beliefdb.add_claims_to_source('pol', %s)", (Jsonb([claim]),)).fetchone()
    assert out is not None and len(out[0]["accepted"]) == 1, out
    (belief,) = [b for b in bdb.beliefs() if b.subject == "shipping"]
    assert belief.status == "current"


def test_remember_without_text_on_a_retracted_source_says_it_is_retracted(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Shipping fee: 5 EUR\n", source="fees", embed=False)
    bdb.retract(source="fees", reason="wrong")
    with pytest.raises(errors.InvalidInput, match=r"source fees is retracted: restore it first"):
        bdb.remember("Shipping is 5 EUR", "shipping", "fee", "5 EUR", quote="Shipping fee: 5 EUR", source="fees")


def test_remember_without_text_on_a_source_whose_every_version_is_retracted_says_so(
        bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Shipping fee: 5 EUR\n", source="fees", embed=False)
    bdb.retract(source="fees", version=1, reason="wrong")
    with pytest.raises(errors.InvalidInput, match=r"source fees has no version in force: every version"):
        bdb.remember("Shipping is 5 EUR", "shipping", "fee", "5 EUR", quote="Shipping fee: 5 EUR", source="fees")


def test_remember_without_text_on_an_unknown_source_still_says_ingest_it_first(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.NotFound, match=r"unknown source 'nowhere' \(ingest it first"):
        bdb.remember("x", "a", "b", "c", quote="x", source="nowhere")
