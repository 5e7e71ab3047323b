"""Sources have owners (rule 17): another principal's new version or retraction of a source is a
review proposal for its owner, not a change; the owner approves (it is then applied as the owner's
own change) or rejects; the ingest message names the real cause of a conflict."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors, render

FINANCE = "Refunds above 500 euros need a manager's approval.\n"
FINANCE2 = "Refunds above 5000 euros need a manager's approval.\n"


def claims(text: str, value: str) -> list[dict[str, Any]]:
    quote = text.strip()
    return [{"statement": quote, "subject": "refund", "attribute": "approval_threshold", "value": value,
             "quote": quote}]


def ingest(db: beliefdb.BeliefDB, text: str, value: str, *, source: str = "finance.md",
           authority: str = "official") -> beliefdb.models.IngestReport:
    from beliefdb.store import ingest as ingest_mod
    from beliefdb.store.ingest import parse_claim

    candidates = [parse_claim(c, "test") for c in claims(text, value)]
    return ingest_mod.ingest_text(db.database, text, ingest_mod.SourceOptions(name=source, authority=authority),
                                  candidates=candidates, extractor="none")


def threshold(db: beliefdb.BeliefDB) -> list[tuple[str, str]]:
    return [(b.value, b.status) for b in db.beliefs(subject="refund", include_all=True)]


def test_another_principals_new_version_is_a_proposal(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    ingest(alice, FINANCE, "500 euros")
    decision = alice.decide("Ask a manager for refund 77 (600 euros)",
                            because=[alice.beliefs(subject="refund")[0].id])
    proposal = ingest(bob, FINANCE2, "5000 euros")
    assert proposal.proposed and proposal.owner == "alice" and proposal.review_item is not None
    assert proposal.version is None and proposal.accepted == [] and proposal.flagged == []
    # nothing changed: alice's official belief is still the answer
    assert threshold(alice) == [("500 euros", "current")]
    assert [a.belief.value for a in bob.ask("what refunds need a manager's approval?").beliefs] == ["500 euros"]
    assert {d.id: d.status for d in alice.decisions()} == {decision.id: "active"}
    (item,) = [i for i in alice.review_items() if i.kind == "version_proposed"]
    assert item.node is None and item.source_id is not None and item.proposed_by == "bob"
    assert item.subject == "finance.md" and "bob proposes a new version of finance.md" in item.reason
    # only the owner decides
    with pytest.raises(errors.NotOwner):
        bob.resolve_review(item.id, "approved")
    result = alice.resolve_review(item.id, "approved")
    assert result.status == "approved" and result.applied is not None and result.applied["version"] == 2
    assert threshold(alice) == [("500 euros", "superseded"), ("5000 euros", "current")]
    owners = {b.value: b.owner for b in alice.beliefs(subject="refund", include_all=True)}
    assert owners["5000 euros"] == "alice"  # applied as the owner's own change
    assert {d.id: d.status for d in alice.decisions()} == {decision.id: "needs_review"}
    # the approval says what it applied
    assert ("version 2 of 'finance.md' applied: 1 accepted, 1 superseded, 0 lost their support, flagged 1"
            " decision(s), held 0 action(s)") in render.review_resolution(result)


def test_a_rejected_proposal_changes_nothing(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    ingest(alice, FINANCE, "500 euros")
    proposal = ingest(bob, FINANCE2, "5000 euros")
    assert proposal.review_item is not None
    alice.resolve_review(proposal.review_item, "rejected")
    assert threshold(alice) == [("500 euros", "current")]
    assert [i for i in alice.review_items() if i.kind == "version_proposed"] == []


def test_the_same_proposal_twice_is_one_item(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    ingest(alice, FINANCE, "500 euros")
    first = ingest(bob, FINANCE2, "5000 euros")
    second = ingest(bob, FINANCE2, "5000 euros")
    assert first.review_item == second.review_item
    # and the owner ingesting that very text settles it
    ingest(alice, FINANCE2, "5000 euros")
    assert [i for i in alice.review_items() if i.kind == "version_proposed"] == []


def test_another_principals_retraction_is_a_proposal(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    ingest(alice, FINANCE, "500 euros")
    preview = bob.preview_retract(source="finance.md")
    assert preview.proposed and preview.owner == "alice" and len(preview.stopped_current) == 2
    proposed = bob.retract(source="finance.md", reason="I think it is outdated")
    assert proposed.proposed and proposed.owner == "alice" and proposed.stopped_current == []
    assert threshold(alice) == [("500 euros", "current")]
    (item,) = [i for i in alice.review_items() if i.kind == "retraction_proposed"]
    assert item.node is None and item.source_id is not None and item.proposed_by == "bob"
    approved = alice.resolve_review(item.id, "approved")
    assert threshold(alice) == [("500 euros", "unsupported")]
    assert approved.applied is not None and len(approved.applied["stopped_current"]) == 2
    assert ("retraction applied: 2 stopped being current, 0 current again, flagged 0 decision(s), held 0"
            " action(s)") in render.review_resolution(approved)
    # retracting what is retracted already: the owner's own retraction settles the other proposal
    again = bob.retract(source="finance.md", reason="still outdated", undo=True)
    assert again.proposed
    alice.retract(source="finance.md", reason="back", undo=True)
    assert [i for i in alice.review_items() if i.kind == "retraction_proposed"] == []


def test_the_ingest_message_names_the_real_cause(cli_without_db: Cli, alice: beliefdb.BeliefDB,
                                                 bob: beliefdb.BeliefDB) -> None:
    ingest(alice, FINANCE, "500 euros", authority="internal")
    # bob's own source, stronger and later: rule 8 prefers it, but the loser is alice's
    report = ingest(bob, FINANCE2, "5000 euros", source="bob-notes.md", authority="official")
    (conflict,) = report.conflicts
    assert "belongs to alice, who must choose" in conflict.reason
    text = cli_without_db("ingest", "--help").stdout
    assert "proposed to the owner" in text
    rendered = render.ingest_report(report)
    assert "belongs to alice, who must choose" in rendered and "equal authority" not in rendered
    proposal = ingest(bob, FINANCE2, "5000 euros")
    assert "proposed to alice, who owns source 'finance.md'" in render.ingest_report(proposal)


def test_another_principal_cannot_bring_back_an_earlier_text(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    """Going back to an earlier text is a new version in force: the owner's call, like any other."""
    ingest(alice, FINANCE, "500 euros")
    ingest(alice, FINANCE2, "5000 euros")
    back = ingest(bob, FINANCE, "500 euros")
    assert back.proposed and back.owner == "alice"
    assert threshold(alice) == [("500 euros", "superseded"), ("5000 euros", "current")]
    # the text in force again only settles claims (evidence anyone may add): nothing to propose
    same = ingest(bob, FINANCE2, "5000 euros")
    assert not same.proposed and not same.new_version and same.unchanged


