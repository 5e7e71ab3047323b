"""Revision 0047 on a database of the release before it (at revision 0046): the review items resolved
there are numbered in the order the as-of reads took them, and what earlier releases left is repaired
(docs/dba.md, "Upgrading to revision 0047"): an audit head behind its chain, actions still to be carried
out on a rejected decision. Decisions resting on fixture beliefs are left as they are, and listed.

Each test makes its state through beliefdb as it is, breaks it as an earlier release left it, and takes
the database back to revision 0046 (without what 0047 adds: review_item.resolved_seq, its trigger, the
view fixture_decisions), whose functions are this release's but for those; then it upgrades."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from undo_revisions import undo_0051

import beliefdb
from beliefdb import errors
from beliefdb.db import migrate
from tests.conftest import Cli

SEVEN = "Returns are accepted within 7 days of delivery.\n"


def back_to_0046(conn: psycopg.Connection[Any]) -> None:
    conn.execute("drop view beliefdb.fixture_decisions")
    conn.execute("drop trigger review_item_resolved_seq on beliefdb.review_item")
    conn.execute("drop function beliefdb.review_item_resolved_seq()")
    conn.execute("alter table beliefdb.review_item drop column resolved_seq")  # (its index and check with it)
    # (and what revisions 0048 to 0050 add, which the upgrade adds again)
    conn.execute("alter table beliefdb.redaction drop column line_start, drop column line_length,"
                 " drop column line_digest")
    conn.execute("drop table beliefdb.authority_change")
    conn.execute("alter table beliefdb.step drop column world")
    conn.execute("drop index beliefdb.job_forgotten_lines")
    conn.execute("drop index beliefdb.audit_event_plain_digest")  # (and 0050's)
    conn.execute("alter table beliefdb.agent_login drop column made_in")
    conn.execute("alter table beliefdb.redaction drop column line_salt")
    undo_0051(conn)  # revision 0051's
    conn.execute("update beliefdb.alembic_version set version_num = '0046'")
    conn.execute("comment on table beliefdb.alembic_version is 'beliefdb schema of the release at 0046'")
    conn.commit()


def events(conn: psycopg.Connection[Any], after: int) -> list[tuple[Any, ...]]:
    return conn.execute("select action, principal, payload -> 'keys' from beliefdb.audit_event"
                        " where seq > %s order by seq", (after,)).fetchall()


def last_seq(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("select max(seq) from beliefdb.audit_event e join beliefdb.workspace w"
                       " on w.id = e.workspace_id where w.name = 'default'").fetchone()
    conn.commit()  # (a transaction left open holds locks the migration waits for)
    assert row is not None
    return int(row[0])


def test_the_items_resolved_before_are_numbered_in_the_order_the_as_of_reads_took_them(
        bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    (seven,) = bdb.ingest_text(SEVEN, source="policy.md", authority="official").accepted
    decision = bdb.decide("Refuse the return of order 1042", because=[seven.id])
    bdb.act(decision.id, "Email the customer a refusal")
    for reason in ("wrong", "wrong again"):
        bdb.retract(belief=seven.id, reason=reason)
        # (the decision's verdict is its held action's too)
        bdb.resolve_review(next(i.id for i in bdb.review_items() if i.kind == "decision_flagged"), "approved")
        bdb.retract(belief=seven.id, reason="", undo=True)
    bdb.retract(belief=seven.id, reason="wrong for good")  # open again, unresolved
    back_to_0046(postgresql)
    before = last_seq(postgresql)

    migrate.upgrade(db_url)

    rows = postgresql.execute("""
        select resolved_seq, row_number() over (order by resolved_at, created_at, id)
          from beliefdb.review_item where resolved_at is not null""").fetchall()
    assert len(rows) == 4 and all(seq == n for seq, n in rows)
    assert postgresql.execute("select count(*) from beliefdb.review_item"
                              " where resolved_at is null and resolved_seq is null").fetchone() == (2,)
    # a derived number, as a column's default is: no event named every resolved item
    assert events(postgresql, before) == []
    # and the next resolution takes the next number
    bdb.resolve_review(next(i.id for i in bdb.review_items() if i.kind == "decision_flagged"), "rejected")
    assert postgresql.execute("select array_agg(resolved_seq order by resolved_seq) from beliefdb.review_item"
                              " where status = 'rejected'").fetchone() == ([5, 6],)
    assert bdb.audit_verify().ok


def test_an_audit_head_behind_its_chain_is_moved_to_the_last_event(
        bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A session that forged the setting _audit_append keeps its place in left the head behind at the
    commit of a large transaction, and every later write of the workspace failed on a duplicate key."""
    bdb.ingest_text(SEVEN, source="policy.md")
    last = last_seq(postgresql)
    postgresql.execute("""
        update beliefdb.audit_head h set seq = e.seq, hash = e.hash
          from beliefdb.audit_event e
         where e.workspace_id = h.workspace_id and e.seq = %s""", (last - 3,))
    postgresql.commit()
    with pytest.raises(errors.BeliefDBError, match=r"duplicate key|audit_event_pkey"):
        bdb.ingest_text("Shipping is free above 50 EUR.\n", source="shipping.md")
    back_to_0046(postgresql)

    migrate.upgrade(db_url)

    head = postgresql.execute("select h.seq, h.hash = e.hash from beliefdb.audit_head h join beliefdb.audit_event e"
                              " on e.workspace_id = h.workspace_id and e.seq = h.seq"
                              " join beliefdb.workspace w on w.id = h.workspace_id"
                              " where w.name = 'default'").fetchone()
    assert head == (last, True)
    assert bdb.ingest_text("Shipping is free above 50 EUR.\n", source="shipping.md").new_version
    assert bdb.audit_verify().ok


