"""A recorded trace batch (``beliefdb.record_trace``) as a hand-written client sends it: seq is execution
order, so a step whose input is a step of its run at a later (or the same) seq is refused, naming both
(a repair would replay it before its input, with nothing to rest on); a seq already taken in the run is
refused in words; and the same batch sent again (a retry after a lost reply) changes nothing and says so
(no step nor memory added), where a batch reusing recorded ids with other content is refused in one line."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb import errors


def _ids(*names: str) -> dict[str, str]:
    return {name: str(uuid.uuid4()) for name in names}


def _record(bdb: beliefdb.BeliefDB, run: dict[str, Any], steps: list[dict[str, Any]],
            memories: list[dict[str, Any]], edges: list[dict[str, Any]]) -> tuple[Any, ...]:
    with bdb.database.transaction() as c:
        row = c.execute("select (r).run, (r).steps, (r).memories from beliefdb.record_trace(%s, %s, %s, %s) r",
                        [json.dumps(x) for x in (run, steps, memories, edges)]).fetchone()
    assert row is not None
    return tuple(row)


def _step(i: dict[str, str], name: str, seq: int, kind: str, **payload: Any) -> dict[str, Any]:
    return {"id": i[name], "seq": seq, "kind": kind, "payload": payload}


def _edge(i: dict[str, str], a: str, b: str, kind: str) -> dict[str, str]:
    return {"from_node": i[a], "to_node": i[b], "kind": kind}


def _story(i: dict[str, str], read_seq: int) -> tuple[Any, ...]:
    """The trial's trace: the plan at seq 3 cites the memory_read, at ``read_seq``."""
    steps = [_step(i, "obs", 0, "observation"), _step(i, "w", 1, "memory_write"),
             _step(i, "read", read_seq, "memory_read"), _step(i, "plan", 3, "plan"), _step(i, "ans", 6, "answer")]
    memories = [{"id": i["mem"], "step": i["w"], "subject": "g:7", "attribute": "tier", "value": "Gold"}]
    edges = [_edge(i, "obs", "w", "cites"), _edge(i, "mem", "read", "reads"), _edge(i, "read", "plan", "cites"),
             _edge(i, "plan", "ans", "cites")]
    return {"id": i["run"], "task": "tiers"}, steps, memories, edges


def test_a_step_citing_a_later_step_of_its_run_is_refused_naming_both(bdb: beliefdb.BeliefDB) -> None:
    i = _ids("run", "obs", "w", "read", "plan", "ans", "mem")
    with pytest.raises(errors.InvalidInput) as refused:
        _record(bdb, *_story(i, read_seq=5))
    message = str(refused.value)
    assert i["plan"] in message and i["read"] in message and "seq 3" in message and "seq 5" in message
    assert "\n" not in message
    assert bdb.runs() == []  # nothing of the batch was written
    # in execution order it is recorded
    assert _record(bdb, *_story(i, read_seq=2)) == (uuid.UUID(i["run"]), 5, 1)


def test_an_input_recorded_in_an_earlier_batch_at_a_later_seq_is_refused(bdb: beliefdb.BeliefDB) -> None:
    i = _ids("run", "late", "early", "mem", "reader")
    _record(bdb, {"id": i["run"]}, [_step(i, "late", 4, "memory_write")],
            [{"id": i["mem"], "step": i["late"], "subject": "g:7", "attribute": "tier", "value": "Gold"}], [])
    with pytest.raises(errors.InvalidInput, match=f"{i['early']}.*{i['late']}"):
        _record(bdb, {"id": i["run"]}, [_step(i, "early", 2, "claim")], [], [_edge(i, "late", "early", "cites")])
    # a memory is as late as the step of the run that wrote it
    with pytest.raises(errors.InvalidInput, match=f"{i['reader']}.*{i['mem']}.*{i['late']}"):
        _record(bdb, {"id": i["run"]}, [_step(i, "reader", 3, "memory_read")], [], [_edge(i, "mem", "reader", "reads")])
    assert [s.seq for s in bdb.steps(i["run"])] == [4]


def test_a_seq_taken_in_the_run_is_refused_in_words(bdb: beliefdb.BeliefDB) -> None:
    i = _ids("run", "a", "b", "c")
    _record(bdb, {"id": i["run"]}, [_step(i, "a", 0, "user_input")], [], [])
    with pytest.raises(errors.InvalidInput, match=rf"seq 0 .*taken by step {i['a']}"):
        _record(bdb, {"id": i["run"]}, [_step(i, "b", 0, "claim")], [], [])
    with pytest.raises(errors.InvalidInput, match=r"seq 1 .*twice"):
        _record(bdb, {"id": i["run"]}, [_step(i, "b", 1, "claim"), _step(i, "c", 1, "claim")], [], [])


