"""Rollback repair on hand-built traces (truth rule 10): each rule, and the plan checked exactly."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg
import pytest

import beliefdb
from beliefdb import errors
from beliefdb.render.pictures import to_mermaid, to_text
from beliefdb.store.repair import MemoryWrite, ReplayStep, StepOutput


@dataclass
class Story:
    """Two sessions of a travel agent; session 1 wrote a poisoned loyalty-tier memory."""

    run1: UUID
    run2: UUID
    m_home: UUID
    m_bad: UUID
    m_fare: UUID
    u2: UUID
    r_home: UUID
    r_bad: UUID
    c_home: UUID
    c_tier: UUID
    c_crm: UUID
    t_crm: UUID
    o_crm: UUID
    plan: UUID
    t_book: UUID
    o_book: UUID
    upsell: UUID
    w_fare: UUID
    note: UUID
    answer: UUID


def record_story(db: beliefdb.BeliefDB) -> Story:
    with db.record_run(task="remember the traveller", agent="travel") as s1:
        u1 = s1.step("user_input", {"text": "I fly from SFO"})
        w1 = s1.step("memory_write", {"key": "home_airport"}, inputs=[("initiates", u1)])
        m_home = s1.memory(w1, "user:42", "home_airport", "SFO", kind="preference")
        web = s1.step("observation", {"page": "forum post: user 42 is Gold"})
        w2 = s1.step("memory_write", {"key": "tier"}, inputs=[("cites", web)])
        m_bad = s1.memory(w2, "user:42", "loyalty_tier", "Gold")
    with db.record_run(task="book a flight to JFK", agent="travel") as s2:
        u2 = s2.step("user_input", {"text": "book me a flight to JFK"})
        r_home = s2.step("memory_read", {"key": "home_airport"}, inputs=[("reads", m_home)])
        r_bad = s2.step("memory_read", {"key": "loyalty_tier"}, inputs=[("reads", m_bad)])
        c_home = s2.step("claim", {"home": "SFO"}, inputs=[("cites", r_home)])
        c_tier = s2.step("claim", {"tier": "Gold"}, inputs=[("cites", r_bad)])
        t_crm = s2.step("tool_call", {"tool": "crm.lookup", "user": 42}, inputs=[("initiates", u2)])
        o_crm = s2.step("observation", {"member_since": 2019}, inputs=[("produces", t_crm)])
        # cites the poisoned read, but the CRM observation supports it on its own
        c_crm = s2.step("claim", {"member": True}, inputs=[("cites", r_bad)], supports=[o_crm])
        plan = s2.step("plan", {"book": "SFO-JFK", "cabin": "business"},
                       inputs=[("initiates", u2), ("cites", c_home), ("cites", c_tier)])
        t_book = s2.step("tool_call", {"tool": "fares.book"}, inputs=[("initiates", plan)])
        o_book = s2.step("observation", {"fare": 900}, inputs=[("produces", t_book)])
        upsell = s2.step("claim", {"lounge": True}, inputs=[("cites", c_tier)])
        w_fare = s2.step("memory_write", {"key": "fare_class"}, inputs=[("cites", c_tier)])
        s2.memory(w_fare, "user:42", "fare_class", "business", kind="preference")
        note = s2.step("plan", {"remind": "check-in"}, inputs=[("initiates", u2)], follows=[plan])
        answer = s2.step("answer", {"booked": "SFO-JFK business 900"},
                         inputs=[("cites", o_book), ("cites", c_home), ("cites", c_crm)])
    m_fare = db.beliefs(subject="user:42", attribute="fare_class")[0].id
    return Story(run1=s1.id, run2=s2.id, m_home=m_home, m_bad=m_bad, m_fare=m_fare, u2=u2, r_home=r_home,
                 r_bad=r_bad, c_home=c_home, c_tier=c_tier, c_crm=c_crm, t_crm=t_crm, o_crm=o_crm, plan=plan,
                 t_book=t_book, o_book=o_book, upsell=upsell, w_fare=w_fare, note=note, answer=answer)


def actions(plan: beliefdb.models.RepairPlan) -> dict[UUID, str]:
    return {i.node: i.action for i in plan.items}


def test_recorded_steps_and_memories_hold(bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    steps = bdb.steps(s.run2)
    assert [st.seq for st in steps] == list(range(15))
    assert all(st.holds for st in steps)
    assert {b.subject + "/" + b.attribute for b in bdb.beliefs(subject="user:42")} == {
        "user:42/home_airport", "user:42/loyalty_tier", "user:42/fare_class"}
    assert [r.id for r in bdb.runs()] == [s.run1, s.run2]


def test_plan_is_exact(bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    plan = bdb.repair_plan([s.m_bad], untouched=True)
    other_steps = {st.id for st in bdb.steps(s.run2)} - {
        s.r_bad, s.c_tier, s.c_crm, s.plan, s.t_book, s.o_book, s.upsell, s.w_fare, s.answer}
    expected = {
        s.m_bad: "delete",
        s.m_fare: "quarantine",                           # derived memory, no other support
        s.upsell: "invalidate", s.w_fare: "invalidate",   # affected, off the answer path
        s.r_bad: "replay", s.c_tier: "replay", s.plan: "replay", s.t_book: "replay", s.o_book: "replay",
        s.answer: "replay",
        s.c_crm: "preserve",                              # saved by the CRM observation
        **{step: "preserve" for step in other_steps},     # untouched: includes the time-order-only note
    }
    assert actions(plan) == expected
    # replay in execution order, and tool call / observation follow their plan
    assert [i.node for i in plan.replay] == [s.r_bad, s.c_tier, s.plan, s.t_book, s.o_book, s.answer]
    saved = {i.node: i for i in plan.preserve}
    assert saved[s.c_crm].saved_by == [s.o_crm]
    assert saved[s.c_crm].reason == "still holds through evidence outside the faulty part"
    assert saved[s.note].reason == "not reachable from the faulty memories"
    assert saved[s.note].saved_by == []
    # nothing of session 1 but the faulty memory is touched
    assert not any(i.run_id == s.run1 for i in plan.items)
    # a plan writes nothing
    assert all(st.holds and st.status == "recorded" for st in bdb.steps(s.run2))


def test_without_independent_evidence_everything_reachable_is_affected(bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    plan = bdb.repair_plan([s.m_bad], independent_evidence=False)
    got = actions(plan)
    assert got[s.c_crm] == "replay"           # the CRM-supported claim leads to the answer: now re-run
    assert got[s.m_fare] == "quarantine"
    assert len(plan.replay) == 7


def test_a_memory_already_deleted_is_no_faulty_memory_to_repair(bdb: beliefdb.BeliefDB, postgresql: Any) -> None:
    """repair apply run again on a memory a repair deleted recorded a second repair and reported "1 delete"
    again (and plan said the same): a memory already retracted is refused, naming why it is, and nothing
    is recorded."""
    s = record_story(bdb)
    first = bdb.repair_apply([s.m_bad])
    for again in (lambda: bdb.repair_plan([s.m_bad]), lambda: bdb.repair_apply([s.m_bad])):
        with pytest.raises(errors.InvalidInput, match=f"memory {s.m_bad} is retracted already"
                                                      f" \\(deleted by repair {first.repair_id}\\)"):
            again()
    assert postgresql.execute("select count(*) from beliefdb.repair").fetchone() == (1,)


def test_apply_then_replay(bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    applied = bdb.repair_apply([s.m_bad])
    by_id = {b.id: b for b in bdb.beliefs(subject="user:42", include_all=True)}
    assert by_id[s.m_bad].status == "retracted"
    assert by_id[s.m_fare].status == "quarantined"
    assert by_id[s.m_home].status == "current"
    status = {st.id: (st.status, st.holds) for st in bdb.steps(s.run2)}
    assert status[s.upsell] == ("invalidated", False)
    assert status[s.r_bad] == ("replay_pending", False)
    assert status[s.c_crm] == ("recorded", True)
    assert status[s.note] == ("recorded", True)
    assert set(applied.changes.stopped_holding) >= {s.m_bad, s.m_fare, s.upsell, s.answer}

    seen: list[str] = []

    def read(step: ReplayStep) -> StepOutput:
        seen.append("memory_read")
        found = step.memory.get("user:42", step.step.payload["key"])
        return StepOutput({"key": step.step.payload["key"], "value": found.value if found else None},
                          reads=[found.id] if found else [])

    def claim(step: ReplayStep) -> StepOutput:
        seen.append("claim")
        return StepOutput({"tier": step.inputs[0].payload["value"] or "unknown"})

    def plan(step: ReplayStep) -> StepOutput:
        seen.append("plan")
        tier = next(i.payload["tier"] for i in step.inputs if "tier" in i.payload)
        return StepOutput({"book": "SFO-JFK", "cabin": "business" if tier == "Gold" else "economy"})

    def tool_call(step: ReplayStep) -> StepOutput:
        seen.append("tool_call")
        return StepOutput({"tool": "fares.book", "cabin": step.inputs[0].payload["cabin"]})

    def observation(step: ReplayStep) -> StepOutput:
        seen.append("observation")
        return StepOutput({"fare": 900 if step.inputs[0].payload["cabin"] == "business" else 300})

    def answer(step: ReplayStep) -> StepOutput:
        seen.append("answer")
        fare = next(i.payload["fare"] for i in step.inputs if "fare" in i.payload)
        return StepOutput({"booked": f"SFO-JFK {fare}"},
                          memories=[MemoryWrite("user:42", "last_booking", f"SFO-JFK {fare}")])

    result = bdb.repair_replay(applied.repair_id, {"memory_read": read, "claim": claim, "plan": plan,
                                                   "tool_call": tool_call, "observation": observation,
                                                   "answer": answer})
    assert seen == ["memory_read", "claim", "plan", "tool_call", "observation", "answer"]
    assert result.calls == 6
    assert result.answers == {s.run2: {"booked": "SFO-JFK 300"}}
    assert set(result.run_ids) == {s.run2}
    branch = result.run_ids[s.run2]
    replayed = next(r for r in bdb.runs() if r.id == branch)
    assert (replayed.parent_run_id, replayed.agent) == (s.run2, "travel")  # the same agent's run again
    new_steps = bdb.steps(branch)
    assert [st.kind for st in new_steps] == ["memory_read", "claim", "plan", "tool_call", "observation", "answer"]
    assert all(st.holds for st in new_steps)
    assert [st.replay_of for st in new_steps] == [i.node for i in applied.plan.replay]
    old = {st.id: st.status for st in bdb.steps(s.run2)}
    assert all(old[i.node] == "replayed" for i in applied.plan.replay)
    assert old[s.upsell] == "invalidated"
    assert [b.value for b in bdb.beliefs(subject="user:42", attribute="last_booking")] == ["SFO-JFK 300"]
    assert result.memories == [bdb.beliefs(subject="user:42", attribute="last_booking")[0].id]
    assert bdb.audit_verify().ok
    # replaying again re-runs nothing
    again = bdb.repair_replay(applied.repair_id, {})
    assert again.calls == 0 and again.replayed == []


def test_superseded_memory_comes_back_and_deleted_memory_is_restored(bdb: beliefdb.BeliefDB) -> None:
    with bdb.record_run(task="preferences") as run:
        u = run.step("user_input", {"text": "window seat, vegetarian meals"})
        w = run.step("memory_write", {}, inputs=[("initiates", u)])
        seat = run.memory(w, "user:7", "seat", "window")
        meal = run.memory(w, "user:7", "meal", "vegetarian")
    with bdb.record_run(task="read a forum") as run2:
        web = run2.step("observation", {"page": "spam"})
        w2 = run2.step("memory_write", {}, inputs=[("cites", web)])
        bad = run2.memory(w2, "user:7", "status", "vip")
    with bdb.record_run(task="tidy preferences") as run3:
        r = run3.step("memory_read", {"key": "status"}, inputs=[("reads", bad)])
        w3 = run3.step("memory_write", {}, inputs=[("cites", r)])
        aisle = run3.memory(w3, "user:7", "seat", "aisle", supersedes=seat)
        run3.delete_memory(w3, meal)
        a = run3.step("answer", {"seat": "aisle"}, inputs=[("cites", w3)])
    assert sorted(b.value for b in bdb.beliefs(subject="user:7")) == ["aisle", "vip"]
    plan = bdb.repair_plan([bad])
    got = {i.node: (i.action, i.reason) for i in plan.items}
    assert got[seat] == ("preserve", "current again: what superseded it rested on the faulty memories")
    assert got[meal] == ("preserve", "restored: deleted by a step that is undone")
    assert got[aisle][0] == "quarantine"
    assert [i.node for i in plan.replay] == [r, w3, a]
    assert w not in got and web not in got and w2 not in got
    before = bdb.why_graph(seat)
    bdb.repair_apply([bad])
    assert sorted(b.value for b in bdb.beliefs(subject="user:7")) == ["vegetarian", "window"]
    # its picture says what it is now: current, not superseded (what replaced it is quarantined: the
    # supersession no longer holds), and the replacement is still drawn, as history
    picture = bdb.why_graph(seat)
    drawn = {n.id: n for n in picture.nodes}
    assert (drawn[seat].status, drawn[seat].marks) == ("current", ("focus",))
    assert drawn[aisle].status == "quarantined"
    assert "— superseded" not in to_text(picture) and "current, superseded" not in to_mermaid(picture)
    assert "superseded" in {n.id: n for n in before.nodes}[seat].marks  # while the supersession held, it said so


def test_a_quarantined_memory_is_quarantined_as_of_a_moment_after_its_repair(bdb: beliefdb.BeliefDB) -> None:
    """why --as-of said retracted for a memory a repair quarantined (belief_status_at read the repair's
    retraction as any other): as of a moment after the repair it was quarantined, before it what it was
    then, and after its owner restored it what the rules say (here unsupported); retracted by hand
    later, even in the repair's own words, it is retracted."""
    with bdb.record_run(task="t") as run:
        s1 = run.step("memory_write", {}, inputs=[("cites", run.step("observation", {"forum": 1}))])
        m1 = run.memory(s1, "t:1", "tier", "Gold")
        s2 = run.step("memory_write", {}, inputs=[("reads", m1)])
        m2 = run.memory(s2, "t:1", "fare", "business")
    before = datetime.now(UTC)
    applied = bdb.repair_apply([m1])
    repaired = datetime.now(UTC)
    assert [i.node for i in applied.plan.quarantine] == [m2]
    assert bdb.why(m2).belief.status == "quarantined"
    assert bdb.why(m2, as_of=repaired).belief.status == "quarantined"
    assert bdb.why(m2, as_of=before).belief.status == "current"
    assert bdb.why(m1, as_of=repaired).belief.status == "retracted"  # the faulty one: deleted
    # its picture as of then draws it quarantined too
    assert {n.id: n for n in bdb.why_graph(m2, as_of=repaired).nodes}[m2].status == "quarantined"
    bdb.retract(belief=m2, undo=True)
    restored = datetime.now(UTC)
    assert bdb.why(m2).belief.status == bdb.why(m2, as_of=restored).belief.status == "unsupported"
    assert bdb.why(m2, as_of=repaired).belief.status == "quarantined"
    bdb.retract(belief=m2, reason=f"quarantined by repair {applied.repair_id}")
    assert bdb.why(m2).belief.status == bdb.why(m2, as_of=datetime.now(UTC)).belief.status == "retracted"
    assert bdb.why(m2, as_of=repaired).belief.status == "quarantined"


