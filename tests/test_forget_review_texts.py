"""Forgetting (rule 14 of docs/rules.md) and the text of corrections and review items: a correction
whose replacement is forgotten goes with it (its statement is the forgotten belief's), a correction
proposed of a forgotten belief goes with its item whatever became of it, a retraction proposed of a
forgotten turn is closed, and where a correction or a
review item's typed words name a forgotten person (its statement, value, reviewer, reason) the report
lists it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.models import Turn

TEAM = "# Team\nThe team grows by one.\n"
MAYA = "Maya lives in Lisbon.\n"


def texts(conn: psycopg.Connection[Any], sql: str) -> str:
    return str(conn.execute(sql).fetchall())


def test_forgetting_a_corrections_replacement_takes_the_correction_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The replacement's statement is the correction's new statement: forgetting the replacement leaves
    neither in beliefdb.correction (nor its value or reason), and the old belief stands again."""
    team = bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                        source="team.md", text=TEAM).accepted[0]
    fixed = bdb.apply_correction(team.id, "The team grows by two with Porto hires.", reviewer="ana",
                                 value="two", reason="the Porto office said so", expect_revision=1)
    postgresql.commit()
    assert "Porto" in texts(postgresql, "select new_statement, reason from beliefdb.correction")
    preview = bdb.forget(belief=str(fixed.replacement), preview=True)
    done = bdb.forget(belief=str(fixed.replacement))
    assert done.fingerprint() == preview.fingerprint()
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
    assert "Porto" not in texts(postgresql, "select content from beliefdb.source_version")
    assert "Porto" not in texts(postgresql, "select statement, value from beliefdb.belief")
    assert [b.status for b in bdb.beliefs()] == ["current"]


def test_forgetting_an_approved_corrections_replacement_takes_the_proposal_with_it(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """bob proposed the correction of alice's belief and alice approved it: the review item keeps bob's
    words (its reason and proposal) as the correction does, and it names the corrected belief, which
    stays: forgetting the replacement takes the approved item with the correction. Another item of that
    belief stays."""
    team = alice.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                          source="team.md", text=TEAM).accepted[0]
    asked = bob.apply_correction(team.id, "The team grows by two with Porto hires.", reviewer="bob",
                                 value="two", reason="the Porto office said so", expect_revision=1)
    other = bob.apply_correction(team.id, "The team grows by three.", reviewer="bob", value="three",
                                 reason="a guess", expect_revision=1)
    assert asked.proposed and other.proposed
    alice.resolve_review(asked.review_item, "approved")
    (replacement,) = postgresql.execute("select replacement_belief_id from beliefdb.correction").fetchone()
    postgresql.commit()
    alice.forget(belief=str(replacement))
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
    left = texts(postgresql, "select reason, note, proposal from beliefdb.review_item")
    assert "Porto" not in left, left
    assert postgresql.execute("select id from beliefdb.review_item").fetchall() == [(other.review_item,)]


def test_forgetting_a_corrections_source_takes_the_correction_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The reviewer's text is a source of its own (correction:<uuid>): forgetting it forgets the text,
    and the correction that holds the same words goes with it."""
    team = bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                        source="team.md", text=TEAM).accepted[0]
    bdb.apply_correction(team.id, "The team grows by two with Porto hires.", reviewer="ana", value="two",
                         expect_revision=1)
    postgresql.commit()
    (name,) = postgresql.execute("select name from beliefdb.source where name like 'correction:%'").fetchone()
    bdb.forget(source=name)
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
    assert "Porto" not in texts(postgresql, "select content from beliefdb.source_version")
    assert [b.value for b in bdb.beliefs()] == ["one"]


def test_a_rejected_correction_of_a_forgotten_belief_leaves_no_text(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A correction proposed of a belief that forget takes goes with its review item, rejected or still
    open: neither its statement nor its reason stays in the review history or the audit chain."""
    maya = alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                          source="maya.md", text=MAYA).accepted[0]
    rejected = bob.apply_correction(maya.id, "Maya moved to Porto.", reviewer="bob", value="Porto",
                                    reason="she told me at the Porto meetup", expect_revision=1)
    pending = bob.apply_correction(maya.id, "Maya moved to Faro.", reviewer="bob", value="Faro",
                                   reason="Faro office list", expect_revision=1)
    assert rejected.proposed and pending.proposed
    postgresql.commit()
    alice.resolve_review(rejected.review_item, "rejected", note="not what she said")
    postgresql.commit()
    done = alice.forget(subject="maya")
    assert done.pending_mentions == []
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.review_item").fetchone() == (0,)
    left = texts(postgresql, "select payload from beliefdb.audit_event") + texts(
        postgresql, "select reason, note, proposal from beliefdb.review_item")
    for word in ("Porto", "Faro", "Maya", "not what she said"):
        assert word not in left, word


