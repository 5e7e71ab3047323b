"""The product view on a change too large for one page: a source most of the memory rests on. An impact
page draws a page of the nodes the change would mark (flagged decisions and held actions first), says
which of how many, counts each kind of effect whole and links to the other pages; a retraction preview
lists a page of each group, and its confirm applies the whole retraction its totals count, and only if
what it did not list is still the same. Every test here starts from the large source (a price list),
written once into a template that each test clones; the large pages of tests that write their own data
are in tests/test_web_large_without_the_price_list.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import psycopg
import pytest
import web_pages
from conftest import SEEDS, seeded_proc
from fastapi.testclient import TestClient
from pytest_postgresql import factories
from web_pages import HTML, form_token, sign_in, text_of

import beliefdb
from beliefdb import api
from beliefdb.models.graph import IMPACT_MARKS

client = web_pages.client

#: beliefs of the large source, each the reason of a decision with one action
N = 12
SOURCE = "price-list.md"


@dataclass(frozen=True)
class Large:
    beliefs: list[UUID]
    decisions: list[UUID]
    actions: list[UUID]


def _write_large(url: str) -> Large:
    lines = [f"Item {k} costs {k} dollars." for k in range(N)]
    text = "\n".join(lines) + "\n"
    beliefs, decisions, actions = [], [], []
    with beliefdb.connect(url, principal="alice") as db:
        for k, line in enumerate(lines):
            said = db.remember(line, f"item {k}", "price", f"{k} dollars", line, source=SOURCE,
                               text=text if k == 0 else None)
            beliefs.append(said.accepted[0].id)
            decisions.append(db.decide(f"Sell item {k}", because=[beliefs[-1]]).id)
            actions.append(db.act(decisions[-1], f"List item {k} in the shop").id)
    return Large(beliefs, decisions, actions)


# every test here starts from the price list: each clones it from a template that holds it
price_list_proc = seeded_proc(_write_large)
postgresql = factories.postgresql("price_list_proc")


@pytest.fixture
def large(postgresql: psycopg.Connection[Any]) -> Large:
    """The price list of N beliefs, each the reason of a decision with one action: this test's database holds it."""
    written: Large = SEEDS[postgresql.info.dbname]
    return written


def _marked(html: str) -> set[str]:
    """The nodes the page's picture (as a list) marks with what the change would do."""
    return {i for i, marks in re.findall(r'class="node-item" data-id="([0-9a-f-]+)" data-marks="([^"]*)"', html)
            if set(marks.split()) & set(IMPACT_MARKS)}


def test_an_impact_page_draws_a_page_of_a_large_change_and_counts_all_of_it(client: TestClient, db_url: str,
                                                                            large: Large) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        rows = db.impact(SOURCE)
    # each decision, action and belief once, the source once for its quote(s)
    everything = {str(r.node) for r in rows if r.kind != "fragment"}
    assert len(everything) == 3 * N
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    url, seen, pages = f"/impact?ref={SOURCE}&limit=5", set(), 0
    while url:
        page = client.get(url, headers=HTML)
        assert page.status_code == 200, page.text
        words = text_of(page.text)
        drawn = _marked(page.text)
        assert 0 < len(drawn) <= 5 and not drawn & seen
        first = pages * 5 + 1
        assert f"Showing marked nodes {first}–{first + len(drawn) - 1} of {3 * N + 1}" in words
        # every group counts the whole answer, whatever this page draws
        assert f"would be flagged ({N})" in words and f"would be held ({N})" in words
        seen |= drawn
        pages += 1
        found = re.search(r'href="([^"]+)" rel="next"', page.text)
        url = found.group(1).replace("&amp;", "&") if found else ""
    assert pages == 8
    source = {s for s in seen if s not in everything}
    assert seen - source == everything and len(source) == 1
    # flagged decisions and held actions first
    first_page = _marked(client.get(f"/impact?ref={SOURCE}&limit={N + 1}", headers=HTML).text)
    assert first_page - source == {str(d) for d in large.decisions}


def _listed(html: str, group: str) -> list[str]:
    found = re.search(rf'<ul class="change-{group}">(.*?)</ul>', html, re.S)
    assert found is not None, group
    return re.findall(r'data-id="([0-9a-f-]+)"', found.group(1))


def test_a_retraction_preview_lists_a_page_and_its_confirm_retracts_everything_it_counts(
        client: TestClient, db_url: str, large: Large) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        seen = db.preview_retract(source=SOURCE)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    preview = client.get("/sources/retract", params={"source": SOURCE, "limit": 3}, headers=HTML).text
    words = text_of(preview)
    assert f"decisions that would be flagged ({N})" in words and f"actions that would be held ({N})" in words
    assert len(_listed(preview, "would_flag")) == 3 and len(_listed(preview, "would_hold")) == 3
    assert f"Showing entries 1–3 of {len(seen.stopped_holding)}, of each list" in words
    # the picture draws a page too, and sends the rest to the impact page
    assert len(_marked(preview)) <= 100 and "the rest, page by page, on the impact page" not in words
    following = re.search(r'href="([^"]+)" rel="next"', preview)
    assert following is not None
    second = client.get(following.group(1).replace("&amp;", "&"), headers=HTML).text
    assert len(_listed(second, "would_flag")) == 3 and not set(_listed(second, "would_flag")) & set(
        _listed(preview, "would_flag"))
    expected = re.search(r'name="expected" value="([0-9a-f]+)"', preview)
    assert expected is not None and expected.group(1) == seen.fingerprint()
    done = client.post("/sources/retract", data={"source": SOURCE, "reason": "wrong prices", "expected":
                                                 expected.group(1), "form_token": form_token(preview)}, headers=HTML)
    assert done.status_code == 200, done.text
    assert f"decisions flagged ({N})" in text_of(done.text)
    with beliefdb.connect(db_url, principal="alice") as db:
        assert {d.status for d in db.decisions()} == {"needs_review"}
        assert {a.id: a.status for a in db.actions()} == {a: "held" for a in large.actions}
        assert not db.beliefs(subject="item 11")


