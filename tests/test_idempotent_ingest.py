"""Repeated ingest is idempotent by content (rule 18): bytes identical to a version the source
already has create no belief, fragment or history row, and say so; a source that goes back to an
earlier text ends with one current belief per claim."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql

import beliefdb

POLICY = "# Warranty\nThe warranty period is 12 months.\nThe restocking fee is 10%.\n"
POLICY_B = "# Warranty\nThe warranty period is 24 months.\nThe restocking fee is 10%.\n"
TABLES = ("belief", "fragment", "relation", "source_version", "evidence", "justification")


def counts(conn: psycopg.Connection[Any]) -> dict[str, int]:
    out = {}
    for table in TABLES:
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(table))).fetchone()
        assert row is not None
        out[table] = int(row[0])
    return out


def warranty(db: beliefdb.BeliefDB) -> list[tuple[str, str]]:
    return sorted((b.value, b.status) for b in db.beliefs(subject="warranty_policy", include_all=True))


def test_an_unchanged_file_after_a_correction_is_a_no_op(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                        postgresql: psycopg.Connection[Any]) -> None:
    path = write_doc("warranty.md", POLICY)
    (first,) = bdb.ingest(path)
    assert not isinstance(first, beliefdb.models.IngestFailure)
    (twelve,) = [a for a in first.accepted if a.value == "12 months"]
    seen = bdb.preview_correction(twelve.id, "The warranty period is 18 months.", "18 months")
    bdb.apply_correction(twelve.id, "The warranty period is 18 months.", value="18 months", reviewer="rita",
                         expect_revision=seen.revision)
    before = counts(postgresql)
    for _ in range(4):
        (again,) = bdb.ingest(path)
        assert not isinstance(again, beliefdb.models.IngestFailure)
        assert not again.new_version and again.accepted == [] and again.corroborated == []
        assert again.note == "unchanged: the same text as version 1, in force"
        assert {u.id for u in again.unchanged} >= {twelve.id}
    assert counts(postgresql) == before
    assert warranty(bdb) == [("12 months", "superseded"), ("18 months", "current")]
    answer = bdb.ask("how long is the warranty period?")
    assert [a.belief.value for a in answer.beliefs][:1] == ["18 months"]
    assert sum("replaced '12 months'" in w for a in answer.beliefs for w in a.warnings) == 1
    history = postgresql.execute("select count(*) from beliefdb.belief_history").fetchone()
    assert history == (1,)


def test_an_unchanged_file_of_a_retracted_source_is_a_no_op(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                           postgresql: psycopg.Connection[Any]) -> None:
    path = write_doc("warranty.md", POLICY)
    bdb.ingest(path)
    bdb.retract(source="warranty.md", reason="superseded by the new contract")
    before = counts(postgresql)
    (again,) = bdb.ingest(path)
    assert not isinstance(again, beliefdb.models.IngestFailure)
    assert not again.new_version and again.accepted == []
    assert again.note is not None and "which is retracted (undo its retraction to restore it)" in again.note
    assert counts(postgresql) == before
    assert warranty(bdb) == [("12 months", "unsupported")]


def test_the_text_of_a_retracted_version_is_a_no_op(bdb: beliefdb.BeliefDB,
                                                    postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(POLICY, source="warranty.md")
    bdb.ingest_text(POLICY_B, source="warranty.md")
    bdb.retract(source="warranty.md", version=2, reason="published too early")
    before = counts(postgresql)
    again = bdb.ingest_text(POLICY_B, source="warranty.md")
    assert not again.new_version and again.note is not None and "version 2, which is retracted" in again.note
    assert counts(postgresql) == before
    assert warranty(bdb) == [("12 months", "current"), ("24 months", "unsupported")]


def test_a_source_that_goes_back_to_an_earlier_text_believes_each_claim_once(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    a = bdb.ingest_text(POLICY, source="warranty.md")
    b = bdb.ingest_text(POLICY_B, source="warranty.md")
    assert [(s.old, s.new) for s in b.superseded] == [
        (next(x.id for x in a.accepted if x.value == "12 months"), next(x.id for x in b.accepted))]
    back = bdb.ingest_text(POLICY, source="warranty.md")
    assert back.new_version and back.version == 3 and back.accepted == []
    assert back.note == "the same text as version 1: its beliefs are in force again"
    assert warranty(bdb) == [("12 months", "current"), ("24 months", "unsupported")]
    fees = [(b.value, b.status) for b in bdb.beliefs(subject="restocking_policy", include_all=True)]
    assert fees == [("10%", "current")]
    assert [x.value for x in bdb.beliefs()] .count("12 months") == 1
    row = postgresql.execute("select count(*) from beliefdb.belief").fetchone()
    assert row == (3,)  # 12 months, 24 months, 10%: nothing believed twice


def test_new_claims_against_the_text_in_force_are_still_settled(bdb: beliefdb.BeliefDB) -> None:
    """The same text with claims not recorded before is not a no-op for those claims (an agent's own
    extractor feeding claims about a document already stored)."""
    text = "Support hours: 9 to 17.\nThe hotline is staffed by two people.\n"
    bdb.ingest_text(text, source="support.md", extractor="none")
    report = bdb.remember("The hotline is staffed by two people.", "hotline", "staff", "two people",
                          "The hotline is staffed by two people.", source="support.md")
    assert [a.value for a in report.accepted] == ["two people"]
    again = bdb.remember("The hotline is staffed by two people.", "hotline", "staff", "two people",
                         "The hotline is staffed by two people.", source="support.md")
    assert again.accepted == [] and again.corroborated == [] and [u.id for u in again.unchanged] == [
        report.accepted[0].id]


def test_a_belief_back_in_force_meets_only_what_the_new_version_leaves_current(db_url: str) -> None:
    """v1 says 15 and 30 days, v2 says 7 days, v3 says 30 days again: the 30-day belief is back, and the
    7-day one has lost its only support in the same change, so nothing supersedes it — it is simply
    unsupported (found by the model-based test: the revived belief was settled before the version that
    dropped the 7 days was propagated)."""
    from conftest import url_at

    w15, p30, p7 = ("The return window is 15 days.", "Returns are accepted within 30 days of delivery.",
                    "Returns are accepted within 7 days of delivery.")
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as january:
        january.ingest_text(f"{w15}\n{p30}\n", source="fix.md", label="fixture")
        january.ingest_text(f"{p7}\n", source="fix.md", label="fixture")
    with beliefdb.connect(url_at(db_url, "2026-05-20T00:00:00Z")) as may:
        report = may.ingest_text(f"{p30}\n", source="fix.md", label="fixture")
        assert report.superseded == []
        statuses = {b.value: b.status for b in may.beliefs(include_all=True, include_fixtures=True)}
    assert statuses == {"15 days": "unsupported", "30 days": "current", "7 days": "unsupported"}


def test_a_source_back_at_a_value_another_source_took_over_from_wins_again(db_url: str) -> None:
    """policy.md says 30, 60, 30, 60 days; other.md then says 90 (90 supersedes 60); policy.md goes back
    to 30. Rule 8 makes 30 (the latest recorded version) supersede 90, but 60 -> 30 from before would
    close a cycle 30 -> 90 -> 60 -> 30, and 60 no longer holds: that supersession ends (kept as history,
    with the moment it ended) instead of refusing the source's new text. As of a moment before it
    ended, 30 days was superseded; after, it is what was believed."""
    from conftest import url_at

    def moment(day: int) -> str:
        return f"2026-03-{day:02d}T00:00:00Z"

    for day, value in enumerate((30, 60, 30, 60), start=1):
        with beliefdb.connect(url_at(db_url, moment(day))) as db:
            db.ingest_text(f"Refund window: {value} days\n", source="policy.md")
    with beliefdb.connect(url_at(db_url, moment(5))) as db:
        other = db.ingest_text("Refund window: 90 days\n", source="other.md")
        (ninety,) = other.accepted
        (sixty,) = [s.old for s in other.superseded]
    with beliefdb.connect(url_at(db_url, moment(6))) as db:
        back = db.ingest_text("Refund window: 30 days\n", source="policy.md")
        assert back.new_version and back.accepted == []
        statuses = {b.value: b.status for b in db.beliefs(subject="refund_policy", include_all=True)}
        assert statuses == {"30 days": "current", "60 days": "superseded", "90 days": "superseded"}
        (thirty,) = [b.id for b in db.beliefs(subject="refund_policy")]
        # the report names the supersession the revived 30 made, not only that it was re-verified
        assert [(s.old, s.new) for s in back.superseded] == [(ninety.id, thirty)]
        assert back.reverified == [thirty]
    with psycopg.connect(db_url) as conn:
        edges = conn.execute(
            "select from_belief, to_belief, ended_at is not null from beliefdb.relation"
            " where kind = 'supersedes' order by created_at").fetchall()
        assert edges == [(sixty, thirty, True), (ninety.id, sixty, False), (thirty, ninety.id, False)]
        ended = conn.execute("select ended from beliefdb.belief_history where old_belief = %s",
                             (thirty,)).fetchone()
        assert ended is not None and ended[0].isoformat().startswith("2026-03-06")
    with beliefdb.connect(url_at(db_url, moment(7))) as db:
        before = {b.value for b in db.beliefs(subject="refund_policy", as_of=datetime.fromisoformat(moment(5)))}
        after = {b.value for b in db.beliefs(subject="refund_policy", as_of=datetime.fromisoformat(moment(6)))}
        # on the 5th 90 had just superseded 60 (which had superseded 30); on the 6th 30 is back
        assert before == {"90 days"} and after == {"30 days"}


def test_a_source_that_repeats_a_superseded_value_does_not_reopen_the_pair(db_url: str) -> None:
    """policy.md says 30 days; other.md, later, 90 (90 supersedes 30 by recency); policy.md is edited
    elsewhere and still says 30. The repeat re-verifies 30 from a newer version, but a settled
    supersession stands while its winner holds: 90 stays current, and the report says re-verified only."""
    from conftest import url_at

    with beliefdb.connect(url_at(db_url, "2026-03-01T00:00:00Z")) as db:
        db.ingest_text("Refund window: 30 days\n", source="policy.md")
    with beliefdb.connect(url_at(db_url, "2026-03-02T00:00:00Z")) as db:
        other = db.ingest_text("Refund window: 90 days\n", source="other.md")
        assert [s.new for s in other.superseded] == [a.id for a in other.accepted]
    with beliefdb.connect(url_at(db_url, "2026-03-03T00:00:00Z")) as db:
        edit = db.ingest_text("Refund window: 30 days\nSupport hours: 9 to 17\n", source="policy.md")
        statuses = {b.value: b.status for b in db.beliefs(subject="refund_policy", include_all=True)}
    assert statuses == {"30 days": "superseded", "90 days": "current"}
    assert len(edit.reverified) == 1 and edit.superseded == []


def test_the_report_says_why_each_thing_is_current_again(db_url: str) -> None:
    """A text back in force (A, B, A) makes a decision and its action hold again, flagged and held by B:
    the report says they hold again and still need review, not that something superseding them stopped
    holding; a belief that held all along and is current again because what superseded it (another
    source's) stopped holding is the one said so."""
    from conftest import url_at

    from beliefdb import render
    from beliefdb.render import short

    a, b = POLICY, POLICY_B
    with beliefdb.connect(url_at(db_url, "2026-03-01T00:00:00Z")) as db:
        (twelve,) = [x.id for x in db.ingest_text(a, source="warranty.md").accepted if x.value == "12 months"]
        decision = db.decide("Refuse the claim from month 13", because=[twelve])
        action = db.act(decision.id, "Email the refusal")
        flagged = db.ingest_text(b, source="warranty.md")
        assert flagged.flagged == [decision.id] and flagged.held == [action.id]
        back = db.ingest_text(a, source="warranty.md")
        assert [(c.id, c.kind, c.status, c.started_holding) for c in back.current_again] == sorted(
            [(twelve, "belief", "current", True), (decision.id, "decision", "needs_review", True),
             (action.id, "action", "held", True)])
        said = render.ingest_report(back)
        assert said.splitlines()[-2:] == [
            f"  ↺ decision {short(decision.id)} holds again: what it rests on is current again"
            " (still needs review: beliefdb review list)",
            f"  ↺ action {short(action.id)} holds again: its decision holds again"
            " (still held: its decision needs review)"]
        assert "superseded it" not in said and f"↻ {short(twelve)} re-verified" in said  # (listed once, as that)
        assert [(d.status, x.status) for d in db.decisions() for x in db.actions()] == [("needs_review", "held")]

    with beliefdb.connect(url_at(db_url, "2026-03-02T00:00:00Z")) as db:
        (thirty,) = db.ingest_text("Refund window: 30 days\n", source="policy.md").accepted
    with beliefdb.connect(url_at(db_url, "2026-03-03T00:00:00Z")) as db:
        (ninety,) = db.ingest_text("Refund window: 90 days\n", source="other.md").accepted
    with beliefdb.connect(url_at(db_url, "2026-03-04T00:00:00Z")) as db:
        dropped = db.ingest_text("Support hours: 9 to 17\n", source="other.md")
        assert dropped.unsupported == [ninety.id]
        assert [(c.id, c.kind, c.started_holding) for c in dropped.current_again] == [(thirty.id, "belief", False)]
        assert f"  ↺ {short(thirty.id)} current again: what superseded it stopped holding" in \
            render.ingest_report(dropped).splitlines()


def test_a_report_names_no_supersession_by_a_belief_that_stopped_holding(bdb: beliefdb.BeliefDB) -> None:
    seven, fifteen = "The refund window is 7 days.\n", "The refund window is 15 days.\n"
    for text in (seven, fifteen, seven):  # A, B, A: 7 days current again, 15 days unsupported
        bdb.ingest_text(text, source="policy.md")
    gone = bdb.ingest_text("Shipping is free.\n", source="policy.md")
    (old,) = [b for b in bdb.beliefs(subject="refund_policy", include_all=True) if b.value == "7 days"]
    assert old.id in gone.unsupported
    # 15 days holds no more: it superseded nothing in this change
    assert gone.superseded == []


def test_a_new_claim_over_retracted_text_is_rejected_saying_so(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                               tmp_path: Any) -> None:
    """A fragment retracted is text declared untrustworthy: a new claim quoting it, or part of it, was
    accepted on a new fragment of the same words and was current (the retracted words back as a belief),
    and in a new version that carried the fragment retracted it was accepted and then superseded by the
    rival it never beat. It is rejected now, with the retraction's reason; the claim recorded from that
    fragment before is unchanged, and restoring the fragment lets the new claim in."""
    first = bdb.ingest_text(POLICY, source="warranty.md")
    (twelve,) = [a for a in first.accepted if a.value == "12 months"]
    fragment = bdb.why(twelve.id).evidence[0].fragment_id
    bdb.retract(fragment=fragment, reason="a typo")
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"statement": "The warranty lasts 12 months.", "subject": "warranty", "attribute": "months",'
                      ' "value": "12 months", "quote": "12 months"}\n', encoding="utf-8")
    remembered = bdb.remember("The warranty lasts 12 months.", "warranty", "months", "12 months", "12 months",
                              source="warranty.md")
    (grown,) = bdb.ingest(write_doc("warranty.md", POLICY + "Returns are free.\n"), claims=claims, embed=False)
    for report in (remembered, grown):
        assert isinstance(report, beliefdb.models.IngestReport)
        assert report.accepted == [] and [(r.quote, r.reason.split(":")[0]) for r in report.rejected] == [
            ("12 months", "retracted")], report
        assert "(a typo)" in report.rejected[0].reason
    assert bdb.beliefs(subject="warranty", include_all=True) == []
    # the claim recorded from the fragment before is unchanged, and stays as the retraction left it
    again = bdb.ingest_text(POLICY + "Returns are free.\n", source="warranty.md")
    assert again.accepted == [] and again.rejected == [] and warranty(bdb) == [("12 months", "unsupported")]
