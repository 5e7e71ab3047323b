"""Multi-agent ownership (issue 6): every write is attributed to the session's principal; only a
belief's owner changes its status; other principals add evidence, raise conflicts and propose
corrections, which wait in the review queue. The database enforces it: the tests also try to get
around it with hand-written SQL as the application role. Every test here starts from alice's belief,
written once into a template each test clones; a claim that calls itself a reviewer's correction, on
an empty database, is in tests/test_ownership_claimed_corrections.py."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import psycopg
import pytest
from conftest import SEEDS, Cli, seeded_proc
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import make_conninfo
from pytest_postgresql import factories

import beliefdb
from beliefdb import errors
from beliefdb.store import lifecycle
from beliefdb.store.workspaces import create_workspace

QUOTE = "Returns are accepted within 7 days of delivery."


def _write_window(url: str) -> UUID:
    with beliefdb.connect(url, principal="alice") as alice:
        return alice.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE,
                              source="internal-note", text=f"Note. {QUOTE}", authority="internal").accepted[0].id


# every test here starts from alice's belief: each clones it from a template that holds it
window_proc = seeded_proc(_write_window)
postgresql = factories.postgresql("window_proc")


@pytest.fixture
def window(postgresql: psycopg.Connection[Any]) -> UUID:
    """Alice's belief: returns within 7 days, from an internal note (this test's database holds it)."""
    written: UUID = SEEDS[postgresql.info.dbname]
    return written


def su_all(db_url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def status_of(db_url: str, belief: UUID) -> tuple[str, str, int]:
    rows = su_all(db_url, "select status::text, owner, revision from beliefdb.belief where id = %s", (belief,))
    assert len(rows) == 1
    return rows[0]


def open_items(db_url: str, kind: str) -> list[tuple[Any, ...]]:
    return su_all(db_url, "select id, node, other_node, proposed_by, proposal, reason from beliefdb.review_item "
                          "where kind = %s and status = 'open' order by created_at, id", (kind,))


def snapshot(db_url: str, workspace_id: str) -> dict[str, list[str]]:
    """Every row of every workspace table, as text, for one workspace (superuser)."""
    tables = [r[0] for r in su_all(db_url, """
        select c.relname from pg_catalog.pg_class c
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attname = 'workspace_id'
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r' order by 1""")]
    out = {}
    for t in tables:
        rows = su_all(db_url, f"select t::text from beliefdb.{t} t where workspace_id = %s order by 1",
                      (workspace_id,))
        out[t] = [r[0] for r in rows]
    return out


# --- attribution ---------------------------------------------------------------------------------

def test_owner_is_the_sessions_principal_not_the_rows(db_url: str, alice: beliefdb.BeliefDB, window: UUID) -> None:
    assert status_of(db_url, window)[1] == "alice"
    # a row that names another owner is stamped with the acting principal all the same
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.principal', 'alice', false)")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (alice.database.workspace_id,))
        owner = conn.execute("insert into beliefdb.belief (statement, subject, attribute, value, owner) "
                             "values ('s', 'x', 'y', 'z', 'mallory') returning owner").fetchone()
        decision = conn.execute("insert into beliefdb.decision (title, owner) values ('t', 'mallory') "
                                "returning owner").fetchone()
        assert owner == ("alice",) and decision == ("alice",)
        # and no owner can be changed afterwards, not even by the schema's owner
        with pytest.raises(psycopg.Error, match="its owner cannot change"):
            conn.execute("update beliefdb.belief set owner = 'mallory' where id = %s", (window,))
    events = su_all(db_url, "select principal from beliefdb.audit_event where action = 'belief.insert'")
    assert events and {e[0] for e in events} == {"alice"}


