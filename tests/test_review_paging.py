"""The review queue pages as the other lists do. ``GET /review-items``, the MCP tool ``review_list`` and
``beliefdb review list`` answered every open item at once: a workspace with thousands of flagged
decisions answered megabytes to an agent that wanted the oldest few. They page now, oldest first (the
queue's order): at most ``limit``, ``after`` an item id (the last of the page before), and over HTTP
``Link: <...>; rel="next"`` while more follow, as ``GET /decisions`` does. A page is read by key
(``beliefdb.review_items``), never by skipping the items before it."""

from __future__ import annotations

import json

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, follow_pages, refused

import beliefdb
from beliefdb import errors

ITEMS = 5


def _flag(bdb: beliefdb.BeliefDB) -> list[str]:
    """ITEMS open review items (decisions without a reason need review), oldest first."""
    for i in range(ITEMS):
        bdb.decide(f"Refund order {1040 + i}")
    items = [str(r.id) for r in bdb.review_items()]
    assert len(items) == ITEMS
    return items


def test_the_library_pages_the_review_queue_by_its_last_item(bdb: beliefdb.BeliefDB) -> None:
    items = _flag(bdb)
    assert [str(r.id) for r in bdb.review_items(limit=2)] == items[:2]
    assert [str(r.id) for r in bdb.review_items(limit=2, after=items[1])] == items[2:4]
    assert [str(r.id) for r in bdb.review_items(after=items[3])] == items[4:]
    assert bdb.review_items(after=items[4]) == []
    # a unique prefix names the item as review approve takes one; an item resolved since still marks the place
    assert [str(r.id) for r in bdb.review_items(limit=1, after=items[0][:8])] == items[1:2]
    bdb.resolve_review(items[1], "approved")
    assert [str(r.id) for r in bdb.review_items(limit=1, after=items[1])] == items[2:3]
    with pytest.raises(errors.NotFound, match="unknown review item"):
        bdb.review_items(after="00000000-0000-0000-0000-000000000000")
    with pytest.raises(errors.InvalidInput, match="limit"):
        bdb.review_items(limit=0)
    with pytest.raises(errors.InvalidInput, match=r"^after: '' is not an id \(a UUID or at least 4"):
        bdb.review_items(after="")  # (in the words of every list's malformed cursor: tests/test_page_cursors.py)


def test_get_review_items_pages_with_a_link_to_the_next_page(http_client: TestClient, db_url: str,
                                                            bdb: beliefdb.BeliefDB) -> None:
    items = _flag(bdb)
    alice = bearer(db_url)
    pages, links = follow_pages(http_client, "/review-items?limit=2", alice)
    assert all(1 <= len(page) <= 2 for page in pages)
    assert all(link.startswith("</review-items?") and link.endswith('rel="next"') for link in links), links
    assert ([i for page in pages for i in page], len(pages)) == (items, 3)
    assert [r["id"] for r in http_client.get(f"/review-items?after={items[2]}", headers=alice).json()] == items[3:]
    assert "link" not in http_client.get("/review-items", headers=alice).headers  # (default: 1,000 a page)
    assert refused(http_client.get("/review-items?after=00000000-0000-0000-0000-000000000000", headers=alice),
                   404, "not_found").startswith("unknown review item")
    refused(http_client.get("/review-items?limit=0", headers=alice), 400, "invalid_input")
    refused(http_client.get("/review-items?limit=10001", headers=alice), 400, "invalid_input")
    parameters = {p["name"]: p for p in
                  http_client.get("/openapi.json").json()["paths"]["/review-items"]["get"]["parameters"]}
    assert parameters["limit"]["schema"]["maximum"] == 10_000 and "after" in parameters


def test_the_review_list_tool_takes_limit_and_after(bdb: beliefdb.BeliefDB) -> None:
    items = _flag(bdb)
    from beliefdb.interfaces.mcp import build

    async def tool(arguments: dict[str, object]) -> list[str]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("review_list", arguments)
            assert not result.is_error and result.content[0].type == "text", result
            return [r["id"] for r in json.loads(result.content[0].text)]

    assert anyio.run(tool, {"limit": 2}) == items[:2]
    assert anyio.run(tool, {"limit": 2, "after": items[1]}) == items[2:4]
    assert anyio.run(tool, {}) == items


def test_review_list_pages_at_the_command_line(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    items = _flag(bdb)
    assert [r["id"] for r in cli.json("review", "list", "--limit", "2")] == items[:2]
    assert [r["id"] for r in cli.json("review", "list", "--limit", "2", "--after", items[1])] == items[2:4]
    assert [r["id"] for r in cli.json("review", "list")] == items
    # past the last item: no more of them, not an empty queue
    assert cli("review", "list", "--after", items[-1]).stdout.strip() == "(no more review items)"
    assert len(cli("review", "list", "--after", items[-2]).stdout.strip().splitlines()) == 1
    assert cli.error("review", "list", "--after", "00000000-0000-0000-0000-000000000000",
                     code="not_found")["message"].startswith("unknown review item")
