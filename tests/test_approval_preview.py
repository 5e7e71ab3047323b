"""A correction of another principal's belief is only proposed to its owner; its preview says, under
``if_approved``, what the owner's approval would change (rule 7: a preview that is exactly what the
apply does). That is the correction's own dry run, as the owner makes it: the belief stops being
current and still holds (superseded by the replacement), what it superseded stays superseded, and
what rests on it stops holding. (It was the dry run of taking the belief away: "would stop holding:
the belief", "would be current again: the belief it had superseded".) Checked row by row against
what the owner's approval then changes, in the library and over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from fastapi.testclient import TestClient
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import api
from beliefdb.interfaces.http import create_app

THREE, FIVE, SIX = "Delivery time: 3 days", "Delivery time: 5 days", "Delivery time: 6 days"


def state(db_url: str) -> dict[UUID, tuple[str, bool, bool, str | None]]:
    """Every node: its kind, whether it holds, whether it is current, and a decision's or an action's status."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        rows = conn.execute("""
            select n.id, n.kind::text, n.holds, n.current, coalesce(d.status::text, a.status::text)
              from beliefdb.node n
              left join beliefdb.decision d on d.workspace_id = n.workspace_id and d.id = n.id
              left join beliefdb.action a on a.workspace_id = n.workspace_id and a.id = n.id""").fetchall()
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def made(before: dict[UUID, tuple[str, bool, bool, str | None]],
         after: dict[UUID, tuple[str, bool, bool, str | None]]) -> set[tuple[UUID, str]]:
    """What changed between two states, as (node, effect) rows in impact's words: stops_holding,
    stops_current (no longer current, still holding), becomes_current, flag and hold."""
    rows = set()
    for node, (kind, held, was_current, status) in before.items():
        _, holds, current, now = after[node]
        if held and not holds:
            rows.add((node, "stops_holding"))
        elif was_current and not current:
            rows.add((node, "stops_current"))
        if not was_current and current:
            rows.add((node, "becomes_current"))
        if kind == "decision" and status == "active" and now == "needs_review":
            rows.add((node, "flag"))
        if kind == "action" and status == "scheduled" and now == "held":
            rows.add((node, "hold"))
    return rows


def world(alice: beliefdb.BeliefDB) -> tuple[UUID, UUID, UUID, UUID]:
    """Alice's 5 days (superseding her 3 days), a decision citing it and an action carrying it out."""
    alice.ingest_text(THREE + "\n", source="a.md")
    alice.ingest_text(FIVE + "\n", source="b.md")
    by_value = {b.value: b.id for b in alice.beliefs(include_all=True)}
    decision = alice.decide("Promise 5-day delivery", because=[by_value["5 days"]]).id
    action = alice.act(decision, "Email the customer the 5-day promise").id
    return by_value["3 days"], by_value["5 days"], decision, action


def test_a_proposals_preview_is_the_owners_approval_row_by_row(db_url: str, alice: beliefdb.BeliefDB,
                                                               bob: beliefdb.BeliefDB) -> None:
    three, five, decision, action = world(alice)
    mine = alice.preview_correction(five, SIX, value="6 days")
    seen = bob.preview_correction(five, SIX, value="6 days")
    assert seen.proposed and not mine.proposed and seen.revision == mine.revision
    rows = {(r.node, r.effect) for r in seen.if_approved}
    assert (five, "stops_current") in rows and (five, "stops_holding") not in rows
    assert (three, "becomes_current") not in rows
    # what the owner's own preview of the same correction says
    assert mine.changes is not None
    assert {n for n, e in rows if e == "stops_current"} == set(mine.changes.stopped_current) - set(
        mine.changes.stopped_holding)
    assert {n for n, e in rows if e == "flag"} == set(mine.would_flag) == {decision}
    assert {n for n, e in rows if e == "hold"} == set(mine.would_hold) == {action}

    proposal = bob.apply_correction(five, SIX, value="6 days", reviewer="bo", expect_revision=seen.revision)
    assert proposal.proposed and proposal.review_item is not None
    before = state(db_url)
    approved = alice.resolve_review(proposal.review_item, "approved")
    after = state(db_url)
    assert rows == made(before, after)
    assert rows == {(five, "stops_current"), (decision, "stops_holding"), (decision, "flag"),
                    (action, "stops_holding"), (action, "hold")}
    assert approved.correction is not None
    assert {n for n, e in rows if e == "stops_holding"} == {UUID(x) for x in
                                                             approved.correction["changes"]["stopped_holding"]}
    assert [b.status for b in alice.beliefs(include_all=True) if b.id in (three, five)] == ["superseded"] * 2


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url)) as c:
        yield c


def test_the_same_over_http(db_url: str, client: TestClient, alice: beliefdb.BeliefDB) -> None:
    three, five, decision, action = world(alice)

    def as_(who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {api.create_token('default', who, url=db_url).token}"}

    body: dict[str, Any] = {"belief": str(five), "statement": SIX, "value": "6 days"}
    seen = client.post("/corrections/preview", json=body, headers=as_("bob")).json()
    owners = client.post("/corrections/preview", json=body, headers=as_("alice")).json()
    assert seen["proposed"] and not owners["proposed"]
    assert owners["changes"]["stopped_holding"] == sorted([str(decision), str(action)])
    rows = {(UUID(r["node"]), r["effect"]) for r in seen["if_approved"]}
    proposal = client.post("/corrections", json=body | {"expected_revision": seen["revision"]},
                           headers=as_("bob")).json()
    before = state(db_url)
    resolved = client.post(f"/review-items/{proposal['review_item']}", json={"verdict": "approved"},
                           headers=as_("alice"))
    assert resolved.status_code == 200, resolved.text
    assert rows == made(before, state(db_url))
    assert (five, "stops_current") in rows and (three, "becomes_current") not in rows


def test_an_agents_own_login_cannot_run_the_owners_approval(db_url: str, alice: beliefdb.BeliefDB) -> None:
    """A login of its own (not the schema owner's session, which names its principal) cannot act as the
    owner, not even in a rolled-back run: its preview still says the apply is a proposal, with the
    revision to bring back, and no if_approved (null) rather than an answer it could not compute."""
    _, five, _, _ = world(alice)
    # (roles are the cluster's: a name of its own, dropped after, as other test files run beside it)
    agent = f"agent_{uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as su:
        su.execute(sql.SQL("create role {} login password 'agent-b-password'").format(sql.Identifier(agent)))
        su.execute(sql.SQL("grant beliefdb_app to {}").format(sql.Identifier(agent)))
    try:
        url = make_conninfo(db_url, user=agent, password="agent-b-password")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.principal', 'alice', false)")
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (alice.database.workspace_id,))
            conn.execute("set role beliefdb_app")
            row = conn.execute("select proposed, revision, if_approved is null, current_setting('beliefdb.principal') "
                               "from beliefdb.correction_preview(%s::text, %s)", (five, SIX)).fetchone()
    finally:
        with psycopg.connect(db_url, autocommit=True) as su:
            su.execute(sql.SQL("drop owned by {0}; drop role {0}").format(sql.Identifier(agent)))
    assert row == (True, 1, True, "alice")