def test_a_login_role_per_agent_cannot_claim_another_principal(db_url: str, alice: beliefdb.BeliefDB,
                                                                window: UUID) -> None:
    # every login but the owner's needs its password (the embedded server's pg_hba.conf)
    su_all(db_url, "create role agent_b login password 'agent-b-password'")
    su_all(db_url, "grant beliefdb_app to agent_b")
    url = make_conninfo(db_url, user="agent_b", password="agent-b-password")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.principal', 'alice', false)")
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (alice.database.workspace_id,))
        conn.execute("set role beliefdb_app")
        assert conn.execute("select beliefdb.current_principal()").fetchone() == ("agent_b",)
        # claiming to be alice does not make agent_b's correction of alice's belief apply
        raw = conn.execute("select proposed from beliefdb.apply_correction(%s::text, 'Returns within 30 days.', "
                           "'30 days', 'bo', null, 1, null)", (window,)).fetchone()
        assert raw == (True,)
    assert status_of(db_url, window)[0] == "current"
    assert [r[3] for r in open_items(db_url, "correction_proposed")] == ["agent_b"]


# --- corrections by others wait for the owner --------------------------------------------------

def test_a_correction_by_another_principal_is_proposed_not_applied(db_url: str, alice: beliefdb.BeliefDB,
                                                                   bob: beliefdb.BeliefDB, window: UUID) -> None:
    before = su_all(db_url, "select count(*) from beliefdb.correction")[0][0]
    result = bob.apply_correction(window, "Returns are accepted within 30 days.", value="30 days", reviewer="bo",
                                  reason="new policy", expect_revision=1)
    assert result.proposed and result.correction is None and result.replacement is None
    assert result.owner == "alice" and result.review_item is not None and not result.already_applied
    assert status_of(db_url, window) == ("current", "alice", 1)
    assert su_all(db_url, "select count(*) from beliefdb.correction")[0][0] == before
    items = open_items(db_url, "correction_proposed")
    assert [(i[0], i[1], i[3]) for i in items] == [(result.review_item, window, "bob")]
    assert items[0][4] == {"statement": "Returns are accepted within 30 days.", "value": "30 days",
                           "reviewer": "bo", "reason": "new policy", "revision": 1, "idempotency_key": None}
    # the same proposal again is the same item
    again = bob.apply_correction(window, "Returns are accepted within 30 days.", value="30 days", reviewer="bo",
                                 reason="new policy", expect_revision=1)
    assert again.proposed and again.already_applied and again.review_item == result.review_item
    assert len(open_items(db_url, "correction_proposed")) == 1
    # the queue shows who proposed what
    listed = [i for i in alice.review_items() if i.kind == "correction_proposed"]
    assert [(i.proposed_by, (i.proposal or {}).get("value")) for i in listed] == [("bob", "30 days")]

    # bob cannot approve his own proposal: only the owner decides
    with pytest.raises(errors.NotOwner, match="owned by alice"):
        bob.resolve_review(result.review_item, "approved")
    assert status_of(db_url, window)[0] == "current"

    done = alice.resolve_review(result.review_item, "approved")
    applied = done.correction
    assert done.status == "approved" and applied is not None and applied["superseded"] == [str(window)]
    assert status_of(db_url, window)[0] == "superseded"
    replacement = UUID(applied["replacement"])
    assert status_of(db_url, replacement)[:2] == ("current", "alice")
    assert su_all(db_url, "select reviewer, new_value from beliefdb.correction where id = %s",
                  (applied["correction"],)) == [("bo", "30 days")]
    assert open_items(db_url, "correction_proposed") == []
    actions = su_all(db_url, "select principal, action from beliefdb.audit_event "
                             "where action in ('correction.propose', 'correction.apply') order by seq")
    assert actions == [("bob", "correction.propose"), ("alice", "correction.apply")]


def test_the_owner_rejects_a_proposal_and_nothing_changes(db_url: str, alice: beliefdb.BeliefDB,
                                                          bob: beliefdb.BeliefDB, window: UUID) -> None:
    with beliefdb.connect(db_url, principal="carol") as carol:
        p_carol = carol.apply_correction(window, "Returns within 10 days.", value="10 days", reviewer="c",
                                         expect_revision=1)
    p_bob = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="b",
                                 expect_revision=1)
    # two principals, two proposals side by side
    assert {i[0] for i in open_items(db_url, "correction_proposed")} == {p_carol.review_item, p_bob.review_item}
    assert alice.resolve_review(p_carol.review_item, "rejected").status == "rejected"
    assert status_of(db_url, window) == ("current", "alice", 1)
    assert [i[0] for i in open_items(db_url, "correction_proposed")] == [p_bob.review_item]


