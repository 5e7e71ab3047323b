"""Support a belief has lost counts for nothing (rules 2, 5, 8, 9): a quote whose version is no longer in
force (a new text dropped it, or the version that stated it was retracted) or whose fragment was retracted
supports nothing, so it is neither an independent source of the belief's confidence nor a source of its rank
under rule 8. Before, only a retracted *source* was left out: "7 days" stated by an official and an internal
document kept 0.98 and "2 independent source(s)" after the official one dropped the sentence, and a later
internal "15 days" lost to it by the official authority it no longer had. And the moment a belief's support
was recorded is when its quote's text was: an appended turn is as new as its turn, not as old as the
conversation's first turn."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import url_at

import beliefdb
from beliefdb.models import Why

START = datetime(2026, 1, 1, tzinfo=UTC)
P7 = "Returns are accepted within 7 days of delivery.\n"
P15 = "Returns are accepted within 15 days of delivery.\n"
FILL = "Thank you for shopping with us.\n"
WAYS = ["dropped", "fragment_retracted", "version_retracted", "restating_version_retracted"]


def moment(day: float) -> datetime:
    return START + timedelta(days=day)


def at(db_url: str, day: float) -> beliefdb.BeliefDB:
    return beliefdb.connect(url_at(db_url, moment(day).isoformat()), workspace="default")


def sources(why: Why) -> tuple[list[str], float]:
    """The authority factors' details and the combined weight of the independent sources."""
    (combined,) = [f for f in why.confidence if f.factor == "independent_sources"]
    return sorted(f.detail for f in why.confidence if f.factor == "authority"), combined.weight


def lose_official_support(db_url: str, way: str) -> str:
    """Day 0: "7 days" in official s1.md and internal s2.md. Day 1: s1.md stops supporting it, one of
    of the ways. Returns the belief's id."""
    with at(db_url, 0) as db:
        if way == "version_retracted":
            db.ingest_text(FILL, source="s1.md", authority="official")
        db.ingest_text(P7, source="s1.md", authority="official")
        if way == "restating_version_retracted":
            # v2 drops the sentence, v3 says it again: retracting v3 puts v2 back in force, and v1,
            # which quotes it too, is no longer in force
            db.ingest_text(FILL, source="s1.md", authority="official")
            db.ingest_text(P7 + FILL, source="s1.md", authority="official")
        belief = str(db.ingest_text(FILL + P7, source="s2.md", authority="internal").corroborated[0].id)
        assert sources(db.why(belief))[1] == pytest.approx(1 - 0.1 * 0.2)
    with at(db_url, 1) as db:
        if way == "dropped":
            db.ingest_text(FILL, source="s1.md", authority="official")
        elif way == "fragment_retracted":
            (official,) = [e for e in db.why(belief).evidence if e.source == "s1.md"]
            db.retract(fragment=official.fragment_id, reason="misquoted")
        elif way == "version_retracted":
            db.retract(source="s1.md", version=2, reason="v2 was a mistake")
        else:
            db.retract(source="s1.md", version=3, reason="v3 was a mistake")
    return belief


@pytest.mark.parametrize("way", WAYS)
def test_confidence_counts_only_quotes_that_still_support(db_url: str, way: str) -> None:
    belief = lose_official_support(db_url, way)
    with at(db_url, 1) as db:
        why = db.why(belief)
        if way != "fragment_retracted":
            assert {e.in_force for e in why.evidence if e.source == "s1.md"} == {False}
        assert sources(why)[0] == ["internal source s2.md"] and sources(why)[1] == pytest.approx(0.8)
        assert next(f.detail for f in why.confidence if f.factor == "independent_sources").startswith("1 independent")
        # the stored confidence moved with it, and is what its factors give
        assert why.belief.confidence == pytest.approx(why.confidence[-1].weight)
        assert why.belief.confidence < 0.8
        assert db.recompute().changed == 0
        # read back in time: two sources before the change, one after it
        then, combined = sources(db.why(belief, as_of=moment(0.5)))
        assert then == ["internal source s2.md", "official source s1.md"] and combined == pytest.approx(0.98)
        then, combined = sources(db.why(belief, as_of=moment(1)))
        assert then == ["internal source s2.md"] and combined == pytest.approx(0.8)
        (now,) = db.beliefs(subject=why.belief.subject, as_of=moment(1))
        assert now.confidence == pytest.approx(why.belief.confidence)


@pytest.mark.parametrize("way", ["fragment_retracted", "version_retracted", "restating_version_retracted"])
def test_restoring_the_quote_brings_its_source_back_into_confidence(db_url: str, way: str) -> None:
    belief = lose_official_support(db_url, way)
    with at(db_url, 2) as db:
        if way == "fragment_retracted":
            (official,) = [e for e in db.why(belief).evidence if e.source == "s1.md"]
            db.retract(fragment=official.fragment_id, undo=True)
        else:
            db.retract(source="s1.md", version=2 if way == "version_retracted" else 3, undo=True)
        why = db.why(belief)
        assert sources(why)[1] == pytest.approx(0.98)
        assert why.belief.confidence == pytest.approx(why.confidence[-1].weight)
        assert sources(db.why(belief, as_of=moment(1.5)))[1] == pytest.approx(0.8)


