"""The demo story (README), told by an agent that reaches beliefdb only over the network: once as an
HTTP client of ``beliefdb serve`` (started as a process), once as an MCP client of ``beliefdb mcp``
(the SDK's client over stdio). No Python API call and no CLI command takes part in the story; the
one bearer token the HTTP client needs is made beforehand with ``beliefdb token create``.

Ingest v3.2 of the return policy, decide and act on it; v3.3 flags the decision and holds the action,
and nothing else; a reviewer corrects a belief (preview, a stale apply refused, the apply, the same
apply again); a poisoned forum post is retracted and takes down exactly what rested on it; ask
answers 15 days with the note that it replaced 7, and 7 as of before v3.3."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Protocol

import anyio
import httpx
import pytest
from conftest import Cli
from mcp.client import Client
from product_story import FORUM, V32, V33
from serving import serve_process, stdio_server


class Agent(Protocol):
    """One memory operation by the name of its MCP tool, with that tool's arguments; its answer, or
    (``fails``) the error answer it must be."""

    async def __call__(self, op: str, **args: Any) -> Any: ...

    async def fails(self, op: str, **args: Any) -> Any: ...


async def tell_the_story(agent: Agent) -> None:
    # 1-2: the official policy v3.2; a decision and an action on the 7-day belief; a decision with two
    # independent reasons (the refund policy, and what the customer said)
    first = await agent("ingest_text", source="return-policy.md", text=V32, authority="official",
                        version_label="v3.2")
    seven = next(a["id"] for a in first["accepted"] if a["value"] == "7 days")
    refund = next(a["id"] for a in first["accepted"] if a["attribute"] == "method")
    fee = next(a["id"] for a in first["accepted"] if a["attribute"] == "fee")
    refuse = await agent("decide", title="Refuse the return of order 1042 (day 10)", because=[seven])
    email = await agent("act", decision=refuse["id"], description="Email the customer a refusal")
    said = await agent("remember", statement="Customer 1043 prefers store credit.", subject="customer_1043",
                       attribute="refund_preference", value="store credit", quote="I prefer store credit",
                       source="chat-1043", text="Customer 1043: I prefer store credit, please.")
    preference = said["accepted"][0]["id"]
    credit = await agent("decide", title="Refund order 1043 as store credit", because=[refund, preference])
    assert (refuse["status"], email["status"], credit["status"]) == ("active", "scheduled", "active")
    before_v33 = datetime.now(UTC).isoformat()
    time.sleep(0.01)

    # 3: v3.3 supersedes the 7-day belief: the refusal lost its only support (flagged, its action held);
    # nothing else is flagged
    second = await agent("ingest_text", source="return-policy.md", text=V33, version_label="v3.3")
    assert second["version"] == 2 and [s["old"] for s in second["superseded"]] == [seven]
    assert second["flagged"] == [refuse["id"]] and second["held"] == [email["id"]]
    fifteen = second["accepted"][0]["id"]
    windows = await agent("beliefs", subject="return_policy", attribute="window", include_all=True)
    assert [(b["id"], b["status"]) for b in windows] == [(seven, "superseded"), (fifteen, "current")]

    # 5: a reviewer corrects the refund method: preview, a stale apply refused, the apply, the same again
    seen = await agent("correct", belief=refund)
    assert seen["would_flag"] == [] and [s["decision"] for s in seen["still_supported"]] == [credit["id"]]
    fix = {"belief": refund, "statement": "Refunds go to the original payment method.",
           "value": "original payment method"}
    stale = await agent.fails("correct", **fix, expected_revision=seen["revision"] + 1)
    assert stale["error"] == "stale_correction_preview"
    fixed = await agent("correct", **fix, expected_revision=seen["revision"])
    assert fixed["already_applied"] is False and fixed["superseded"] == [refund] and fixed["flagged"] == []
    again = await agent("correct", **fix, expected_revision=seen["revision"])
    assert again["already_applied"] is True and again["replacement"] == fixed["replacement"]

    # 6: a poisoned forum post; a decision built on it; retracting the post flags exactly that decision,
    # and the fee stays believed: the official policy supports it on its own
    forum = await agent("ingest_text", source="forum-post.txt", text=FORUM, authority="unverified")
    shipping = next(a["id"] for a in forum["accepted"] if a["attribute"] == "shipping")
    waive = await agent("decide", title="Waive return shipping for order 1044", because=[shipping])
    would = await agent("retract", source="forum-post.txt", preview=True)
    assert would["flagged"] == [waive["id"]]
    done = await agent("retract", source="forum-post.txt", reason="poisoned forum post")
    assert done == would
    assert [b["id"] for b in await agent("beliefs", subject="restocking_policy")] == [fee]
    flagged = {i["node"] for i in await agent("review_list") if i["kind"] == "decision_flagged"}
    assert flagged == {refuse["id"], waive["id"]}

    # 8: ask answers 15 days, with its quote and that it replaced 7 days; as of before v3.3, 7 days
    answer = await agent("ask", question="how many days for returns?", k=1)
    top = answer["beliefs"][0]
    assert answer["status"] == "ok" and (top["id"], top["value"]) == (fifteen, "15 days")
    assert top["evidence"][0]["quote"] == "Returns are accepted within 15 days of delivery."
    assert any("replaced '7 days'" in w for w in top["warnings"])
    then = await agent("ask", question="how many days for returns?", k=1, as_of=before_v33)
    assert then["beliefs"][0]["value"] == "7 days"


class HttpAgent:
    """The story's operations as calls of the HTTP API."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def _send(self, op: str, args: dict[str, Any]) -> httpx.Response:
        post, get = self.client.post, self.client.get
        if op == "ingest_text":
            return await post("/sources", json=args)
        if op == "remember":
            return await post("/beliefs", json=args)
        if op == "decide":
            return await post("/decisions", json=args)
        if op == "act":
            return await post("/actions", json=args)
        if op == "beliefs":
            return await get("/beliefs", params={("all" if k == "include_all" else k): v for k, v in args.items()})
        if op == "correct" and "expected_revision" in args:
            return await post("/corrections", json=args)
        if op == "correct":
            return await post("/corrections/preview", json=args)
        if op == "retract":
            return await post("/retractions", json=args)
        if op == "review_list":
            return await get("/review-items")
        if op == "ask":
            return await post("/ask", json=args)
        raise AssertionError(op)

    async def __call__(self, op: str, **args: Any) -> Any:
        response = await self._send(op, args)
        assert response.status_code == 200, (op, response.status_code, response.text)
        return response.json()

    async def fails(self, op: str, **args: Any) -> Any:
        response = await self._send(op, args)
        assert response.status_code in (400, 403, 404, 409), (op, response.status_code, response.text)
        return response.json()