def test_approving_a_proposal_the_belief_has_outgrown_is_stale(db_url: str, alice: beliefdb.BeliefDB,
                                                               bob: beliefdb.BeliefDB, window: UUID) -> None:
    proposal = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="b",
                                    expect_revision=1)
    # the belief changes before the owner gets to it: a tie with an equal rival bumps its revision
    alice.remember("Returns within 9 days", "return_policy", "window", "9 days", "Returns within 9 days.",
                   source="other-note", text="Returns within 9 days.", authority="internal")
    revision = status_of(db_url, window)[2]
    assert revision > 1
    # the proposal asked about a belief that is no longer current: the item closed itself, and says why
    assert status_of(db_url, window)[0] == "superseded"
    assert open_items(db_url, "correction_proposed") == []
    assert su_all(db_url, "select status, resolved_by, note from beliefdb.review_item where id = %s",
                  (proposal.review_item,)) == [
        ("closed", "beliefdb", "settled: the belief is no longer current (it is superseded)")]
    with pytest.raises(errors.InvalidInput, match="already closed"):
        alice.resolve_review(proposal.review_item, "approved")
    assert su_all(db_url, "select count(*) from beliefdb.correction")[0][0] == 0


def test_approving_a_proposal_whose_belief_changed_revision_is_stale(db_url: str, alice: beliefdb.BeliefDB,
                                                                     bob: beliefdb.BeliefDB, window: UUID) -> None:
    proposal = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="b",
                                    expect_revision=1)
    # a tie with a rival alice cannot overrule (bob's, of equal standing) bumps the revision; the belief
    # stays in question, so the item stays open, and approving it now would apply a stale proposal
    bob.remember("Returns within 9 days", "return_policy", "window", "9 days", "Returns within 9 days.",
                 source="bob-note", text="Returns within 9 days.", authority="internal")
    assert status_of(db_url, window)[0] == "conflicting" and status_of(db_url, window)[2] > 1
    with pytest.raises(errors.StaleCorrectionPreview):
        alice.resolve_review(proposal.review_item, "approved")
    assert [i[0] for i in open_items(db_url, "correction_proposed")] == [proposal.review_item]
    assert su_all(db_url, "select count(*) from beliefdb.correction")[0][0] == 0


def test_a_proposer_approving_its_own_proposal_is_told_whose_it_is(db_url: str, alice: beliefdb.BeliefDB,
                                                                    bob: beliefdb.BeliefDB, window: UUID) -> None:
    """Bob approving the correction he proposed of alice's belief is refused; the hint told him to
    'propose a correction instead', which he just did: it now says the item waits for its owner."""
    proposal = bob.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="b",
                                    expect_revision=1)
    assert proposal.review_item is not None
    with pytest.raises(errors.NotOwner) as refused:
        bob.resolve_review(proposal.review_item, "approved")
    assert "propose a correction" not in refused.value.message
    assert "(hint: the review item waits for alice, the belief's owner" in refused.value.message
    assert status_of(db_url, window) == ("current", "alice", 1)


def test_an_owner_corrects_its_own_belief_at_once(db_url: str, alice: beliefdb.BeliefDB, window: UUID) -> None:
    result = alice.apply_correction(window, "Returns within 30 days.", value="30 days", reviewer="a",
                                    expect_revision=1)
    assert not result.proposed and result.replacement is not None
    assert status_of(db_url, window)[0] == "superseded"
    assert open_items(db_url, "correction_proposed") == []


# --- retraction and conflicts ------------------------------------------------------------------

def test_only_the_owner_retracts_a_belief(db_url: str, alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB,
                                          window: UUID) -> None:
    events = su_all(db_url, "select count(*) from beliefdb.audit_event")[0][0]
    with pytest.raises(errors.NotOwner, match="only its owner can retract it"):
        bob.retract(belief=window, reason="I think it is wrong")
    with pytest.raises(errors.NotOwner, match="only its owner can retract it"):  # the preview refuses it too
        bob.preview_retract(belief=window)
    assert status_of(db_url, window)[0] == "current"
    assert su_all(db_url, "select retracted_at from beliefdb.node where id = %s", (window,)) == [(None,)]
    assert su_all(db_url, "select count(*) from beliefdb.audit_event")[0][0] == events
    alice.retract(belief=window, reason="wrong")
    assert status_of(db_url, window)[0] == "retracted"


