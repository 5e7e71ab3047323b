"""The typed SQL API: the functions the application role may call return composite types whose
fields are those of the Python models (beliefdb/models), except a documented few whose results are
not flat and stay jsonb; and the library loads those types, nested ones too, as its models."""

from __future__ import annotations

import dataclasses
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb import models
from beliefdb.models import StillSupported

# The granted functions whose result is jsonb, and why (each one's comment says so too).
JSONB_RESULTS = {
    # the ingest report: six lists of different records (accepted, rejected, corroborated, unchanged,
    # superseded, conflicts), each of its own shape, with a change report
    "add_claims_to_source": "the ingest report",
    "ingest_preview": "the ingest report",
    "ingest_version": "the ingest report",
    # two lists of different records (conflicts, replacements) and a provenance label
    "recall_warnings": "two lists of different records",
    # the document beliefdb.repair keeps; the typed plan is repair_plan (repair_apply: plan_item[])
    "repair_plan_json": "the document a repair keeps",
}

# Each result type of the API, and the model it loads as (the same field names).
MODELS: dict[str, type[Any]] = {
    "recorded": models.Recorded,
    "changes": models.Changes,
    "confidence_report": models.ConfidenceReport,
    "expired": models.Expired,
    "forget_result": models.Forgotten,
    "outcome_recorded": models.OutcomeRecorded,
    "impact_row": models.ImpactRow,
    "correction_preview": models.CorrectionPreview,
    "correction_result": models.CorrectionResult,
    "review_resolution": models.ReviewResolution,
    "plan_item": models.PlanItem,
}


def _granted_results(conn: psycopg.Connection[Any]) -> dict[str, str]:
    rows = conn.execute("""
        select p.proname, p.prorettype::regtype::text
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace
           and has_function_privilege('beliefdb_app', p.oid, 'execute')
           and not exists (select from pg_catalog.pg_depend d
                            where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
    """).fetchall()
    return dict(rows)


def test_jsonb_results_are_the_documented_non_flat_set(postgresql: psycopg.Connection[Any]) -> None:
    results = _granted_results(postgresql)
    assert {name for name, result in results.items() if result == "jsonb"} == set(JSONB_RESULTS)
    comments = dict(postgresql.execute("""
        select p.proname, pg_catalog.obj_description(p.oid, 'pg_proc')
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace and p.proname = any(%s)
    """, (list(JSONB_RESULTS),)).fetchall())
    assert {name for name, comment in comments.items() if "jsonb:" not in comment} == set()
    # what the API returns instead: its composite types
    typed = {result.removeprefix("beliefdb.") for result in results.values() if result.startswith("beliefdb.")}
    assert typed >= {"recorded", "changes", "confidence_report", "expired", "forget_result", "outcome_recorded",
                     "last_outcome", "correction_preview", "correction_result", "review_resolution",
                     "repair_result", "trace_recorded"}


def _fields(conn: psycopg.Connection[Any], type_name: str) -> list[str]:
    rows = conn.execute("""
        select a.attname from pg_catalog.pg_attribute a
         where a.attrelid = %s::regclass and a.attnum > 0 and not a.attisdropped order by a.attnum
    """, (f"beliefdb.{type_name}",)).fetchall()
    return [r[0] for r in rows]


@pytest.mark.parametrize("type_name", sorted(MODELS))
def test_a_result_type_has_the_fields_of_its_model(postgresql: psycopg.Connection[Any], type_name: str) -> None:
    model_fields = [f.name for f in dataclasses.fields(MODELS[type_name])]
    assert set(_fields(postgresql, type_name)) == set(model_fields)


def test_the_types_whose_shape_differs_from_the_model(postgresql: psycopg.Connection[Any]) -> None:
    # a surviving decision is one row per reason (decision, reason): Python groups them (decision, by)
    assert _fields(postgresql, "still_supported") == ["decision", "reason"]
    assert [f.name for f in dataclasses.fields(StillSupported)] == ["decision", "by"]
    # a repair's plan is its faulty memories and items (RepairPlan), beside its id and change
    assert _fields(postgresql, "repair_result") == ["repair_id", "faulty", "plan", "changes"]
    assert [f.name for f in dataclasses.fields(models.RepairResult)] == ["repair_id", "plan", "changes"]
    assert [f.name for f in dataclasses.fields(models.RepairPlan)] == ["faulty", "items"]


SEVEN = "Returns are accepted within 7 days of delivery."
FINAL = "Order 1042 was bought in the final sale."
GIFT = "Order 1042 was a gift."


def _remember(bdb: beliefdb.BeliefDB, text: str, subject: str, attribute: str, value: str) -> models.Accepted:
    (accepted,) = bdb.remember(text, subject, attribute, value, text, source=f"{subject}-{attribute}.md",
                               text=text, authority="official").accepted
    return accepted


def test_a_decision_surviving_on_two_reasons_comes_back_grouped(bdb: beliefdb.BeliefDB) -> None:
    seven = _remember(bdb, SEVEN, "return_policy", "window", "7 days")
    final = _remember(bdb, FINAL, "order_1042", "sale", "final")
    gift = _remember(bdb, GIFT, "order_1042", "gift", "yes")
    decision = bdb.decide("Refuse the return of order 1042", because=[seven.id, final.id, gift.id])
    with bdb.database.transaction() as conn:
        rows = conn.execute("select s.decision, s.reason from beliefdb.retract_preview('node', %s) r, "
                            "unnest(r.survives) s order by s.reason", (seven.id,)).fetchall()
    assert rows == sorted([(decision.id, [final.id]), (decision.id, [gift.id])], key=lambda r: r[1])
    previewed = bdb.preview_retract(belief=seven.id)
    assert previewed.survives == [StillSupported(decision=decision.id, by=[r[1] for r in rows])]
    retracted = bdb.retract(belief=seven.id, reason="superseded by policy v4")
    assert retracted.survives == previewed.survives and retracted.flagged == []
    # a change report nested in another result, and a correction preview's own grouping
    forgotten = bdb.forget(belief=final.id, preview=True)
    assert isinstance(forgotten.changes, models.Changes) and final.id in forgotten.changes.stopped_current
    seen = bdb.preview_correction(gift.id, "Order 1042 was not a gift.", "no")
    assert seen.still_supported == [StillSupported(decision=decision.id, by=[[final.id]])]
    assert seen.changes is not None and seen.changes.survives == seen.still_supported
