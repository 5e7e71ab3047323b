"""Valid time is part of being current (rule 16): a belief whose valid time has ended is expired,
what rests on it stops holding from that moment, without anyone touching it, and corroboration
merges only claims with the same valid time."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, LiteralString

import psycopg
import pytest
from conftest import Cli, url_at

import beliefdb

QUOTE = "Returns are accepted within 7 days of delivery."
TEXT = f"Holiday policy. {QUOTE}\n"


def remember(db: beliefdb.BeliefDB, value: str = "7 days", *, valid_from: str | None = None,
             valid_to: str | None = None, source: str = "holiday.md", text: str = TEXT,
             quote: str = QUOTE) -> Any:
    return db.remember(f"Returns are accepted within {value}.", "return_policy", "window", value, quote,
                       source=source, text=text, authority="internal", valid_from=valid_from, valid_to=valid_to)


def status(db: beliefdb.BeliefDB, belief: Any) -> str:
    (b,) = [b for b in db.beliefs(include_all=True) if b.id == belief]
    return b.status


def test_a_decision_on_an_expired_belief_does_not_hold(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    (seven,) = remember(bdb, valid_from="2025-11-01T00:00:00Z", valid_to="2026-01-15T00:00:00Z").accepted
    assert status(bdb, seven.id) == "expired"
    decided = bdb.decide("Refuse the return of order 1042", because=[seven.id])
    assert decided.status == "needs_review"
    (d,) = bdb.decisions()
    assert d.holds is False
    assert bdb.beliefs() == []
    listed = cli("beliefs", "--all")
    assert "[expired]" in listed.stdout and "[current]" not in listed.stdout


def test_expiry_happens_without_anyone_touching_the_belief(db_url: str,
                                                          postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        derived = january.derive("Late returns are refused", "late_return", "refused", "yes", [seven.id])
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
        email = january.act(refuse.id, "Email the customer a refusal")
        assert status(january, seven.id) == "current" and refuse.status == "active"
    events = postgresql.execute("select count(*) from beliefdb.audit_event where action = 'expire'").fetchone()
    assert events == (0,)
    # later, on the real clock, the first thing anyone does — here, only reading — processes the expiry (a
    # read with its clock fixed writes nothing: test_a_read_with_the_clock_fixed_later_changes_nothing_stored)
    with beliefdb.connect(db_url, principal="ops") as february:
        assert february.beliefs() == []
        assert status(february, seven.id) == "expired" and status(february, derived.id) == "unsupported"
        assert {d.id: (d.status, d.holds) for d in february.decisions()} == {refuse.id: ("needs_review", False)}
        assert {a.id: a.status for a in february.actions()} == {email.id: "held"}
        assert february.audit_verify().ok
    (event,) = postgresql.execute("select payload from beliefdb.audit_event where action = 'expire'").fetchall()
    assert event[0]["expired"] == 1 and event[0]["flagged"] == [str(refuse.id)]
    # what was believed then is still what it was: the belief derived from it too, current then (before, a
    # derived belief was no as-of answer)
    then = datetime(2026, 1, 20, tzinfo=UTC)
    with beliefdb.connect(db_url) as now:
        assert {b.id: b.status for b in now.beliefs(as_of=then)} == {seven.id: "current", derived.id: "current"}
        assert [b.id for b in now.beliefs(as_of=datetime(2026, 2, 5, tzinfo=UTC))] == []


def test_the_expire_command_and_function(cli: Cli, db_url: str) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z")) as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
    # nothing has expired yet at the fixed clock of January
    assert cli.json("expire", "--db", url_at(db_url, "2026-01-20T00:00:00Z"))["expired"] == 0
    # a scheduler calls the function itself (here in a session that does nothing else first)
    with psycopg.connect(url_at(db_url, "2026-03-01T00:00:00Z"), autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace "
                     "where name = 'default'")
        conn.execute("set role beliefdb_app")
        report = conn.execute("select expired, beliefs from beliefdb.expire()").fetchone()
    assert report == (1, [seven.id])
    again = cli("expire", "--db", url_at(db_url, "2026-03-02T00:00:00Z"))
    assert again.stdout.startswith("expired: 0 belief(s)")


def test_a_read_with_the_clock_fixed_later_changes_nothing_stored(cli: Cli, db_url: str, bdb: beliefdb.BeliefDB,
                                                                  postgresql: psycopg.Connection[Any]) -> None:
    """A user trial: reading with the clock fixed past a belief's valid time (beliefs, ask) processed its
    expiry, so on the real clock it was no longer current, the decision on it needed review and a review
    item was open. A read under a fixed clock writes nothing (rule 13): its valid-time test reads the
    clock, the stored statuses stay as the real clock left them."""
    (rate,) = remember(bdb, valid_to="2027-06-01T00:00:00Z").accepted
    use = bdb.decide("use rate", because=[rate.id])
    seen = "select (select count(*) from beliefdb.audit_event), (select count(*) from beliefdb.review_item)"
    before = postgresql.execute(seen).fetchone()
    later = url_at(db_url, "2028-01-01T00:00:00Z")
    with beliefdb.connect(later) as future:
        assert future.beliefs() == []  # not valid then
        assert status(future, rate.id) == "current"  # what is stored
        assert future.ask("how many days for returns?").beliefs == []
    assert "(no beliefs)" in cli("beliefs", "-w", "default", "--db", later).stdout
    assert "[current]" in cli("beliefs", "-w", "default", "--all", "--db", later).stdout
    assert postgresql.execute(seen).fetchone() == before
    assert [b.id for b in bdb.beliefs()] == [rate.id]
    assert {d.id: (d.status, d.holds) for d in bdb.decisions()} == {use.id: ("active", True)}
    # a write at that clock (its login may: beliefdb_clock) processes it first, as every writer does
    with beliefdb.connect(later) as future:
        future.remember("Opening hours", "shop", "hours", "9-5", "Open 9-5.", source="hours.md", text="Open 9-5.")
    assert status(bdb, rate.id) == "expired"


def test_a_claim_valid_later_is_not_merged_into_an_expired_belief(bdb: beliefdb.BeliefDB) -> None:
    (old,) = remember(bdb, valid_from="2025-01-01T00:00:00Z", valid_to="2026-01-01T00:00:00Z").accepted
    assert status(bdb, old.id) == "expired"
    renewed = remember(bdb, valid_from="2026-01-01T00:00:00Z", valid_to="2027-06-01T00:00:00Z",
                       source="holiday-2026.md", text=f"Holiday policy 2026. {QUOTE}\n")
    assert renewed.corroborated == [] and len(renewed.accepted) == 1
    (new,) = renewed.accepted
    assert [b.id for b in bdb.beliefs()] == [new.id]
    answer = bdb.ask("how many days for returns?")
    assert answer.status == "ok" and [a.belief.id for a in answer.beliefs] == [new.id]


def test_the_same_claim_for_the_same_time_is_still_corroborated(bdb: beliefdb.BeliefDB) -> None:
    (first,) = remember(bdb, valid_to="2027-06-01T00:00:00Z").accepted
    again = remember(bdb, valid_to="2027-06-01T00:00:00Z", source="copy.md", text=f"Copy. {QUOTE}\n")
    assert [c.id for c in again.corroborated] == [first.id] and again.accepted == []
    other_time = remember(bdb, valid_to="2028-06-01T00:00:00Z", source="later.md", text=f"Later. {QUOTE}\n")
    assert other_time.corroborated == [] and len(other_time.accepted) == 1


def test_an_expired_winner_still_supersedes_what_it_replaced(db_url: str) -> None:
    """Expiry ends a belief's time; it does not undo history: the 7-day rule it replaced does not come
    back when the 15-day rule's valid time ends."""
    fifteen_text = "Returns are accepted within 15 days of delivery."
    with beliefdb.connect(url_at(db_url, "2025-07-01T00:00:00Z")) as summer:
        (seven,) = remember(summer, valid_from="2025-01-01T00:00:00Z").accepted
        (fifteen,) = remember(summer, "15 days", valid_from="2025-06-01T00:00:00Z", valid_to="2026-01-01T00:00:00Z",
                              source="promo.md", text=f"Promo. {fifteen_text}\n", quote=fifteen_text).accepted
        assert status(summer, seven.id) == "superseded" and status(summer, fifteen.id) == "current"
    with beliefdb.connect(db_url) as winter:  # (the real clock: a read with a fixed one processes nothing)
        assert status(winter, seven.id) == "superseded" and status(winter, fifteen.id) == "expired"
        assert winter.beliefs(subject="return_policy") == []


