"""The typed SQL API: the functions the application role may call return composite types whose
fields are those of the Python models (beliefdb/models), except a documented few whose results are
not flat and stay jsonb; the library loads those types, nested ones too, as its models; and every
function that names a belief, decision, action or node takes its id or a unique prefix and resolves
it itself (from psql as from the library), refusing an unknown or ambiguous one with its code."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb import errors, models
from beliefdb.models import StillSupported
from beliefdb.vocabulary import ErrorCode

# The granted functions whose result is jsonb, and why (each one's comment says so too).
JSONB_RESULTS = {
    # the ingest report: six lists of different records (accepted, rejected, corroborated, unchanged,
    # superseded, conflicts), each of its own shape, with a change report
    "add_claims_to_source": "the ingest report",
    "ingest_preview": "the ingest report",
    "ingest_version": "the ingest report",
    "bulk_ingest_batch": "the ingest report of each document of a batch",
    "append_turn": "the ingest report of the appended turn",
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
    model_fields = [f.name for f in dataclasses.fields(MODELS[type_name])
                    if (type_name, f.name) not in SPLIT_OUT | PYTHON_ONLY]
    assert set(_fields(postgresql, type_name)) == set(model_fields)


#: fields a model adds to its type's, set by the library after the SQL call has committed (why the new
#: beliefs' embeddings wait, if they do), with a default for the rows SQL gives
PYTHON_ONLY = {("correction_result", "embedding_deferred"), ("review_resolution", "embedding_deferred")}

#: fields a model splits out of another of its type's (below)
SPLIT_OUT = {("forget_result", f) for f in ("text_mentions", "pending_mentions", "text_mentions_total",
                                            "text_mentions_count", "pending_mentions_total",
                                            "pending_mentions_count", "speaker_mentions", "speaker_mentions_total",
                                            "speaker_mentions_count", "mentions_total", "kept", "kept_total",
                                            "kept_count")}


def test_the_types_whose_shape_differs_from_the_model(postgresql: psycopg.Connection[Any]) -> None:
    # a surviving decision is one row per reason (decision, reason): Python groups them (decision, by)
    assert _fields(postgresql, "still_supported") == ["decision", "reason"]
    assert [f.name for f in dataclasses.fields(StillSupported)] == ["decision", "by"]
    # a repair's plan is its faulty memories and items (RepairPlan), beside its id and change
    assert _fields(postgresql, "repair_result") == ["repair_id", "faulty", "plan", "changes"]
    assert [f.name for f in dataclasses.fields(models.RepairResult)] == ["repair_id", "plan", "changes"]
    assert [f.name for f in dataclasses.fields(models.RepairPlan)] == ["faulty", "items"]
    # where the stored source texts still name a forgotten subject are mentions of kind text in SQL (a
    # new attribute of the type would take a revision): Forgotten splits them out, its own field
    assert "text_mentions" not in _fields(postgresql, "forget_result")
    split = models.Forgotten(target="subject", versions=0, fragments=0, beliefs=0, evidence=0, embeddings=0,
                             redacted=0, flagged=[], would_flag=[], held=[],
                             changes=models.Changes(stopped_holding=[], started_holding=[], flagged=[], held=[]),
                             mentions=[{"kind": "text", "id": str(uuid4()), "field": "content", "owner": None,
                                        "source": "chat", "version": 1, "count": 2, "excerpt": "hi \u2588\u2588",
                                        "masked": False, "hint": "h"}])
    assert split.mentions == [] and [(t.source, t.count) for t in split.text_mentions] == [("chat", 2)]


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
        rows = conn.execute("select s.decision, s.reason from beliefdb.retract_preview('belief', %s::text) r, "
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


# --- references resolved in SQL -----------------------------------------------------------------


@contextmanager
def psql(url: str, workspace_id: str, principal: str = "dba:alice") -> Iterator[psycopg.Connection[Any]]:
    """A session as a DBA's psql would be: the application role, bound to a workspace."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("select set_config('beliefdb.principal', %s, false)", (principal,))
        conn.execute("set role beliefdb_app")
        yield conn


def _refused(conn: psycopg.Connection[Any], statement: str, *params: Any) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as refused:
        conn.execute(statement, params)
    return refused.value


