"""Rule 9: the memory weight (confidence_policy trace/memory) is for a belief written by a step of a
recorded run with no quoted source; an ingested claim marked `agent_asserted` whose quotes no longer
support it is weighed as any quoted belief with none: 0. Live, propagated and as of now agree."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest
from psycopg.types.json import Jsonb

import beliefdb


def _confidences(bdb: beliefdb.BeliefDB, belief: UUID) -> tuple[str, float, list[str], float, float]:
    """Status, stored confidence, why's factors, its result, and the result as of now."""
    with bdb.database.transaction() as c:
        status, stored = c.execute("select status::text, confidence from beliefdb.belief where id = %s",
                                   (belief,)).fetchone() or (None, None)
        live = c.execute("select factor, weight from beliefdb.confidence_factors("
                         "beliefdb.current_workspace_id(), %s)", (belief,)).fetchall()
        at = c.execute("select factor, weight from beliefdb.confidence_factors_at("
                       "beliefdb.current_workspace_id(), %s, now())", (belief,)).fetchall()
    assert live[-1][0] == at[-1][0] == "confidence"
    return status, stored, [f for f, _ in live], live[-1][1], at[-1][1]


def test_an_ingested_agent_asserted_claim_with_no_quote_in_force_has_no_memory_weight(
        bdb: beliefdb.BeliefDB) -> None:
    text = "Return window: 7 days\n"
    claim = {"statement": "Return window: 7 days", "subject": "return_policy", "attribute": "window",
             "value": "7 days", "quote": "Return window: 7 days", "start": 0, "end": 21,
             "confidence_kind": "agent_asserted"}
    with bdb.database.transaction() as c:
        c.execute("select beliefdb.ingest_version('agent-notes', %s, 'agent', 'user', null, null, null, '[]', %s)",
                  (text, Jsonb([claim])))
    (belief,) = bdb.beliefs()
    status, stored, factors, live, at = _confidences(bdb, belief.id)
    assert (status, stored, live, at) == ("current", pytest.approx(0.65), pytest.approx(0.65), pytest.approx(0.65))
    bdb.retract(source="agent-notes", reason="wrong")
    status, stored, factors, live, at = _confidences(bdb, belief.id)
    assert status == "unsupported"
    assert (stored, live, at) == (0.0, 0.0, 0.0)
    assert "agent_memory" not in factors, factors
    bdb.recompute()
    assert _confidences(bdb, belief.id)[1] == 0.0


def test_a_memory_a_step_wrote_keeps_the_memory_weight(bdb: beliefdb.BeliefDB) -> None:
    with bdb.record_run(task="remember the traveller", agent="travel") as run:
        said = run.step("user_input", {"text": "I fly from SFO"})
        wrote = run.step("memory_write", {"key": "home_airport"}, inputs=[("initiates", said)])
        memory = run.memory(wrote, "user:42", "home_airport", "SFO", kind="preference")
    _status, stored, factors, live, at = _confidences(bdb, memory)
    assert (stored, live, at) == (pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))
    assert "agent_memory" in factors
    bdb.recompute()
    assert _confidences(bdb, memory)[1] == pytest.approx(0.5)



def test_a_memory_whose_step_no_longer_holds_loses_the_memory_weight(bdb: beliefdb.BeliefDB) -> None:
    """Its step's input retracted, the step no longer holds, nor the memory: its weight was the memory's 0.5
    live and stored, and 0 as of now (a step that holds then is what the memory weight reads back in time).
    Live, stored and as of now agree: 0; restored, 0.5 again."""
    with bdb.record_run(task="remember the traveller", agent="travel") as run:
        said = run.step("user_input", {"text": "I fly from SFO"})
        wrote = run.step("memory_write", {"key": "home_airport"}, inputs=[("initiates", said)])
        memory = run.memory(wrote, "user:42", "home_airport", "SFO", kind="preference")
    bdb.retract(fragment=said, reason="not what they said")
    status, stored, factors, live, at = _confidences(bdb, memory)
    assert status == "unsupported"
    assert (stored, live, at) == (0.0, 0.0, 0.0)
    assert "agent_memory" not in factors, factors
    bdb.recompute()
    assert _confidences(bdb, memory)[1] == 0.0
    bdb.retract(fragment=said, undo=True)
    status, stored, factors, live, at = _confidences(bdb, memory)
    assert status == "current" and "agent_memory" in factors
    assert (stored, live, at) == (pytest.approx(0.5), pytest.approx(0.5), pytest.approx(0.5))


def test_a_memory_held_by_another_reason_when_its_step_stops_holding_is_weighed_again(
        bdb: beliefdb.BeliefDB) -> None:
    """A memory a step wrote that a quoted belief also supports (a supports edge of the trace): its step's
    input retracted, it still holds, by the belief, and is weighed by its source, not the memory weight,
    stored as live and as of now say (it kept 0.5 stored until a recompute)."""
    quoted = bdb.remember("Tier: Gold", "t:42", "tier", "Gold", quote="Tier: Gold", source="crm",
                          text="Tier: Gold\n", authority="internal").accepted[0].id
    said, wrote, memory = uuid4(), uuid4(), uuid4()
    with bdb.database.transaction() as c:
        c.execute("select beliefdb.record_trace(%s, %s, %s, %s)", (
            Jsonb({"id": str(uuid4()), "task": "remember the tier"}),
            Jsonb([{"id": str(said), "seq": 1, "kind": "user_input", "payload": {}},
                   {"id": str(wrote), "seq": 2, "kind": "memory_write", "payload": {}}]),
            Jsonb([{"id": str(memory), "step": str(wrote), "subject": "user:42", "attribute": "tier",
                    "value": "Gold"}]),
            Jsonb([{"from_node": str(said), "to_node": str(wrote), "kind": "initiates"},
                   {"from_node": str(quoted), "to_node": str(memory), "kind": "supports"}])))
    assert _confidences(bdb, memory)[1] == pytest.approx(0.5)
    bdb.retract(fragment=said, reason="not what they said")
    status, stored, factors, live, at = _confidences(bdb, memory)
    assert status == "current" and "agent_memory" not in factors, factors
    assert stored == pytest.approx(live) and live == pytest.approx(at)
