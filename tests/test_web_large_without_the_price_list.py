"""The product view's large pages on data each test writes itself (the pages of a large change to one
source are in tests/test_web_large.py, which clones that source from a template): the runs page lists a
page of runs newest first; an unknown id of ten kilobytes is not echoed whole; a belief that much rests on
draws and lists a page of it; a correction preview of such a belief lists a few and counts all."""

from __future__ import annotations

import re

import pytest
import web_pages
from fastapi.testclient import TestClient
from test_web_large import _listed
from web_pages import HTML, form_token, sign_in, text_of

import beliefdb
from beliefdb import api

client = web_pages.client


def test_the_runs_page_lists_a_page_of_runs_newest_first_with_links_to_the_others(client: TestClient,
                                                                                 db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        for k in range(7):
            with db.record_run(task=f"task {k}") as run:
                run.step("plan", {"k": k})
        newest = [r.id for r in reversed(db.runs())]
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    first = client.get("/runs", params={"limit": 3}, headers=HTML).text
    listed = lambda html: re.findall(r'<a href="/runs/([0-9a-f-]+)"><code>', html)  # noqa: E731
    assert listed(first) == [str(r) for r in newest[:3]]
    assert "Showing runs 1–3 of 7, newest first." in text_of(first)
    following = re.search(r'href="([^"]+)" rel="next"', first)
    assert following is not None
    second = client.get(following.group(1).replace("&amp;", "&"), headers=HTML).text
    assert listed(second) == [str(r) for r in newest[3:6]] and "Showing runs 4–6 of 7" in text_of(second)
    last = client.get("/runs", params={"limit": 3, "offset": 6}, headers=HTML).text
    assert listed(last) == [str(newest[6])] and 'rel="next"' not in last and 'rel="prev"' in last
    # a run's page reads its run, whichever page lists it
    page = client.get(f"/runs/{str(newest[6])[:8]}", headers=HTML)
    assert page.status_code == 200 and "<title>Run task 0" in page.text


@pytest.mark.parametrize("path", ["/beliefs/{x}", "/runs/{x}", "/decisions/{x}", "/actions/{x}", "/impact?ref={x}",
                                  "/sources/retract?source={x}", "/nowhere/{x}"])
def test_an_unknown_id_of_ten_kilobytes_is_not_echoed_whole(client: TestClient, db_url: str, path: str) -> None:
    unknown = "ab" * 5000
    token = api.create_token("default", "alice", url=db_url).token
    said = [client.get(path.format(x=unknown), headers={"Authorization": f"Bearer {token}"})]
    sign_in(client, token)
    said.append(client.get(path.format(x=unknown), headers=HTML))
    for answer in said:
        if answer.status_code == 303:  # the JSON API does not serve this page: a browser is sent on
            continue
        # (10,000 hex digits are no id: 400 where the page reads ids, 404 where the path is no page)
        assert answer.status_code in (400, 404), answer.text[:300]
        assert unknown not in answer.text and len(answer.text) < 6000
        # which id: its start (the JSON API's unknown route names its path)
        assert unknown[:20] in answer.text
    assert said[-1].status_code in (400, 404)


def test_a_belief_that_much_rests_on_draws_and_lists_a_page_of_it(client: TestClient, db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        hub = db.remember("Shipping is free.", "shipping", "price", "free", "Shipping is free.", source="terms.md",
                          text="Shipping is free.\n").accepted[0].id
        decisions = {str(db.decide(f"Promise free shipping in mail {k}", because=[hub]).id) for k in range(5)}
        derived = {str(db.derive(f"Parcel {k} ships free.", f"parcel {k}", "shipping", "free", [hub]).id)
                   for k in range(4)}
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    url, drawn, listed, first = f"/beliefs/{hub}?limit=2", set(), set(), 1
    while url:
        html = client.get(url, headers=HTML).text
        words = text_of(html)
        shown = f"entries {first}–{first + 1}" if first < 9 else "entry 9"
        assert f"Showing {shown} of 9, of each list of what is built on it." in words
        assert "Decisions and their actions (5)" in words and "Derived beliefs (4)" in words
        on_page = set(re.findall(r'href="/(?:decisions|beliefs)/([0-9a-f-]+)"', html)) & (decisions | derived)
        resting = {i for i in re.findall(r'class="node-item" data-id="([0-9a-f-]+)"', html)} & (decisions | derived)
        assert 0 < len(resting) <= 2 and not resting & drawn
        drawn |= resting
        listed |= on_page
        following = re.search(r'href="([^"]+)" rel="next"', html)
        url = following.group(1).replace("&amp;", "&") if following else ""
        first += 2
    assert first == 11 and drawn == listed == decisions | derived
    # decisions first
    assert set(re.findall(r'class="node-item" data-id="([0-9a-f-]+)"',
                          client.get(f"/beliefs/{hub}?limit=5", headers=HTML).text)) & derived == set()


def test_a_correction_preview_of_a_belief_much_rests_on_lists_a_few_and_counts_all(
        client: TestClient, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from beliefdb.interfaces.web import describe

    monkeypatch.setattr(describe, "LIST_LIMIT", 2)
    with beliefdb.connect(db_url, principal="alice") as db:
        hub = db.remember("Shipping is free.", "shipping", "price", "free", "Shipping is free.", source="terms.md",
                          text="Shipping is free.\n").accepted[0].id
        for k in range(5):
            db.act(db.decide(f"Promise free shipping in mail {k}", because=[hub]).id, f"Send mail {k}")
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    token = form_token(client.get(f"/beliefs/{hub}", headers=HTML).text)
    page = client.post(f"/beliefs/{hub}/correction/preview", headers=HTML,
                       data={"statement": "Shipping costs 5 euros.", "value": "5 euros", "form_token": token})
    assert page.status_code == 200, page.text
    words = text_of(page.text)
    assert "decisions that would be flagged (5)" in words and "actions that would be held (5)" in words
    assert len(_listed(page.text, "would_flag")) == 2 and "3 not listed here" in words
