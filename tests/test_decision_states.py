"""Decisions, actions and review items follow their state (rule 4, 17): no action on a rejected
decision, a held one on a flagged decision, outcomes that end an action, one id resolver for every
kind of node, and review items that close themselves when their question settled."""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

import psycopg
import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors
from beliefdb.store import lifecycle

SEVEN = "Returns are accepted within 7 days of delivery.\n"
FIFTEEN = "Returns are accepted within 15 days of delivery.\n"


@pytest.fixture
def refusal(bdb: beliefdb.BeliefDB) -> tuple[Any, Any]:
    (seven,) = bdb.ingest_text(SEVEN, source="policy.md", authority="official").accepted
    return seven, bdb.decide("Refuse the return of order 1042", because=[seven.id])


def test_no_action_on_a_rejected_decision_and_a_held_one_on_a_flagged_decision(
        bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any]) -> None:
    seven, decision = refusal
    bdb.retract(belief=seven.id, reason="wrong")
    assert {d.id: d.status for d in bdb.decisions()} == {decision.id: "needs_review"}
    held = bdb.act(decision.id, "Email the customer a refusal")
    assert held.status == "held"
    (item,) = [i for i in bdb.review_items() if i.kind == "decision_flagged"]
    bdb.resolve_review(item.id, "rejected")
    assert {a.id: a.status for a in bdb.actions()} == {held.id: "cancelled"}
    with pytest.raises(errors.InvalidInput, match="was rejected: nothing may carry it out"):
        bdb.act(decision.id, "Email the customer anyway")
    assert len(bdb.actions()) == 1


def test_an_outcome_ends_an_action(cli: Cli, bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any]) -> None:
    _, decision = refusal
    done = bdb.act(decision.id, "Email the customer a refusal")
    failed = bdb.act(decision.id, "Call the customer")
    undone = bdb.act(decision.id, "Post the refusal letter")
    disputed = bdb.act(decision.id, "Log the refusal")
    lifecycle.record_outcome(bdb.database, done.id, "succeeded")
    lifecycle.record_outcome(bdb.database, failed.id, "failed")
    lifecycle.record_outcome(bdb.database, undone.id, "rolled_back")
    lifecycle.record_outcome(bdb.database, disputed.id, "disputed")
    assert {a.id: a.status for a in bdb.actions()} == {
        done.id: "done", failed.id: "failed", undone.id: "rolled_back", disputed.id: "scheduled"}
    shown = cli("outcome", str(done.id)[:8], "succeeded")
    assert shown.stdout.strip().endswith("(action done)")
    cli("actions", "--status", "done", "--json")


def test_an_outcome_for_a_held_action_is_refused(bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any]) -> None:
    seven, decision = refusal
    email = bdb.act(decision.id, "Email the customer a refusal")
    bdb.retract(belief=seven.id, reason="wrong")
    with pytest.raises(errors.InvalidInput, match="is held"):
        lifecycle.record_outcome(bdb.database, email.id, "succeeded")


def test_nothing_carries_out_a_decision_that_needs_review(bdb: beliefdb.BeliefDB,
                                                         refusal: tuple[Any, Any]) -> None:
    """Rule 4: a decision that needs review (flagged when it lost its last support, or recorded without a
    source-backed reason) is not to be carried out until a person approves it: a success or a failure of
    it is refused, as its held action's is (and as a rejected one's); what was done before may be rolled
    back, and anything disputed. Approved, it may be carried out."""
    seven, decision = refusal
    bare = bdb.decide("Refund order 1043")  # no reason at all: needs review at once
    email = bdb.act(decision.id, "Email the customer a refusal")
    bdb.retract(belief=seven.id, reason="wrong")
    assert {d.id: d.status for d in bdb.decisions()} == {decision.id: "needs_review", bare.id: "needs_review"}
    for outcome in ("succeeded", "failed"):
        for flagged in (decision.id, bare.id):
            with pytest.raises(errors.InvalidInput, match=f"decision {flagged} needs review: nothing may carry it"
                                                          " out until a person approves it"):
                bdb.record_outcome(flagged, outcome)
        with pytest.raises(errors.InvalidInput, match="is held"):
            bdb.record_outcome(email.id, outcome)
    assert bdb.record_outcome(decision.id, "rolled_back").outcome == "rolled_back"
    assert bdb.record_outcome(bare.id, "disputed").outcome == "disputed"
    for item in [i for i in bdb.review_items() if i.kind == "decision_flagged"]:
        bdb.resolve_review(item.id, "approved")
    assert bdb.record_outcome(bare.id, "succeeded").outcome == "succeeded"
    assert bdb.record_outcome(email.id, "succeeded").status == "done"
    assert bdb.record_outcome(decision.id, "succeeded").outcome == "succeeded"


