"""A fragment belongs to its source's owner (rule 17): another principal's retraction or restore of a
fragment of someone else's source (or of the source or a version named as a node) is a review
proposal for the owner, as a retraction of the source or of a version is, never a change."""

from __future__ import annotations

from uuid import UUID

import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused

import beliefdb
from beliefdb import errors

FINANCE = "Refunds above 500 euros need a manager's approval.\n"


def _ingest(db: beliefdb.BeliefDB) -> tuple[UUID, UUID]:
    """alice's source finance.md with one belief: its id and its fragment's."""
    from beliefdb.store import ingest as ingest_mod
    from beliefdb.store.ingest import parse_claim

    quote = FINANCE.strip()
    claim = {"statement": quote, "subject": "refund", "attribute": "approval_threshold", "value": "500 euros",
             "quote": quote}
    ingest_mod.ingest_text(db.database, FINANCE, ingest_mod.SourceOptions(name="finance.md", authority="official"),
                           candidates=[parse_claim(claim, "test")], extractor="none")
    (belief,) = db.beliefs(subject="refund")
    (evidence,) = db.why(belief.id).evidence
    return belief.id, evidence.fragment_id


def _statuses(db: beliefdb.BeliefDB) -> list[str]:
    return [b.status for b in db.beliefs(subject="refund", include_all=True)]


def test_another_principals_fragment_retraction_is_a_proposal(alice: beliefdb.BeliefDB,
                                                              bob: beliefdb.BeliefDB) -> None:
    belief, fragment = _ingest(alice)
    preview = bob.preview_retract(fragment=fragment)
    assert preview.proposed and preview.owner == "alice"
    assert set(preview.stopped_holding) == {belief, fragment}  # what the approval would change
    proposed = bob.retract(fragment=fragment, reason="x")
    assert proposed.proposed and proposed.owner == "alice" and proposed.review_item is not None
    assert proposed.stopped_holding == [] and proposed.stopped_current == []
    assert _statuses(alice) == ["current"]
    (item,) = [i for i in alice.review_items() if i.kind == "retraction_proposed"]
    assert item.id == proposed.review_item and item.proposed_by == "bob" and item.subject == "finance.md"
    assert item.proposal is not None and item.proposal["node"] == str(fragment)
    assert f"bob proposes to retract fragment {fragment} (x); source owned by alice" in item.reason
    # the same proposal again is the same item; only the owner decides
    assert bob.retract(fragment=fragment, reason="x").review_item == item.id
    with pytest.raises(errors.NotOwner):
        bob.resolve_review(item.id, "approved")
    approved = alice.resolve_review(item.id, "approved")
    assert approved.applied is not None
    assert set(approved.applied["stopped_holding"]) == {str(belief), str(fragment)}
    assert _statuses(alice) == ["unsupported"]
    # the restore is bob's to propose too; the owner's own restore settles it
    back = bob.retract(fragment=fragment, reason="", undo=True)
    assert back.proposed and back.stopped_holding == [] and _statuses(alice) == ["unsupported"]
    alice.retract(fragment=fragment, reason="", undo=True)
    assert _statuses(alice) == ["current"]
    assert [i for i in alice.review_items() if i.kind == "retraction_proposed"] == []


def test_a_source_or_version_named_as_a_node_is_a_proposal_too(alice: beliefdb.BeliefDB,
                                                               bob: beliefdb.BeliefDB, db_url: str) -> None:
    """``--fragment`` takes any node's id, a source's name or a version's id: none of another's is retracted."""
    _ingest(alice)
    with psycopg.connect(db_url) as conn:
        (version,) = [r[0] for r in conn.execute("select id from beliefdb.source_version")]
    for ref in ("finance.md", str(version)):
        assert bob.preview_retract(fragment=ref).proposed
        assert bob.retract(fragment=ref, reason="x").proposed
        assert _statuses(alice) == ["current"]
    items = [i for i in alice.review_items() if i.kind == "retraction_proposed"]
    assert sorted((i.proposal or {})["target"] for i in items) == ["source", "version"]
    for item in items:
        alice.resolve_review(item.id, "rejected")
    assert _statuses(alice) == ["current"]


