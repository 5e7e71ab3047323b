"""Every change report (``beliefdb.models.Changes``) has one shape: ``owner`` and ``review_item`` name
the owner a proposal waits for, and are None on every other report. ``retract(source=, version=)``
named the source's owner on a retraction that was no proposal, ``retract(belief=)`` did not."""

from __future__ import annotations

import beliefdb
from beliefdb.models import Changes

POLICY = "# Returns\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"


def plain(report: Changes | None) -> None:
    assert report is not None and not report.proposed, report
    assert report.owner is None and report.review_item is None, report


def test_no_report_but_a_proposal_names_an_owner(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    alice.ingest_text(POLICY, source="policy.md", authority="official")
    window = next(b.id for b in alice.beliefs() if b.attribute == "window")
    for undo in (False, True):
        reason = "" if undo else "wrong"
        plain(alice.preview_retract(belief=window, undo=undo))
        plain(alice.retract(belief=window, reason=reason, undo=undo))
        plain(alice.preview_retract(source="policy.md", version=1, undo=undo))
        plain(alice.retract(source="policy.md", version=1, reason=reason, undo=undo))
        plain(alice.preview_retract(source="policy.md", undo=undo))
        plain(alice.retract(source="policy.md", reason=reason, undo=undo))
    seen = alice.preview_correction(window, "Returns are accepted within 9 days.", "9 days")
    plain(seen.changes)
    corrected = alice.apply_correction(window, "Returns are accepted within 9 days.", value="9 days",
                                       reviewer="rita", expect_revision=seen.revision)
    plain(corrected.changes)
    plain(alice.expire().changes)
    # another principal's retraction of alice's source is a proposal: it names her, and its review item
    for proposal in (bob.preview_retract(source="policy.md"), bob.retract(source="policy.md", reason="wrong")):
        assert proposal.proposed and proposal.owner == "alice", proposal
    proposed = bob.retract(source="policy.md", version=1, reason="wrong")
    assert proposed.proposed and proposed.owner == "alice" and proposed.review_item is not None
