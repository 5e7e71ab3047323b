"""What stops being current and still holds (impact's ``stops_current``) in every output of impact. A
retraction that brings a belief back can supersede anew a belief that was current: retracting z2.md
(7 EUR, superseding x2.md's 5 EUR) makes 5 EUR current again, and 5 EUR supersedes y2.md's 3 EUR, whose
valid time overlaps its own but not 7 EUR's. 3 EUR stops being current and still holds (superseded, its
quote kept). The rows of ``beliefdb.impact`` said so, and ``retract --preview`` listed it under
stopped_current; ``impact --json``, HTTP ``POST /impact``, the MCP ``impact`` tool, the picture (text,
Mermaid) and the web's impact page left it out."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import anyio
import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from web_pages import HTML, form_token, sign_in, text_of

import beliefdb
from beliefdb import api, render
from beliefdb.interfaces.http import create_app


def fee(db: beliefdb.BeliefDB, source: str, value: str, since: str, until: str) -> UUID:
    quote = f"The fee is {value}."
    (b,) = db.remember(f"The fee is {value}", "fee2", "amount", value, quote, source=source, text=quote + "\n",
                       authority="internal", valid_from=since, valid_to=until).accepted
    return b.id


@pytest.fixture
def fees(bdb: beliefdb.BeliefDB) -> dict[str, UUID]:
    """5 EUR (x2.md), superseded by 7 EUR (z2.md); 3 EUR (y2.md), before 7 EUR's valid time: current."""
    ids = {"5": fee(bdb, "x2.md", "5 EUR", "2027-05-01T00:00:00Z", "2027-12-31T00:00:00Z"),
           "7": fee(bdb, "z2.md", "7 EUR", "2027-07-01T00:00:00Z", "2027-12-31T00:00:00Z"),
           "3": fee(bdb, "y2.md", "3 EUR", "2027-01-01T00:00:00Z", "2027-06-15T00:00:00Z")}
    status = {b.id: b.status for b in bdb.beliefs(include_all=True)}
    assert [status[ids[k]] for k in ("5", "7", "3")] == ["superseded", "current", "current"]
    rows = {(r.node, r.effect) for r in bdb.impact("z2.md")}
    assert {(ids["5"], "becomes_current"), (ids["3"], "stops_current"), (ids["7"], "stops_holding")} <= rows
    return ids


def test_impact_json_lists_what_stops_being_current(bdb: beliefdb.BeliefDB, cli: Cli, fees: dict[str, UUID]) -> None:
    named = render.jsonable(render.impact_json(bdb.impact("z2.md")))
    assert named["stops_current"] == [{"id": str(fees["3"]), "kind": "belief"}]
    assert named["becomes_current"] == [{"id": str(fees["5"]), "kind": "belief"}]
    assert cli.json("impact", "z2.md") == named
    # what the retraction's own preview says (what stops holding is not listed again)
    preview = cli.json("retract", "--source", "z2.md", "--preview")
    assert [x["id"] for x in named["stops_current"]] == [
        x for x in preview["stopped_current"] if x not in preview["stopped_holding"]]


def owner(db_url: str) -> str:
    """Who owns the sources (the principal the command line's reads act as): a token speaks for them."""
    with psycopg.connect(db_url) as conn:
        (name,) = conn.execute("select distinct owner from beliefdb.source").fetchall()
    return str(name[0])


def test_http_and_mcp_list_it(db_url: str, bdb: beliefdb.BeliefDB, fees: dict[str, UUID]) -> None:
    from beliefdb.interfaces.mcp import build

    token = api.create_token("default", owner(db_url), url=db_url).token
    with TestClient(create_app(db_url, mcp=False)) as client:
        answered = client.post("/impact", json={"refs": ["z2.md"]}, headers={"Authorization": f"Bearer {token}"})
    assert answered.status_code == 200, answered.text
    assert answered.json()["stops_current"] == [{"id": str(fees["3"]), "kind": "belief"}]
    said: dict[str, Any] = {}

    async def call() -> None:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("impact", {"refs": ["z2.md"]})
            said["impact"] = json.loads(result.content[0].text)  # type: ignore[union-attr]

    anyio.run(call)
    assert said["impact"] == answered.json()


def test_the_picture_marks_it(bdb: beliefdb.BeliefDB, cli: Cli, fees: dict[str, UUID]) -> None:
    graph = bdb.impact_graph("z2.md")
    marks = {n.id: n.marks for n in graph.nodes}
    assert "stops_current" in marks[fees["3"]] and "becomes_current" in marks[fees["5"]]
    assert dict(graph.totals)["stops_current"] == 1
    text = cli("impact", "z2.md").stdout
    assert "would stop being current (still holds): 1" in text.splitlines()[1], text
    mermaid = cli("impact", "z2.md", "--format", "mermaid").stdout
    assert re.search(r"^    classDef stops_current ", mermaid, re.MULTILINE), mermaid
    assert re.search(r"^    class \S+ stops_current$", mermaid, re.MULTILINE), mermaid
    dot = cli("impact", "z2.md", "--format", "dot").stdout
    three = next(line for line in dot.splitlines() if "3 EUR" in line)
    assert 'fillcolor="#ffffff"' not in three, three  # styled as its mark, not as an unmarked node


@pytest.fixture
def web(db_url: str, fees: dict[str, UUID]) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as c:
        sign_in(c, api.create_token("default", owner(db_url), url=db_url).token)
        yield c


def test_the_impact_page_lists_it(web: TestClient, fees: dict[str, UUID]) -> None:
    page = web.get("/impact", params={"ref": "z2.md"}, headers=HTML).text
    group = re.search(r'<h3><span class="mark mark-stops_current">([^<]*)</span> \((\d+)\)</h3>\s*'
                      r'<ul class="impact-stops_current">(.*?)</ul>', page, re.S)
    assert group is not None, text_of(page)
    assert group.group(1, 2) == ("↷ would stop being current (still holds)", "1")
    assert f'data-id="{fees["3"]}"' in group.group(3)
    assert "would stop being current (still holds)" in text_of(page.split("<h2>What would happen</h2>")[0])


def test_a_proposed_corrections_preview_on_the_web_lists_what_would_stop_being_current(
        web: TestClient, db_url: str, fees: dict[str, UUID]) -> None:
    """Another principal's correction of 3 EUR is proposed to its owner: what approving it would do
    (``if_approved``) makes 3 EUR stop being current (superseded by the replacement), which the page
    left out."""
    with beliefdb.connect(db_url, principal="bob") as bob:
        seen = bob.preview_correction(fees["3"], "The fee is 4 EUR", value="4 EUR")
    assert seen.proposed and seen.if_approved is not None
    assert (fees["3"], "stops_current") in {(r.node, r.effect) for r in seen.if_approved}
    sign_in(web, api.create_token("default", "bob", url=db_url).token)
    form = form_token(web.get(f"/beliefs/{fees['3']}", headers=HTML).text)
    page = web.post(f"/beliefs/{fees['3']}/correction/preview", headers=HTML,
                    data={"statement": "The fee is 4 EUR", "value": "4 EUR", "form_token": form}).text
    group = re.search(r'<h3><span class="mark mark-stops_current">([^<]*)</span> \((\d+)\)</h3>\s*'
                      r'<ul class="change-stops_current">(.*?)</ul>', page, re.S)
    assert group is not None, text_of(page)
    assert group.group(1, 2) == ("↷ would stop being current (still holds)", "1")
    assert f'data-id="{fees["3"]}"' in group.group(3)