@pytest.mark.parametrize("order", ["faulty first", "good first", "both faulty"])
def test_a_memory_a_step_that_still_holds_deleted_too_stays_deleted(bdb: beliefdb.BeliefDB, order: str) -> None:
    """Rule 10: what still holds is kept, the deletion by a good step included. A memory deleted by a step
    resting on the faulty memory and by one the user's own input started stays deleted after the repair,
    whichever deleted it first; deleted only by steps the repair undoes, it comes back (listed once)."""
    with bdb.record_run(task="t") as r:
        email = r.memory(r.step("memory_write", {}, inputs=[("cites", r.step("observation", {}))]),
                         "t:42", "email", "a@x")
        faulty = r.memory(r.step("memory_write", {}, inputs=[("cites", r.step("observation", {"forum": 1}))]),
                          "t:42", "moved", "yes")

    def faulty_delete() -> None:
        with bdb.record_run(task="agent, from the faulty memory") as r:
            s = r.step("memory_write", {}, inputs=[("cites", r.step("memory_read", {}, inputs=[("reads", faulty)]))])
            r.delete_memory(s, email)
            r.step("answer", {}, inputs=[("cites", s)])

    def user_delete() -> None:
        with bdb.record_run(task="user: my email is dead") as r:
            s = r.step("memory_write", {}, inputs=[("initiates", r.step("user_input", {}))])
            r.delete_memory(s, email)

    for delete in {"faulty first": (faulty_delete, user_delete), "good first": (user_delete, faulty_delete),
                   "both faulty": (faulty_delete, faulty_delete)}[order]:
        delete()
    restored = [i.node for i in bdb.repair_plan([faulty]).items if i.reason.startswith("restored:")]
    applied = bdb.repair_apply([faulty])
    status = {b.id: b.status for b in bdb.beliefs(subject="t:42", include_all=True)}
    if order == "both faulty":
        assert restored == [email] and status[email] == "current"
    else:
        assert restored == [] and status[email] == "retracted"
    assert [i.node for i in applied.plan.items if i.reason.startswith("restored:")] == restored