def test_act_and_outcome_take_a_unique_prefix_like_every_command(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                 refusal: tuple[Any, Any]) -> None:
    _, decision = refusal
    cli("act", str(decision.id)[:8], "Email the customer a refusal", "--json")
    unknown = cli("act", "0000dead", "Email", expect=1)
    assert unknown.stderr.strip() == "error: unknown decision 0000dead"
    # a prefix of a belief is not a decision
    (seven,) = bdb.beliefs()
    wrong_kind = cli("act", str(seven.id)[:8], "Email", expect=1)
    assert wrong_kind.stderr.strip() == f"error: {seven.id} is a belief, not a decision"


def test_an_id_of_another_kind_of_node_says_what_it_names(bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any]) -> None:
    """A decision's id given as a belief was "unknown belief <id>", a belief's given as a decision "unknown
    decision <id>", though the workspace has it: it says what it is, with the same error (not found)."""
    seven, decision = refusal
    with pytest.raises(errors.UnknownBelief, match=rf"^{decision.id} is a decision, not a belief$"):
        bdb.decide("Refund anyway", because=[decision.id])
    with pytest.raises(errors.UnknownBelief, match=rf"^{decision.id} is a decision, not a belief$"):
        bdb.decide("Refund anyway", all_of=[[seven.id, str(decision.id)[:8]]])
    with pytest.raises(errors.NotFound, match=rf"^{seven.id} is a belief, not a decision$") as not_a_decision:
        bdb.act(str(seven.id), "Email the customer a refusal")
    assert not isinstance(not_a_decision.value, errors.UnknownBelief)
    held = bdb.act(decision.id, "Email the customer a refusal")
    with pytest.raises(errors.NotFound, match=rf"^{held.id} is an action, not a decision$"):
        bdb.act(str(held.id)[:8], "Call the customer")
    assert [d.id for d in bdb.decisions()] == [decision.id] and [a.id for a in bdb.actions()] == [held.id]


def test_resolve_node_is_one_sql_function_for_every_kind(bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any],
                                                         postgresql: psycopg.Connection[Any]) -> None:
    seven, decision = refusal
    with bdb.database.transaction() as conn:
        assert conn.execute("select beliefdb.resolve_node(%s)", (str(decision.id)[:10],)).fetchone() == (
            decision.id,)
        assert conn.execute("select beliefdb.resolve_node(%s, '{belief}')", (str(seven.id).upper(),)).fetchone() == (
            seven.id,)
        with pytest.raises(psycopg.Error, match=f"^{seven.id} is a belief, not a decision or action\n"), \
                conn.transaction():
            conn.execute("select beliefdb.resolve_node(%s, '{decision,action}')", (str(seven.id),))
        with pytest.raises(psycopg.Error, match="unknown decision or action 0000dead"), conn.transaction():
            conn.execute("select beliefdb.resolve_node('0000dead', '{decision,action}')")
        with pytest.raises(psycopg.Error, match="unknown node"), conn.transaction():
            conn.execute("select beliefdb.resolve_node('0000dead')")
        with pytest.raises(psycopg.Error, match="node id zz is not an id"), conn.transaction():
            conn.execute("select beliefdb.resolve_node('zz')")
    # two decisions whose ids share a prefix: the prefix is ambiguous, a longer one is not
    for last in "12":
        postgresql.execute("insert into beliefdb.decision (workspace_id, id, title) values (%s, %s, 'twin')",
                           (bdb.database.workspace_id, f"abcd0000-0000-4000-8000-00000000000{last}"))
    postgresql.commit()
    with bdb.database.transaction() as conn:
        with pytest.raises(psycopg.Error,
                           match=re.escape("decision id prefix abcd0000 is ambiguous (2 matches: abcd0000-")), \
                conn.transaction():
            conn.execute("select beliefdb.resolve_node('abcd0000', '{decision}')")
        assert conn.execute("select beliefdb.resolve_node('abcd0000-0000-4000-8000-000000000002')").fetchone() == (
            UUID("abcd0000-0000-4000-8000-000000000002"),)