def test_actions_left_to_carry_out_on_a_rejected_decision_are_cancelled_as_rejecting_does_now(
        bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    (seven,) = bdb.ingest_text(SEVEN, source="policy.md", authority="official").accepted
    decision = bdb.decide("Refuse the return of order 1042", because=[seven.id])
    email = bdb.act(decision.id, "Email the customer a refusal")
    call = bdb.act(decision.id, "Call the customer")
    letter = bdb.act(decision.id, "Post the refusal letter")
    bdb.record_outcome(letter.id, "succeeded")
    bdb.retract(belief=seven.id, reason="wrong")
    released = next(i for i in bdb.review_items() if i.kind == "action_held" and i.node == email.id)
    bdb.resolve_review(released.id, "approved")
    flag = next(i for i in bdb.review_items() if i.kind == "decision_flagged")
    bdb.resolve_review(flag.id, "rejected")
    # as a release before rejecting cancelled what a person had released left them: the released action
    # scheduled, and (another way there) one held, its item open
    postgresql.execute("update beliefdb.action set status = 'scheduled' where id = %s", (email.id,))
    postgresql.execute("update beliefdb.action set status = 'held' where id = %s", (call.id,))
    postgresql.execute("update beliefdb.review_item set status = 'open', resolved_at = null, resolved_by = null,"
                       " note = null where kind = 'action_held' and node = %s", (call.id,))
    postgresql.commit()
    back_to_0046(postgresql)
    before = last_seq(postgresql)

    migrate.upgrade(db_url)

    assert {a.id: a.status for a in bdb.actions()} == {email.id: "cancelled", call.id: "cancelled",
                                                       letter.id: "done"}
    item = postgresql.execute("""
        select id::text, status, resolved_by, note, resolved_seq = (select max(resolved_seq) from beliefdb.review_item)
          from beliefdb.review_item where kind = 'action_held' and node = %s""", (call.id,)).fetchone()
    assert item is not None
    assert item[1:] == ("rejected", "beliefdb", f"resolved with decision {decision.id}", True)
    # the events rejecting appends, by beliefdb
    assert events(postgresql, before) == [("action.update", "beliefdb", sorted([str(email.id), str(call.id)])),
                                          ("review_item.update", "beliefdb", [item[0]])]
    with bdb.database.transaction() as conn:
        read = conn.execute("select beliefdb.action_status_at(a, now()) from beliefdb.action a where a.id = %s",
                            (call.id,)).fetchone()
    assert read == ("cancelled",)
    assert bdb.audit_verify().ok


def test_decisions_on_fixture_beliefs_are_left_as_they_were_and_listed(
        bdb: beliefdb.BeliefDB, cli: Cli, postgresql: psycopg.Connection[Any]) -> None:
    (fee,) = bdb.ingest_text("The restocking fee is 10%.\n", source="handbook.md").accepted
    (seven,) = bdb.ingest_text(SEVEN, source="fixtures/a.md", label="fixture").accepted
    decision = bdb.decide("Charge the fee", because=[fee.id])
    # (recorded before decide refused fixture reasons: another reason added underneath)
    postgresql.execute("select beliefdb._add_justification(workspace_id, %s, array[%s::uuid], 'cites')"
                       " from beliefdb.decision where id = %s", (decision.id, seven.id, decision.id))
    postgresql.commit()
    kept = ("select d.status, d.revision, d.reasons, (select count(*) from beliefdb.review_item r where r.node = d.id)"
            " from beliefdb.decision d where d.id = %s")
    before = postgresql.execute(kept, (decision.id,)).fetchone()
    back_to_0046(postgresql)

    # (the script a DBA reviews, run as psql runs it: what it says is a warning)
    said: list[str] = []
    with psycopg.connect(postgresql.info.dsn, autocommit=True) as conn:
        conn.add_notice_handler(lambda notice: said.append(notice.message_primary or ""))
        conn.execute(cli("migrate", "--sql", "--from", "0046").stdout)

    assert postgresql.execute(kept, (decision.id,)).fetchone() == before
    assert ("beliefdb: decisions that cite fixture or synthetic beliefs (recorded before decide refused them): 1;"
            " nothing may carry them out, and select * from beliefdb.fixture_decisions lists them") in said
    listed = postgresql.execute("select f.decision, f.title, f.status, f.owner = d.owner, f.belief,"
                                " f.provenance::text, f.workspace from beliefdb.fixture_decisions f"
                                " join beliefdb.decision d on d.id = f.decision").fetchall()
    assert listed == [(decision.id, "Charge the fee", "active", True, seven.id, "fixture", "default")]
    with pytest.raises(errors.IntegrityViolation, match=str(seven.id)):
        bdb.act(decision.id, "Charge order 1042")
