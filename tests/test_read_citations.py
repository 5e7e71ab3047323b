"""Rule 19 in a recorded run: a search hit is not evidence. The reads of a run (``ask`` and ``why`` with
``run``, over the library, HTTP and MCP) record which beliefs were shown to the agent; a decision of
that run may cite only those, and only while they are current. An invented id, one read in another run,
or one superseded since it was read is refused and named; with nothing left the decision needs review
("No source-backed answer yet") and no action may be scheduled on it."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient

import beliefdb
from beliefdb import api, errors
from beliefdb.render.pictures import to_text

V1 = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
V2 = V1.replace("7 days", "15 days")
QUESTION = "how many days for returns?"


def _ingest(bdb: beliefdb.BeliefDB, text: str = V1) -> None:
    bdb.ingest_text(text, source="return-policy.md", authority="official")


def _run(bdb: beliefdb.BeliefDB, task: str = "refund 1042") -> str:
    return str(bdb.record_step("user_input", {"text": "Can I return it on day 10?"}, task=task).run)


def _seen(bdb: beliefdb.BeliefDB, run: str) -> str:
    answer = bdb.ask(QUESTION, k=1, run=run)
    assert answer.status == "ok"
    return str(answer.beliefs[0].belief.id)


def _no_source_backed_answer(bdb: beliefdb.BeliefDB, decision: uuid.UUID) -> None:
    assert [d.status for d in bdb.decisions() if d.id == decision] == ["needs_review"]
    assert any(i.node == decision and i.reason.startswith("No source-backed answer yet") for i in bdb.review_items())
    with pytest.raises(errors.InvalidInput, match="no source-backed reason"):
        bdb.act(decision, "Email a refusal")


def test_a_decision_cites_what_its_run_read(bdb: beliefdb.BeliefDB) -> None:
    _ingest(bdb)
    run = _run(bdb)
    window = _seen(bdb, run)
    made = bdb.decide_in_run(run[:8], "Refuse the return of 1042", because=[window[:8]])
    assert (made.status, made.refused, str(made.run)) == ("active", [], run)
    assert bdb.act(made.id, "Email a refusal").status == "scheduled"
    # the read is a step of the run: a memory_read step reading the belief
    trace = bdb.run_trace(run)
    assert [s.kind for s in trace.steps] == ["user_input", "memory_read"]
    assert [(i.edge, str(i.node)) for i in trace.inputs] == [("reads", window)]


def test_an_invented_id_is_refused_and_named(bdb: beliefdb.BeliefDB) -> None:
    _ingest(bdb)
    run = _run(bdb)
    _seen(bdb, run)
    invented = str(uuid.uuid4())
    never_shown = str(next(b.id for b in bdb.beliefs() if b.attribute == "fee"))  # in memory, never read
    made = bdb.decide_in_run(run, "Refuse the return of 1042", because=[invented, never_shown])
    assert [(r.belief, r.reason.split(":")[0]) for r in made.refused] == [
        (invented, "not read in this run"), (never_shown, "not read in this run")]
    _no_source_backed_answer(bdb, made.id)


def test_an_id_read_in_another_run_is_refused(bdb: beliefdb.BeliefDB) -> None:
    _ingest(bdb)
    first, second = _run(bdb, "first"), _run(bdb, "second")
    window = _seen(bdb, first)
    made = bdb.decide_in_run(second, "Refuse the return of 1042", because=[window])
    assert [r.belief for r in made.refused] == [window] and "not read in this run" in made.refused[0].reason
    _no_source_backed_answer(bdb, made.id)
    assert bdb.decide_in_run(first, "Refuse the return of 1042", because=[window]).status == "active"


def test_a_belief_superseded_after_it_was_read_is_refused(bdb: beliefdb.BeliefDB) -> None:
    _ingest(bdb)
    run = _run(bdb)
    seven = _seen(bdb, run)
    _ingest(bdb, V2)  # v2 supersedes the 7-day belief the run read
    made = bdb.decide_in_run(run, "Refuse the return of 1042", because=[seven])
    assert [(r.belief, r.reason) for r in made.refused] == [(seven, "no longer current (superseded) since this"
                                                                    " run read it")]
    _no_source_backed_answer(bdb, made.id)
    fifteen = _seen(bdb, run)  # reading again shows what is current now, which it may cite
    assert bdb.decide_in_run(run, "Accept the return of 1042", because=[fifteen]).status == "active"


def test_a_decision_whose_every_citation_was_refused_says_which_and_why(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """With every citation refused the decision has no source-backed answer, but the agent did cite: its
    review item and its why say which citations were refused and why (not "recorded without any
    reason"), and the audit chain keeps them, as it does those refused beside what survived."""
    _ingest(bdb)
    run = _run(bdb)
    seven = _seen(bdb, run)
    _ingest(bdb, V2)  # v2 supersedes the 7-day belief the run read
    invented = str(uuid.uuid4())
    made = bdb.decide_in_run(run, "Refuse the return of 1042", because=[seven, invented])
    _no_source_backed_answer(bdb, made.id)
    (item,) = [i for i in bdb.review_items() if i.node == made.id]
    assert item.reason == ("No source-backed answer yet: no reason it cited was kept (rule 19); refused: "
                           f"{seven[:8]} no longer current (superseded) since this run read it; {invented[:8]} not"
                           " read in this run: cite only what this run's reads (ask, why) returned")
    picture = bdb.why_graph(made.id)
    assert {n.id: n.note for n in picture.nodes}[made.id] == item.reason
    assert item.reason in to_text(picture)
    # a decision recorded without any reason still says so
    bare = bdb.decide("Refuse the return of 1043")
    assert [i.reason for i in bdb.review_items() if i.node == bare.id] == [
        "No source-backed answer yet: recorded without any reason"]
    # the audit chain keeps what was refused, beside what survived too
    fifteen = _seen(bdb, run)
    kept = bdb.decide_in_run(run, "Accept the return of 1042", because=[fifteen, seven])
    assert kept.status == "active"
    refused = [row[0] for row in postgresql.execute(
        "select payload -> 'refused' from beliefdb.audit_event where action = 'decide_in_run' order by seq").fetchall()]
    assert refused == [
        [{"belief": seven, "reason": "no longer current (superseded) since this run read it"},
         {"belief": invented, "reason": "not read in this run: cite only what this run's reads (ask, why) returned"}],
        [{"belief": seven, "reason": "no longer current (superseded) since this run read it"}]]


def test_what_survives_stays_and_a_joint_reason_missing_a_part_goes(bdb: beliefdb.BeliefDB) -> None:
    _ingest(bdb)
    run = _run(bdb)
    window = _seen(bdb, run)
    fee = str(next(b.id for b in bdb.beliefs() if b.attribute == "fee"))
    bdb.why(fee, run=run)  # why with a run is a read too
    invented = str(uuid.uuid4())
    kept = bdb.decide_in_run(run, "Refuse, and charge the fee", because=[window, invented], all_of=[[window, fee]])
    assert kept.status == "active" and [r.belief for r in kept.refused] == [invented]
    joint = bdb.decide_in_run(run, "Charge the fee", all_of=[[fee, invented]])
    assert joint.status == "needs_review" and [r.belief for r in joint.refused] == [invented]


def test_fixture_material_the_run_read_is_refused_and_what_survives_stays(bdb: beliefdb.BeliefDB) -> None:
    _ingest(bdb)
    bdb.ingest_text(V2, source="fixtures/return-policy.md", label="fixture")
    run = _run(bdb)
    shown = {a.belief.value: (str(a.belief.id), a.belief.provenance)
             for a in bdb.ask(QUESTION, k=5, include_fixtures=True, run=run).beliefs}
    (fixture, _), (production, _) = shown["15 days"], shown["7 days"]
    assert (shown["15 days"][1], shown["7 days"][1]) == ("fixture", "production")
    # rule 15: a decision is production's, so the fixture is refused and named with its reason, not the decision
    made = bdb.decide_in_run(run, "Refuse the return of 1042", because=[fixture, production])
    assert made.status == "active"
    assert [(r.belief, r.reason) for r in made.refused] == [
        (fixture, "fixture material, not production history: a decision may not rest on it")]
    assert _reasons(bdb, made.id) == [[production]]
    assert bdb.act(made.id, "Email a refusal").status == "scheduled"
    # a joint reason with a fixture part goes whole; with nothing left the decision needs review
    joint = bdb.decide_in_run(run, "Accept the return of 1042", all_of=[[production, fixture[:8]]])
    assert joint.status == "needs_review" and [r.belief for r in joint.refused] == [fixture]
    _no_source_backed_answer(bdb, joint.id)


def _reasons(bdb: beliefdb.BeliefDB, decision: uuid.UUID) -> list[list[str]]:
    (found,) = [d for d in bdb.decisions() if d.id == decision]
    return [[str(b["id"]) for b in reason["beliefs"]] for reason in found.reasons]


def test_an_unknown_run_is_not_found(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.NotFound):
        bdb.decide_in_run(str(uuid.uuid4()), "t", because=[])
    with pytest.raises(errors.NotFound):
        bdb.ask(QUESTION, run=str(uuid.uuid4()))




def test_over_http(http_client: TestClient, db_url: str) -> None:
    agent = {"Authorization": f"Bearer {api.create_token('default', 'agent', url=db_url).token}"}
    reader = {"Authorization": f"Bearer {api.create_token('default', 'rita', read_only=True, url=db_url).token}"}
    http_client.post("/sources", json={"source": "return-policy.md", "text": V1}, headers=agent)
    run = http_client.post("/steps", json={"kind": "user_input", "task": "refund"}, headers=agent).json()["run"]
    shown = http_client.post("/ask", json={"question": QUESTION, "k": 1, "run": run}, headers=agent).json()
    window = shown["beliefs"][0]["id"]
    invented = str(uuid.uuid4())
    made = http_client.post("/decisions", json={"title": "Refuse", "because": [window, invented], "run": run},
                       headers=agent).json()
    assert made["status"] == "active" and made["run"] == run
    assert [r["belief"] for r in made["refused"]] == [invented]
    none = http_client.post("/decisions", json={"title": "Refuse", "because": [invented], "run": run}, headers=agent)
    assert none.json()["status"] == "needs_review"
    act = http_client.post("/actions", json={"decision": none.json()["id"], "description": "Email"}, headers=agent)
    assert act.status_code == 400 and "no source-backed reason" in act.json()["message"]
    # recording a read is a change: a read-only token may ask, not on a run's behalf
    assert http_client.post("/ask", json={"question": QUESTION}, headers=reader).status_code == 200
    assert http_client.post("/ask", json={"question": QUESTION, "run": run}, headers=reader).status_code == 403


def test_a_read_nobody_was_shown_cannot_be_recorded(http_client: TestClient, db_url: str) -> None:
    """Only ask and why (with run) record what a run read: a client cannot write a memory_read step
    reading a belief it was never shown and then cite it (over HTTP, /steps answers 400); and the
    reviewer on record of a correction is the token's principal, not a name the client gives."""
    agent = {"Authorization": f"Bearer {api.create_token('default', 'agent', url=db_url).token}"}
    http_client.post("/sources", json={"source": "return-policy.md", "text": V1}, headers=agent)
    (window,) = [b["id"] for b in http_client.get("/beliefs", headers=agent).json() if b["attribute"] == "window"]
    run = http_client.post("/steps", json={"kind": "user_input", "task": "refund"}, headers=agent).json()["run"]
    forged = http_client.post("/steps", json={"run": run, "kind": "memory_read",
                                         "inputs": [{"edge": "reads", "node": window}]}, headers=agent)
    assert forged.status_code == 400 and "rule 19" in forged.json()["message"], forged.text
    made = http_client.post("/decisions", json={"title": "Refuse", "because": [window], "run": run},
                       headers=agent).json()
    assert made["status"] == "needs_review" and [r["belief"] for r in made["refused"]] == [window]

    seen = http_client.post("/corrections/preview", json={"belief": window}, headers=agent).json()
    fix = {"belief": window, "statement": "Returns: 30 days.", "value": "30 days",
           "expected_revision": seen["revision"]}
    claimed = http_client.post("/corrections", json={**fix, "reviewer": "rita"}, headers=agent)
    assert claimed.status_code == 400  # no such field: the reviewer is who the token speaks for
    fixed = http_client.post("/corrections", json=fix, headers=agent).json()
    assert fixed["already_applied"] is False
    with psycopg.connect(db_url) as conn:
        assert conn.execute("select reviewer from beliefdb.correction").fetchall() == [("agent",)]


def test_a_run_is_its_owners(alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB,
                             postgresql: psycopg.Connection[Any]) -> None:
    """Another principal of the workspace appended steps to a run that was not theirs, and decided in it
    citing what it had been shown: a run is its recorder's (rule 17), and only it records in it."""
    _ingest(alice)
    run = _run(alice)
    window = _seen(alice, run)
    steps = postgresql.execute("select count(*) from beliefdb.step").fetchone()
    for attempt in (lambda: bob.record_step("plan", {"text": "refuse"}, run=run),
                    lambda: bob.ask(QUESTION, k=1, run=run),
                    lambda: bob.decide_in_run(run, "Refuse the return of 1042", because=[window])):
        with pytest.raises(errors.NotOwner, match=f"run {run} is owned by alice: only its owner can"):
            attempt()
    assert postgresql.execute("select count(*) from beliefdb.step").fetchone() == steps
    assert bob.decisions() == []
    made = alice.decide_in_run(run, "Refuse the return of 1042", because=[window])
    assert (made.status, made.refused) == ("active", [])
    # bob's own run is his
    own = _run(bob)
    assert bob.decide_in_run(own, "Ask for a photo").status == "needs_review"