def test_the_owner_retracts_its_own_fragment_at_once(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    belief, fragment = _ingest(alice)
    # a proposal waiting for alice closes when she retracts the fragment herself
    bob.retract(fragment=fragment, reason="x")
    done = alice.retract(fragment=fragment, reason="mine")
    assert not done.proposed and set(done.stopped_holding) == {belief, fragment}
    assert [i for i in alice.review_items() if i.kind == "retraction_proposed"] == []


def test_the_command_line_proposes_another_principals_fragment(alice: beliefdb.BeliefDB, cli: Cli) -> None:
    belief, fragment = _ingest(alice)
    said = cli.json("retract", "--fragment", str(fragment), "--reason", "x", "--as", "carol")
    assert said["proposed"] is True and said["owner"] == "alice" and said["stopped_holding"] == []
    assert cli.json("retract", "--fragment", str(fragment), "--undo", "--as", "carol")["proposed"] is True
    assert cli.error("retract", "--belief", str(belief), "--reason", "x", "--as", "carol", code="not_owner")
    assert _statuses(alice) == ["current"]


def test_http_proposes_another_principals_fragment(http_client: TestClient, alice: beliefdb.BeliefDB,
                                                   db_url: str) -> None:
    belief, fragment = _ingest(alice)
    carol = bearer(db_url, "carol")
    assert refused(http_client.post("/retractions", headers=carol, json={"belief": str(belief), "reason": "x"}),
                   403, "not_owner")
    answer = http_client.post("/retractions", headers=carol, json={"fragment": str(fragment), "reason": "x"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["proposed"] is True and answer.json()["stopped_holding"] == []
    assert _statuses(alice) == ["current"]


def test_a_fragment_proposal_closes_when_the_source_gets_a_new_text(alice: beliefdb.BeliefDB,
                                                                    bob: beliefdb.BeliefDB) -> None:
    """Approved after a new version, the proposal retracted the old version's fragment, no longer in force,
    and nothing of what it was about (the new text quotes the same words in a fragment of its own): it
    closes when the text it names leaves force, for a proposal on the text in force."""
    from beliefdb.store import ingest as ingest_mod

    _, fragment = _ingest(alice)
    proposed = bob.retract(fragment=fragment, reason="x")
    ingest_mod.ingest_text(alice.database, "# Policy\n" + FINANCE, ingest_mod.SourceOptions(name="finance.md"),
                           extractor="none")
    assert [i for i in alice.review_items() if i.kind == "retraction_proposed"] == []
    with pytest.raises(errors.BeliefDBError) as closed:
        alice.resolve_review(str(proposed.review_item), "approved")
    assert "already closed (settled: the source has a new text since" in str(closed.value)
    assert _statuses(alice) == ["current"]


def test_a_fragment_no_longer_in_force_is_not_proposed(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    """A proposal on an old version's fragment would retract words nothing reads, approved: refused at once,
    the preview too."""
    from beliefdb.store import ingest as ingest_mod

    _, fragment = _ingest(alice)
    ingest_mod.ingest_text(alice.database, "# Policy\n" + FINANCE, ingest_mod.SourceOptions(name="finance.md"),
                           extractor="none")
    for propose in (bob.preview_retract, lambda **kw: bob.retract(reason="x", **kw)):
        with pytest.raises(errors.InvalidInput, match=r"is of version 1 of finance\.md, which is not in force"):
            propose(fragment=fragment)
    assert [i for i in alice.review_items() if i.kind == "retraction_proposed"] == []


def test_a_fragment_proposal_stays_open_while_its_whole_source_is_retracted(alice: beliefdb.BeliefDB,
                                                                            bob: beliefdb.BeliefDB) -> None:
    """Retracting the whole source takes every text out of force, and restoring it brings the fragment back:
    the proposal about it stays open (it closed, saying the source had a new text)."""
    _, fragment = _ingest(alice)
    proposed = bob.retract(fragment=fragment, reason="x")
    alice.retract(source="finance.md", reason="checking")
    alice.retract(source="finance.md", reason="back", undo=True)
    assert [i.id for i in alice.review_items() if i.kind == "retraction_proposed"] == [proposed.review_item]