class McpAgent:
    """The story's operations as calls of the MCP tools."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def _call(self, op: str, args: dict[str, Any], error: bool) -> Any:
        result = await self.client.call_tool(op, args)
        body = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert result.is_error == error, (op, body)
        return body

    async def __call__(self, op: str, **args: Any) -> Any:
        return await self._call(op, args, False)

    async def fails(self, op: str, **args: Any) -> Any:
        return await self._call(op, args, True)


@pytest.fixture
def served(db_url: str) -> Iterator[str]:
    """``beliefdb serve`` as a process on a free loopback port, over this test's database."""
    with serve_process(db_url) as (_, base):
        yield base


@pytest.mark.slow
def test_an_http_client_tells_the_demo_story(served: str, cli: Cli) -> None:
    token = cli.json("token", "create", "--principal", "support-bot", "--workspace", "default")["token"]

    async def story() -> None:
        async with httpx.AsyncClient(base_url=served, headers={"Authorization": f"Bearer {token}"},
                                     timeout=120) as client:
            await tell_the_story(HttpAgent(client))
            audit = (await client.get("/audit/verify")).json()
            assert audit["ok"] is True and audit["events"] > 0
            owners = {b["owner"] for b in (await client.get("/beliefs", params={"all": "true"})).json()}
            assert owners == {"support-bot"}

    anyio.run(story)


@pytest.mark.slow
def test_an_mcp_client_tells_the_demo_story(db_url: str, cli: Cli) -> None:
    async def story() -> None:
        async with Client(stdio_server(db_url, "--as", "support-bot")) as client:
            await tell_the_story(McpAgent(client))

    anyio.run(story)
    assert {b["owner"] for b in cli.json("beliefs", "--all")} == {"support-bot"}
    assert cli.json("audit", "verify")["ok"] is True