def test_the_same_batch_again_changes_nothing_and_says_so(bdb: beliefdb.BeliefDB) -> None:
    i = _ids("run", "obs", "w", "read", "plan", "ans", "mem")
    batch = _story(i, read_seq=2)
    assert _record(bdb, *batch) == (uuid.UUID(i["run"]), 5, 1)
    before = bdb.run_trace(i["run"])
    assert _record(bdb, *batch) == (uuid.UUID(i["run"]), 0, 0)  # a retry after a lost reply
    after = bdb.run_trace(i["run"])
    assert (after.steps, after.inputs) == (before.steps, before.inputs)
    assert len(bdb.beliefs(subject="g:7")) == 1


def test_recorded_ids_with_other_content_are_refused_in_one_line(bdb: beliefdb.BeliefDB) -> None:
    i = _ids("run", "obs", "w", "read", "plan", "ans", "mem", "new")
    run, steps, memories, edges = _story(i, read_seq=2)
    _record(bdb, run, steps, memories, edges)
    changed = [dict(s, payload={"page": 2}) if s["id"] == i["obs"] else s for s in steps]
    other_value = [dict(m, value="Silver") for m in memories]
    fewer_inputs = [e for e in edges if e["to_node"] != i["ans"]]
    grown = [*steps, _step(i, "new", 7, "claim")]
    for attempt in ((changed, memories, edges), (steps, other_value, edges), (steps, memories, fewer_inputs),
                    (grown, memories, edges)):
        with pytest.raises(errors.InvalidInput) as refused:
            _record(bdb, run, *attempt)
        assert "recorded already" in str(refused.value) and "duplicate key" not in str(refused.value)
        assert "\n" not in str(refused.value)
    assert [s.seq for s in bdb.steps(i["run"])] == [0, 1, 2, 3, 6]


def test_a_new_memory_starts_at_revision_one(bdb: beliefdb.BeliefDB) -> None:
    """A memory a step writes is new as an ingested belief is: revision 1, whether its step holds or not (it
    was stored unsupported and made current by the propagation of its own batch: revision 2, though nothing
    had changed it, and its correction's preview said 2)."""
    with bdb.record_run(task="remember the tier") as run:
        seen = run.step("observation", {"page": "traveller 42 is Gold"})
        wrote = run.step("memory_write", {"key": "loyalty_tier"}, inputs=[("cites", seen)])
        tier = run.memory(wrote, "traveller:42", "loyalty_tier", "Gold")
    found = bdb.why(tier).belief
    assert (found.status, found.revision) == ("current", 1)
    preview = bdb.preview_correction(tier, "traveller 42 is Silver", value="Silver")
    assert preview.revision == 1
    assert bdb.audit_verify().ok


def test_steps_recorded_while_a_flush_runs_are_kept_for_the_next(
        bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(trial55) An async agent records steps while ``await db.call(run.flush)`` runs on a worker thread: the
    flush emptied the buffers after its query, so the steps recorded meanwhile were lost without a word, and
    a second flush at the same time sent the same batch again (refused: "recorded already ... in another
    batch"). Here the first flush waits for the workspace's write lock another session holds while 50 steps
    are recorded and a second flush starts: every step is stored once, in its order."""
    run = bdb.record_run(task="overlap")
    for i in range(300):
        run.step("observation", {"i": i})
    flushes: list[threading.Thread] = []
    failed: list[BaseException] = []

    def flush() -> None:
        try:
            run.flush()
        except BaseException as e:  # (the thread's error, asserted below)
            failed.append(e)

    with beliefdb.connect(db_url) as other, other.database.transaction() as holder:
        holder.execute("select beliefdb.lock_workspace()")
        flushes.append(threading.Thread(target=flush))
        flushes[0].start()
        for _ in range(500):  # the flush waits for the lock
            if postgresql.execute("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
                                  " and datname = current_database()").fetchone() == (1,):
                break
            time.sleep(0.01)
        else:
            raise AssertionError(f"the flush never waited for the workspace's lock: {failed}")
        later = [run.step("observation", {"i": i}) for i in range(300, 350)]
        flushes.append(threading.Thread(target=flush))
        flushes[1].start()
    for thread in flushes:
        thread.join(30)
    assert failed == []
    assert run.pending == 0
    stored = bdb.steps(run.id)
    assert [s.payload["i"] for s in stored] == list(range(350))
    assert [s.seq for s in stored] == list(range(350))
    assert stored[-1].id == later[-1]