def test_a_new_text_of_a_retracted_source_is_history(alice: beliefdb.BeliefDB) -> None:
    """The source stays retracted: its new text is stored, its claim never holds, and it meets no rival."""
    ingest(alice, FINANCE2, "5000 euros", source="policy.md")
    ingest(alice, FINANCE, "500 euros", source="old.md", authority="internal")
    alice.retract(source="old.md", reason="withdrawn")
    report = ingest(alice, "Refunds above 50 euros need a manager's approval.\n", "50 euros", source="old.md",
                    authority="internal")
    assert report.new_version and report.superseded == [] and report.conflicts == []
    assert sorted(threshold(alice)) == [("50 euros", "unsupported"), ("500 euros", "superseded"),
                                        ("5000 euros", "current")]


def test_a_correction_preview_refuses_what_the_apply_refuses(alice: beliefdb.BeliefDB,
                                                             bob: beliefdb.BeliefDB) -> None:
    (old,) = ingest(alice, FINANCE, "500 euros", authority="internal").accepted
    ingest(alice, FINANCE2, "5000 euros", source="policy.md")
    for who in (alice, bob):
        with pytest.raises(errors.InvalidInput, match="is superseded"):
            who.preview_correction(old.id, "Refunds above 700 euros need approval.", "700 euros")
        with pytest.raises(errors.InvalidInput, match="is superseded"):
            who.apply_correction(old.id, "Refunds above 700 euros need approval.", value="700 euros",
                                 reviewer="r", expect_revision=2)


