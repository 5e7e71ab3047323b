"""An outcome recorded over the network: ``beliefdb outcome`` and ``BeliefDB.record_outcome`` had no HTTP
route and no MCP tool, so an agent behind either door could not say what actually happened after its
decision or action (rule 17). ``POST /outcomes`` and the tool ``record_outcome`` record one, answering
what ``outcome --json`` prints, with the errors of the other writes: a read-only token refused, an
unknown id 404, a refused state (an action held or cancelled, a rejected decision) 400 in the library's
words."""

from __future__ import annotations

import json
from typing import Any

import anyio
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused, running_server
from test_mcp import http_client as mcp_http_client

import beliefdb

POLICY = "Refunds above 500 euros need a manager.\n"


def _action(bdb: beliefdb.BeliefDB) -> tuple[str, str]:
    """A decision resting on a belief, and an action carrying it out: their ids."""
    belief = bdb.remember("Refunds above 500 euros need a manager", "refund", "approval", "manager",
                          "Refunds above 500 euros need a manager.", source="finance.md", text=POLICY).accepted[0].id
    decision = bdb.decide("Ask a manager for refund 77", because=[belief]).id
    return str(decision), str(bdb.act(decision, "email the manager").id)


def test_post_outcomes_records_what_happened_as_the_cli_does(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                             db_url: str, cli: Cli) -> None:
    decision, action = _action(bdb)
    headers = bearer(db_url)
    done = http_client.post("/outcomes", json={"node": action[:8], "outcome": "succeeded", "note": "sent"},
                            headers=headers)
    assert done.status_code == 200, done.text
    assert done.json()["node"] == action and done.json()["kind"] == "action"
    assert done.json()["outcome"] == "succeeded" and done.json()["status"] == "done"
    assert {str(a.id): a.status for a in bdb.actions()} == {action: "done"}
    # the same answer as the command line's
    said = cli.json("outcome", decision, "disputed")
    answered = http_client.post("/outcomes", json={"node": decision, "outcome": "disputed"}, headers=headers).json()
    assert set(answered) == set(said) and answered["kind"] == said["kind"] == "decision"


def test_post_outcomes_refuses_as_the_other_writes_do(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                      db_url: str) -> None:
    decision, action = _action(bdb)
    headers = bearer(db_url)
    assert "read-only" in refused(http_client.post("/outcomes", json={"node": action, "outcome": "failed"},
                                                   headers=bearer(db_url, "rita", read_only=True)),
                                  403, "read_only_token")
    refused(http_client.post("/outcomes", json={"node": "0123abcd", "outcome": "failed"}, headers=headers),
            404, "not_found")
    said = refused(http_client.post("/outcomes", json={"node": action, "outcome": "forgotten"}, headers=headers),
                   400, "invalid_input")
    assert said.startswith("outcome: Input should be 'succeeded', 'failed', 'rolled_back' or 'disputed'"), said
    assert "node: missing" in refused(http_client.post("/outcomes", json={"outcome": "failed"}, headers=headers),
                                      400, "invalid_input")
    # a rejected decision was not to be carried out: its action's success is refused, nothing recorded
    bdb.resolve_review(_flag(bdb, decision), "rejected")
    said = refused(http_client.post("/outcomes", json={"node": action, "outcome": "succeeded"}, headers=headers),
                   400, "invalid_input")
    assert "was rejected" in said, said
    assert {str(a.id): a.status for a in bdb.actions()} == {action: "cancelled"}


def _flag(bdb: beliefdb.BeliefDB, decision: str) -> str:
    """Retract the decision's belief, flagging it: its review item's id."""
    belief = bdb.decisions(of=decision)[0].reasons[0]["beliefs"][0]["id"]
    bdb.retract(belief=str(belief), reason="wrong")
    return str(next(i.id for i in bdb.review_items() if str(i.node) == decision))


def test_the_record_outcome_tool_records_and_refuses_as_post_outcomes(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    from beliefdb.interfaces.mcp import build

    _decision, action = _action(bdb)
    answers: list[tuple[bool, Any]] = []

    async def run() -> None:
        async with Client(build(local=bdb)) as client:
            tool = next(t for t in (await client.list_tools()).tools if t.name == "record_outcome")
            assert len(tool.description or "") > 120
            for arguments in ({"node": action, "outcome": "rolled_back", "note": "the manager was away"},
                              {"node": "0123abcd", "outcome": "failed"},
                              {"node": action, "outcome": "forgotten"}):
                result = await client.call_tool("record_outcome", arguments)
                assert len(result.content) == 1 and result.content[0].type == "text", result
                answers.append((bool(result.is_error), json.loads(result.content[0].text)))

    anyio.run(run)
    (ok, done), (unknown, missing), (bad, wrong) = answers
    assert not ok and done["status"] == "rolled_back" and done["node"] == action
    assert unknown and missing["error"] == "not_found"
    assert bad and wrong["error"] == "invalid_input" and wrong["message"].startswith("outcome: "), wrong


def test_a_read_only_token_records_no_outcome_over_mcp(bdb: beliefdb.BeliefDB, db_url: str) -> None:
    _decision, action = _action(bdb)
    token = bearer(db_url, "rita", read_only=True)["Authorization"].removeprefix("Bearer ")
    found: list[Any] = []

    async def run(base: str) -> None:
        async with mcp_http_client(base, token) as client:
            result = await client.call_tool("record_outcome", {"node": action, "outcome": "failed"})
            found.append((result.is_error, json.loads(result.content[0].text)))  # type: ignore[union-attr]

    with running_server(db_url) as base:
        anyio.run(run, base)
    assert found[0][0] and found[0][1]["error"] == "read_only_token", found
    assert {str(a.id): a.status for a in bdb.actions()} == {action: "scheduled"}