def test_a_tie_that_resolved_itself_closes_its_review_item(bdb: beliefdb.BeliefDB) -> None:
    since = "2026-01-01T00:00:00Z"  # the same authority and valid-time start: a tie (rule 8)
    a = bdb.remember("7 days", "return_policy", "window", "7 days", SEVEN.strip(), source="a.md", text=SEVEN,
                     authority="internal", valid_from=since)
    b = bdb.remember("15 days", "return_policy", "window", "15 days", FIFTEEN.strip(), source="b.md", text=FIFTEEN,
                     authority="internal", valid_from=since)
    (tie,) = b.conflicts
    (item,) = [i for i in bdb.review_items() if i.kind == "conflict"]
    # the 15-day source is withdrawn: nothing is tied any more, and nobody has to say so
    bdb.retract(source="b.md", reason="draft")
    assert [i for i in bdb.review_items() if i.kind == "conflict"] == []
    assert {b.value: b.status for b in bdb.beliefs(include_all=True)} == {"7 days": "current",
                                                                          "15 days": "unsupported"}
    with pytest.raises(errors.InvalidInput, match=re.escape("already closed (settled: the beliefs are no longer tied")):
        bdb.resolve_review(item.id, "approved", winner=a.accepted[0].id)
    assert tie.a == b.accepted[0].id


