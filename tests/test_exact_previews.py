"""Previews are exact (rule 7): retract --preview, impact, correct --preview, forget --preview,
ingest --preview and decay --preview report exactly what the apply then does — including beliefs
that come back into force — and write nothing. Each is checked against the difference the apply
made, read from the tables (not from the apply's own report)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from uuid import UUID

import psycopg
from psycopg.rows import dict_row

import beliefdb
from beliefdb.models import Changes
from beliefdb.store import lifecycle

SEVEN = "Returns are accepted within 7 days of delivery."
FIFTEEN = "Returns are accepted within 15 days of delivery."
FEE = "The restocking fee is 10%."


class State:
    """Holding, current, and decision/action statuses of every node of a workspace (superuser)."""

    def __init__(self, conn: psycopg.Connection[Any], workspace_id: str) -> None:
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute("""
                select n.id, n.holds, n.current, coalesce(d.status, a.status) as status, n.kind::text as kind
                  from beliefdb.node n
                  left join beliefdb.decision d on d.id = n.id
                  left join beliefdb.action a on a.id = n.id
                 where n.workspace_id = %s""", (workspace_id,)).fetchall()
            self.table_rows = cur.execute("""
                select (select count(*) from beliefdb.node where workspace_id = %(ws)s)
                     + (select count(*) from beliefdb.relation where workspace_id = %(ws)s)
                     + (select count(*) from beliefdb.audit_event where workspace_id = %(ws)s)
                     + (select count(*) from beliefdb.review_item where workspace_id = %(ws)s) as n,
                       (select string_agg(b.confidence::text || b.status::text, ',' order by b.id)
                          from beliefdb.belief b where workspace_id = %(ws)s) as beliefs
                """, {"ws": workspace_id}).fetchone()
        conn.commit()
        self.nodes = {r["id"]: r for r in rows}

    def difference(self, after: State) -> dict[str, set[UUID]]:
        """What changed between this state and ``after``, for the nodes that existed before."""
        old, new = self.nodes, after.nodes
        kept = [i for i in old if i in new]
        return {
            "stopped_holding": {i for i in kept if old[i]["holds"] and not new[i]["holds"]},
            "started_holding": {i for i in kept if not old[i]["holds"] and new[i]["holds"]},
            "stopped_current": {i for i in kept if old[i]["current"] and not new[i]["current"]},
            "became_current": {i for i in kept if not old[i]["current"] and new[i]["current"]},
            "flagged": {i for i in kept
                        if old[i]["status"] in ("active", "approved") and new[i]["status"] == "needs_review"},
            "held": {i for i in kept if old[i]["status"] == "scheduled" and new[i]["status"] == "held"},
        }


def as_sets(c: Changes) -> dict[str, set[UUID]]:
    return {"stopped_holding": set(c.stopped_holding), "started_holding": set(c.started_holding),
            "stopped_current": set(c.stopped_current), "became_current": set(c.became_current),
            "flagged": set(c.flagged), "held": set(c.held)}


def impact_sets(rows: list[Any]) -> dict[str, set[UUID]]:
    return {"stopped_current": {r.node for r in rows if r.effect == "stops_holding"},
            "became_current": {r.node for r in rows if r.effect == "becomes_current"},
            "flagged": {r.node for r in rows if r.effect == "flag"},
            "held": {r.node for r in rows if r.effect == "hold"}}


def remember(db: beliefdb.BeliefDB, quote: str, value: str, source: str, authority: str = "internal",
             text: str | None = None) -> UUID:
    report = db.remember(quote, "return_policy", "window", value, quote, source=source, text=text or quote,
                         authority=authority)
    return (report.accepted or report.corroborated)[0].id


def test_retracting_a_source_that_superseded_another_brings_it_back_in_the_preview_too(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    ws = bdb.database.workspace_id
    seven = remember(bdb, SEVEN, "7 days", "policy.md", "official", text=f"Policy v3.2. {SEVEN}")
    remember(bdb, SEVEN, "7 days", "faq.md", "internal")  # independent support for the 7-day rule
    fifteen = remember(bdb, FIFTEEN, "15 days", "policy.md", "official", text=f"Policy v3.3. {FIFTEEN}")
    accept = bdb.decide("Accept the return of order 1050 (day 10)", because=[fifteen])
    courier = bdb.act(accept.id, "Send a courier")
    refuse = bdb.decide("Refuse returns after a week", because=[seven])
    assert refuse.status == "needs_review"

    before = State(postgresql, ws)
    preview = bdb.preview_retract(source="policy.md")
    impact = bdb.impact("policy.md")
    assert State(postgresql, ws).table_rows == before.table_rows  # nothing written, not even audit
    changes = bdb.retract(source="policy.md", reason="poisoned")
    made = before.difference(State(postgresql, ws))

    assert seven in made["became_current"] and fifteen in made["stopped_current"]
    assert made["flagged"] == {accept.id} and made["held"] == {courier.id}
    assert as_sets(preview) == made == as_sets(changes)
    assert impact_sets(impact) == {k: made[k] for k in ("stopped_current", "became_current", "flagged", "held")}


def test_a_belief_back_in_force_meets_its_rivals_and_the_preview_says_what_that_settles(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The 7-day rule comes back when the 15-day one goes; back, it meets a 30-day rival of another
    principal under rule 8 (a conflict), and the preview reports that cascade as the apply does."""
    ws = bdb.database.workspace_id
    seven = remember(bdb, SEVEN, "7 days", "policy.md", "official", text=f"v1. {SEVEN}")
    remember(bdb, FIFTEEN, "15 days", "policy.md", "official", text=f"v2. {FIFTEEN}")
    with beliefdb.connect(bdb.database.url, principal="carol") as carol:
        thirty = "Returns are accepted within 30 days of delivery."
        thirty_id = remember(carol, thirty, "30 days", "carol.md", "internal")
    before = State(postgresql, ws)
    preview = bdb.preview_retract(source="policy.md", version=2)
    version = postgresql.execute("""
        select v.id from beliefdb.source_version v join beliefdb.source s on s.id = v.source_id
         where s.workspace_id = %s and s.name = 'policy.md' and v.version = 2""", (ws,)).fetchone()
    assert version is not None
    postgresql.commit()
    impact = bdb.impact(version[0])
    changes = bdb.retract(source="policy.md", version=2, reason="too early")
    made = before.difference(State(postgresql, ws))
    assert seven in made["became_current"]
    assert as_sets(preview) == made == as_sets(changes)
    assert impact_sets(impact) == {k: made[k] for k in ("stopped_current", "became_current", "flagged", "held")}
    statuses = {b.id: b.status for b in bdb.beliefs(include_all=True)}
    assert statuses[seven] in ("current", "conflicting") and thirty_id in statuses


