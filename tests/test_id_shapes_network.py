"""One rule for the ids the HTTP API and the MCP tools take: a reference that is no id (not hex digits
and dashes) or too short to be one (fewer than 4 hex digits) is bad input, 400 ``invalid_input``, at
every route and tool; a well-formed one that names nothing is 404. Before, ``GET /beliefs/5`` was 400
"too short" (5 began an id) while ``/beliefs/7a``, ``/beliefs/zz``, ``GET /runs/5`` and
``GET /decisions?of=zz`` were 404, and ``POST /review-items/zz`` 400."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb
from beliefdb import errors

UNKNOWN = "0123abcd"


@pytest.fixture
def made(bdb: beliefdb.BeliefDB) -> dict[str, str]:
    """A belief, a decision on it and a run: their ids."""
    belief = bdb.remember("The fee is 10%", "plan", "fee", "10%", "The fee is 10%.", source="fees.md",
                          text="The fee is 10%.").accepted[0].id
    decision = bdb.decide("Charge the fee", because=[belief]).id
    run = bdb.record_step("user_input", {"text": "hi"}, task="t").run
    return {"belief": str(belief), "decision": str(decision), "run": str(run)}


def test_a_reference_that_is_no_id_is_400_and_a_well_formed_unknown_one_404(
        made: dict[str, str], http_client: TestClient, db_url: str) -> None:
    headers = bearer(db_url)
    short = [made["belief"][:1], "7a", made["run"][:1]]
    for path in ("/beliefs/{}", "/runs/{}"):
        for ref in ["zz", "zzzzzzzz", "7a", short[0], short[2]]:
            said = refused(http_client.get(path.format(ref), headers=headers), 400, "invalid_input")
            assert ref in said and ("not an id" in said or "too short" in said), (path, ref, said)
    for ref in ("zz", "7a", "not-an-id"):
        said = refused(http_client.get("/decisions", params={"of": ref}, headers=headers), 400, "invalid_input")
        assert ref in said, said
        said = refused(http_client.post(f"/review-items/{ref}", json={"verdict": "approved"}, headers=headers),
                       400, "invalid_input")
        assert ref in said, said
        said = refused(http_client.post("/actions", json={"decision": ref, "description": "x"}, headers=headers),
                       400, "invalid_input")
        assert ref in said, said
    # well-formed, naming nothing: 404 at each
    assert refused(http_client.get(f"/beliefs/{UNKNOWN}", headers=headers), 404, "unknown_belief")
    assert refused(http_client.get(f"/runs/{UNKNOWN}", headers=headers), 404, "not_found")
    assert refused(http_client.get("/decisions", params={"of": UNKNOWN}, headers=headers), 404, "not_found")
    assert refused(http_client.post(f"/review-items/{UNKNOWN}", json={"verdict": "approved"}, headers=headers),
                   404, "not_found")
    # a retraction's or an impact's reference may be a source's name: one naming nothing stays unknown
    refused(http_client.post("/impact", json={"refs": ["no-such-source.md"]}, headers=headers), 404, "not_found")


def test_the_library_and_the_tools_follow_the_same_rule(made: dict[str, str], bdb: beliefdb.BeliefDB) -> None:
    from beliefdb.interfaces.mcp import build

    for ref in ("zz", "7a"):
        with pytest.raises(errors.InvalidInput):
            bdb.why(ref)
        with pytest.raises(errors.InvalidInput):
            bdb.run_trace(ref)
    answers: list[Any] = []

    async def run() -> None:
        async with Client(build(local=bdb)) as client:
            for tool, arguments in (("why", {"belief": "zz"}), ("why", {"belief": "7a"}),
                                    ("decisions", {"of": "zz"}), ("review_resolve", {"item": "zz", "verdict":
                                                                                     "approved"}),
                                    ("why", {"belief": UNKNOWN})):
                result = await client.call_tool(tool, arguments)
                answers.append(json.loads(result.content[0].text))  # type: ignore[union-attr]

    anyio.run(run)
    assert [a["error"] for a in answers] == ["invalid_input"] * 4 + ["unknown_belief"], answers
