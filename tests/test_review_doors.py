"""The review flow as an agent meets it at each door (HTTP, MCP, the command line): list, then approve or
reject. The same call is told the same thing everywhere, and what it is told is what happened."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb
from beliefdb import errors


def _tool(bdb: beliefdb.BeliefDB, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    """A tool call's (is_error, parsed answer), over the MCP server of ``bdb``."""
    from beliefdb.interfaces.mcp import build

    async def run() -> tuple[bool, Any]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool(tool, arguments)
            assert len(result.content) == 1 and result.content[0].type == "text", result
            return bool(result.is_error), json.loads(result.content[0].text)

    return anyio.run(run)


def test_an_item_resolved_already_is_said_so_at_every_door(http_client: TestClient, db_url: str, cli: Cli) -> None:
    """A resolve sent again (a client retrying after a timeout, a second reviewer) was told 404 "no open
    review item ID", as if the id were wrong, while an item that closed by itself was told it is
    "already closed". Both now say what happened: "review item ID is already approved (by alice)", with a
    code of its own (already_resolved, 409 over HTTP) so that a program tells it from bad input."""
    with beliefdb.connect(db_url, principal="alice") as alice:
        first = str(alice.decide("Refund order 1042").id)
        second = str(alice.decide("Refund order 1043").id)
        items = {str(i.node): str(i.id) for i in alice.review_items()}
        one, other = items[first], items[second]
        token = bearer(db_url, "alice")
        answer = http_client.post(f"/review-items/{one}", headers=token, json={"verdict": "approved"})
        assert answer.status_code == 200 and answer.json()["status"] == "approved", answer.text
        said = f"review item {one} is already approved (by alice)"
        again = http_client.post(f"/review-items/{one[:8]}", headers=token, json={"verdict": "rejected"})
        assert refused(again, 409, "already_resolved") == said
        assert _tool(alice, "review_resolve", {"item": one, "verdict": "approved"}) == (
            True, {"error": "already_resolved", "message": said})
        assert cli.error("review", "reject", one[:8], "--as", "alice", code="already_resolved")["message"] == said
        with pytest.raises(errors.AlreadyResolved, match="already approved"):
            alice.resolve_review(one, "approved")
        alice.resolve_review(other, "rejected", note="no receipt")
        assert refused(http_client.post(f"/review-items/{other}", headers=token, json={"verdict": "rejected"}),
                       409, "already_resolved") == f"review item {other} is already rejected (by alice)"
        # an id no item has is still unknown
        assert refused(http_client.post("/review-items/ffffffff", headers=token, json={"verdict": "approved"}),
                       404, "not_found") == "no open review item ffffffff"


def test_a_winner_for_anything_but_approving_a_conflict_is_refused(http_client: TestClient, db_url: str,
                                                                  cli: Cli) -> None:
    """``winner`` settles a conflict. Given with a flagged decision, or with the rejection of a conflict, it
    was dropped without a word: the item was resolved and the caller believed it had picked a winner. It is
    refused now, at every door in the same words, and nothing is resolved."""
    token = bearer(db_url, "alice")
    with beliefdb.connect(db_url, principal="alice") as alice:
        for value in ("5", "6"):  # a tie: same authority, same valid-time start
            alice.remember(f"Max payload is {value} kg.", "drone", "max_payload", f"{value} kg",
                           f"Max payload is {value} kg.", source=f"d{value}.md", text=f"Max payload is {value} kg.",
                           valid_from="2026-01-01T00:00:00Z")
        decision = str(alice.decide("Ship by drone").id)
        items = {i.kind: i for i in alice.review_items()}
        conflict, flagged = items["conflict"], items["decision_flagged"]
        assert str(flagged.node) == decision
        winner = str(conflict.node)
        said = f"review item {flagged.id} is a decision_flagged item: only approving a conflict takes a winner"
        assert refused(http_client.post(f"/review-items/{flagged.id}", headers=token,
                                        json={"verdict": "approved", "winner": winner}), 400, "invalid_input") == said
        assert cli.error("review", "approve", str(flagged.id), "--winner", winner, "--as", "alice",
                         code="invalid_input")["message"] == said
        rejecting = "rejecting a conflict takes no winner: approve it with the winner"
        assert _tool(alice, "review_resolve", {"item": str(conflict.id), "verdict": "rejected", "winner": winner}) == (
            True, {"error": "invalid_input", "message": rejecting})
        answer = http_client.post(f"/review-items/{conflict.id}", headers=token,
                                  json={"verdict": "rejected", "winner": winner})
        assert refused(answer, 400, "invalid_input") == rejecting
        # nothing was resolved
        assert {i.id for i in alice.review_items()} == {conflict.id, flagged.id}
        assert alice.resolve_review(conflict.id, "approved", winner=winner).status == "approved"


def test_a_proposal_refused_to_another_than_its_owner_names_no_cli_command(http_client: TestClient, db_url: str,
                                                                          cli: Cli) -> None:
    """Bob approving the correction he proposed of alice's belief is refused (only its owner decides), and
    the hint said where the item waits as a command line: "(beliefdb review list)", to an agent over HTTP
    or MCP that has no such command. It now says it in words every door shares."""
    with beliefdb.connect(db_url, principal="alice") as alice:
        belief = alice.ingest_text("Returns are accepted within 7 days of delivery.\n", source="policy.md",
                                   authority="official").accepted[0].id
    with beliefdb.connect(db_url, principal="bob") as bob:
        revision = bob.preview_correction(belief).revision
        item = bob.apply_correction(belief, "Returns are accepted within 30 days.", reviewer="bob",
                                    expect_revision=revision, value="30 days").review_item
        assert item is not None
        said = refused(http_client.post(f"/review-items/{item}", headers=bearer(db_url, "bob"),
                                        json={"verdict": "approved"}), 403, "not_owner")
        assert said.endswith("(hint: the review item waits for alice, the belief's owner, in the review queue)"), said
        assert "beliefdb " not in said
        assert _tool(bob, "review_resolve", {"item": str(item), "verdict": "approved"}) == (
            True, {"error": "not_owner", "message": said})
        assert cli.error("review", "approve", str(item), "--as", "bob", code="not_owner")["message"] == said
