"""Ingest: corroboration, new versions (supersession, re-verification, loss of support), rule 8 between
sources, scope and valid time, as-of reads, remember() through the same gate, and partial failures."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from conftest import Cli, url_at

import beliefdb
from beliefdb.models import Belief, IngestFailure, IngestReport

SEVEN = "Returns are accepted within 7 days of delivery."
FIFTEEN = "Returns are accepted within 15 days of delivery."
THREE = "Returns are accepted within 3 days of delivery."
SHIPPING = "Shipping is free for orders over 50 EUR."
SUPPORT = "Support answers within one business day."

WEIGHT = {"official": 0.90, "internal": 0.80, "user": 0.65, "agent": 0.50, "unverified": 0.30}
CONFLICT_MULTIPLIER = 0.5


def claim(quote: str, value: str, *, subject: str = "return_policy", attribute: str = "window",
          **extra: Any) -> dict[str, Any]:
    return {"statement": f"{subject} {attribute} is {value}", "subject": subject, "attribute": attribute,
            "value": value, "quote": quote, **extra}


def ingest_claims(bdb: beliefdb.BeliefDB, write_doc: Any, name: str, text: str, *claims: dict[str, Any],
                  **options: Any) -> IngestReport:
    """Write ``text`` to ``name`` and ingest it with exactly these claims (no extractor)."""
    doc = write_doc(name, text)
    lines = write_doc(name + ".claims.jsonl", "".join(json.dumps(c) + "\n" for c in claims))
    (report,) = bdb.ingest(doc, claims=lines, extractor="none", **options)
    assert isinstance(report, IngestReport), report
    return report


def statuses(bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """value -> status of every belief about the return window."""
    found = bdb.beliefs(subject="return_policy", attribute="window", include_all=True)
    assert len({b.value for b in found}) == len(found), found
    return {b.value: b.status for b in found}


def belief(bdb: beliefdb.BeliefDB, belief_id: UUID) -> Belief:
    (found,) = [b for b in bdb.beliefs(include_all=True) if b.id == belief_id]
    return found


def scalar(conn: psycopg.Connection[Any], query: Any, params: Any = None) -> Any:
    row = conn.execute(query, params).fetchone()
    assert row is not None
    return row[0]


# --- corroboration -----------------------------------------------------------------------------------


def test_second_source_corroborates_one_belief(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    first = ingest_claims(bdb, write_doc, "policy.md", SEVEN, claim(SEVEN, "7 days"), authority="internal")
    (seven,) = first.accepted
    alone = belief(bdb, seven.id)
    assert alone.evidence_count == 1
    assert alone.confidence == pytest.approx(WEIGHT["internal"])

    faq = "Q: How long do I have?\nA: The return window is 7 days."
    second = ingest_claims(bdb, write_doc, "faq.md", faq, claim("The return window is 7 days.", "7 days"),
                           authority="user")
    assert second.accepted == []
    assert [(c.id, c.quote) for c in second.corroborated] == [(seven.id, "The return window is 7 days.")]
    (only,) = bdb.beliefs(include_all=True)
    assert only.id == seven.id and only.status == "current"
    assert only.evidence_count == 2
    assert only.confidence > alone.confidence
    assert only.confidence == pytest.approx(1 - (1 - WEIGHT["internal"]) * (1 - WEIGHT["user"]))
    assert sorted(e.source for e in bdb.why(seven.id).evidence) == ["faq.md", "policy.md"]


def test_same_document_twice_adds_no_duplicate(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    first = ingest_claims(bdb, write_doc, "policy.md", SEVEN, claim(SEVEN, "7 days"))
    (seven,) = first.accepted
    again = ingest_claims(bdb, write_doc, "policy.md", SEVEN, claim(SEVEN, "7 days"))
    assert again.accepted == [] and again.corroborated == [] and again.rejected == []
    (only,) = bdb.beliefs(include_all=True)
    assert only.id == seven.id and only.evidence_count == 1
    assert len(bdb.why(seven.id).evidence) == 1


def test_two_quotes_of_one_document_are_not_independent(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    text = f"{SEVEN}\nIn short: the return window is 7 days."
    report = ingest_claims(bdb, write_doc, "policy.md", text, claim(SEVEN, "7 days"),
                           claim("the return window is 7 days.", "7 days"), authority="internal")
    (seven,) = report.accepted
    assert [c.id for c in report.corroborated] == [seven.id]
    (only,) = bdb.beliefs(include_all=True)
    assert only.evidence_count == 2
    assert only.confidence == pytest.approx(WEIGHT["internal"])  # one source, however many quotes


# --- a new version of the same source ----------------------------------------------------------------


def test_new_version_supersedes_reverifies_and_drops_support(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    v1 = f"{SEVEN}\n{SHIPPING}\n{SUPPORT}\n"
    first = ingest_claims(
        bdb, write_doc, "policy.md", v1,
        claim(SEVEN, "7 days"),
        claim(SHIPPING, "50 EUR", subject="shipping", attribute="free_threshold"),
        claim(SUPPORT, "one business day", subject="support", attribute="response_time"),
        authority="official")
    seven, shipping, support = (a.id for a in first.accepted)

    v2 = f"{FIFTEEN}\n{SHIPPING}\n"  # the shipping sentence is repeated, the support one is dropped
    second = ingest_claims(bdb, write_doc, "policy.md", v2, claim(FIFTEEN, "15 days"))
    assert second.new_version and second.version == 2
    (fifteen,) = second.accepted
    assert [(s.old, s.new) for s in second.superseded] == [(seven, fifteen.id)]
    assert second.reverified == [shipping]
    assert second.unsupported == [support]

    by_id = {b.id: b for b in bdb.beliefs(include_all=True)}
    assert {i: b.status for i, b in by_id.items()} == {
        seven: "superseded", fifteen.id: "current", shipping: "current", support: "unsupported"}
    assert {b.id for b in bdb.beliefs()} == {fifteen.id, shipping}

    # the superseded belief is kept, with its evidence, and the history reads both ways
    old = bdb.why(seven)
    assert old.belief.value == "7 days" and old.belief.status == "superseded"
    assert [(e.quote, e.version, e.in_force) for e in old.evidence] == [(SEVEN, 1, False)]
    assert [(h.new_belief, h.old_belief, h.new_value) for h in old.replaced_by] == [(fifteen.id, seven, "15 days")]
    assert old.replaced == []
    new = bdb.why(fifteen.id)
    assert [(h.new_belief, h.old_belief, h.old_value) for h in new.replaced] == [(fifteen.id, seven, "7 days")]
    assert new.replaced_by == []

    # re-verified: new evidence in v2, in force, at the quote's offsets there
    reverified = bdb.why(shipping)
    assert [(e.version, e.in_force, e.quote) for e in reverified.evidence] == [
        (2, True, SHIPPING), (1, False, SHIPPING)]
    in_v2 = reverified.evidence[0]
    assert v2[in_v2.start_offset:in_v2.end_offset] == SHIPPING
    assert by_id[shipping].evidence_count == 2

    # unsupported: only v1 evidence, which is no longer in force
    assert [(e.version, e.in_force) for e in bdb.why(support).evidence] == [(1, False)]


def test_restated_value_in_new_version_is_not_unsupported(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    first = ingest_claims(bdb, write_doc, "policy.md", SEVEN, claim(SEVEN, "7 days"))
    (seven,) = first.accepted
    v2 = "The return window is 7 days."  # other words, same value
    second = ingest_claims(bdb, write_doc, "policy.md", v2, claim(v2, "7 days"))
    assert [c.id for c in second.corroborated] == [seven.id]
    assert second.unsupported == [] and second.superseded == []
    assert statuses(bdb) == {"7 days": "current"}


def test_a_changelog_supersedes_the_price_list_and_not_another_plans_limit(bdb: beliefdb.BeliefDB,
                                                                           write_doc: Any) -> None:
    # (a support team's knowledge base: "is now $59" was pro / plan, never the price list's pro_plan / price,
    # and Business's rate limit superseded Pro's, the plan inside the value)
    bdb.ingest(write_doc("pricing.md", "The Pro plan costs $49 per month.\n"
                                       "The API rate limit is 100 requests per minute on Pro.\n"))
    changelog = ("- The Pro plan is now $59 per month.\n"
                 "- The API rate limit is now 600 requests per minute on Business.\n")
    (report,) = bdb.ingest(write_doc("changelog.md", changelog))
    assert isinstance(report, IngestReport) and len(report.superseded) == 1
    assert sorted((b.subject, b.attribute, b.value, dict(b.scope)) for b in bdb.beliefs()) == [
        ("api", "rate_limit", "100 requests per minute", {"plan": "Pro"}),
        ("api", "rate_limit", "600 requests per minute", {"plan": "Business"}),
        ("pro_plan", "price", "$59 per month", {})]


def test_a_second_space_typed_inside_a_value_changes_nothing(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    # (trial: "2 days per week" edited to "2 days  per week" superseded the belief, flagged the decision on it,
    # and why showed the one replaced by the other as the same words)
    (first,) = bdb.ingest(write_doc("hr.md", "Remote work is allowed 2 days per week.\nMax upload: 20 MB\n"))
    assert isinstance(first, IngestReport)
    remote, upload = (a.id for a in first.accepted)
    decision = bdb.decide("Let the team work from home twice a week", because=[remote])
    (second,) = bdb.ingest(write_doc("hr.md", "Remote work is allowed 2 days  per week.\nMax upload:  20\tMB\n"))
    assert isinstance(second, IngestReport) and second.version == 2
    assert second.accepted == [] and second.superseded == [] and second.unsupported == []
    assert sorted(c.id for c in second.corroborated) == sorted([remote, upload])
    assert {b.id: b.value for b in bdb.beliefs()} == {remote: "2 days per week", upload: "20 MB"}
    assert [(d.id, d.status) for d in bdb.decisions()] == [(decision.id, "active")]


def test_a_tie_a_value_back_in_force_opens_is_in_the_report(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    # (trial: 10 -> 12 -> 10 -> "15, 12": 12 came back in force beside the new 15, both conflicting, and the
    # report's conflicts were empty: the user was not told a person must choose)
    ids = {}
    for text in ("Rate: 10 percent\n", "Rate: 12 percent\n", "Rate: 10 percent\n"):
        (report,) = bdb.ingest(write_doc("rate.md", text))
        assert isinstance(report, IngestReport) and report.conflicts == []
        ids.update({a.value: a.id for a in report.accepted})
    (report,) = bdb.ingest(write_doc("rate.md", "Rate: 15 percent\nRate: 12 percent\n"))
    assert isinstance(report, IngestReport)
    ids.update({a.value: a.id for a in report.accepted})
    assert {b.value: b.status for b in bdb.beliefs(include_all=True)} == {
        "10 percent": "superseded", "12 percent": "conflicting", "15 percent": "conflicting"}
    assert [{c.a, c.b} for c in report.conflicts] == [{ids["12 percent"], ids["15 percent"]}]
    assert "a person must choose" in report.conflicts[0].reason
    assert [c.id for c in report.current_again] == [ids["12 percent"]]


def test_a_renamed_label_says_the_belief_its_line_kept_now_reads_as_another(bdb: beliefdb.BeliefDB,
                                                                            write_doc: Any) -> None:
    # (trial: "- Passwords:" renamed "- Credentials:" left password / rotation current by its repeated quote
    # (rule 2) beside the new credential / rotation, silently, and ask ranked the old one first)
    (first,) = bdb.ingest(write_doc("security.md", "- Passwords:\n  - Rotation: 90 days\n  - Owner: IT\n"))
    assert isinstance(first, IngestReport)
    rotation, owner = (a.id for a in first.accepted)
    (second,) = bdb.ingest(write_doc("security.md", "- Credentials:\n  - Rotation: 90 days\n  - Owner: IT\n"))
    assert isinstance(second, IngestReport)
    now = {(a.subject, a.attribute): a.id for a in second.accepted}
    assert set(now) == {("credential", "rotation"), ("credential", "owner")}
    assert sorted(second.reverified) == sorted([rotation, owner])
    assert [(r.id, r.subject, r.attribute, r.value, r.now, r.now_subject, r.now_attribute) for r in second.reread] == [
        (rotation, "password", "rotation", "90 days", now[("credential", "rotation")], "credential", "rotation"),
        (owner, "password", "owner", "IT", now[("credential", "owner")], "credential", "owner")]
    # (a version that only repeats the lines reads nothing anew; one that changes a value supersedes, as before)
    (third,) = bdb.ingest(write_doc("security.md", "- Credentials:\n  - Rotation: 60 days\n  - Owner: IT\n"))
    assert isinstance(third, IngestReport) and third.reread == []


def test_a_renamed_label_over_a_repeated_line_pairs_no_belief_by_guess(bdb: beliefdb.BeliefDB,
                                                                        write_doc: Any) -> None:
    # (review: where a line repeats, every kept belief's quote goes forward to its first occurrence, and the
    # report paired each kept belief with the first new one)
    text = "- Team {a}:\n  - Rotation: 90 days\n- Team {b}:\n  - Rotation: 90 days\n"
    bdb.ingest(write_doc("teams.md", text.format(a="Red", b="Blue")))
    (second,) = bdb.ingest(write_doc("teams.md", text.format(a="Green", b="Gold")))
    assert isinstance(second, IngestReport) and len(second.accepted) == 2
    assert second.reread == []


def test_cli_ingest_says_which_belief_a_renamed_heading_left_beside_the_new_one(cli: Cli, write_doc: Any) -> None:
    path = write_doc("refunds.md", "## Returns\n\nWindow: 30 days\n")
    cli("ingest", path)
    path.write_text("## Refunds\n\nWindow: 30 days\n", encoding="utf-8")
    result = cli("ingest", path)
    assert re.search(r"! [0-9a-f]{8} return / window is kept by its quote, which now reads as refund / window "
                     r"\([0-9a-f]{8}\): both are current; if the renamed heading or label changed what the line is "
                     r"about, retract or correct [0-9a-f]{8}", result.output), result.output
    assert cli.json("ingest", write_doc("refunds.md", "## Refunds\n\nWindow: 14 days\n"))["reread"] == []


def test_a_source_back_at_a_value_another_source_gives_is_one_belief_of_it(bdb: beliefdb.BeliefDB,
                                                                            write_doc: Any) -> None:
    # (trial: a.md says 20 EUR; b.md says 19 EUR, which superseded it; b.md's next version says 20 EUR again:
    # a new belief of 20 EUR, and a.md's came back as well, two current beliefs of one claim)
    def ingest(name: str, text: str) -> IngestReport:
        (report,) = bdb.ingest(write_doc(name, "# Widget\n\n" + text))
        assert isinstance(report, IngestReport)
        return report

    twenty = ingest("a.md", "Price: 20 EUR\n").accepted[0].id
    b1 = ingest("b.md", "Price: 19 EUR\n")
    nineteen = b1.accepted[0].id
    assert [(s.old, s.new) for s in b1.superseded] == [(twenty, nineteen)]
    b2 = ingest("b.md", "Price: 20 EUR\n")
    assert b2.accepted == [] and [c.id for c in b2.corroborated] == [twenty]
    assert [c.id for c in b2.current_again] == [twenty] and b2.unsupported == [nineteen]
    assert {(b.value, b.status) for b in bdb.beliefs(include_all=True)} == {
        ("20 EUR", "current"), ("19 EUR", "unsupported")}
    assert sorted(e.source for e in bdb.why(twenty).evidence) == ["a.md", "b.md"]
    # (a version that says the superseding value again keeps it: the value back is a claim of its own, tied)
    thirty = ingest("c.md", "Price: 30 EUR\n").accepted[0].id
    ingest("d.md", "Price: 31 EUR\n")
    d2 = ingest("d.md", "Price: 30 EUR\nPrice: 31 EUR\n")
    assert [a.value for a in d2.accepted] == ["30 EUR"] and d2.corroborated == []
    assert {(b.value, b.status) for b in bdb.beliefs(include_all=True) if b.id != thirty} >= {
        ("30 EUR", "conflicting"), ("31 EUR", "conflicting")}


def _counts(conn: psycopg.Connection[Any]) -> tuple[int, ...]:
    counts = tuple(scalar(conn, f"select count(*) from beliefdb.{table}")  # literal table names
                   for table in ("audit_event", "source_version", "fragment", "evidence", "belief", "relation"))
    conn.commit()
    return counts


@pytest.mark.parametrize("extractor", ["none", "rules"])
def test_same_file_twice_is_a_no_op(bdb: beliefdb.BeliefDB, write_doc: Any, postgresql: psycopg.Connection[Any],
                                    extractor: str) -> None:
    doc = write_doc("return-policy.md", f"# Return policy\n\n{SEVEN}\n")
    lines = write_doc("claims.jsonl", json.dumps(claim(SEVEN, "7 days")) + "\n")
    (first,) = bdb.ingest(doc, claims=lines, extractor=extractor, authority="official")
    assert isinstance(first, IngestReport) and first.new_version and first.version == 1
    assert len(first.accepted) >= 1
    before = _counts(postgresql)

    (again,) = bdb.ingest(doc, claims=lines, extractor=extractor, authority="official")
    assert isinstance(again, IngestReport)
    assert not again.new_version and again.version == 1
    assert again.accepted == [] and again.corroborated == [] and again.rejected == []
    assert again.superseded == [] and again.conflicts == []
    assert again.reverified == [] and again.unsupported == []
    assert _counts(postgresql) == before  # not even an audit event
    assert bdb.audit_verify().ok


# --- rule 8 between sources ---------------------------------------------------------------------------


def test_authority_beats_recency(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    official = ingest_claims(bdb, write_doc, "policy.md", SEVEN, claim(SEVEN, "7 days"), authority="official")
    (seven,) = official.accepted
    later = ingest_claims(bdb, write_doc, "forum.md", THREE, claim(THREE, "3 days"), authority="unverified")
    (three,) = later.accepted
    assert [(s.old, s.new) for s in later.superseded] == [(three.id, seven.id)]
    assert later.conflicts == []
    assert statuses(bdb) == {"7 days": "current", "3 days": "superseded"}
    assert [b.value for b in bdb.beliefs(subject="return_policy")] == ["7 days"]
    assert [h.new_belief for h in bdb.why(three.id).replaced_by] == [seven.id]


def test_later_valid_from_wins_at_equal_authority_whatever_the_ingest_order(bdb: beliefdb.BeliefDB,
                                                                            write_doc: Any) -> None:
    newer = ingest_claims(bdb, write_doc, "policy-2025.md", FIFTEEN,
                          claim(FIFTEEN, "15 days", valid_from="2025-06-01T00:00:00+00:00"), authority="internal")
    (fifteen,) = newer.accepted
    older = ingest_claims(bdb, write_doc, "policy-2024.md", SEVEN,
                          claim(SEVEN, "7 days", valid_from="2025-01-01T00:00:00+00:00"), authority="internal")
    (seven,) = older.accepted
    assert [(s.old, s.new) for s in older.superseded] == [(seven.id, fifteen.id)]
    assert statuses(bdb) == {"15 days": "current", "7 days": "superseded"}


def test_later_recorded_version_wins_without_valid_time(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    ingest_claims(bdb, write_doc, "a.md", SEVEN, claim(SEVEN, "7 days"), authority="internal")
    later = ingest_claims(bdb, write_doc, "b.md", FIFTEEN, claim(FIFTEEN, "15 days"), authority="internal")
    assert len(later.superseded) == 1 and later.conflicts == []
    assert statuses(bdb) == {"7 days": "superseded", "15 days": "current"}


def _assert_tie(bdb: beliefdb.BeliefDB, report: IngestReport, postgresql: psycopg.Connection[Any],
                authority: str) -> None:
    assert report.superseded == []
    assert len(report.conflicts) == 1
    assert statuses(bdb) == {"7 days": "conflicting", "15 days": "conflicting"}
    ids = {b.id for b in bdb.beliefs(include_all=True)}
    conflict = report.conflicts[0]
    assert {conflict.a, conflict.b} == ids
    kinds = postgresql.execute("select kind::text, from_belief, to_belief from beliefdb.relation").fetchall()
    assert [k for k, _, _ in kinds] == ["conflicts_with"]
    assert {kinds[0][1], kinds[0][2]} == ids
    for b in bdb.beliefs(include_all=True):
        assert b.confidence == pytest.approx(WEIGHT[authority] * CONFLICT_MULTIPLIER)  # lowered
        why = bdb.why(b.id)
        assert why.replaced == [] and why.replaced_by == []
        assert [h.kind for h in why.conflicts] == ["conflicts_with"]
    # both are still true now, with the warning
    assert sorted(b.status for b in bdb.beliefs(subject="return_policy")) == ["conflicting", "conflicting"]


def test_tie_between_two_sources_marks_both_conflicting(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                        postgresql: psycopg.Connection[Any]) -> None:
    since = "2025-03-01T00:00:00+00:00"
    ingest_claims(bdb, write_doc, "a.md", SEVEN, claim(SEVEN, "7 days", valid_from=since), authority="user")
    second = ingest_claims(bdb, write_doc, "b.md", FIFTEEN, claim(FIFTEEN, "15 days", valid_from=since),
                           authority="user")
    _assert_tie(bdb, second, postgresql, "user")


def test_tie_within_one_document_marks_both_conflicting(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                        postgresql: psycopg.Connection[Any]) -> None:
    report = ingest_claims(bdb, write_doc, "policy.md", f"{SEVEN}\n{FIFTEEN}\n",
                           claim(SEVEN, "7 days"), claim(FIFTEEN, "15 days"), authority="internal")
    assert len(report.accepted) == 2
    _assert_tie(bdb, report, postgresql, "internal")


def test_different_scopes_do_not_conflict(bdb: beliefdb.BeliefDB, write_doc: Any,
                                          postgresql: psycopg.Connection[Any]) -> None:
    report = ingest_claims(bdb, write_doc, "policy.md", f"{SEVEN}\n{FIFTEEN}\n",
                           claim(SEVEN, "7 days", scope={"region": "EU"}),
                           claim(FIFTEEN, "15 days", scope={"region": "US"}))
    assert len(report.accepted) == 2
    assert report.conflicts == [] and report.superseded == []
    assert statuses(bdb) == {"7 days": "current", "15 days": "current"}
    assert {(b.value, b.scope["region"]) for b in bdb.beliefs()} == {("7 days", "EU"), ("15 days", "US")}
    assert scalar(postgresql, "select count(*) from beliefdb.relation") == 0


def test_scoped_and_unscoped_do_not_conflict(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    report = ingest_claims(bdb, write_doc, "policy.md", f"{SEVEN}\n{FIFTEEN}\n",
                           claim(SEVEN, "7 days"), claim(FIFTEEN, "15 days", scope={"tier": "gold"}))
    assert report.conflicts == [] and report.superseded == []
    assert statuses(bdb) == {"7 days": "current", "15 days": "current"}


def test_non_overlapping_valid_times_do_not_conflict(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                     postgresql: psycopg.Connection[Any]) -> None:
    report = ingest_claims(
        bdb, write_doc, "policy.md", f"{SEVEN}\n{FIFTEEN}\n",
        claim(SEVEN, "7 days", valid_from="2024-01-01T00:00:00+00:00", valid_to="2025-01-01T00:00:00+00:00"),
        claim(FIFTEEN, "15 days", valid_from="2025-01-01T00:00:00+00:00"))
    assert len(report.accepted) == 2
    assert report.conflicts == [] and report.superseded == []
    # the one whose valid time ended is expired (rule 16): true of its own time, not now
    assert statuses(bdb) == {"7 days": "expired", "15 days": "current"}
    assert scalar(postgresql, "select count(*) from beliefdb.relation") == 0
    # only the one valid now is true now; the other is true of its own time
    assert [b.value for b in bdb.beliefs(subject="return_policy")] == ["15 days"]
    assert [b.value for b in bdb.beliefs(as_of=datetime(2024, 6, 1, tzinfo=UTC))] == []  # recorded later


def test_overlapping_valid_times_do_conflict(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    report = ingest_claims(
        bdb, write_doc, "policy.md", f"{SEVEN}\n{FIFTEEN}\n",
        # (both still current: a claim whose valid time is over meets no rival, rule 16)
        claim(SEVEN, "7 days", valid_from="2026-01-01T00:00:00+00:00", valid_to="2099-01-02T00:00:00+00:00"),
        claim(FIFTEEN, "15 days", valid_from="2099-01-01T00:00:00+00:00"))
    seven, fifteen = report.accepted
    assert [(s.old, s.new) for s in report.superseded] == [(seven.id, fifteen.id)]  # later valid-time start
    assert statuses(bdb) == {"7 days": "superseded", "15 days": "current"}


# --- as-of reads ---------------------------------------------------------------------------------------


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def test_as_of_reads_what_was_believed_then(bdb: beliefdb.BeliefDB, db_url: str, write_doc: Any) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as january:
        (seven,) = ingest_claims(january, write_doc, "policy.md", SEVEN, claim(SEVEN, "7 days"),
                                 authority="official").accepted
    with beliefdb.connect(url_at(db_url, "2026-02-01T00:00:00Z")) as february:
        second = ingest_claims(february, write_doc, "policy.md", FIFTEEN, claim(FIFTEEN, "15 days"))
        (fifteen,) = second.accepted
        assert [(s.old, s.new) for s in second.superseded] == [(seven.id, fifteen.id)]

    mid_january = bdb.beliefs(subject="return_policy", as_of=at("2026-01-15"))
    assert [(b.id, b.value, b.status) for b in mid_january] == [(seven.id, "7 days", "current")]
    assert [b.evidence_count for b in mid_january] == [1]
    mid_february = bdb.beliefs(subject="return_policy", as_of=at("2026-02-15"))
    assert [(b.id, b.value, b.status) for b in mid_february] == [(fifteen.id, "15 days", "current")]
    assert bdb.beliefs(as_of=at("2025-12-01")) == []
    # the stored status is today's; as-of answers with the status of then
    assert statuses(bdb) == {"7 days": "superseded", "15 days": "current"}


def test_as_of_respects_recorded_time(bdb: beliefdb.BeliefDB, db_url: str, write_doc: Any) -> None:
    with beliefdb.connect(url_at(db_url, "2026-02-01T00:00:00Z")) as february:
        (late,) = ingest_claims(february, write_doc, "policy.md", SEVEN,
                                claim(SEVEN, "7 days", valid_from="2025-01-01T00:00:00+00:00")).accepted
    assert bdb.beliefs(as_of=at("2026-01-15")) == []  # valid then, but not yet recorded
    assert [b.id for b in bdb.beliefs(as_of=at("2026-02-15"))] == [late.id]
    assert bdb.beliefs(as_of=at("2024-06-01")) == []  # neither valid nor recorded


def test_as_of_shows_an_open_tie_as_conflicting_only_after_it_opened(bdb: beliefdb.BeliefDB, db_url: str,
                                                                     write_doc: Any) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as january:
        ingest_claims(january, write_doc, "a.md", SEVEN, claim(SEVEN, "7 days", valid_from="2025-01-01T00:00:00Z"))
    with beliefdb.connect(url_at(db_url, "2026-02-01T00:00:00Z")) as february:
        report = ingest_claims(february, write_doc, "b.md", FIFTEEN,
                               claim(FIFTEEN, "15 days", valid_from="2025-01-01T00:00:00Z"))
        assert len(report.conflicts) == 1
    assert [(b.value, b.status) for b in bdb.beliefs(as_of=at("2026-01-15"))] == [("7 days", "current")]
    assert sorted((b.value, b.status) for b in bdb.beliefs(as_of=at("2026-02-15"))) == [
        ("15 days", "conflicting"), ("7 days", "conflicting")]


# --- remember() goes through the same gate -----------------------------------------------------------


def test_remember_rejects_a_quote_not_in_the_source(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(SEVEN, source="policy.md", extractor="none")
    report = bdb.remember("The return window is 30 days.", "return_policy", "window", "30 days",
                          "Returns are accepted within 30 days of delivery.", source="policy.md")
    assert report.accepted == []
    assert [r.reason for r in report.rejected] == ["quote is not in the source text"]
    assert bdb.beliefs(include_all=True) == []


def test_remember_accepts_a_quote_of_the_version_in_force(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(SEVEN, source="policy.md", extractor="none")
    bdb.ingest_text(FIFTEEN, source="policy.md", extractor="none")
    stale = bdb.remember("7 days", "return_policy", "window", "7 days", SEVEN, source="policy.md")
    assert stale.accepted == [] and [r.reason for r in stale.rejected] == ["quote is not in the source text"]
    fresh = bdb.remember("15 days", "return_policy", "window", "15 days", FIFTEEN, source="policy.md")
    (accepted,) = fresh.accepted
    assert (accepted.start, accepted.end) == (0, len(FIFTEEN))
    assert [(e.version, e.in_force) for e in bdb.why(accepted.id).evidence] == [(2, True)]


def test_remember_with_text_grows_a_conversation_in_place(bdb: beliefdb.BeliefDB,
                                                         postgresql: psycopg.Connection[Any]) -> None:
    turn1 = "user: I prefer email over phone calls."
    first = bdb.remember("The customer prefers email.", "customer_1042", "contact_channel", "email",
                         "I prefer email over phone calls.", source="chat-1042", text=turn1)
    assert first.new_version and first.version == 1
    (email,) = first.accepted
    assert turn1[email.start:email.end] == "I prefer email over phone calls."

    # the conversation grown by a line is the same version, grown at its end (rule 18)
    turn2 = turn1 + "\nuser: Please write in French."
    second = bdb.remember("The customer writes French.", "customer_1042", "language", "French",
                          "Please write in French.", source="chat-1042", text=turn2)
    assert not second.new_version and second.version == 1
    assert second.note == "appended: one turn added to the text in force"
    (french,) = second.accepted
    assert turn2[french.start:french.end] == "Please write in French."
    assert second.reverified == []

    # a quote not in the text: nothing is stored, not even the text
    rejected = bdb.remember("The customer writes German.", "customer_1042", "language", "German",
                            "Please write in German.", source="chat-1042", text=turn2 + "\nuser: thanks")
    assert rejected.accepted == [] and [r.reason for r in rejected.rejected] == ["quote is not in the source text"]
    assert rejected.version is None and not rejected.new_version and rejected.note is not None

    rows = postgresql.execute(
        "select s.origin_type::text, v.version, v.content from beliefdb.source s"
        " join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id"
        " where s.name = 'chat-1042' order by v.version").fetchall()
    assert rows == [("conversation", 1, turn2)]
    assert {b.value for b in bdb.beliefs(subject="customer_1042")} == {"email", "French"}
    assert [(e.origin_type, e.version, e.in_force) for e in bdb.why(french.id).evidence] == [
        ("conversation", 1, True)]
    assert [(e.version, e.start_offset) for e in bdb.why(email.id).evidence] == [(1, email.start)]


# --- one bad file among several ----------------------------------------------------------------------


def test_one_bad_file_does_not_stop_the_others(bdb: beliefdb.BeliefDB, write_doc: Any, tmp_path: Any,
                                               postgresql: psycopg.Connection[Any]) -> None:
    good1 = write_doc("returns.md", f"# Returns\n\n{SEVEN}\n")
    good2 = write_doc("shipping.md", f"# Shipping\n\n{SHIPPING}\n")
    missing = tmp_path / "missing.md"
    results = bdb.ingest(good1, missing, good2)
    assert [type(r) for r in results] == [IngestReport, IngestFailure, IngestReport]
    first, failure, second = results
    assert isinstance(first, IngestReport) and isinstance(second, IngestReport)
    assert isinstance(failure, IngestFailure)
    assert failure.path == str(missing) and failure.error == "not_found" and "missing.md" in failure.message
    assert (first.source, first.new_version, second.source, second.new_version) == (
        "returns.md", True, "shipping.md", True)
    stored = postgresql.execute(
        "select s.name, v.content from beliefdb.source s"
        " join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id"
        " order by s.name").fetchall()
    assert stored == [("returns.md", good1.read_text()), ("shipping.md", good2.read_text())]


def test_bad_files_of_every_kind_are_reported(bdb: beliefdb.BeliefDB, write_doc: Any, tmp_path: Any,
                                              postgresql: psycopg.Connection[Any]) -> None:
    good = write_doc("returns.md", SEVEN)
    empty = write_doc("empty.md", "  \n")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"abc\x00def")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("café".encode("latin-1"))
    pdf = write_doc("policy.pdf", "not really a pdf")
    results = bdb.ingest(empty, binary, good, latin1, pdf)  # (a directory is its documents: test_ingest_directories)
    assert [type(r).__name__ for r in results] == [
        "IngestFailure", "IngestFailure", "IngestReport", "IngestFailure", "IngestFailure"]
    assert {r.error for r in results if isinstance(r, IngestFailure)} == {"invalid_input"}
    assert scalar(postgresql, "select array_agg(name) from beliefdb.source") == ["returns.md"]


def test_remember_with_a_text_whose_quote_is_rejected_stores_nothing(bdb: beliefdb.BeliefDB) -> None:
    """The text is remembered for the belief it supports: stored alone as the source's next version, it
    would take the support of every belief the version in force held (found over HTTP)."""
    policy = "Returns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
    bdb.ingest_text(policy, source="policy.md")
    before = {(b.id, b.status) for b in bdb.beliefs(include_all=True)}
    assert len(before) == 2
    decision = bdb.decide("Charge the restocking fee", because=[b for b, _ in before])
    report = bdb.remember("The fee is 5%.", "restocking_policy", "fee", "5%", "fee is five percent",
                          source="policy.md", text="Note: fee is 5%.")
    assert report.accepted == [] and report.version is None and not report.new_version
    assert [r.quote for r in report.rejected] == ["fee is five percent"]
    assert {(b.id, b.status) for b in bdb.beliefs(include_all=True)} == before
    assert [e.version for b, _ in before for e in bdb.why(b).evidence] == [1, 1]
    assert [(d.status, d.holds) for d in bdb.decisions(of=decision.id)] == [(decision.status, True)]



def test_a_valid_time_of_no_length_is_refused(bdb: beliefdb.BeliefDB) -> None:
    """valid_from = valid_to is a range PostgreSQL keeps as 'empty', which reads back without bounds: as if
    valid always (found over HTTP: such a belief and a later rival were both current)."""
    bdb.ingest_text("The return window is 14 days.", source="policy.md", extractor="none")
    with pytest.raises(beliefdb.errors.InvalidInput, match="valid time is empty"):
        bdb.remember("7 days", "return_policy", "window", "7 days", "14 days", source="policy.md",
                     valid_from="2025-01-01T00:00:00Z", valid_to="2025-01-01T00:00:00Z")
    assert bdb.beliefs(include_all=True) == []


def test_a_claims_file_whose_valid_time_ends_before_it_starts_names_the_line(bdb: beliefdb.BeliefDB,
                                                                            tmp_path: Path) -> None:
    """The database refused it in its own words (`valid time is empty: valid_to (2026-04-01 00:00:00+00)
    must be after ...`) without the line, where every other claim error names it (a user trial)."""
    doc = tmp_path / "policy.md"
    doc.write_text("The return window is 14 days.\n", encoding="utf-8")
    claims = tmp_path / "c.jsonl"
    claims.write_text('{"statement": "s", "subject": "return_policy", "attribute": "window", "value": "14 days",'
                      ' "quote": "The return window is 14 days.", "valid_from": "2026-06-01T00:00:00Z",'
                      ' "valid_to": "2026-04-01T00:00:00Z"}\n', encoding="utf-8")
    with pytest.raises(beliefdb.errors.InvalidInput) as refused:
        bdb.ingest(doc, claims=claims, embed=False)
    assert refused.value.message == (
        f"{claims} line 1: 'valid_to' (2026-04-01T00:00:00+00:00) must be after 'valid_from'"
        " (2026-06-01T00:00:00+00:00): a valid time is [valid_from, valid_to)"), refused.value.message
    assert bdb.beliefs(include_all=True) == []