def test_only_the_owner_clears_the_flag_of_a_decision_or_the_hold_of_an_action(
        db_url: str, alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, window: UUID) -> None:
    """An HTTP trial: another agent of the workspace approved alice's flagged decision, which released
    her held action, and rejected another, which cancelled hers: the hold was undone by someone else."""
    decision = alice.decide("Promise 7-day returns", because=[window]).id
    action = alice.act(decision, "Email customer 1042").id
    alice.retract(belief=window, reason="wrong")
    flag, hold = open_items(db_url, "decision_flagged")[0][0], open_items(db_url, "action_held")[0][0]
    before = snapshot(db_url, str(alice.database.workspace_id))
    for item in (flag, hold):
        for verdict in ("approved", "rejected"):
            with pytest.raises(errors.NotOwner, match=r"owned by alice: only its owner can approve or reject .*"
                                                      r"waits for alice"):
                bob.resolve_review(item, verdict)
    assert snapshot(db_url, str(alice.database.workspace_id)) == before
    # (nor an action of bob's own on her flagged decision: its hold is hers to release, the review found)
    mine = bob.act(decision, "Email customer 1043").id
    (bobs_hold,) = [i for i, node, *_ in open_items(db_url, "action_held") if node == mine]
    with pytest.raises(errors.NotOwner, match=r"owned by alice: only its owner can approve or reject the holds"):
        bob.resolve_review(bobs_hold, "approved")
    assert su_all(db_url, "select status from beliefdb.action where id = %s", (mine,)) == [("held",)]
    # the owner's verdict on the decision covers its actions
    alice.resolve_review(flag, "approved")
    assert su_all(db_url, "select status from beliefdb.decision where id = %s", (decision,)) == [("approved",)]
    assert su_all(db_url, "select status from beliefdb.action where id = %s", (action,)) == [("scheduled",)]
    assert su_all(db_url, "select status from beliefdb.action where id = %s", (mine,)) == [("scheduled",)]
    assert open_items(db_url, "action_held") == []


def test_a_stronger_rival_from_another_principal_raises_a_conflict(db_url: str, alice: beliefdb.BeliefDB,
                                                                   bob: beliefdb.BeliefDB, window: UUID) -> None:
    rival = bob.remember("Returns within 14 days", "return_policy", "window", "14 days",
                         "Returns are accepted within 14 days.", source="policy",
                         text="Returns are accepted within 14 days.", authority="official")
    new = rival.accepted[0].id
    # rule 8 prefers the official source, but alice's belief is alice's: a conflict, not a supersession
    assert rival.superseded == []
    assert status_of(db_url, window)[0] == "conflicting" and status_of(db_url, new)[0] == "conflicting"
    items = open_items(db_url, "conflict")
    assert [(i[1], i[2]) for i in items] == [(new, window)]
    assert f"rule 8 prefers {new}" in items[0][5] and "belongs to alice" in items[0][5]
    # bob cannot settle it in his own favour
    with pytest.raises(errors.NotOwner):
        bob.resolve_review(items[0][0], "approved", winner=new)
    assert status_of(db_url, window)[0] == "conflicting"
    alice.resolve_review(items[0][0], "approved", winner=new)
    assert status_of(db_url, window)[0] == "superseded" and status_of(db_url, new)[0] == "current"


def test_rule_8_still_supersedes_between_one_principals_beliefs(db_url: str, alice: beliefdb.BeliefDB,
                                                                window: UUID) -> None:
    rival = alice.remember("Returns within 14 days", "return_policy", "window", "14 days",
                           "Returns are accepted within 14 days.", source="policy",
                           text="Returns are accepted within 14 days.", authority="official")
    assert [(s.old, s.new) for s in rival.superseded] == [(window, rival.accepted[0].id)]
    assert status_of(db_url, window)[0] == "superseded"
    assert open_items(db_url, "conflict") == []


def test_a_weaker_rival_from_another_principal_loses_as_usual(db_url: str, bob: beliefdb.BeliefDB,
                                                              window: UUID) -> None:
    weaker = bob.remember("Returns within 3 days", "return_policy", "window", "3 days", "Returns within 3 days.",
                          source="forum", text="Returns within 3 days.", authority="unverified")
    # bob's own belief loses to alice's: bob owns what changes
    assert [(s.old, s.new) for s in weaker.superseded] == [(weaker.accepted[0].id, window)]
    assert status_of(db_url, window)[0] == "current"


