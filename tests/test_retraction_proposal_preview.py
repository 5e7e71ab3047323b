"""Another principal's retraction of a source is proposed to its owner, and its preview says what the
owner's approval would change. The approval runs as the owner: a belief the retraction brings back
meets its rivals under rule 8 as the owner's change, superseding the owner's own rival, where the
proposer's dry run left the two in conflict (a principal does not let another's belief lose)."""

from __future__ import annotations

from typing import Any

import beliefdb


def fee(db: beliefdb.BeliefDB, value: str, source: str, valid_from: str, valid_to: str) -> Any:
    quote = f"The fee is {value}."
    (belief,) = db.remember(quote, "fee", "amount", value, quote, source=source, text=f"{quote}\n",
                            authority="internal", valid_from=valid_from, valid_to=valid_to).accepted
    return belief


def current(db: beliefdb.BeliefDB) -> set[str]:
    # (their stored status: valid from 2027, none of them answers a question of today)
    return {b.value for b in db.beliefs(subject="fee", include_all=True) if b.status == "current"}


def test_a_proposed_retraction_is_previewed_as_its_owners_approval(alice: beliefdb.BeliefDB,
                                                                    bob: beliefdb.BeliefDB) -> None:
    # 7 EUR supersedes 5 EUR (a later start); 3 EUR overlaps only 5 EUR, which is superseded already
    # (a belief that is not current meets no rival): 3 EUR stays current beside 7 EUR
    fee(alice, "5 EUR", "x.md", "2027-05-01T00:00:00Z", "2027-12-31T00:00:00Z")
    fee(alice, "7 EUR", "z.md", "2027-07-01T00:00:00Z", "2027-12-31T00:00:00Z")
    fee(alice, "3 EUR", "y.md", "2027-01-01T00:00:00Z", "2027-06-15T00:00:00Z")
    assert current(alice) == {"7 EUR", "3 EUR"}
    before = current(alice)
    preview = bob.preview_retract(source="z.md")
    assert preview.proposed and preview.owner == "alice"
    proposed = bob.retract(source="z.md", reason="wrong fee")
    (item,) = [i for i in alice.review_items() if i.kind == "retraction_proposed"]
    approved = alice.resolve_review(item.id, "approved")
    after = current(alice)
    assert approved.applied is not None
    assert proposed.proposed
    # the preview named what the approval changed: what stopped and started being current
    stopped = {str(i) for i in preview.stopped_current}
    assert stopped == {str(i) for i in approved.applied["stopped_current"]}
    assert {str(i) for i in preview.became_current} == {str(i) for i in approved.applied["became_current"]}
    # retracting 7 EUR brings 5 EUR back, which beats 3 EUR: as alice's change it supersedes it
    assert after == {"5 EUR"} and before != after