def test_memory_superseded_once_the_fault_is_off_still_holds_and_is_kept(bdb: beliefdb.BeliefDB) -> None:
    """The faulty memory held a genuine one down; without it, a memory resting on the genuine one holds
    and supersedes one that was current. That one still holds (rule 2): the plan keeps it, superseded,
    not quarantined (rule 10), and only what read it is re-run."""
    with bdb.record_run(task="preferences") as run:
        u = run.step("user_input", {"text": "window seat"})
        w = run.step("memory_write", {}, inputs=[("initiates", u)])
        seat = run.memory(w, "user:7", "seat", "window")
    with bdb.record_run(task="read a forum") as run2:
        web = run2.step("observation", {"page": "forum"})
        w2 = run2.step("memory_write", {}, inputs=[("cites", web)])
        silver = run2.memory(w2, "user:7", "tier", "Silver")
        w3 = run2.step("memory_write", {}, inputs=[("cites", web)])
        bad = run2.memory(w3, "user:7", "tier", "Gold", supersedes=silver)
    with bdb.record_run(task="tidy preferences") as run3:
        r = run3.step("memory_read", {"key": "tier"}, inputs=[("reads", silver)])
        w4 = run3.step("memory_write", {}, inputs=[("cites", r)])
        aisle = run3.memory(w4, "user:7", "seat", "aisle", supersedes=seat)
    with bdb.record_run(task="check in") as run4:
        r2 = run4.step("memory_read", {"key": "seat"}, inputs=[("reads", seat)])
        a = run4.step("answer", {"seat": "window"}, inputs=[("cites", r2)])
    assert sorted(b.value for b in bdb.beliefs(subject="user:7")) == ["Gold", "window"]
    plan = bdb.repair_plan([bad])
    got = {i.node: (i.action, i.reason) for i in plan.items}
    assert got[seat] == ("preserve", "still holds, superseded by a memory that holds without the faulty ones")
    assert got[silver][0] == got[aisle][0] == "preserve"
    # aisle was never superseded: it did not hold while what it read was held down
    assert got[aisle][1] == "holds again: what it rests on was held down by the faulty memories"
    assert [i.node for i in plan.replay] == [r2, a]
    # the same words when everything reachable from the faulty memories counts as affected: seat is not
    # reachable from them (it was "reachable, but did not hold before"), nor is the silver memory
    ablation = {i.node: (i.action, i.reason) for i in bdb.repair_plan([bad], independent_evidence=False).items}
    assert ablation[seat] == got[seat] and ablation[aisle] == got[aisle]
    assert got[silver] == ("preserve", "current again: what superseded it rested on the faulty memories")
    applied = bdb.repair_apply([bad])
    assert actions(applied.plan) == actions(plan)
    assert sorted(b.value for b in bdb.beliefs(subject="user:7")) == ["Silver", "aisle"]
    assert {b.id: b.status for b in bdb.beliefs(subject="user:7", include_all=True)}[seat] == "superseded"


