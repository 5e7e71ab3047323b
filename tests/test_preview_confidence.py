"""A retraction's preview reports standing alone, so it does not compute confidence, which its
rollback would discard unread (a source of 2,000 beliefs spent most of its preview there); the
change itself still does, and a session cannot make a real change skip it."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

import beliefdb

COUNTED = ("_refresh_confidence_moves", "_refresh_confidence", "_confidences", "confidence_factors")


def _setup(bdb: beliefdb.BeliefDB) -> tuple[Any, Any]:
    """A belief two sources support (a second source raises its confidence), one derived from it, and
    a belief of the second source alone with a decision resting on it."""
    (base,) = bdb.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="official").accepted
    notes = bdb.ingest_text("The restocking fee is 10%.\nShipping time: 5 days\n", source="notes.md",
                            authority="internal")
    shipping = [b for b in notes.accepted if b.id != base.id]
    assert len(shipping) == 1
    bdb.decide("Promise delivery within a week", because=[shipping[0].id])
    derived = bdb.derive("Late returns cost 10%", "late_return", "fee", "10%", [base.id])
    return base.id, derived.id


def _session(conn: psycopg.Connection[Any]) -> None:
    workspace = conn.execute("select id from beliefdb.workspace where name = 'default'").fetchone()
    assert workspace is not None
    owner = conn.execute("select owner from beliefdb.source where name = 'notes.md'").fetchone()
    assert owner is not None
    conn.execute("select set_config('beliefdb.workspace_id', %s::text, false),"
                 "       set_config('beliefdb.principal', %s, false)", (workspace[0], owner[0]))
    conn.execute("set track_functions = 'all'")


def _calls(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """How often this transaction called each of the confidence functions (pending statistics)."""
    return {name: conn.execute(
        "select coalesce(sum(pg_stat_get_xact_function_calls(p.oid)), 0)::int from pg_proc p"
        " where p.pronamespace = 'beliefdb'::regnamespace and p.proname = %s", (name,)).fetchone()[0]  # type: ignore[index]
        for name in COUNTED}


def _confidence(conn: psycopg.Connection[Any], belief: Any) -> float:
    row = conn.execute("select confidence from beliefdb.belief where id = %s", (belief,)).fetchone()
    assert row is not None
    return float(row[0])


def test_a_retraction_preview_computes_no_confidence_and_reports_what_the_retraction_does(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    base, derived = _setup(bdb)
    conn = postgresql
    _session(conn)
    before = _confidence(conn, base), _confidence(conn, derived)
    preview = conn.execute("select to_jsonb(r) from beliefdb.retract_preview('source', 'notes.md') r").fetchone()
    assert preview is not None
    assert _calls(conn) == dict.fromkeys(COUNTED, 0)
    assert (_confidence(conn, base), _confidence(conn, derived)) == before
    simulated = conn.execute("select to_jsonb(r) from beliefdb.simulate_retraction(array['notes.md']) r").fetchone()
    assert simulated is not None and _calls(conn) == dict.fromkeys(COUNTED, 0)
    conn.rollback()

    _session(conn)
    applied = conn.execute("select to_jsonb(r) from beliefdb.retract('source', 'notes.md', 'unreliable') r").fetchone()
    assert applied is not None
    # the change computes it: one source less lowers the belief, and what is derived from it follows
    assert applied[0]["proposed"] is not True and _calls(conn)["_refresh_confidence_moves"] > 0
    after = _confidence(conn, base), _confidence(conn, derived)
    assert after[0] < before[0] and after[1] == pytest.approx(after[0])
    conn.rollback()
    # the preview reported exactly what the retraction did: the shipping belief and the decision
    keys = ("stopped_holding", "started_holding", "stopped_current", "became_current", "flagged", "held",
            "survives")
    assert {k: preview[0][k] for k in keys} == {k: applied[0][k] for k in keys}
    assert len(applied[0]["flagged"]) == 1 and applied[0]["flagged"][0] in applied[0]["stopped_holding"]


def test_a_session_cannot_make_a_retraction_skip_confidence(bdb: beliefdb.BeliefDB,
                                                            postgresql: psycopg.Connection[Any]) -> None:
    """The preview's setting, set by a session itself, does not make a real change skip it."""
    base, derived = _setup(bdb)
    conn = postgresql
    _session(conn)
    before = _confidence(conn, base)
    conn.execute("set beliefdb.dry_run = 'standing'")
    conn.execute("select beliefdb.retract('source', 'notes.md', 'unreliable')")
    after = _confidence(conn, base), _confidence(conn, derived)
    assert after[0] < before and after[1] == pytest.approx(after[0])
    conn.rollback()