def test_another_principal_adds_evidence(db_url: str, bob: beliefdb.BeliefDB, window: UUID) -> None:
    report = bob.remember("Returns within 7 days", "return_policy", "window", "7 days", QUOTE,
                          source="faq", text=f"FAQ. {QUOTE}", authority="internal")
    assert report.accepted == [] and [c.id for c in report.corroborated] == [window]
    assert su_all(db_url, "select count(*) from beliefdb.evidence where belief_id = %s", (window,)) == [(2,)]
    assert status_of(db_url, window)[:2] == ("current", "alice")


# --- every other way of changing someone else's belief ------------------------------------------

@pytest.mark.slow
def test_other_routes_to_someone_elses_belief_are_refused(db_url: str, alice: beliefdb.BeliefDB,
                                                          bob: beliefdb.BeliefDB, window: UUID) -> None:
    """Deleting it from a trace, naming it faulty in a repair, forgetting it, retracting or
    re-labelling what supports it, undoing its correction through its source or fragment."""
    decision = alice.decide("Refuse returns after a week", because=[window]).id
    fixed = alice.apply_correction(window, "Returns within 10 days.", value="10 days", reviewer="a",
                                   expect_revision=1)
    assert fixed.replacement is not None and fixed.correction is not None
    replacement = fixed.replacement
    correction_source, correction_fragment = su_all(db_url, """
        select v.source_id, c.fragment_id from beliefdb.correction c
          join beliefdb.fragment f on f.id = c.fragment_id
          join beliefdb.source_version v on v.id = f.source_version_id where c.id = %s""", (fixed.correction,))[0]
    source_name = su_all(db_url, "select name from beliefdb.source where id = %s", (correction_source,))[0][0]
    before = snapshot(db_url, bob.database.workspace_id)

    def refused(call: Any) -> None:
        with pytest.raises(errors.NotOwner):
            call()
        assert snapshot(db_url, bob.database.workspace_id) == before

    def only_proposed(call: Any) -> None:
        """A change to a source alice owns waits for her: a review item (and its audit event), nothing else."""
        result = call()
        assert result.proposed and result.owner == "alice" and result.review_item is not None
        after = snapshot(db_url, bob.database.workspace_id)
        assert {t: rows for t, rows in after.items() if t not in ("review_item", "audit_event", "audit_head")} == {
            t: rows for t, rows in before.items() if t not in ("review_item", "audit_event", "audit_head")}

    def run_deleting() -> None:
        with bob.record_run(task="tidy up") as run:
            step = run.step("memory_write")
            run.delete_memory(step, replacement)

    refused(run_deleting)
    with pytest.raises(errors.InvalidInput, match="is no memory"):  # (a correction's: no repair takes it, rule 10)
        bob.repair_apply([replacement])
    assert snapshot(db_url, bob.database.workspace_id) == before
    refused(lambda: lifecycle.forget(bob.database, belief=replacement))
    def retract_node(node: UUID) -> None:
        with bob.database.transaction() as conn:
            conn.execute("select beliefdb.retract('node', %s::text, 'undo')", (node,))

    refused(lambda: retract_node(fixed.correction))
    refused(lambda: retract_node(decision))
    # a preview is exactly what the apply would do: refused for bob, counted for alice
    refused(lambda: lifecycle.forget(bob.database, belief=replacement, preview=True))
    only_proposed(lambda: bob.retract(source=source_name, reason="undo"))
    # its fragment is the source's, as the source is (a fragment's retraction was applied at once)
    only_proposed(lambda: bob.retract(fragment=correction_fragment, reason="undo"))
    # (no text goes to a correction's source, whoever gives it: tests/test_correction_source_reserved.py)
    unchanged = snapshot(db_url, bob.database.workspace_id)
    with pytest.raises(errors.InvalidInput, match="names a reviewer's correction"):
        bob.ingest_text("Returns within 99 days.", source=source_name, extractor="none")
    assert snapshot(db_url, bob.database.workspace_id) == unchanged
    only_proposed(lambda: bob.ingest_text(f"Note. {QUOTE}", source="internal-note", authority="unverified",
                                          extractor="none"))
    assert lifecycle.forget(alice.database, belief=replacement, preview=True).beliefs == 1
    # a subject's beliefs of alice's stay through bob's forget of the subject, listed as hers to forget
    left = lifecycle.forget(bob.database, subject="return_policy")
    assert (left.beliefs, left.fragments, left.redacted) == (0, 0, 0)
    assert {m.owner for m in left.mentions if m.field == "subject"} == {"alice"}
    assert status_of(db_url, replacement)[0] == "current"
    # the owner may do each of these
    alice.retract(fragment=correction_fragment, reason="the reviewer withdrew it")
    assert status_of(db_url, replacement)[0] == "unsupported" and status_of(db_url, window)[0] == "current"