def test_ingest_preview_is_the_ingest(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    ws = bdb.database.workspace_id
    bdb.ingest_text(f"{SEVEN}\n{FEE}\n", source="policy.md", authority="official")
    seven = next(b.id for b in bdb.beliefs() if b.value == "7 days")
    refuse = bdb.decide("Refuse the return of order 1042", because=[seven])
    email = bdb.act(refuse.id, "Email the customer a refusal")
    before = State(postgresql, ws)
    preview = bdb.ingest_text(f"{FIFTEEN}\n{FEE}\n", source="policy.md", preview=True)
    assert preview.preview and preview.version == 2
    assert State(postgresql, ws).table_rows == before.table_rows
    applied = bdb.ingest_text(f"{FIFTEEN}\n{FEE}\n", source="policy.md")
    made = before.difference(State(postgresql, ws))
    assert made["flagged"] == {refuse.id} and made["held"] == {email.id}
    assert preview.changes is not None and applied.changes is not None
    assert as_sets(preview.changes) == made == as_sets(applied.changes)
    # new beliefs have new ids in each run; the rest is the same report
    assert [(a.value, a.quote) for a in preview.accepted] == [(a.value, a.quote) for a in applied.accepted]
    assert preview.reverified == applied.reverified and preview.flagged == applied.flagged
    assert preview.unsupported == applied.unsupported and preview.held == applied.held
    assert [s.old for s in preview.superseded] == [s.old for s in applied.superseded]


def test_correction_preview_is_the_correction(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    ws = bdb.database.workspace_id
    seven = remember(bdb, SEVEN, "7 days", "policy.md", "official")
    fee = bdb.ingest_text(FEE, source="fees.md").accepted[0].id
    joint = bdb.decide("Refund 1042 minus the fee", all_of=[[seven, fee]])
    alone = bdb.decide("Refuse 1043", because=[seven, fee])
    before = State(postgresql, ws)
    seen = bdb.preview_correction(seven, "Returns are accepted within 14 days.", "14 days")
    assert seen.would_flag == [joint.id] and [s.decision for s in seen.still_supported] == [alone.id]
    done = bdb.apply_correction(seven, "Returns are accepted within 14 days.", value="14 days", reviewer="rita",
                                expect_revision=seen.revision)
    made = before.difference(State(postgresql, ws))
    assert seen.changes is not None and done.changes is not None
    assert as_sets(seen.changes) == made == as_sets(done.changes)
    assert seen.changes.survives == done.changes.survives


def test_forget_preview_is_the_forget(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    ws = bdb.database.workspace_id
    seven = remember(bdb, SEVEN, "7 days", "policy.md", "official")
    refuse = bdb.decide("Refuse the return of order 1042", because=[seven])
    before = State(postgresql, ws)
    preview = lifecycle.forget(bdb.database, belief=seven, preview=True)
    assert State(postgresql, ws).table_rows == before.table_rows
    done = lifecycle.forget(bdb.database, belief=seven)
    assert preview.preview is True and done.preview is False
    assert replace(preview, preview=False) == done
    made = before.difference(State(postgresql, ws))
    assert made["flagged"] == {refuse.id} == set(done.flagged)


def test_decay_preview_is_the_decay(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    from datetime import UTC, datetime

    ws = bdb.database.workspace_id
    remember(bdb, SEVEN, "7 days", "policy.md", "official")
    later = datetime(2031, 1, 1, tzinfo=UTC)
    before = State(postgresql, ws)
    preview = lifecycle.decay(bdb.database, later, preview=True)
    assert State(postgresql, ws).table_rows == before.table_rows
    done = lifecycle.decay(bdb.database, later)
    assert preview.changed == done.changed == 1 and preview.lowered == done.lowered == 1
    assert preview.preview and replace(preview, preview=False) == done