def test_recording_errors_write_nothing(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput, match="unknown step kind 'think'"):
        bdb.record_run().step("think", {})
    with pytest.raises(errors.InvalidInput, match="unknown input edge 'likes'"):
        bdb.record_run().step("claim", {}, inputs=[("likes", UUID(int=1))])
    with pytest.raises(errors.InvalidInput, match="takes the verdict of its inputs"):
        bdb.record_run().step("tool_call", {}, supports=[UUID(int=1)])
    run = bdb.record_run(task="broken")
    run.step("user_input", {})
    run.step("claim", {}, inputs=[("cites", UUID(int=5))])
    with pytest.raises(errors.NotFound, match="unknown node"):
        run.flush()
    assert bdb.runs() == []
    # inputs cannot be added to an old step later
    with bdb.record_run() as ok:
        first = ok.step("user_input", {})
    late = bdb.record_run()
    other = late.step("user_input", {})
    late._edge(other, first, "cites")  # what a hand-written call would send
    with pytest.raises(errors.InvalidInput, match="recorded with it"):
        late.flush()


def test_plan_errors(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput, match="at least one faulty memory"):
        bdb.repair_plan([])
    with pytest.raises(errors.NotFound):
        bdb.repair_plan(["ffffffff-0000-0000-0000-000000000000"])