def test_forgetting_a_winner_brings_back_what_it_replaced(db_url: str, alice: beliefdb.BeliefDB,
                                                          window: UUID) -> None:
    winner = alice.remember("Returns within 14 days", "return_policy", "window", "14 days",
                            "Returns are accepted within 14 days.", source="policy",
                            text="Returns are accepted within 14 days.", authority="official").accepted[0].id
    assert status_of(db_url, window)[0] == "superseded"
    lifecycle.forget(alice.database, belief=winner)
    assert status_of(db_url, window)[0] == "current"


# --- hand-written SQL as the application role -----------------------------------------------------

BYPASSES = {
    "status set directly": "update beliefdb.belief set status = 'superseded' where id = %(b)s",
    "revision bumped": "update beliefdb.belief set revision = revision + 1 where id = %(b)s",
    "supersedes inserted": "insert into beliefdb.relation (from_belief, to_belief, kind) "
                           "values (%(r)s, %(b)s, 'supersedes')",
    "node retracted": "update beliefdb.node set retracted_at = now() where id = %(b)s",
    "node holding edited": "update beliefdb.node set holds = false, current = false where id = %(b)s",
    "evidence deleted": "delete from beliefdb.evidence where belief_id = %(b)s",
    "justification deleted": "delete from beliefdb.justification where consequent = %(b)s",
    "unmet count edited": "update beliefdb.justification set unmet = 1 where consequent = %(b)s",
    "source retracted by hand": "update beliefdb.source_version set retracted_at = now()",
    "proposal approved by hand": "update beliefdb.review_item set status = 'approved'",
    "approved item forged": "insert into beliefdb.review_item (kind, node, reason, status) "
                            "values ('conflict', %(b)s, 'x', 'approved')",
    "correction forged": "insert into beliefdb.correction (belief_id, belief_revision, reviewer, new_statement) "
                         "values (%(b)s, 1, 'x', 'y')",
    "belief inserted as someone else": "insert into beliefdb.belief (statement, subject, attribute, value, owner) "
                                       "values ('s', 'x', 'y', 'z', 'alice')",
    "belief deleted": "delete from beliefdb.belief where id = %(b)s",
}


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_the_application_role_cannot_write_around_ownership(name: str, db_url: str, bob: beliefdb.BeliefDB,
                                                            window: UUID) -> None:
    rival = bob.remember("Returns within 3 days", "return_policy", "window", "3 days", "Returns within 3 days.",
                         source="forum", text="Returns within 3 days.", authority="unverified").accepted[0].id
    proposal = bob.apply_correction(window, "Returns within 30 days.", reviewer="b", expect_revision=1)
    assert proposal.proposed
    before = snapshot(db_url, bob.database.workspace_id)
    with bob.database.transaction() as conn, pytest.raises(pg_errors.InsufficientPrivilege):
        conn.execute(BYPASSES[name], {"b": window, "r": rival})
    assert snapshot(db_url, bob.database.workspace_id) == before


TEMPORARY_TABLES = {
    "beliefdb_evaluation": """create temporary table beliefdb_evaluation (
        id uuid primary key, kind beliefdb.node_kind, held boolean, was_current boolean,
        premise boolean not null default false, blocked boolean not null default false,
        holds boolean not null default false, superseded boolean not null default false,
        expired boolean not null default false)""",
    "beliefdb_changes": """create temporary table beliefdb_changes (
        id uuid primary key, kind beliefdb.node_kind not null, held boolean not null, was_current boolean not null,
        status text, created boolean not null default false)""",
}