def test_a_proposal_waits_only_for_a_current_belief_and_closes_when_it_stops_being_one(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    (belief,) = ingest(alice, FINANCE, "500 euros").accepted
    proposal = bob.apply_correction(belief.id, "Refunds above 700 euros need approval.", value="700 euros",
                                    reviewer="bob", expect_revision=1)
    assert proposal.proposed
    # alice's next text of finance.md drops the sentence: the belief is no longer current, the item closes
    alice.ingest_text("Refunds need a receipt.\n", source="finance.md", extractor="none")
    assert [i for i in alice.review_items() if i.kind == "correction_proposed"] == []
    with pytest.raises(errors.InvalidInput, match="only a current belief can be corrected by a proposal"):
        bob.apply_correction(belief.id, "Refunds above 800 euros need approval.", value="800 euros",
                             reviewer="bob", expect_revision=2)


def test_an_unrelated_new_version_does_not_close_a_proposal(alice: beliefdb.BeliefDB,
                                                            bob: beliefdb.BeliefDB) -> None:
    ingest(alice, FINANCE, "500 euros")
    ingest(alice, FINANCE2, "5000 euros")
    assert ingest(bob, FINANCE, "500 euros").proposed  # back to the first text: alice's call
    ingest(alice, "Refunds above 900 euros need a manager's approval.\n", "900 euros")
    assert [i.kind for i in alice.review_items()] == ["version_proposed"]


def test_a_proposal_says_so_inside_its_change_report_too(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    """The change report nested in a proposed ingest or correction preview agrees with the report around it
    (it said proposed: false, owner: null under proposed: true, as --json and the HTTP API print it)."""
    ingest(alice, FINANCE, "500 euros")
    proposal = ingest(bob, FINANCE2, "5000 euros")
    assert proposal.proposed and proposal.changes is not None
    nested = render.jsonable(proposal)["changes"]
    assert (nested["proposed"], nested["review_item"], nested["owner"]) == (True, str(proposal.review_item), "alice")
    assert nested["stopped_holding"] == nested["flagged"] == []
    preview = bob.preview_correction(alice.beliefs(subject="refund")[0].id, "Refunds need approval.", "any")
    assert preview.proposed and preview.changes is not None
    assert (preview.changes.proposed, preview.changes.owner) == (True, "alice")
    assert preview.changes.stopped_holding == [] and preview.changes.flagged == []


def test_only_an_owner_of_either_belief_rejects_their_conflict(db_url: str, alice: beliefdb.BeliefDB,
                                                               bob: beliefdb.BeliefDB) -> None:
    """Rejecting a conflict leaves both beliefs conflicting and takes the item out of the queue of the
    owner who must choose: a third principal could close it for them (rule 17)."""
    ingest(alice, FINANCE, "500 euros", authority="internal")
    ingest(bob, FINANCE2, "5000 euros", source="bob-notes.md", authority="official")
    (item,) = [i for i in alice.review_items() if i.kind == "conflict"]
    with beliefdb.connect(db_url, principal="carol") as carol:
        with pytest.raises(errors.NotOwner) as refused:
            carol.resolve_review(item.id, "rejected")
        assert "only one of their owners" in str(refused.value)
    assert [i.id for i in alice.review_items() if i.kind == "conflict"] == [item.id]
    assert bob.resolve_review(item.id, "rejected").status == "rejected"
    assert threshold(alice) == [("500 euros", "conflicting"), ("5000 euros", "conflicting")]