def test_a_claim_that_has_already_ended_supersedes_nothing(bdb: beliefdb.BeliefDB) -> None:
    """A stronger claim whose valid time is over when it arrives is history: it meets no rival, so
    the current belief stays current (the model-based test found it superseded by an expired one)."""
    fifteen_text = "Returns are accepted within 15 days of delivery."
    (fifteen,) = remember(bdb, "15 days", source="a.md", text=fifteen_text, quote=fifteen_text).accepted
    old = "Until the end of 2025, returns are accepted within 7 days."
    stale = bdb.remember("7 days until 2026", "return_policy", "window", "7 days", old, source="b.md", text=old,
                         authority="official", valid_to="2026-01-01T00:00:00Z")
    assert stale.superseded == [] and stale.conflicts == []
    assert status(bdb, fifteen.id) == "current" and status(bdb, stale.accepted[0].id) == "expired"


def as_of(conn: psycopg.Connection[Any], belief: Any, decision: Any, action: Any, moment: str) -> tuple[str, ...]:
    """The statuses a belief, a decision and an action had at ``moment``, as the as-of reads give them."""
    row = conn.execute(
        "select beliefdb.belief_status_at(b, %(at)s)::text, beliefdb.decision_status_at(d, %(at)s),"
        "       beliefdb.action_status_at(a, %(at)s)"
        "  from beliefdb.belief b, beliefdb.decision d, beliefdb.action a"
        " where b.id = %(b)s and d.id = %(d)s and a.id = %(a)s",
        {"at": datetime.fromisoformat(moment), "b": belief, "d": decision, "a": action}).fetchone()
    assert row is not None
    return tuple(row)