def test_a_correction_proposal_for_a_superseded_belief_closes_itself(db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        (seven,) = alice.ingest_text(SEVEN, source="policy.md", authority="internal").accepted
        proposal = bob.apply_correction(seven.id, "Returns are accepted within 10 days.", value="10 days",
                                        reviewer="bob", expect_revision=1)
        assert proposal.proposed
        alice.ingest_text(FIFTEEN, source="policy.md", authority="internal")  # alice's own new version
        assert [i for i in alice.review_items() if i.kind == "correction_proposed"] == []
        assert proposal.review_item is not None
        with pytest.raises(errors.InvalidInput, match="no longer current"):
            alice.resolve_review(proposal.review_item, "approved")


def tie(db: beliefdb.BeliefDB, value: str, source: str) -> Any:
    quote = f"Returns are accepted within {value} of delivery."
    return db.remember(quote, "return_policy", "window", value, quote, source=source, text=quote,
                       authority="internal", valid_from="2026-01-01T00:00:00Z").accepted[0].id


def test_every_tie_has_its_own_review_item(bdb: beliefdb.BeliefDB) -> None:
    """Three beliefs tied pairwise are three questions, not two (a belief in two ties had one item)."""
    ids = [tie(bdb, v, f"{v}.md") for v in ("7 days", "15 days", "30 days")]
    pairs = {frozenset((i.node, i.other_node)) for i in bdb.review_items() if i.kind == "conflict"}
    assert pairs == {frozenset(p) for p in ((ids[0], ids[1]), (ids[0], ids[2]), (ids[1], ids[2]))}


def test_a_tie_that_comes_back_is_a_question_again(bdb: beliefdb.BeliefDB) -> None:
    seven, fifteen = tie(bdb, "7 days", "a.md"), tie(bdb, "15 days", "b.md")
    bdb.retract(source="b.md", reason="draft")
    assert [i for i in bdb.review_items() if i.kind == "conflict"] == []
    bdb.retract(source="b.md", reason="", undo=True)
    (item,) = [i for i in bdb.review_items() if i.kind == "conflict"]
    assert {item.node, item.other_node} == {seven, fifteen} and item.reason.endswith("in conflict again")


def test_a_decision_citing_no_current_belief_has_no_source_backed_answer(bdb: beliefdb.BeliefDB) -> None:
    """Rule 19: a decision citing only a superseded (or retracted, expired) belief never had a reason
    that held, so it did not "lose its last remaining support": its review item says it has no
    source-backed answer. An action on it is held, as on any flagged decision."""
    (seven,) = bdb.ingest_text(SEVEN, source="policy.md", authority="official").accepted
    bdb.ingest_text(FIFTEEN, source="policy.md")
    decided = bdb.decide("Refuse the return of order 1042", because=[seven.id])
    assert decided.status == "needs_review"
    (item,) = [i for i in bdb.review_items() if i.node == decided.id]
    assert item.kind == "decision_flagged" and item.reason.startswith("No source-backed answer yet")
    held = bdb.act(decided.id, "Email the customer a refusal")
    assert held.status == "held"
    # its reason is kept: the belief current again, the decision holds again; a person still resolves it
    bdb.retract(source="policy.md", version=2, reason="uploaded by mistake")
    (d,) = bdb.decisions()
    assert (d.status, d.holds) == ("needs_review", True)
    bdb.resolve_review(item.id, "approved")
    assert {a.id: a.status for a in bdb.actions()} == {held.id: "scheduled"}
    # a decision that had a current reason and lost it is flagged as before, and an action on it is held
    other = bdb.decide("Refuse the return of order 1043", because=[seven.id])
    assert other.status == "active"
    bdb.retract(belief=seven.id, reason="wrong")
    lost = "the decision lost its last remaining support"
    assert [i.reason for i in bdb.review_items() if i.node == other.id] == [lost]
    assert bdb.act(other.id, "Email the customer").status == "held"


def test_an_approved_decision_that_loses_its_last_support_again_is_flagged_again(
        bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any]) -> None:
    """Rule 4: a decision is flagged when it loses its last support. A person approved this one when it
    had lost it; its support came back, and it lost it again: flagged again, its actions held again,
    the preview and impact saying so (the code before: still approved, actions scheduled, nobody told)."""
    seven, decision = refusal
    email = bdb.act(decision.id, "Email the customer a refusal")
    bdb.retract(belief=seven.id, reason="wrong")
    (flag,) = [i for i in bdb.review_items() if i.kind == "decision_flagged"]
    bdb.resolve_review(flag.id, "approved")
    bdb.retract(belief=seven.id, undo=True)  # its support is back
    (d,) = bdb.decisions()
    assert (d.status, d.holds) == ("approved", True)
    later = bdb.act(decision.id, "Call the customer")
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "scheduled", later.id: "scheduled"}

    assert {(r.kind, r.effect, r.node) for r in bdb.impact(seven.id) if r.effect in ("flag", "hold")} == {
        ("decision", "flag", decision.id), ("action", "hold", email.id), ("action", "hold", later.id)}
    preview = bdb.preview_retract(belief=seven.id)
    changes = bdb.retract(belief=seven.id, reason="wrong after all")
    assert changes == preview
    assert changes.flagged == [decision.id] and set(changes.held) == {email.id, later.id}
    (d,) = bdb.decisions()
    assert (d.status, d.holds) == ("needs_review", False)
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "held", later.id: "held"}
    assert {(i.kind, i.node) for i in bdb.review_items()} == {
        ("decision_flagged", decision.id), ("action_held", email.id), ("action_held", later.id)}
    # an approved decision that never held again is not flagged again by what touches it
    (again,) = [i for i in bdb.review_items() if i.kind == "decision_flagged"]
    bdb.resolve_review(again.id, "approved")
    bdb.retract(source="policy.md", reason="poisoned")
    assert [d.status for d in bdb.decisions()] == ["approved"]
    assert bdb.audit_verify().ok