def test_replay_needs_an_executor_for_every_kind(bdb: beliefdb.BeliefDB) -> None:
    s = record_story(bdb)
    applied = bdb.repair_apply([s.m_bad])
    with pytest.raises(errors.InvalidInput, match="no callable for step kind"):
        bdb.repair_replay(applied.repair_id, {"claim": lambda st: StepOutput({})})
    assert all(st.status != "replayed" for st in bdb.steps(s.run2))


def test_replay_refuses_an_async_executor_before_running_anything(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    """Replay calls its executor on a thread (the async client's: a worker thread). An ``async def`` one,
    natural beside ``await db.repair_replay(...)``, gave back a coroutine: its step failed with "must
    return a StepOutput", the coroutine never awaited (a RuntimeWarning). Now it is refused before any
    step is replayed."""
    import asyncio

    s = record_story(bdb)
    applied = bdb.repair_apply([s.m_bad])
    replay = {kind: (lambda st: StepOutput({})) for kind in ("memory_read", "claim", "plan", "tool_call",
                                                             "observation", "memory_write", "answer")}

    async def plan(step: Any) -> StepOutput:
        return StepOutput({"cabin": "economy"})

    async def story() -> None:
        async with await beliefdb.aconnect(db_url, max_size=2) as db:
            with pytest.raises(errors.InvalidInput, match=r"^the executor for plan is an async function"):
                await db.repair_replay(applied.repair_id, {**replay, "plan": plan})

    asyncio.run(story())
    assert all(st.status != "replayed" for st in bdb.steps(s.run2))
    assert bdb.repair_replay(applied.repair_id, replay).replayed


def test_dba_can_call_the_plan_from_sql(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    s = record_story(bdb)
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
    rows = postgresql.execute("select node, action from beliefdb.repair_plan(array[%s::text]) "
                              "where action <> 'preserve' order by action", (s.m_bad,)).fetchall()
    assert dict(rows) == {k: v for k, v in actions(bdb.repair_plan([s.m_bad])).items() if v != "preserve"}