@pytest.mark.parametrize("table", sorted(TEMPORARY_TABLES))
def test_a_temporary_table_cannot_run_code_with_owner_rights(table: str, db_url: str, alice: beliefdb.BeliefDB,
                                                             window: UUID) -> None:
    """The evaluation working set and the changes of an operation are temporary tables; the functions
    that fill them run with owner rights. One made beforehand by the application role, with a
    trigger, must not be used: not by a retraction, nor by an ingest that creates nodes."""
    with beliefdb.connect(db_url, principal="alice") as fresh, fresh.database.transaction() as conn:
        conn.execute(TEMPORARY_TABLES[table])
        conn.execute("""create function pg_temp.escalate() returns trigger language plpgsql as $$
                        begin create role escalated superuser; return new; end $$""")
        conn.execute(sql.SQL("create trigger escalate before insert on pg_temp.{} "
                             "for each row execute function pg_temp.escalate()").format(sql.Identifier(table)))
        conn.execute("select beliefdb.ingest_version('other-note', 'Returns within 8 days.')")
        conn.execute("select beliefdb.retract('node', %s::text, 'test', null, false)", (window,))
    assert su_all(db_url, "select count(*) from pg_catalog.pg_roles where rolname = 'escalated'") == [(0,)]
    assert status_of(db_url, window)[0] == "retracted"


CROSS_WORKSPACE_CALLS = {
    "apply_correction": "select beliefdb.apply_correction(%(b)s::text, 'y', 'v', 'i', null, 1, null)",
    "retract": "select beliefdb.retract('node', %(b)s::text, 'r', null, false)",
    "decide": """select beliefdb.decide('d', jsonb_build_array(jsonb_build_array(%(b)s::text)))""",
    "derive": "select beliefdb.derive('s', 'x', 'y', 'z', array[%(b)s::text])",
    "review_resolve": "select beliefdb.review_resolve(%(i)s::text, 'approved')",
    "record_outcome": "select beliefdb.record_outcome(%(b)s::text, 'failed')",
    "forget": "select beliefdb.forget('belief', %(b)s::text)",
}


@pytest.mark.parametrize("name", sorted(CROSS_WORKSPACE_CALLS))
def test_functions_with_owner_rights_stay_in_the_bound_workspace(name: str, db_url: str, alice: beliefdb.BeliefDB,
                                                                 bob: beliefdb.BeliefDB, window: UUID) -> None:
    """Another workspace's session — even one whose principal is called alice — cannot reach
    alice's rows by their ids through the functions that run with owner rights."""
    proposal = bob.apply_correction(window, "Returns within 30 days.", reviewer="b", expect_revision=1)
    create_workspace(db_url, "other")
    before = snapshot(db_url, alice.database.workspace_id)
    with beliefdb.connect(db_url, workspace="other", principal="alice") as intruder, \
            intruder.database.transaction() as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute(CROSS_WORKSPACE_CALLS[name], {"b": window, "i": proposal.review_item})
    assert refused.value.sqlstate == "BD004", refused.value  # unknown here
    assert snapshot(db_url, alice.database.workspace_id) == before


# --- CLI -----------------------------------------------------------------------------------------

def test_cli_correct_as_another_principal_proposes(cli: Cli, db_url: str, window: UUID) -> None:
    result = cli("correct", str(window), "Returns within 30 days.", "--value", "30 days", "--reviewer", "bo",
                 "--apply", "--expect-revision", "1", "--as", "bob", "--json")
    out = json.loads(result.output)
    assert out["proposed"] is True and out["owner"] == "alice"
    listed = cli("review", "list")
    assert "correction_proposed" in listed.output and "bob proposes" in listed.output
    denied = cli.fail("review", "approve", out["review_item"][:8], "--as", "bob")
    assert "owned by alice" in denied.output
    assert len(denied.output.strip().splitlines()) == 1
    approved = cli("review", "approve", out["review_item"][:8], "--as", "alice")
    assert "correction_proposed" in approved.output and "applied: replacement" in approved.output
    assert status_of(db_url, window)[0] == "superseded"