def test_rejecting_a_decision_cancels_the_actions_a_person_released_and_nothing_carries_it_out(
        bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any]) -> None:
    """Rule 4: rejecting a flagged decision cancels its actions, and nothing may carry out a rejected
    decision. An action a person released (its action_held item approved) while the decision was still
    flagged stayed scheduled when the decision was rejected (only held actions were cancelled), and its
    success was then recorded: the rejected decision carried out. Every action of it not finished is
    cancelled; what was done before stays done; an outcome saying it was carried out is refused."""
    _, decision = refusal
    email = bdb.act(decision.id, "Email the customer a refusal")
    call = bdb.act(decision.id, "Call the customer")
    letter = bdb.act(decision.id, "Post the refusal letter")
    bdb.record_outcome(letter.id, "succeeded")  # carried out while the decision held
    bdb.retract(source="policy.md", reason="poisoned")
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "held", call.id: "held", letter.id: "done"}
    (released,) = [i for i in bdb.review_items() if i.kind == "action_held" and i.node == email.id]
    bdb.resolve_review(released.id, "approved")
    (flag,) = [i for i in bdb.review_items() if i.kind == "decision_flagged"]
    bdb.resolve_review(flag.id, "rejected")
    assert [d.status for d in bdb.decisions()] == ["rejected"]
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "cancelled", call.id: "cancelled",
                                                       letter.id: "done"}
    # read back in time: scheduled once released, cancelled from the rejection on
    with bdb.database.transaction() as conn:
        (rejected_at,) = conn.execute("select resolved_at from beliefdb.review_item where id = %s",
                                      (flag.id,)).fetchone()
        (released_at,) = conn.execute("select resolved_at from beliefdb.review_item where id = %s",
                                      (released.id,)).fetchone()
        assert released_at < rejected_at
        status_at = "select beliefdb.action_status_at(a, %s) from beliefdb.action a where a.id = %s"
        assert [conn.execute(status_at, (at, email.id)).fetchone()[0]
                for at in (released_at, rejected_at)] == ["scheduled", "cancelled"]
    with pytest.raises(errors.InvalidInput, match="is cancelled: it was not to be carried out"):
        bdb.record_outcome(email.id, "rolled_back")
    for outcome in ("succeeded", "failed"):
        with pytest.raises(errors.InvalidInput, match="was rejected: nothing may carry it out"):
            bdb.record_outcome(email.id, outcome)
        with pytest.raises(errors.InvalidInput, match="was rejected: nothing may carry it out"):
            bdb.record_outcome(decision.id, outcome)
        with pytest.raises(errors.InvalidInput, match="was rejected: nothing may carry it out"):
            bdb.record_outcome(letter.id, outcome)
    # undoing what was done before the rejection, or disputing, is no carrying out
    assert bdb.record_outcome(letter.id, "rolled_back").status == "rolled_back"
    assert bdb.record_outcome(decision.id, "disputed").outcome == "disputed"
    assert bdb.record_outcome(email.id, "disputed").status == "cancelled"
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "cancelled", call.id: "cancelled",
                                                       letter.id: "rolled_back"}
    assert bdb.audit_verify().ok


def test_an_action_scheduled_on_a_rejected_decision_is_not_carried_out(
        bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any], postgresql: psycopg.Connection[Any]) -> None:
    """An action left scheduled on a rejected decision (rejected before rejecting cancelled what a person
    had released) is not to be carried out: its success is refused, whatever its own status says."""
    _, decision = refusal
    email = bdb.act(decision.id, "Email the customer a refusal")
    postgresql.execute("update beliefdb.decision set status = 'rejected' where id = %s", (decision.id,))
    postgresql.commit()
    with pytest.raises(errors.InvalidInput, match=f"decision {decision.id} was rejected: nothing may carry it out"):
        bdb.record_outcome(email.id, "succeeded")
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "scheduled"}