@pytest.mark.parametrize("processed_by", ["a read", "a write in SQL"])
def test_as_of_a_moment_after_an_expiry_its_effects_are_seen_before_anyone_processed_it(
        db_url: str, postgresql: psycopg.Connection[Any], processed_by: str) -> None:
    """The effects of an expiry are dated when the valid time ended, not when someone next wrote or read:
    a reader at any moment after the end would have processed it first and seen the decision flagged.
    Processed by the library's read (beliefdb.expire first), or by a writer calling SQL itself (its
    change processes it first, beliefdb.propagate)."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
        email = january.act(refuse.id, "Email the customer a refusal")
    # nobody touches the workspace until the 10th (the read: on the real clock, later still; a read with its
    # clock fixed processes nothing)
    if processed_by == "a read":
        with beliefdb.connect(db_url, principal="ops") as february:
            assert {d.id: d.status for d in february.decisions()} == {refuse.id: "needs_review"}
    else:
        with psycopg.connect(url_at(db_url, "2026-02-10T00:00:00Z"), autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace"
                         " where name = 'default'")
            conn.execute("select beliefdb.ingest_version('hours.md', 'Opening hours. Closed on Sundays.')")
        assert postgresql.execute("select status from beliefdb.decision where id = %s", (refuse.id,)
                                  ).fetchone() == ("needs_review",)
    with beliefdb.connect(db_url) as now:
        assert {a.id: a.status for a in now.actions()} == {email.id: "held"}
        assert now.audit_verify().ok
    then = [as_of(postgresql, seven.id, refuse.id, email.id, moment)
            for moment in ("2026-01-20T00:00:00+00:00", "2026-01-31T23:59:59+00:00",  # before it ended
                           "2026-02-01T00:00:00+00:00", "2026-02-05T00:00:00+00:00",  # before the write came
                           "2026-02-10T00:00:00+00:00")]
    assert then == [("current", "active", "scheduled")] * 2 + [("expired", "needs_review", "held")] * 3
    items = postgresql.execute("select r.kind, r.created_at from beliefdb.review_item r"
                               " where r.node in (%s, %s) order by r.kind", (refuse.id, email.id)).fetchall()
    assert items == [("action_held", datetime(2026, 2, 1, tzinfo=UTC)),
                     ("decision_flagged", datetime(2026, 2, 1, tzinfo=UTC))]


def test_expiries_processed_together_take_effect_each_at_its_own_moment(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Two reasons ending at different moments, processed by one read long after: the decision loses its
    last support when the later one ends, not when the first does, nor when the read came."""
    fifteen = "Returns of order 1042 are refused."
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        (other,) = january.remember(fifteen, "order_1042", "return", "refused", fifteen, source="order.md",
                                    text=f"Order 1042. {fifteen}\n", authority="internal",
                                    valid_to="2026-02-05T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id, other.id])
        email = january.act(refuse.id, "Email the customer a refusal")
    with beliefdb.connect(url_at(db_url, "2026-02-10T00:00:00Z"), principal="ops") as february:
        february.expire()  # (the library processes them before it does anything, this included)
        assert status(february, seven.id) == status(february, other.id) == "expired"
        assert {d.id: d.status for d in february.decisions()} == {refuse.id: "needs_review"}
        assert february.audit_verify().ok
    assert as_of(postgresql, seven.id, refuse.id, email.id, "2026-02-03T00:00:00+00:00") == (
        "expired", "active", "scheduled")
    assert as_of(postgresql, other.id, refuse.id, email.id, "2026-02-03T00:00:00+00:00") == (
        "current", "active", "scheduled")
    assert as_of(postgresql, other.id, refuse.id, email.id, "2026-02-07T00:00:00+00:00") == (
        "expired", "needs_review", "held")


def test_what_a_sql_caller_recorded_before_its_change_processed_an_expiry_is_not_dated_before_it(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A caller of the SQL functions (no beliefdb.expire first) records a decision on a belief whose
    valid time ended a week before: taking the write lock processes the expiry as of that end (the
    decision that rested on it is flagged then), and the new decision is flagged when it was recorded,
    not before."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
    with psycopg.connect(url_at(db_url, "2026-02-08T00:00:00Z"), autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace"
                     " where name = 'default'")
        row = conn.execute("select id, status from beliefdb.decide('Refuse order 1043', %s)",
                           (json.dumps([[str(seven.id)]]),)).fetchone()
    assert row is not None and row[1] == "needs_review"
    items = postgresql.execute("select r.node, r.created_at from beliefdb.review_item r"
                               " where r.kind = 'decision_flagged' order by r.created_at").fetchall()
    assert items == [(refuse.id, datetime(2026, 2, 1, tzinfo=UTC)), (row[0], datetime(2026, 2, 8, tzinfo=UTC))]


def sql_caller(db_url: str, moment: str | None) -> psycopg.Connection[Any]:
    """A caller of the SQL functions (no beliefdb.expire first) acting as ops, its clock at ``moment`` (None:
    the real clock)."""
    conn = psycopg.connect(db_url if moment is None else url_at(db_url, moment), autocommit=True)
    conn.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace"
                 " where name = 'default'")
    conn.execute("select set_config('beliefdb.principal', 'ops', false)")
    conn.execute("set role beliefdb_app")
    return conn


@pytest.mark.parametrize("caller", ["the library", "SQL"])
def test_an_outcome_recorded_after_an_expiry_sees_the_action_held(
        db_url: str, postgresql: psycopg.Connection[Any], caller: str) -> None:
    """record_outcome processes what expired first, as every writer does: an action whose decision's last
    reason ended a week before is held (a reader then saw it held), and its success is refused, not
    recorded as done and then held by the next change as of before it. The library and SQL say the same."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
        email = january.act(refuse.id, "Email the customer a refusal")
    if caller == "the library":
        with beliefdb.connect(url_at(db_url, "2026-02-08T00:00:00Z"), principal="ops") as february:
            with pytest.raises(beliefdb.errors.InvalidInput, match="is held"):
                february.record_outcome(email.id, "succeeded")
            # a dispute changes no action's status: it is recorded, after the expiry
            disputed = february.record_outcome(email.id, "disputed").status
    else:
        with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
            with pytest.raises(psycopg.Error, match="is held") as refused:
                conn.execute("select beliefdb.record_outcome(%s, 'succeeded')", (str(email.id),))
            assert refused.value.sqlstate == "BD005"
            disputed = conn.execute("select status from beliefdb.record_outcome(%s, 'disputed')",
                                    (str(email.id),)).fetchone()[0]
    assert disputed == "held"
    assert postgresql.execute("select status from beliefdb.decision where id = %s", (refuse.id,)
                              ).fetchone() == ("needs_review",)
    for moment in ("2026-02-05T00:00:00+00:00", "2026-02-09T00:00:00+00:00"):
        assert as_of(postgresql, seven.id, refuse.id, email.id, moment) == ("expired", "needs_review", "held")
    assert postgresql.execute("select outcome from beliefdb.outcome").fetchall() == [("disputed",)]


def test_an_outcome_that_waited_for_another_writer_past_an_expiry_sees_it(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """The library processes what expired when its transaction begins; a change that then waits for another
    writer's lock is dated when it takes it (beliefdb.lock_workspace), past a valid time that ended while it
    waited. record_outcome processes that expiry under the lock too: the action is held, its success refused.
    (The real clock: a fixed one would not move while it waits.)"""
    end = datetime.now(UTC) + timedelta(seconds=4)
    with beliefdb.connect(db_url, principal="ops") as db:
        (seven,) = remember(db, valid_to=end.isoformat()).accepted
        refuse = db.decide("Refuse the return of order 1042", because=[seven.id])
        email = db.act(refuse.id, "Email the customer a refusal")
        with psycopg.connect(db_url) as writer:
            writer.execute("select set_config('beliefdb.workspace_id', id::text, false) from beliefdb.workspace"
                           " where name = 'default'")
            writer.execute("select beliefdb.lock_workspace()")
            release = threading.Timer((end - datetime.now(UTC)).total_seconds() + 0.5, writer.rollback)
            release.start()
            try:
                assert datetime.now(UTC) < end  # (the outcome's transaction begins before the end)
                with pytest.raises(beliefdb.errors.InvalidInput, match="is held"):
                    db.record_outcome(email.id, "succeeded")
            finally:
                release.join()
        assert {a.id: a.status for a in db.actions()} == {email.id: "held"}
    assert postgresql.execute("select count(*) from beliefdb.outcome").fetchone() == (0,)
    (flagged_at,) = postgresql.execute("select created_at from beliefdb.review_item where node = %s",
                                       (refuse.id,)).fetchone()
    assert flagged_at == end


def flagged_then_supported_until_february(db_url: str) -> tuple[Any, Any, Any, Any]:
    """A decision flagged in January (its reason retracted), whose reason is restored two days later
    with its valid time ending on 1 February: it holds again, still needs review, its item open.
    Returns the belief, the decision, its action and the decision's review item."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
        email = january.act(refuse.id, "Email the customer a refusal")
        january.retract(belief=seven.id, reason="checking the policy")
        assert {d.id: (d.status, d.holds) for d in january.decisions()} == {refuse.id: ("needs_review", False)}
        (item,) = [i.id for i in january.review_items() if i.kind == "decision_flagged"]
    with beliefdb.connect(url_at(db_url, "2026-01-12T00:00:00Z"), principal="ops") as later:
        later.retract(belief=seven.id, reason="the policy is right", undo=True)
        assert {d.id: (d.status, d.holds) for d in later.decisions()} == {refuse.id: ("needs_review", True)}
    return seven, refuse, email, item


@pytest.mark.parametrize("caller", ["the library", "SQL"])
def test_a_flag_approved_after_an_expiry_approves_the_loss_the_approver_saw(
        db_url: str, postgresql: psycopg.Connection[Any], caller: str) -> None:
    """review_resolve processes what expired first: approving on 8 February a decision whose restored reason
    ended on 1 February approves it as it is then (not holding), as a reader then saw it, and releases its
    action. The approval is not followed by a flag dated before it (rule 4's flag again applies to a loss
    after the approval, and this one came before), and the library's answer and SQL's are the same."""
    seven, refuse, email, item = flagged_then_supported_until_february(db_url)
    if caller == "the library":
        with beliefdb.connect(url_at(db_url, "2026-02-08T00:00:00Z"), principal="ops") as february:
            february.resolve_review(item, "approved", note="refund anyway")
    else:
        with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
            conn.execute("select beliefdb.review_resolve(%s, 'approved', 'refund anyway')", (str(item),))
    with beliefdb.connect(url_at(db_url, "2026-02-10T00:00:00Z"), principal="ops") as now:
        assert {d.id: (d.status, d.holds) for d in now.decisions()} == {refuse.id: ("approved", False)}
        assert {a.id: a.status for a in now.actions()} == {email.id: "scheduled"}
        assert now.review_items() == []
        assert now.audit_verify().ok
    items = postgresql.execute("select r.kind, r.status, r.created_at, r.resolved_at from beliefdb.review_item r"
                               " order by r.kind").fetchall()
    assert items == [("action_held", "approved", datetime(2026, 1, 10, tzinfo=UTC), datetime(2026, 2, 8, tzinfo=UTC)),
                     ("decision_flagged", "approved", datetime(2026, 1, 10, tzinfo=UTC),
                      datetime(2026, 2, 8, tzinfo=UTC))]
    assert as_of(postgresql, seven.id, refuse.id, email.id, "2026-02-05T00:00:00+00:00") == (
        "expired", "needs_review", "held")
    assert as_of(postgresql, seven.id, refuse.id, email.id, "2026-02-09T00:00:00+00:00") == (
        "expired", "approved", "scheduled")


def test_a_tie_approved_in_sql_after_one_side_expired_is_settled_already(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A tie one side of which ended on 1 February settled itself then (rule 17: its item closes, dated
    then); approving it in SQL on the 8th finds it closed and says so, as the library does, instead of
    superseding the expired side a week after it ended."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        five, six = (january.remember(f"Max payload is {v} kg.", "drone", "max_payload", f"{v} kg",
                                      f"Max payload is {v} kg.", source=f"d{v}.md", text=f"Max payload is {v} kg.",
                                      valid_from="2026-01-01T00:00:00Z", valid_to=until).accepted[0]
                     for v, until in (("5", "2026-02-01T00:00:00Z"), ("6", None)))
        (tie,) = [i for i in january.review_items() if i.kind == "conflict"]
    with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
        with pytest.raises(psycopg.Error, match=r"is already closed \(settled: the beliefs are no longer tied\)") as e:
            conn.execute("select beliefdb.review_resolve(%s, 'approved', null, %s)", (str(tie.id), str(six.id)))
        assert e.value.sqlstate == "BD005"
    with beliefdb.connect(db_url, principal="ops") as now:
        assert {b.id: b.status for b in now.beliefs(include_all=True)} == {five.id: "expired", six.id: "current"}
    assert postgresql.execute("select status, resolved_at from beliefdb.review_item where id = %s", (tie.id,)
                              ).fetchone() == ("closed", datetime(2026, 2, 1, tzinfo=UTC))