@pytest.mark.parametrize("way", WAYS)
def test_rule_8_ranks_a_belief_by_the_support_it_still_has(db_url: str, way: str) -> None:
    """s2.py of the review: the 7-day belief rests on internal s2.md only, so a later internal claim beats
    it by recency."""
    lose_official_support(db_url, way)
    with at(db_url, 2) as db:
        db.ingest_text(P15, source="s3.md", authority="internal")
        status = {b.value: b.status for b in db.beliefs(include_all=True)}
        assert status == {"7 days": "superseded", "15 days": "current"}
        assert [b.value for b in db.beliefs(as_of=moment(1.5))] == ["7 days"]
        assert [b.value for b in db.beliefs(as_of=moment(2))] == ["15 days"]


def test_a_quote_in_force_still_ranks_by_its_authority(db_url: str) -> None:
    """The other side: an official version that repeats the quote keeps the belief's official rank."""
    with at(db_url, 0) as db:
        db.ingest_text(P7, source="s1.md", authority="official")
        db.ingest_text(P7, source="s2.md", authority="internal")
    with at(db_url, 1) as db:
        db.ingest_text(P7 + FILL, source="s1.md", authority="official")
    with at(db_url, 2) as db:
        db.ingest_text(P15, source="s3.md", authority="internal")
        status = {b.value: b.status for b in db.beliefs(include_all=True)}
        assert status == {"7 days": "current", "15 days": "superseded"}
        (seven,) = [b for b in db.beliefs() if b.value == "7 days"]
        assert sources(db.why(seven.id))[1] == pytest.approx(0.98)


def test_an_appended_turn_ranks_as_recorded_when_it_was_said(db_url: str) -> None:
    """s14.py of the review: a turn appended to a conversation started before a rival is later than it."""
    with at(db_url, 0) as db:
        db.remember_turn("chat-1", "Maya", "I live in Lisbon.", time=moment(0))
        (lisbon,) = db.beliefs()
        authority = db.why(lisbon.id).evidence[0].authority
    with at(db_url, 9) as db:
        db.remember("Maya lives in Porto.", "maya", "lives_in", "Porto", "Maya lives in Porto.", source="crm.md",
                    text="Maya lives in Porto.", authority=authority)
    with at(db_url, 19) as db:
        db.remember_turn("chat-1", "Maya", "I live in Madrid.", time=moment(19))
        status = {b.value: b.status for b in db.beliefs(include_all=True)}
        assert status == {"Lisbon": "superseded", "Porto": "superseded", "Madrid": "current"}
        assert [b.value for b in db.beliefs(as_of=moment(15))] == ["Porto"]
        assert [b.value for b in db.beliefs(as_of=moment(19))] == ["Madrid"]


def test_a_claim_on_part_of_a_turn_is_as_new_as_the_turn(db_url: str) -> None:
    """A claim recorded later from part of a turn (its quote a fragment of its own, cut when the claim came)
    is as new as the turn that said it: a rival recorded after the turn and before the claim is later (by when
    its fragment was made, the claim would be the later; by its version, as old as the first turn)."""
    with at(db_url, 0) as db:
        db.remember_turn("chat-1", "Maya", "I live in Lisbon.", time=moment(0))
        (lisbon,) = db.beliefs()
        authority = db.why(lisbon.id).evidence[0].authority
    with at(db_url, 19) as db:
        db.remember_turn("chat-1", "Maya", "These days I live in Madrid.", time=moment(19), extractor="none")
    with at(db_url, 20) as db:
        db.remember("Maya lives in Faro.", "maya", "lives_in", "Faro", "Maya lives in Faro.", source="crm.md",
                    text="Maya lives in Faro.", authority=authority)
    with at(db_url, 21) as db:
        madrid = db.remember("Maya lives in Madrid.", "maya", "lives_in", "Madrid", "I live in Madrid",
                             source="chat-1")
        (quote,) = db.why(madrid.accepted[0].id).evidence
        assert (quote.quote, quote.speaker) == ("I live in Madrid", None)
        status = {b.value: b.status for b in db.beliefs(include_all=True)}
        assert status == {"Lisbon": "superseded", "Faro": "current", "Madrid": "superseded"}


def test_a_quote_that_no_longer_supports_verifies_nothing(db_url: str) -> None:
    """Rule 9's recency runs from the newest quote that still supports the belief: internal s2.md states 7 days
    on day 0, official s1.md on day 200, and s1.md is retracted on day 201. The belief was last verified by
    s2.md, 201 days before (it was shown as verified a day before, by the retracted quote)."""
    with at(db_url, 0) as db:
        belief = str(db.ingest_text(P7, source="s2.md", authority="internal").accepted[0].id)
    with at(db_url, 200) as db:
        db.ingest_text(P7, source="s1.md", authority="official")
    with at(db_url, 201) as db:
        db.retract(source="s1.md", reason="withdrawn")
        why = db.why(belief)
        (recency,) = [f for f in why.confidence if f.factor == "recency"]
        assert recency.detail.startswith("201 day(s)"), recency
        assert why.belief.confidence == pytest.approx(why.confidence[-1].weight)
        assert db.recompute().changed == 0
        # as of day 200.5 the official quote supported it, and had verified it that day
        (then,) = [f for f in db.why(belief, as_of=moment(200.5)).confidence if f.factor == "recency"]
        assert then.detail.startswith("0 day(s)"), then
    with at(db_url, 202) as db:
        (later,) = [f for f in db.why(belief, as_of=moment(201.5)).confidence if f.factor == "recency"]
        assert later.detail.startswith("201 day(s)"), later