def test_typed_words_of_corrections_and_review_items_that_name_the_person_are_listed(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A correction's statement, value and reviewer, a proposed correction's or retraction's reason, and
    the reason of a retraction since undone (kept in its history) are typed words: forget leaves them,
    and lists each that names the person (the rest of the correction's text, masked in its source with
    --mask-mentions, would otherwise stay unknown in beliefdb.correction)."""
    alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                   source="maya.md", text=MAYA)
    team = alice.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                          source="team.md", text=TEAM).accepted[0]
    desk = alice.remember("The desk is by the window.", "desk", "place", "window", "The desk is by the window",
                          source="desk.md", text="The desk is by the window.\n").accepted[0]
    budget = alice.remember("The budget is 5k.", "budget", "amount", "5k", "The budget is 5k",
                            source="budget.md", text="The budget is 5k.\n").accepted[0]
    named = alice.apply_correction(team.id, "The team grows by one: Maya.", reviewer="alice", value="Maya",
                                   expect_revision=1)
    reviewed = alice.apply_correction(desk.id, "The desk is by the door.", reviewer="Maya", expect_revision=1)
    asked = bob.apply_correction(budget.id, "The budget is 10k.", reviewer="bob", reason="Maya said so",
                                 expect_revision=1)
    assert asked.proposed
    alice.retract(belief=str(named.replacement), reason="Maya asked to check it")
    alice.retract(belief=str(named.replacement), undo=True)
    postgresql.commit()
    mentions = alice.forget(subject="maya", preview=True).mentions
    listed = {(m.kind, str(m.id), m.field) for m in mentions}
    [statement] = [m for m in mentions if (m.kind, m.field) == ("correction", "statement")]
    assert "forget --belief" in statement.hint and "correction goes with it" in statement.hint
    assert ("correction", str(named.correction), "statement") in listed, listed
    assert ("correction", str(named.correction), "value") in listed, listed
    assert ("correction", str(reviewed.correction), "reviewer") in listed, listed
    assert ("review", str(asked.review_item), "reason") in listed, listed
    assert ("retraction", str(named.replacement), "past reason") in listed, listed
    # masked where it is source text (the correction's own source), listed where it is typed
    done = alice.forget(subject="maya", mask_mentions=True)
    assert {("correction", str(named.correction), "statement")} <= {(m.kind, str(m.id), m.field)
                                                                    for m in done.mentions}
    postgresql.commit()
    assert "Maya" not in texts(postgresql, "select content from beliefdb.source_version")


def test_a_rejected_correction_naming_the_person_says_it_will_not_be_applied(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A correction proposed and rejected stays in the review history as its proposer typed it (listed,
    left as typed, even with --mask-mentions); its hint says it was rejected, not that its owner may
    still reject it."""
    alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                   source="maya.md", text=MAYA)
    team = alice.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                          source="team.md", text=TEAM).accepted[0]
    asked = bob.apply_correction(team.id, "The team grows by one: Maya.", reviewer="bob", expect_revision=1)
    postgresql.commit()
    alice.resolve_review(asked.review_item, "rejected")
    postgresql.commit()
    [item] = alice.forget(subject="maya", mask_mentions=True).pending_mentions
    assert (item.kind, item.status, item.field, item.masked) == ("proposed", "rejected", "statement", False)
    assert "rejected" in item.hint and "may reject" not in item.hint, item.hint


@pytest.mark.parametrize("undo", [False, True], ids=["retract", "restore"])
def test_a_retraction_proposed_of_a_forgotten_turn_is_closed_with_it(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], undo: bool) -> None:
    """bob proposes to retract (or restore) Maya's turn in alice's chat; alice forgets Maya, and the turn's
    fragment goes: the proposal asks about nothing now. Left open, the owner's queue kept it, naming the
    fragment forgotten, and approving it said approved and did nothing."""
    alice.ingest_conversation([Turn("Maya", "I live in Berlin.", datetime(2026, 1, 1, tzinfo=UTC)),
                               Turn("Tom", "I live in Paris.", datetime(2026, 1, 2, tzinfo=UTC))], source="chat")
    (berlin,) = alice.beliefs(subject="maya")
    (turn,) = alice.why(berlin.id).evidence
    if undo:
        alice.retract(fragment=str(turn.fragment_id), reason="a joke")
    bob.retract(fragment=str(turn.fragment_id), reason="check this turn", undo=undo)
    (item,) = alice.review_items()
    assert item.kind == "retraction_proposed" and item.proposal is not None
    assert item.proposal["node"] == str(turn.fragment_id)

    preview = alice.forget(subject="maya", preview=True)
    assert alice.review_count() == 1
    result = alice.forget(subject="maya")
    assert (preview.beliefs, preview.fragments) == (result.beliefs, result.fragments)
    assert alice.review_count() == 0 and alice.review_items() == []
    assert postgresql.execute(
        "select status, resolved_by, note from beliefdb.review_item where id = %s", (item.id,)).fetchone() == (
        "closed", "beliefdb", "settled: the fragment was forgotten")
    # the proposer's typed words stay as typed (rule 14), and the other turn's proposal would be untouched
    assert alice.audit_verify().ok