def test_what_an_expiry_brings_back_is_dated_when_it_ended(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A revival caused by an expiry (rule 3): the truck plan, which a person chose over the drone plan, rests
    on a promotion that ends on 1 February; then the drone plan is current again, the approved decision on
    it holds again, and the drone plan meets its rivals again (a tie with the bike plan) — all as of
    1 February, though nobody reads until the 10th. When the drone plan's own reason ends on 5 February, the
    decision loses its support again, after its approval, and is flagged again then: processed moment by
    moment, the revival of the 1st is what the 5th's loss is measured against."""
    def plan(db: beliefdb.BeliefDB, how: str, basis: Any) -> Any:
        return db.derive(f"Ship order 1042 by {how}", "order_1042", "shipping", how, [basis])

    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        weight = "Order 1042 weighs 4 kg."
        (light,) = january.remember(weight, "order_1042", "weight", "4 kg", weight, source="order.md", text=weight,
                                    authority="internal", valid_to="2026-02-05T00:00:00Z").accepted
        promo = "Truck shipping is free until February."
        (free,) = january.remember(promo, "truck", "free", "yes", promo, source="promo.md", text=promo,
                                   authority="internal", valid_to="2026-02-01T00:00:00Z").accepted
        drone, truck = plan(january, "drone", light.id), plan(january, "truck", free.id)
        (tie,) = [i.id for i in january.review_items() if i.kind == "conflict"]
        book = january.decide("Book a drone slot for order 1042", because=[drone.id])
        slot = january.act(book.id, "Reserve the drone slot")
    with beliefdb.connect(url_at(db_url, "2026-01-11T00:00:00Z"), principal="ops") as chosen:
        chosen.resolve_review(tie, "approved", winner=truck.id)
        assert {d.id: d.status for d in chosen.decisions()} == {book.id: "needs_review"}
        bike = plan(chosen, "bike", light.id)  # a tie with the truck plan
    with beliefdb.connect(url_at(db_url, "2026-01-12T00:00:00Z"), principal="ops") as approving:
        (flag,) = [i.id for i in approving.review_items() if i.kind == "decision_flagged"]
        approving.resolve_review(flag, "approved", note="the drone plan stands")
        assert {d.id: (d.status, d.holds) for d in approving.decisions()} == {book.id: ("approved", False)}
    with beliefdb.connect(db_url, principal="ops") as february:
        assert {b.id: b.status for b in february.beliefs(subject="order_1042", include_all=True)
                if b.attribute == "shipping"} == {drone.id: "unsupported", truck.id: "unsupported",
                                                  bike.id: "unsupported"}
        assert {d.id: (d.status, d.holds) for d in february.decisions()} == {book.id: ("needs_review", False)}
        assert {a.id: a.status for a in february.actions()} == {slot.id: "held"}
        assert february.audit_verify().ok
    names = {drone.id: "drone", truck.id: "truck", bike.id: "bike", book.id: "book", slot.id: "slot"}
    items = [(r[0], sorted(names[n] for n in r[1] if n is not None), r[2], r[3], r[4]) for r in postgresql.execute(
        "select r.kind, array[r.node, r.other_node], r.status, r.created_at, r.resolved_at from beliefdb.review_item r"
        " order by r.created_at, r.kind, r.resolved_at").fetchall()]
    jan, feb = (lambda d: datetime(2026, 1, d, tzinfo=UTC)), (lambda d: datetime(2026, 2, d, tzinfo=UTC))
    assert items == [
        ("conflict", ["drone", "truck"], "approved", jan(10), jan(11)),
        ("action_held", ["slot"], "approved", jan(11), jan(12)),
        ("conflict", ["bike", "truck"], "closed", jan(11), feb(1)),  # the truck plan no longer holds
        ("decision_flagged", ["book"], "approved", jan(11), jan(12)),
        ("conflict", ["bike", "drone"], "closed", feb(1), feb(5)),  # the drone plan back meets the bike plan
        ("action_held", ["slot"], "open", feb(5), None),  # lost again after the approval
        ("decision_flagged", ["book"], "open", feb(5), None),
    ]
    assert postgresql.execute("select reason from beliefdb.review_item where kind = 'decision_flagged'"
                              " and status = 'open'").fetchone() == (
        "the decision lost its last remaining support again, after it was approved",)
    # (the decision and its action as of then)
    for moment, expected in (("2026-01-20T00:00:00+00:00", ("approved", "scheduled")),
                             ("2026-02-03T00:00:00+00:00", ("approved", "scheduled")),
                             ("2026-02-07T00:00:00+00:00", ("needs_review", "held"))):
        assert as_of(postgresql, drone.id, book.id, slot.id, moment)[1:] == expected, moment


def test_a_citation_in_sql_of_a_belief_that_expired_since_the_run_read_it_is_refused(db_url: str) -> None:
    """decide_in_run processes what expired first, under the lock, as every writer does: a belief its run read
    in January whose valid time ended on 1 February is refused on the 8th as expired since the run read it
    (rule 19), as the library says, instead of being kept as a reason the decision's own change then finds
    expired."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        run = january.record_step("user_input", {"text": "Can I return it on day 10?"}, task="refund 1042").run
        answer = january.ask("how many days for returns?", k=1, run=run)
        assert [a.belief.id for a in answer.beliefs] == [seven.id]
    with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
        row = conn.execute("select status, refused::text from beliefdb.decide_in_run(%s, 'Refuse order 1042', %s)",
                           (run, json.dumps([[str(seven.id)]]))).fetchone()
    assert row is not None
    assert row[0] == "needs_review"
    assert f"{seven.id}" in row[1] and "no longer current (expired) since this run read it" in row[1]


@pytest.mark.parametrize("caller", ["the library", "SQL"])
def test_a_correction_previewed_before_an_expiry_is_stale_after_it(db_url: str, caller: str) -> None:
    """apply_correction processes what expired first, under the lock, as every writer does: a correction
    previewed in January of a belief whose valid time ended on 1 February is stale on the 8th (the expiry
    changed the belief since the preview, rule 7), in SQL as through the library, instead of correcting a
    belief that had already ended and making a replacement that ended with it."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        revision = january.preview_correction(seven.id, "Returns are accepted within 10 days.", "10 days").revision
    if caller == "SQL":
        with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn, pytest.raises(psycopg.Error) as e:
            conn.execute("select * from beliefdb.apply_correction(%s, 'Returns are accepted within 10 days.',"
                         " '10 days', 'ops', 'typo', %s)", (str(seven.id), revision))
        assert e.value.sqlstate == "BD007", e.value
    else:
        with beliefdb.connect(url_at(db_url, "2026-02-08T00:00:00Z"), principal="ops") as february, \
                pytest.raises(beliefdb.errors.StaleCorrectionPreview):
            february.apply_correction(seven.id, "Returns are accepted within 10 days.", value="10 days",
                                      expect_revision=revision, reviewer="ops", reason="typo")
    with beliefdb.connect(db_url, principal="ops") as now:
        assert {b.id: b.status for b in now.beliefs(include_all=True)} == {seven.id: "expired"}


def test_a_sql_preview_of_a_correction_after_an_expiry_shows_the_revision_its_apply_checks(db_url: str) -> None:
    """A SQL caller previews on 8 February a correction of a belief whose valid time ended on the 1st and
    that no writer has processed yet, then applies it with the revision the preview showed: it is applied.
    The apply processes the expiry first, at its lock (a new revision of the belief), so the preview shows
    the revision after that, as its dry run sees the belief; the preview itself still writes nothing.
    (Before, the preview showed the revision before the expiry: every apply was stale, BD007, and rolled the
    expiry back with it, so the next preview showed the same revision again, for ever.)"""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
    stored = "select revision, status::text from beliefdb.belief where id = %s"
    with psycopg.connect(db_url) as conn:
        before = conn.execute(stored, (seven.id,)).fetchone()
    assert before == (1, "current")
    with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
        (revision,) = conn.execute("select revision from beliefdb.correction_preview(%s, %s, %s)",
                                   (str(seven.id), "Returns are accepted within 15 days.", "15 days")).fetchone()
        assert conn.execute(stored, (seven.id,)).fetchone() == before  # the preview wrote nothing
        assert revision == 2
        applied = conn.execute("select proposed, already_applied from beliefdb.apply_correction(%s, %s, %s,"
                               " 'ops', 'typo', %s)",
                               (str(seven.id), "Returns are accepted within 15 days.", "15 days", revision)).fetchone()
    assert applied == (False, False)
    with psycopg.connect(db_url) as conn:
        assert conn.execute("select count(*) from beliefdb.correction where belief_id = %s",
                            (seven.id,)).fetchone() == (1,)


@pytest.mark.parametrize("caller", ["the library", "SQL"])
def test_a_derivation_repeated_after_its_reason_expired_is_unsupported(db_url: str, caller: str) -> None:
    """Every writer processes what expired when it takes the workspace's write lock, before it checks
    anything: the same derivation again on 8 February, from a belief whose valid time ended on the 1st, is
    the belief it made, now unsupported, in SQL as through the library (not reported current and left so
    until the next change, because a repeat returns before any propagation)."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        derived = january.derive("Late returns are refused", "late_return", "refused", "yes", [seven.id])
        assert status(january, derived.id) == "current"
    if caller == "SQL":
        with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
            again = conn.execute("select id, status from beliefdb.derive('Late returns are refused', 'late_return',"
                                 " 'refused', 'yes', array[%s])", (str(seven.id),)).fetchone()
        assert again == (derived.id, "unsupported")
    else:
        with beliefdb.connect(url_at(db_url, "2026-02-08T00:00:00Z"), principal="ops") as february:
            again = february.derive("Late returns are refused", "late_return", "refused", "yes", [seven.id])
        assert (again.id, again.status) == (derived.id, "unsupported")
    with psycopg.connect(db_url) as conn:
        assert conn.execute("select status::text from beliefdb.belief where id = %s", (derived.id,)
                            ).fetchone() == ("unsupported",)


def test_what_a_sql_writer_processed_first_is_audited_as_an_expiry(db_url: str,
                                                                    postgresql: psycopg.Connection[Any]) -> None:
    """An expiry a writer called in SQL processes first is an event of its own in the audit chain, before the
    writer's, with what it flagged, as when the library or a scheduler calls beliefdb.expire(); the writer's
    own report is of its own change (the flag is not its)."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
    with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
        conn.execute("select beliefdb.ingest_version('hours.md', 'Opening hours. Closed on Sundays.')")
    events = postgresql.execute("select action, payload from beliefdb.audit_event"
                                " where action in ('expire', 'ingest') order by seq").fetchall()
    assert [a for a, _ in events][-2:] == ["expire", "ingest"]
    assert events[-2][1]["beliefs"] == [str(seven.id)] and events[-2][1]["flagged"] == [str(refuse.id)]
    with beliefdb.connect(db_url) as now:
        assert now.audit_verify().ok


def test_a_session_that_sets_the_expiry_setting_itself_still_processes_what_expired(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """beliefdb.expiry_clock says only to look while beliefdb processes an expiry (its own temporary table holds
    the moment): a session that sets it itself still has what expired processed when it takes the lock, so a
    success for an action held by then is refused, and the expiry is dated and audited as any other."""
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z"), principal="ops") as january:
        (seven,) = remember(january, valid_to="2026-02-01T00:00:00Z").accepted
        refuse = january.decide("Refuse the return of order 1042", because=[seven.id])
        email = january.act(refuse.id, "Email the customer a refusal")
    with sql_caller(db_url, "2026-02-08T00:00:00Z") as conn:
        conn.execute("set beliefdb.expiry_clock = '2026-01-20 00:00:00+00'")
        with pytest.raises(psycopg.Error, match="is held") as refused:
            conn.execute("select beliefdb.record_outcome(%s, 'succeeded')", (str(email.id),))
        assert refused.value.sqlstate == "BD005"
        # (the refusal rolled its transaction back, the expiry with it; a dispute is recorded after it)
        assert conn.execute("select status from beliefdb.record_outcome(%s, 'disputed')", (str(email.id),)
                            ).fetchone() == ("held",)
    assert postgresql.execute("select status::text from beliefdb.belief where id = %s", (seven.id,)
                              ).fetchone() == ("expired",)
    assert as_of(postgresql, seven.id, refuse.id, email.id, "2026-02-05T00:00:00+00:00") == (
        "expired", "needs_review", "held")
    assert postgresql.execute("select count(*) from beliefdb.audit_event where action = 'expire'").fetchone() == (1,)


def batch_after(db_url: str, ends: datetime, documents: LiteralString) -> list[Any]:
    """The reports of a bulk batch of ``documents`` (rows of (n, source, content)) that took the workspace's
    lock before ``ends`` and comes to its documents after it, as a long batch would (the real clock: the
    batch reads it document by document)."""
    with sql_caller(db_url, None) as conn, conn.transaction():
        conn.execute("select beliefdb.lock_workspace()")
        assert datetime.now(UTC) < ends
        threading.Event().wait((ends - datetime.now(UTC)).total_seconds() + 0.3)
        conn.execute("select beliefdb.bulk_stage()")
        conn.execute("insert into pg_temp.beliefdb_bulk_document (n, source, content) values " + documents)
        return [r for (r,) in conn.execute("select * from beliefdb.bulk_ingest_batch()")]


@pytest.mark.slow
def test_what_expires_while_a_bulk_batch_runs_is_a_change_of_its_own(db_url: str,
                                                                   postgresql: psycopg.Connection[Any]) -> None:
    """A bulk batch dates each document when it comes to it: a belief whose valid time ends after the batch
    took the lock and before a later document is processed as at any writer's lock, an expire event of its
    own with what it flagged, not inside that document's propagation (no event, and the flag reported as the
    document's own). The batch's lock is taken first and held past the end, as a long batch would."""
    ends = datetime.now(UTC) + timedelta(seconds=1.5)
    with beliefdb.connect(db_url, principal="ops") as db:
        (seven,) = remember(db, valid_to=ends.isoformat()).accepted
        refuse = db.decide("Refuse the return of order 1042", because=[seven.id])
        db.remember("Shipping takes 3 days.", "shipping", "time", "3 days", "Shipping takes 3 days.",
                    source="other.md", text="Shipping takes 3 days.\n", authority="internal")
    (report,) = batch_after(db_url, ends, "(1, 'other.md', 'Shipping is now handled elsewhere.')")
    assert report["flagged"] == [], report
    assert postgresql.execute("select status::text from beliefdb.belief where id = %s", (seven.id,)).fetchone() \
        == ("expired",)
    assert postgresql.execute("select status::text from beliefdb.decision where id = %s", (refuse.id,)).fetchone() \
        == ("needs_review",)
    events = postgresql.execute("select action, payload from beliefdb.audit_event order by seq").fetchall()
    actions = [a for a, _ in events]
    assert "expire" in actions and "bulk_ingest" in actions, actions
    assert actions.index("expire") < actions.index("bulk_ingest")
    expire = next(p for a, p in events if a == "expire")
    assert expire["beliefs"] == [str(seven.id)] and expire["flagged"] == [str(refuse.id)], expire


def test_what_expires_before_a_run_of_new_sources_in_a_bulk_batch_is_processed_first(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Documents that each start a new source are stored together (a run): what expired by the time the batch
    comes to them is processed before them too, an expire event of its own, as before any other document."""
    ends = datetime.now(UTC) + timedelta(seconds=1.5)
    with beliefdb.connect(db_url, principal="ops") as db:
        (seven,) = remember(db, valid_to=ends.isoformat()).accepted
        refuse = db.decide("Refuse the return of order 1042", because=[seven.id])
    reports = batch_after(db_url, ends, "(1, 'new.md', 'Shipping takes 3 days.'),"
                                        " (2, 'newer.md', 'Support answers in 2 hours.')")
    assert len(reports) == 2 and all(r["flagged"] == [] for r in reports), reports
    assert postgresql.execute("select status::text from beliefdb.belief where id = %s", (seven.id,)).fetchone() \
        == ("expired",)
    actions = [a for (a,) in postgresql.execute("select action from beliefdb.audit_event order by seq")]
    assert "expire" in actions and actions.index("expire") < actions.index("bulk_ingest"), actions
    assert postgresql.execute("select status::text from beliefdb.decision where id = %s", (refuse.id,)).fetchone() \
        == ("needs_review",)


def test_a_claim_whose_valid_time_ended_before_it_was_stored_says_so(bdb: beliefdb.BeliefDB, cli: Cli,
                                                                     tmp_path: Path) -> None:
    """Its report listed it accepted like any other ("+ id subject / attribute = value"), while it was stored
    expired and never current: nothing said why it was not among the beliefs."""
    report = remember(bdb, valid_from="2025-01-01T00:00:00Z", valid_to="2026-01-01T00:00:00Z")
    (old,) = report.accepted
    assert old.ended == datetime(2026, 1, 1, tzinfo=UTC) and status(bdb, old.id) == "expired"
    (later,) = remember(bdb, valid_to="2999-01-01T00:00:00Z", source="later.md", text=f"Later. {QUOTE}\n").accepted
    assert later.ended is None
    doc, claims = tmp_path / "promo.md", tmp_path / "promo.jsonl"
    doc.write_text("The winter promo price is 30 EUR.\n", encoding="utf-8")
    claims.write_text(json.dumps({"statement": "The winter promo price is 30 EUR.", "subject": "winter_promo",
                                  "attribute": "price", "value": "30 EUR", "quote": "The winter promo price is 30 EUR.",
                                  "valid_to": "2020-03-01T00:00:00Z"}) + "\n", encoding="utf-8")
    said = cli("ingest", doc, "--claims", claims, "--extractor", "none", "--no-embed").stdout
    assert "winter_promo / price = 30 EUR   (stored expired: its valid time ended 2020-03-01)" in said, said
