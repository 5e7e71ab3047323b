"""A retraction over the network applies only what its preview showed, as the library's
``retract(expect=...)`` and the web page's form do: the preview answers a ``fingerprint``, the apply
takes it back as ``expect``, and what would change otherwise is refused (409, ``stale_preview``) with
nothing written. The same at the HTTP API, the MCP tools and the command line."""

from __future__ import annotations

import json
from typing import Any

import anyio
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb

TEXT = "The return window is 7 days.\n"


def test_a_retraction_over_http_applies_only_what_its_preview_showed(http_client: TestClient, db_url: str) -> None:
    """The agent previews retracting a source, another decision comes to rest on it meanwhile: the apply
    with the preview's fingerprint is refused (nothing retracted); previewed again, it applies and
    flags both decisions."""
    alice = bearer(db_url, "alice")

    def post(path: str, body: dict[str, Any]) -> Any:
        answer = http_client.post(path, headers=alice, json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()

    belief = post("/sources", {"source": "policy.md", "text": TEXT})["accepted"][0]["id"]
    first = post("/decisions", {"title": "Refund order 1042", "because": [belief]})["id"]
    seen = post("/retractions", {"source": "policy.md", "preview": True})
    assert seen["flagged"] == [first] and len(seen["fingerprint"]) >= 16, seen
    second = post("/decisions", {"title": "Refund order 1043", "because": [belief]})["id"]
    said = refused(http_client.post("/retractions", headers=alice, json={
        "source": "policy.md", "reason": "poisoned", "expect": seen["fingerprint"]}), 409, "stale_preview")
    assert "preview again" in said and "nothing was written" in said, said
    assert [b["id"] for b in http_client.get("/beliefs", headers=alice).json()] == [belief]  # still held
    again = post("/retractions", {"source": "policy.md", "preview": True})
    assert again["fingerprint"] != seen["fingerprint"] and sorted(again["flagged"]) == sorted([first, second])
    done = post("/retractions", {"source": "policy.md", "reason": "poisoned", "expect": again["fingerprint"]})
    assert done == again  # the apply did what the preview showed, and says the same fingerprint
    assert http_client.get("/beliefs", headers=alice).json() == []
    # the fingerprint is described in the OpenAPI document, and expect is one of the body's fields
    spec = http_client.get("/openapi.json").json()
    operation = spec["paths"]["/retractions"]["post"]
    assert "fingerprint" in json.dumps(operation["responses"]["200"]), operation["responses"]["200"]
    assert "expect" in spec["components"]["schemas"]["Retract"]["properties"]
    # an expect on a preview is refused: it would check nothing
    said = refused(http_client.post("/retractions", headers=alice, json={
        "source": "policy.md", "undo": True, "preview": True, "expect": again["fingerprint"]}), 400, "invalid_input")
    assert "expect" in said and "preview" in said, said


def test_the_retract_tool_takes_the_previews_fingerprint_as_the_http_api_does(bdb: beliefdb.BeliefDB,
                                                                             http_client: TestClient, db_url: str,
                                                                             cli: Cli) -> None:
    """The MCP tool retract had no confirm step: it now answers the fingerprint with a preview and takes
    it back as `expect`, refusing a stale one as the HTTP API does (same code and message); the CLI's
    --json preview carries it and --expect takes it."""
    from beliefdb.interfaces.mcp import build

    belief = str(bdb.ingest_text(TEXT, source="policy.md").accepted[0].id)
    bdb.decide("Refund order 1042", because=[belief])

    async def run() -> list[tuple[bool, Any]]:
        out: list[tuple[bool, Any]] = []
        async with Client(build(local=bdb)) as client:
            listed = await client.list_tools()
            schema = next(t.input_schema for t in listed.tools if t.name == "retract")
            assert "expect" in schema["properties"], schema

            async def call(arguments: dict[str, Any]) -> tuple[bool, Any]:
                result = await client.call_tool("retract", arguments)
                assert result.content[0].type == "text"
                return bool(result.is_error), json.loads(result.content[0].text)

            out.append(await call({"source": "policy.md", "preview": True}))
            bdb.decide("Refund order 1043", because=[belief])
            out.append(await call({"source": "policy.md", "reason": "poisoned", "expect": out[0][1]["fingerprint"]}))
            out.append(await call({"source": "policy.md", "preview": True}))
        return out

    seen, stale, again = anyio.run(run)
    assert seen[0] is False and len(seen[1]["flagged"]) == 1, seen
    over_http = refused(http_client.post("/retractions", headers=bearer(db_url), json={
        "source": "policy.md", "reason": "poisoned", "expect": seen[1]["fingerprint"]}), 409, "stale_preview")
    assert stale == (True, {"error": "stale_preview", "message": over_http}), stale
    assert len(again[1]["flagged"]) == 2 and again[1]["fingerprint"] != seen[1]["fingerprint"]
    # the command line: the --json preview says the same fingerprint, and --expect applies only it
    shown = cli.json("retract", "--source", "policy.md", "--preview")
    assert shown["fingerprint"] == again[1]["fingerprint"], shown
    said = cli.one_line_error("retract", "--source", "policy.md", "--reason", "poisoned", "--expect",
                              seen[1]["fingerprint"])
    assert "preview again" in said, said
    assert bdb.beliefs() != []
    done = cli.json("retract", "--source", "policy.md", "--reason", "poisoned", "--expect", shown["fingerprint"])
    assert done == shown and bdb.beliefs() == []


def test_an_empty_expect_is_refused_by_both_doors_as_bad_input(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                             db_url: str) -> None:
    """An empty `expect` is no fingerprint: the HTTP API refused it (400), and the tool answered
    stale_preview, as if something had changed. Both say it is bad input now, in the same words."""
    from beliefdb.interfaces.mcp import build

    bdb.ingest_text(TEXT, source="policy.md")
    over_http = refused(http_client.post("/retractions", headers=bearer(db_url), json={
        "source": "policy.md", "reason": "poisoned", "expect": ""}), 400, "invalid_input")

    async def run() -> tuple[bool, Any]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("retract", {"source": "policy.md", "reason": "poisoned", "expect": ""})
            assert result.content[0].type == "text"
            return bool(result.is_error), json.loads(result.content[0].text)

    assert anyio.run(run) == (True, {"error": "invalid_input", "message": over_http})
    assert len(bdb.beliefs()) == 1