def test_the_api_takes_an_id_prefix_from_psql(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    with psql(db_url, bdb.database.workspace_id) as conn:
        conn.execute("select * from beliefdb.ingest_version('policy.md', %s, p_authority => 'official', "
                     "p_claims => %s)",
                     (SEVEN, Jsonb([{"statement": SEVEN, "subject": "return_policy", "attribute": "window",
                                     "value": "7 days", "quote": SEVEN, "start": 0, "end": len(SEVEN)}])))
        conn.execute("select * from beliefdb.ingest_version('orders/1042.txt', %s, p_claims => %s)",
                     (FINAL, Jsonb([{"statement": FINAL, "subject": "order_1042", "attribute": "sale",
                                     "value": "final", "quote": FINAL, "start": 0, "end": len(FINAL)}])))
        seven, final = (str(row[0]) for row in conn.execute(
            "select id from beliefdb.belief order by subject desc").fetchall())

        def prefix(ref: str) -> str:
            return ref[:8]

        decision, status = conn.execute("select id, status from beliefdb.decide('Refuse', %s)",
                                        (Jsonb([[prefix(seven)], [prefix(final).upper()]]),)).fetchone() or ()
        assert status == "active"
        assert conn.execute("select status from beliefdb.act(%s, 'Email the customer')",
                            (prefix(str(decision)),)).fetchone() == ("scheduled",)
        assert conn.execute("select status from beliefdb.derive('No refund.', 'order_1042', 'refundable', 'no', "
                            "array[%s, %s])", (prefix(seven), final)).fetchone() == ("current",)
        assert conn.execute("select kind from beliefdb.record_outcome(%s, 'disputed')",
                            (prefix(str(decision)),)).fetchone() == ("decision",)
        assert conn.execute("select belief from beliefdb.correction_preview(%s)",
                            (prefix(final),)).fetchone() == (UUID(final),)
        assert conn.execute("select count(*) > 0 from beliefdb.impact(array[%s, 'orders/1042.txt'])",
                            (prefix(seven),)).fetchone() == (True,)
        # (the 7-day belief and the belief derived from it; the decision holds by its other reason)
        assert conn.execute("select cardinality(stopped_current), cardinality(survives) "
                            "from beliefdb.retract_preview('belief', %s)", (prefix(seven),)).fetchone() == (2, 1)
        assert conn.execute("select beliefs from beliefdb.forget('belief', %s, p_preview => true)",
                            (prefix(final),)).fetchone() == (2,)  # with the belief derived from it
        # a repair takes faulty memories only (rule 10): a prefix of a quoted belief names it, refused;
        # a retraction takes it down
        refused = _refused(conn, "select faulty from beliefdb.repair_apply(array[%s])", prefix(final))
        assert f"belief {final} is no memory" in str(refused) and refused.sqlstate == "BD005"
        assert conn.execute("select %s::uuid = any(stopped_holding) from beliefdb.retract('belief', %s, 'wrong')",
                            (final, prefix(final))).fetchone() == (True,)
        # the decision loses its last reason: flagged; its review item is resolved by a prefix of its id
        assert conn.execute("select flagged from beliefdb.retract('belief', %s, 'withdrawn')",
                            (prefix(seven),)).fetchone() == ([decision],)
        item = conn.execute("select id::text from beliefdb.review_item where kind = 'decision_flagged'").fetchone()
        assert item is not None
        assert conn.execute("select status from beliefdb.review_resolve(%s, 'approved')",
                            (item[0][:6],)).fetchone() == ("approved",)


def test_an_unknown_or_ambiguous_reference_is_refused_with_its_code(
        bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    # two beliefs and two decisions whose ids share their first 8 characters, inserted as superuser
    ws = bdb.database.workspace_id
    for last in "12":
        postgresql.execute("insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value) "
                           "values (%s, %s, 'x', 'plan', 'fee', %s)",
                           (ws, f"abcdef12-0000-4000-8000-00000000000{last}", last))
        postgresql.execute("insert into beliefdb.decision (workspace_id, id, title) values (%s, %s, 'twin')",
                           (ws, f"abcd0000-0000-4000-8000-00000000000{last}"))
    postgresql.commit()
    with psql(db_url, ws) as conn:
        for statement, ref in [
            ("select * from beliefdb.correction_preview(%s)", "abcdef12"),
            ("select * from beliefdb.retract('belief', %s, 'r')", "abcdef12"),
            ("select * from beliefdb.decide('d', jsonb_build_array(jsonb_build_array(%s::text)))", "abcdef12"),
            ("select * from beliefdb.act(%s, 'a')", "abcd0000"),
            ("select * from beliefdb.impact(array[%s])", "abcd0000"),
        ]:
            ambiguous = _refused(conn, statement, ref)
            assert ambiguous.sqlstate == ErrorCode.ambiguous_id and "is ambiguous (2 matches: " in str(ambiguous)
        for statement, ref, message in [
            ("select * from beliefdb.apply_correction(%s, 's', null, 'r', null, 1)", "0000dead",
             "unknown belief 0000dead"),
            ("select * from beliefdb.derive('s', 'x', 'y', 'z', array[%s])", "0000beef",
             "unknown belief 0000beef"),
            ("select * from beliefdb.act(%s, 'a')", "abcdef12", "unknown decision abcdef12"),  # a belief's prefix
            ("select * from beliefdb.record_outcome(%s, 'failed')", "abcdef12", "unknown decision or action abcdef12"),
            ("select * from beliefdb.impact(array[%s])", "nowhere.md", "no node, source or source version is named"),
            ("select * from beliefdb.forget('source', %s)", "nowhere.md", "unknown source nowhere.md"),
            ("select * from beliefdb.review_resolve(%s, 'approved')", "ffff", "no open review item ffff"),
            ("select * from beliefdb.repair_plan(array[%s])", "0000dead", "unknown belief 0000dead"),
        ]:
            unknown = _refused(conn, statement, ref)
            assert unknown.sqlstate == ErrorCode.not_found and message in str(unknown), (statement, unknown)
    # the library says which: an unknown belief, an unknown node, an ambiguous prefix
    with pytest.raises(errors.UnknownBelief, match="unknown belief 0000dead"):
        bdb.apply_correction("0000dead", "s", reviewer="r", expect_revision=1)
    with pytest.raises(errors.NotFound, match="unknown decision abcdef12") as not_a_decision:
        bdb.act("abcdef12", "a")
    assert not isinstance(not_a_decision.value, errors.UnknownBelief)
    with pytest.raises(errors.AmbiguousId, match="abcdef12"):
        bdb.retract(belief="abcdef12", reason="r")