def test_a_retraction_preview_is_stale_when_what_it_did_not_list_changed(client: TestClient, db_url: str,
                                                                         large: Large) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    preview = client.get("/sources/retract", params={"source": SOURCE, "limit": 3}, headers=HTML).text
    listed = set(_listed(preview, "would_flag"))
    unlisted = next(d for d in large.decisions if str(d) not in listed)
    with beliefdb.connect(db_url, principal="alice") as db:
        db.act(unlisted, "Another action nobody saw in the preview")
    expected = re.search(r'name="expected" value="([0-9a-f]+)"', preview)
    assert expected is not None
    stale = client.post("/sources/retract", data={"source": SOURCE, "reason": "wrong prices", "expected":
                                                  expected.group(1), "form_token": form_token(preview)}, headers=HTML)
    assert stale.status_code == 409 and "no longer what your preview showed" in text_of(stale.text)
    assert f"actions that would be held ({N + 1})" in text_of(stale.text)
    with beliefdb.connect(db_url, principal="alice") as db:
        assert len(db.beliefs(subject="item 11")) == 1


def test_the_workspace_as_of_a_moment_counts_only_a_little_past_its_page_and_says_so(
        client: TestClient, db_url: str, large: Large, monkeypatch: pytest.MonkeyPatch) -> None:
    from beliefdb.graph import workspace

    monkeypatch.setattr(workspace, "AS_OF_COUNT_AHEAD", 2)
    with beliefdb.connect(db_url, principal="alice") as db:
        now = db.why(large.beliefs[-1]).belief.recorded_at.isoformat()
        capped = db.workspace_graph(as_of=datetime.fromisoformat(now), limit=3)
        whole = db.workspace_graph(limit=3)
    # believed then is worked out belief by belief: counted to 3 + 2, and said to be more
    assert capped.page is not None and (capped.page.total, capped.page.more) == (5, True)
    assert whole.page is not None and (whole.page.total, whole.page.more) == (N, False)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = text_of(client.get("/", params={"as_of": now, "limit": 3}, headers=HTML).text)
    assert "Showing beliefs 1–3 of more than 5 (as of a moment, counted no further), newest first." in page
    deeper = client.get("/", params={"as_of": now, "limit": 3, "offset": 9}, headers=HTML).text
    assert f"Showing beliefs 10–{N} of {N}, newest first." in text_of(deeper)


def test_the_review_queue_shows_a_page_of_its_items_with_links_to_the_others(client: TestClient, db_url: str,
                                                                           large: Large) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        db.retract(source=SOURCE, reason="wrong prices")
        queue = [str(i.id) for i in db.review_items()]
    assert len(queue) >= 2 * N
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    shown: list[str] = []
    url = "/review?limit=10"
    while url:
        html = client.get(url, headers=HTML).text
        items = re.findall(r'class="card review-item" id="item-([0-9a-f-]+)"', html)
        assert 0 < len(items) <= 10
        first = len(shown) + 1
        assert f"Showing review items {first}–{first + len(items) - 1} of {len(queue)}, oldest first." in text_of(html)
        shown += items
        following = re.search(r'href="([^"]+)" rel="next"', html)
        url = following.group(1).replace("&amp;", "&") if following else ""
    assert shown == queue


def test_a_page_of_the_review_queue_reads_up_to_its_end_and_counts_the_rest(
        client: TestClient, db_url: str, large: Large, monkeypatch: pytest.MonkeyPatch) -> None:
    """The queue page asks the library for the items up to its last one and for the queue's length
    (beliefdb.review_count, its index alone), not for every item to count and cut them."""
    with beliefdb.connect(db_url, principal="alice") as db:
        db.retract(source=SOURCE, reason="wrong prices")
        queue = [str(i.id) for i in db.review_items()]
        assert db.review_count() == len(queue) >= 2 * N
    asked: list[int | None] = []
    listing = beliefdb.BeliefDB.review_items

    def review_items(self: beliefdb.BeliefDB, *, limit: int | None = None, after: object = None) -> object:
        asked.append(limit)
        return listing(self, limit=limit, after=after)  # type: ignore[arg-type]

    monkeypatch.setattr(beliefdb.BeliefDB, "review_items", review_items)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    html = client.get("/review?limit=5&offset=5", headers=HTML).text
    assert re.findall(r'class="card review-item" id="item-([0-9a-f-]+)"', html) == queue[5:10]
    assert f"Showing review items 6–10 of {len(queue)}, oldest first." in text_of(html)
    assert asked == [10]
