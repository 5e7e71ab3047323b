"""Rollback repair and owners (rules 10 and 17): a repair changes only what its maker owns (a login
granted beliefdb_eraser any), only the repaired run's owner or the repair's maker replays it, and a
quarantined memory its owner restores follows the truth rules again."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import errors
from beliefdb.store.repair import ReplayStep, StepOutput


@dataclass
class Shared:
    """bob's run wrote F; alice's run read it, planned on it, wrote her memory Q and answered."""

    faulty: UUID
    run: UUID
    read: UUID
    plan: UUID
    write: UUID
    mine: UUID
    answer: UUID


def share(writer: beliefdb.BeliefDB, reader: beliefdb.BeliefDB) -> Shared:
    with writer.record_run(task="learn") as r:
        faulty = r.memory(r.step("memory_write", {}, inputs=[("cites", r.step("observation", {}))]),
                          "t:42", "tier", "Gold")
    with reader.record_run(task="book", agent="travel") as r:
        read = r.step("memory_read", {}, inputs=[("reads", faulty)])
        plan = r.step("plan", {}, inputs=[("cites", read)])
        write = r.step("memory_write", {}, inputs=[("cites", plan)])
        mine = r.memory(write, "t:42", "cabin", "business")
        answer = r.step("answer", {}, inputs=[("cites", plan)])
    return Shared(faulty, r.id, read, plan, write, mine, answer)


def executor(by: str) -> dict[str, Any]:
    return {k: (lambda s: StepOutput({"by": by})) for k in ("memory_read", "plan", "answer")}


def counting(calls: list[str]) -> dict[str, Any]:
    """An executor that notes each step kind it is called for."""
    def run(step: ReplayStep) -> StepOutput:
        calls.append(step.step.kind)
        return StepOutput({"by": "counted"})
    return {k: run for k in ("memory_read", "plan", "answer")}


def state(db: beliefdb.BeliefDB, s: Shared) -> tuple[dict[UUID, str], dict[UUID, str]]:
    beliefs = {b.id: b.status for b in db.beliefs(subject="t:42", include_all=True)}
    return beliefs, {st.id: st.status for st in db.steps(s.run)}


@pytest.fixture
def carol(db_url: str) -> Iterator[beliefdb.BeliefDB]:
    with beliefdb.connect(db_url, principal="carol") as db:
        yield db


@pytest.fixture
def eraser(db_url: str, postgresql: psycopg.Connection[Any]) -> Iterator[str]:
    """The conninfo of a login granted beliefdb_eraser (and beliefdb_app)."""
    name, password = "dpo_repair", "a-password-of-its-own"
    postgresql.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(name), sql.Literal(password)))
    postgresql.execute(sql.SQL("grant beliefdb_app, beliefdb_eraser to {}").format(sql.Identifier(name)))
    postgresql.commit()
    try:
        yield make_conninfo(db_url, user=name, password=password)
    finally:
        postgresql.rollback()
        postgresql.execute(sql.SQL("drop owned by {}").format(sql.Identifier(name)))
        postgresql.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))
        postgresql.commit()


def test_a_repair_that_would_change_anothers_memory_or_run_is_refused(alice: beliefdb.BeliefDB,
                                                                      bob: beliefdb.BeliefDB) -> None:
    """bob may name his own memory faulty, but the repair would quarantine alice's memory and invalidate her
    steps: refused (not_owner, naming her and the node), nothing written; the plan says so, item by item."""
    s = share(bob, alice)
    before = state(alice, s)
    with pytest.raises(errors.NotOwner, match=rf"would quarantine belief {s.mine}, owned by alice"):
        bob.repair_apply([s.faulty])
    assert state(alice, s) == before and before[0][s.mine] == "current"
    assert alice.review_items() == []
    # alice may not name bob's memory faulty either
    with pytest.raises(errors.NotOwner, match=rf"belief {s.faulty} is owned by bob"):
        alice.repair_apply([s.faulty])
    plan = {i.node: i.reason for i in bob.repair_plan([s.faulty]).items}
    assert plan[s.faulty] == "named as faulty"
    for node in (s.mine, s.read, s.plan, s.write, s.answer):
        assert plan[node].endswith("; owned by alice: only alice (or a login granted beliefdb_eraser) may"
                                   " apply this repair"), plan[node]
    assert not any(r.endswith("may apply this repair") for r in
                   (i.reason for i in alice.repair_plan([s.mine]).items))


def test_an_eraser_repairs_whoever_owns_it_and_the_runs_owner_replays(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, carol: beliefdb.BeliefDB, eraser: str,
        postgresql: psycopg.Connection[Any]) -> None:
    s = share(bob, alice)
    with psycopg.connect(eraser, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(alice.database.workspace_id),))
        conn.execute("set role beliefdb_app")
        row = conn.execute("select repair_id from beliefdb.repair_apply(array[%s]::text[])",
                           (str(s.faulty),)).fetchone()
        assert row is not None
        repair_id = row[0]
    beliefs, steps = state(alice, s)
    assert (beliefs[s.faulty], beliefs[s.mine]) == ("retracted", "quarantined")
    assert steps[s.answer] == "replay_pending"
    payload = postgresql.execute("select payload from beliefdb.audit_event where action = 'repair.apply'"
                                 " order by seq desc limit 1").fetchone()
    assert payload is not None and (payload[0]["eraser"], payload[0]["owners"]) == ("dpo_repair", ["alice", "bob"])
    # only the repaired run's owner (or the repair's maker) replays it: carol and bob are refused, nothing run
    calls: list[str] = []
    for other in (carol, bob):
        with pytest.raises(errors.NotOwner, match=rf"run {s.run} is owned by alice"):
            other.repair_replay(repair_id, counting(calls))
        with pytest.raises(errors.NotOwner, match="owned by alice"), other.database.transaction() as conn:
            conn.execute("select beliefdb.repair_replayed(%s)", (repair_id,))
    assert calls == [] and alice.runs(), "nothing replayed"
    assert all(r.parent_run_id is None for r in alice.runs())
    done = alice.repair_replay(repair_id, executor("alice"))
    assert done.calls == 3 and done.answers == {s.run: {"by": "alice"}}


def test_the_repairs_maker_replays_its_own_repair(alice: beliefdb.BeliefDB, carol: beliefdb.BeliefDB) -> None:
    s = share(alice, alice)
    applied = alice.repair_apply([s.faulty])
    with pytest.raises(errors.NotOwner):
        carol.repair_replay(applied.repair_id, executor("carol"))
    seen: list[str] = []
    assert alice.repair_replay(applied.repair_id, counting(seen)).calls == 3 == len(seen)


def test_a_quarantined_memory_its_owner_restores_follows_the_rules_again(alice: beliefdb.BeliefDB,
                                                                          db_url: str) -> None:
    """Quarantine is a repair's retraction: undone by the memory's owner, the memory's status is what the
    truth rules say (here unsupported: the step that wrote it was invalidated), not quarantined with no
    retraction left."""
    s = share(alice, alice)
    alice.repair_apply([s.faulty])
    assert state(alice, s)[0][s.mine] == "quarantined"
    alice.retract(belief=s.mine, undo=True)
    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute("select b.status::text, n.retracted_at is null, n.holds from beliefdb.belief b"
                           " join beliefdb.node n on n.workspace_id = b.workspace_id and n.id = b.id"
                           " where b.id = %s", (s.mine,)).fetchone()
    assert row == ("unsupported", True, False)
    # retracted again by its owner, and restored again: still what the rules say
    alice.retract(belief=s.mine, reason="by hand")
    assert state(alice, s)[0][s.mine] == "retracted"
    alice.retract(belief=s.mine, undo=True)
    assert state(alice, s)[0][s.mine] == "unsupported"


def test_no_one_else_replays_a_step_by_recording_a_replay_of_it(alice: beliefdb.BeliefDB,
                                                                carol: beliefdb.BeliefDB) -> None:
    """record_trace's replay_of marked any step replayed for anyone: carol's step stood as the replay of
    alice's answer, and alice could no longer finish her own repair. Refused (not_owner); alice's replay
    then runs whole."""
    s = share(alice, alice)
    applied = alice.repair_apply([s.faulty])
    before = state(alice, s)
    with pytest.raises(errors.NotOwner), carol.record_run(task="book", parent=s.run) as c:
        c.step("answer", {"by": "carol"}, replay_of=s.answer)
    assert state(alice, s) == before
    seen: list[str] = []
    assert alice.repair_replay(applied.repair_id, counting(seen)).calls == 3 == len(seen)
