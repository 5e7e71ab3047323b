"""``impact`` is exactly what ``retract`` would do (rule 7): its stops_holding names what stops
HOLDING, as the retraction's stopped_holding does, not only what was current. A superseded belief
holds (it is history, still supported by its quote) and stops holding when its quote goes: impact left
it out, as it left out a belief whose valid time had ended. Each path of impact is checked: the walk of
the supports (an expired belief: the walk declines, as for a supersession), the evaluation of the
closure (a superseded belief) and the rolled-back retraction (a version named)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import psycopg

import beliefdb


def stops_holding(rows: list[Any]) -> set[UUID]:
    return {r.node for r in rows if r.effect == "stops_holding"}


def support_hours(bdb: beliefdb.BeliefDB) -> UUID:
    """9 to 5 (one.md), superseded by 8 to 6 (two.md): the superseded belief's id."""
    bdb.ingest_text("Support hours: 9 to 5\n", source="one.md")
    bdb.ingest_text("Support hours: 8 to 6\n", source="two.md")
    (nine,) = [b for b in bdb.beliefs(include_all=True) if b.value == "9 to 5"]
    assert nine.status == "superseded"
    return nine.id


def test_impact_names_the_superseded_belief_a_retraction_takes_down(bdb: beliefdb.BeliefDB) -> None:
    nine = support_hours(bdb)
    preview = bdb.preview_retract(source="one.md")
    rows = bdb.impact("one.md")
    assert nine in stops_holding(rows) and nine in preview.stopped_holding and nine not in preview.stopped_current
    assert stops_holding(rows) == set(preview.stopped_holding)
    assert {r.node for r in rows if r.effect == "becomes_current"} == set(preview.became_current) == set()
    done = bdb.retract(source="one.md", reason="x")
    assert stops_holding(rows) == set(done.stopped_holding)


def test_the_same_when_impact_runs_the_retraction(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """A version named: impact runs the retraction in a rolled-back subtransaction (it may put an older
    version back in force); its stops_holding is that report's stopped_holding."""
    nine = support_hours(bdb)
    with psycopg.connect(db_url) as conn:
        (version,) = conn.execute("select v.id from beliefdb.source_version v join beliefdb.source s "
                                  "on s.workspace_id = v.workspace_id and s.id = v.source_id "
                                  "where s.name = 'one.md'").fetchone() or (None,)
    rows = bdb.impact(str(version))
    preview = bdb.preview_retract(source="one.md", version=1)
    assert nine in stops_holding(rows)
    assert stops_holding(rows) == set(preview.stopped_holding)


def test_an_expired_belief_that_loses_its_quote_stops_holding_in_impact(bdb: beliefdb.BeliefDB) -> None:
    """An expired belief holds and is not current, in no supersession: the walk of the supports would
    answer alone, but it reports what was current, not what held; it declines, and the closure's
    evaluation names it."""
    quote = "Returns are accepted within 7 days of delivery."
    (seven,) = bdb.remember("Returns are accepted within 7 days.", "return_policy", "window", "7 days", quote,
                            source="holiday.md", text=f"Holiday policy. {quote}\n", authority="internal",
                            valid_from="2025-11-01T00:00:00Z", valid_to="2026-01-15T00:00:00Z").accepted
    assert [b.status for b in bdb.beliefs(include_all=True) if b.id == seven.id] == ["expired"]
    preview = bdb.preview_retract(source="holiday.md")
    rows = bdb.impact("holiday.md")
    assert seven.id in preview.stopped_holding and seven.id in stops_holding(rows)
    assert stops_holding(rows) == set(preview.stopped_holding)
    assert stops_holding(rows) == set(bdb.retract(source="holiday.md", reason="x").stopped_holding)