def test_two_verdicts_in_one_transaction_read_back_as_the_later_item(
        bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any], postgresql: psycopg.Connection[Any]) -> None:
    """decision_status_at and action_status_at read the verdict of the last item resolved by a moment:
    two items resolved in one transaction have the same resolved_at, and the one read was whichever the
    sort met first. The item created later (then by id, as the review queue orders items) is the later
    verdict: approved, its support back, lost again in the same transaction and rejected reads rejected."""
    seven, decision = refusal
    email = bdb.act(decision.id, "Email the customer a refusal")
    bdb.retract(belief=seven.id, reason="wrong")
    with bdb.database.transaction() as conn:
        def open_item(kind: str) -> str:
            return str(conn.execute("select id from beliefdb.review_item where kind = %s and status = 'open'",
                                    (kind,)).fetchone()[0])
        conn.execute("select beliefdb.review_resolve(%s, 'approved')", (open_item("action_held"),))
        conn.execute("select beliefdb.review_resolve(%s, 'approved')", (open_item("decision_flagged"),))
        conn.execute("select beliefdb.retract('node', %s, '', p_undo => true)", (str(seven.id),))
        conn.execute("select beliefdb.retract('node', %s, 'wrong after all')", (str(seven.id),))
        conn.execute("select beliefdb.review_resolve(%s, 'rejected')", (open_item("action_held"),))
        conn.execute("select beliefdb.review_resolve(%s, 'rejected')", (open_item("decision_flagged"),))
    read = ("select beliefdb.decision_status_at(d, now()), beliefdb.action_status_at(a, now())"
            " from beliefdb.decision d join beliefdb.action a on a.decision_id = d.id")
    assert postgresql.execute("select count(distinct resolved_at) from beliefdb.review_item").fetchone() == (1,)
    # whichever of the two rows of each node the heap holds first (each touched last in turn)
    for kind_order in ("asc", "desc"):
        postgresql.execute(f"""
            update beliefdb.review_item r set note = r.note
              from (select id, row_number() over (partition by node order by created_at {kind_order}) as n
                      from beliefdb.review_item) o
             where o.id = r.id and o.n = 1""")
        postgresql.commit()
        assert postgresql.execute(read).fetchone() == ("rejected", "cancelled"), kind_order
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "cancelled"}


def test_verdicts_on_items_made_and_resolved_in_one_transaction_read_back_in_the_order_they_were_given(
        bdb: beliefdb.BeliefDB, refusal: tuple[Any, Any], postgresql: psycopg.Connection[Any]) -> None:
    """Items flagged, approved, flagged again and rejected in one transaction share their created_at and
    resolved_at: the order by created_at, then id, read back whichever verdict had the greater random id.
    Each resolution takes the next of its workspace's resolution numbers (review_item.resolved_seq), under
    its write lock: the rejection, given last, is what the decision and its action were after it."""
    seven, decision = refusal
    email = bdb.act(decision.id, "Email the customer a refusal")
    with bdb.database.transaction() as conn:
        def open_item(kind: str) -> str:
            return str(conn.execute("select id from beliefdb.review_item where kind = %s and status = 'open'",
                                    (kind,)).fetchone()[0])
        conn.execute("select beliefdb.retract('node', %s, 'wrong')", (str(seven.id),))
        conn.execute("select beliefdb.review_resolve(%s, 'approved')", (open_item("action_held"),))
        conn.execute("select beliefdb.review_resolve(%s, 'approved')", (open_item("decision_flagged"),))
        conn.execute("select beliefdb.retract('node', %s, '', p_undo => true)", (str(seven.id),))
        conn.execute("select beliefdb.retract('node', %s, 'wrong after all')", (str(seven.id),))
        conn.execute("select beliefdb.review_resolve(%s, 'rejected')", (open_item("action_held"),))
        conn.execute("select beliefdb.review_resolve(%s, 'rejected')", (open_item("decision_flagged"),))
    assert postgresql.execute("select count(distinct created_at), count(distinct resolved_at), count(*)"
                              " from beliefdb.review_item").fetchone() == (1, 1, 4)
    read = ("select beliefdb.decision_status_at(d, now()), beliefdb.action_status_at(a, now())"
            " from beliefdb.decision d join beliefdb.action a on a.decision_id = d.id")
    # the approvals, given first, with the greater ids
    for high, low in (("f", "0"), ("0", "f")):
        postgresql.execute(f"""
            update beliefdb.review_item
               set id = (case when status = 'approved' then '{high}' else '{low}' end || substr(id::text, 2))::uuid""")
        postgresql.commit()
        assert postgresql.execute(read).fetchone() == ("rejected", "cancelled"), high
    assert {a.id: a.status for a in bdb.actions()} == {email.id: "cancelled"}
    assert bdb.audit_verify().ok
