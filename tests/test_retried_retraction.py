"""A retraction sent again (a client retrying after a lost answer, the same ``expect``) answered 404 "nothing
to retract: belief … is unknown or already retracted", as if the id named nothing. The target exists and is
retracted: every door says so, 409 ``already_retracted`` (the library's AlreadyRetracted, a NotFound as
before for a caller that catches that), and a target that is unknown stays 404."""

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

TEXT = "The return window is 7 days.\n"


def _belief(bdb: beliefdb.BeliefDB) -> str:
    return str(bdb.ingest_text(TEXT, source="policy.md").accepted[0].id)


def test_a_retried_retraction_is_409_already_retracted(alice: beliefdb.BeliefDB, http_client: TestClient,
                                                       db_url: str, cli: Cli) -> None:
    belief = _belief(alice)
    headers = bearer(db_url)
    seen = http_client.post("/retractions", json={"belief": belief, "preview": True}, headers=headers).json()
    assert "fingerprint" in seen, seen
    body = {"belief": belief, "reason": "wrong", "expect": seen["fingerprint"]}
    assert http_client.post("/retractions", json=body, headers=headers).status_code == 200
    said = refused(http_client.post("/retractions", json=body, headers=headers), 409, "already_retracted")
    assert said == f"nothing to retract: belief {belief} is already retracted", said
    said = refused(http_client.post("/retractions", json={"belief": belief, "reason": "wrong"}, headers=headers),
                   409, "already_retracted")
    with pytest.raises(errors.AlreadyRetracted) as raised:
        alice.retract(belief=belief, reason="wrong")
    assert isinstance(raised.value, errors.NotFound)
    assert cli.error("retract", "--belief", belief, "--reason", "wrong", code="already_retracted",
                     env={"BELIEFDB_PRINCIPAL": "alice"})
    refused(http_client.post("/retractions", json={"belief": "0000dead", "reason": "x"}, headers=headers),
            404, "unknown_belief")


def test_the_retract_tool_says_already_retracted(bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.interfaces.mcp import build

    belief = _belief(bdb)
    bdb.retract(belief=belief, reason="wrong")
    found: list[Any] = []

    async def run() -> None:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("retract", {"belief": belief, "reason": "wrong"})
            found.append((result.is_error, json.loads(result.content[0].text)))  # type: ignore[union-attr]

    anyio.run(run)
    assert found[0][0] and found[0][1]["error"] == "already_retracted", found
