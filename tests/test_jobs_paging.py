"""The queue's list pages as the other lists of the HTTP API do. ``GET /jobs`` answered the newest
``limit`` jobs and nothing else: an agent with more jobs than a page could not reach the older ones (its
failed documents among them) and no Link header said more followed. It pages now, newest first: ``before``
a job id (the last of the page before), and ``Link: <...>; rel="next"`` while more follow; the library's
``jobs(before=...)`` and the MCP tool ``jobs`` take the same."""

from __future__ import annotations

import json

import anyio
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, follow_pages, refused

import beliefdb

POLICY = "Returns are accepted within 30 days.\n"


def test_get_jobs_pages_newest_first_with_a_link_to_the_next_page(http_client: TestClient, db_url: str,
                                                                  bdb: beliefdb.BeliefDB) -> None:
    alice = bearer(db_url)
    ids = [http_client.post("/jobs", headers=alice, json={"source": f"doc-{i}.md", "text": POLICY}).json()["jobs"][0]
           for i in range(5)]
    newest = list(reversed(ids))
    pages, links = follow_pages(http_client, "/jobs?limit=2", alice)
    assert all(1 <= len(page) <= 2 for page in pages)
    assert all(link.endswith('rel="next"') for link in links), links
    assert ([i for page in pages for i in page], len(pages)) == (newest, 3)
    # before: the jobs older than that one; the library and the tool take it too
    assert [j["id"] for j in http_client.get(f"/jobs?before={ids[2]}", headers=alice).json()] == ids[1::-1]
    assert [j.id for j in bdb.jobs(before=ids[2], limit=1)] == [ids[1]]
    assert refused(http_client.get("/jobs?before=0", headers=alice), 400, "invalid_input").startswith("before")
    # the OpenAPI document bounds limit as the server does (it said 2**31 - 1, and over 100,000 was refused)
    parameters = {p["name"]: p for p in http_client.get("/openapi.json").json()["paths"]["/jobs"]["get"]["parameters"]}
    assert parameters["limit"]["schema"]["maximum"] == 10_000 and "before" in parameters  # (as GET /beliefs)
    refused(http_client.get("/jobs?limit=10001", headers=alice), 400, "invalid_input")

    from beliefdb.interfaces.mcp import build

    async def tool() -> list[int]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("jobs", {"before": ids[3], "limit": 2})
            assert not result.is_error and result.content[0].type == "text", result
            return [j["id"] for j in json.loads(result.content[0].text)]

    assert anyio.run(tool) == [ids[2], ids[1]]
