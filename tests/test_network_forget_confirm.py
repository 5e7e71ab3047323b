"""Forgetting over the network applies only what its preview showed, as a retraction does: ``POST
/forget`` and the MCP tool ``forget`` erased at once when called without ``preview``, with no check that
what would go was what the agent had looked at (a source's new version ingested meanwhile went too,
unseen, and forgetting cannot be undone). The preview now answers a ``fingerprint``; the apply takes it
back as ``expect`` (required over the network) and what would go otherwise is refused (409
``stale_preview``) with nothing forgotten. The command line's ``forget --expect`` takes it too."""

from __future__ import annotations

import json
from typing import Any

import anyio
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"
POLICY_V2 = POLICY + "The restocking fee is 10%.\n"


def test_a_forget_over_http_forgets_only_what_its_preview_showed(http_client: TestClient, db_url: str) -> None:
    alice = bearer(db_url)

    def post(path: str, body: dict[str, Any]) -> Any:
        answer = http_client.post(path, headers=alice, json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()

    post("/sources", {"source": "policy.md", "text": POLICY})
    seen = post("/forget", {"source": "policy.md", "preview": True})
    assert seen["beliefs"] == 1 and len(seen["fingerprint"]) >= 16, seen
    # without the fingerprint nothing is forgotten: the apply needs it
    said = refused(http_client.post("/forget", headers=alice, json={"source": "policy.md"}), 400, "invalid_input")
    assert "expect" in said and "preview" in said and "fingerprint" in said, said
    # a made-up fingerprint is no stale preview (nothing changed): bad input, saying what a fingerprint is; a
    # retraction's too (both were 409 stale_preview, sending an agent to preview again for nothing)
    for path, body in (("/forget", {"source": "policy.md"}), ("/retractions", {"source": "policy.md", "reason": "x"})):
        for made_up in ("deadbeef", seen["fingerprint"] + "0", "z" * 32):
            said = refused(http_client.post(path, headers=alice, json={**body, "expect": made_up}), 400,
                           "invalid_input")
            assert said.startswith("expect takes the fingerprint a preview gave (32 hex digits, its `fingerprint`)"
                                   f", not '{made_up[:40]}'"), said
    # a new version is stored meanwhile: the preview no longer says what would go
    post("/sources", {"source": "policy.md", "text": POLICY_V2})
    said = refused(http_client.post("/forget", headers=alice, json={"source": "policy.md",
                                                                    "expect": seen["fingerprint"]}),
                   409, "stale_preview")
    assert "preview again" in said and "nothing was forgotten" in said, said
    assert len(http_client.get("/beliefs", headers=alice).json()) == 2  # nothing went
    again = post("/forget", {"source": "policy.md", "preview": True})
    assert again["fingerprint"] != seen["fingerprint"] and (again["versions"], again["beliefs"]) == (2, 2)
    done = post("/forget", {"source": "policy.md", "expect": again["fingerprint"].upper()})  # (the same, in capitals)
    assert done["fingerprint"] == again["fingerprint"] and done["preview"] is False
    assert http_client.get("/beliefs", headers=alice).json() == []
    # an expect on a preview checks nothing: refused
    post("/sources", {"source": "policy.md", "text": POLICY})
    said = refused(http_client.post("/forget", headers=alice, json={"source": "policy.md", "preview": True,
                                                                    "expect": again["fingerprint"]}),
                   400, "invalid_input")
    assert "expect" in said and "preview" in said, said
    spec = http_client.get("/openapi.json").json()
    assert "fingerprint" in json.dumps(spec["paths"]["/forget"]["post"]["responses"]["200"])
    assert "expect" in spec["components"]["schemas"]["Forget"]["properties"]


def test_the_forget_tool_and_the_cli_take_the_previews_fingerprint(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                   db_url: str, cli: Cli) -> None:
    from beliefdb.interfaces.mcp import build

    bdb.ingest_text(POLICY, source="policy.md")

    async def run() -> list[tuple[bool, Any]]:
        out: list[tuple[bool, Any]] = []
        async with Client(build(local=bdb)) as client:
            async def call(arguments: dict[str, Any]) -> tuple[bool, Any]:
                result = await client.call_tool("forget", arguments)
                assert result.content[0].type == "text"
                return bool(result.is_error), json.loads(result.content[0].text)

            out.append(await call({"source": "policy.md", "preview": True}))
            out.append(await call({"source": "policy.md"}))
            bdb.ingest_text(POLICY_V2, source="policy.md")
            out.append(await call({"source": "policy.md", "expect": out[0][1]["fingerprint"]}))
        return out

    seen, bare, stale = anyio.run(run)
    assert seen[0] is False and seen[1]["beliefs"] == 1, seen
    token = bearer(db_url, "postgres")  # (the tools act as the database login)
    over_http = refused(http_client.post("/forget", headers=token, json={"source": "policy.md"}), 400,
                        "invalid_input")
    assert bare == (True, {"error": "invalid_input", "message": over_http}), bare
    over_http = refused(http_client.post("/forget", headers=token, json={
        "source": "policy.md", "expect": seen[1]["fingerprint"]}), 409, "stale_preview")
    assert stale == (True, {"error": "stale_preview", "message": over_http}), stale
    assert len(bdb.beliefs()) == 2
    # the command line: the --json preview says the fingerprint, and --expect forgets only that
    shown = cli.json("forget", "--source", "policy.md", "--preview")
    assert "fingerprint:" in cli("forget", "--source", "policy.md", "--preview").stdout
    assert "preview again" in cli.one_line_error("forget", "--source", "policy.md", "--expect", seen[1]["fingerprint"])
    done = cli.json("forget", "--source", "policy.md", "--expect", shown["fingerprint"])
    assert done["fingerprint"] == shown["fingerprint"] and bdb.beliefs() == []
