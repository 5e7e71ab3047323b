"""The product view's server side, without a browser (``tests/browser/`` drives one), on the story
before v3.3: a read-only token sees no form and any change it posts is 403 with a page saying why; a
form from another site or without the session's form token is refused; the pages and the JSON API
share paths by what the request asks for; a stale correction preview shows the conflict (409) and a
fresh preview. Signing in (the token's cookie, an unknown or revoked token), a quote marked in its
source text and a run's trace are in tests/test_web_without_the_story.py, on a database without it."""

from __future__ import annotations

import re
import uuid
from typing import Any

import psycopg
import pytest
import web_pages
from fastapi.testclient import TestClient
from product_story import Story, publish_v33
from pytest_postgresql import factories
from web_pages import HTML, form_token, sign_in

import beliefdb
from beliefdb import api
from beliefdb.interfaces.http import create_app

#: the app under a test client, and the story before v3.3 (shared with test_web_trial)
client, story = web_pages.client, web_pages.story
# every test here starts from the story before v3.3: each clones it from a template that holds it
web_story_proc = web_pages.story_proc()
postgresql = factories.postgresql("web_story_proc")


def test_a_read_only_token_sees_no_form_and_its_posts_are_refused(client: TestClient, db_url: str,
                                                                  story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
    sign_in(client, api.create_token("default", "rita", read_only=True, url=db_url).token)
    for path in ("/review", f"/beliefs/{story.refund}", f"/decisions/{story.refuse}", "/runs",
                 "/sources/retract?source=return-policy.md", f"/impact?ref={story.seven}"):
        page = client.get(path, headers=HTML)
        assert page.status_code == 200, (path, page.text)
        forms = re.findall(r'<form[^>]*method="post"[^>]*action="([^"]+)"', page.text)
        assert forms == ["/signout"], (path, forms)
        assert "read-only" in page.text
    for path, data in [(f"/beliefs/{story.refund}/correction/preview", {"statement": "x"}),
                       (f"/beliefs/{story.refund}/correction", {"statement": "x", "expected_revision": "1"}),
                       ("/sources/retract", {"source": "return-policy.md", "reason": "r"}),
                       (f"/review/{beliefdb.connect(db_url).review_items()[0].id}", {"verdict": "approved"})]:
        refused = client.post(path, data=data, headers=HTML)
        assert refused.status_code == 403, (path, refused.text)
        assert "this token is read-only: it may read everything and change nothing" in refused.text
    with beliefdb.connect(db_url) as db:  # nothing changed
        assert [b.status for b in db.beliefs(include_all=True) if b.id == story.refund] == ["current"]
        assert len(db.review_items()) == 2


def test_a_form_from_another_site_or_without_the_form_token_is_refused(client: TestClient, db_url: str,
                                                                       story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    token = form_token(client.get(f"/beliefs/{story.refund}", headers=HTML).text)
    path, data = f"/beliefs/{story.refund}/correction/preview", {"statement": "Refunds go to the card."}
    foreign = client.post(path, data={**data, "form_token": token},
                          headers={**HTML, "Origin": "https://evil.example"})
    assert foreign.status_code == 403
    assert "a form posted from another site (https://evil.example) is refused" in foreign.text
    missing = client.post(path, data=data, headers=HTML)
    assert missing.status_code == 403 and "did not come from this session" in missing.text
    wrong = client.post(path, data={**data, "form_token": "0" * 40}, headers=HTML)
    assert wrong.status_code == 403
    ok = client.post(path, data={**data, "form_token": token}, headers={**HTML, "Origin": "http://testserver"})
    assert ok.status_code == 200 and "Preview at revision" in ok.text


def test_pages_and_the_json_api_share_paths_by_what_the_request_asks_for(client: TestClient, db_url: str,
                                                                         story: Story) -> None:
    made = api.create_token("default", "alice", url=db_url)
    as_json = client.get(f"/beliefs/{story.seven}", headers={"Authorization": f"Bearer {made.token}"})
    assert as_json.status_code == 200 and as_json.json()["belief"]["id"] == str(story.seven)
    # a browser's request without a token is sent to sign in; a script's gets the JSON 401
    assert client.get(f"/beliefs/{story.seven}", headers=HTML).status_code == 303
    assert client.get(f"/beliefs/{story.seven}").json()["error"] == "unauthenticated"
    sign_in(client, made.token)
    page = client.get(f"/beliefs/{story.seven}", headers=HTML)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert client.get("/runs", headers={**HTML, "Authorization": f"Bearer {made.token}"}).json() == []
    missing = client.get("/no-such-page", headers=HTML)
    assert missing.status_code == 404 and "<h1>Not found</h1>" in missing.text
    assert client.get("/no-such-page").json()["error"] == "not_found"
    assert "/beliefs/{belief}" in client.get("/openapi.json").json()["paths"]
    assert "/signin" not in client.get("/openapi.json").json()["paths"]


def test_an_unknown_id_in_a_pages_url_is_named_by_the_kind_the_url_asks_for(client: TestClient, db_url: str,
                                                                            story: Story) -> None:
    """/actions/nope said "unknown belief or decision or action nope": the kinds the picture takes, not the
    page asked for. Each page names its own kind, in the words the library and CLI use."""
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    for path, said in (("/actions/0000dead", "unknown action 0000dead"),
                       ("/decisions/0000dead", "unknown decision 0000dead"),
                       ("/beliefs/0000dead", "unknown belief 0000dead")):
        missing = client.get(path, headers=HTML)
        assert missing.status_code == 404 and "<h1>Not found</h1>" in missing.text, (path, missing.text)
        assert said in missing.text and "or decision" not in missing.text, (path, missing.text)
    # what is no id at all is bad input, as at every door (its kind named too)
    for path, said in (("/actions/nope", "action id nope is not an id"),
                       ("/decisions/nope", "decision id nope is not an id"),
                       ("/beliefs/nope", "belief id nope is not an id")):
        bad = client.get(path, headers=HTML)
        assert bad.status_code == 400 and said in bad.text and "or decision" not in bad.text, (path, bad.text)
    # what the id names, of another kind, is still said so
    wrong = client.get(f"/actions/{story.seven}", headers=HTML)
    assert wrong.status_code == 404 and f"{story.seven} is a belief, not an action" in wrong.text


def test_a_stale_correction_preview_shows_the_conflict_and_a_fresh_preview(client: TestClient, db_url: str,
                                                                           story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    token = form_token(client.get(f"/beliefs/{story.refund}", headers=HTML).text)
    fix = {"statement": "Refunds go to the original payment method.", "value": "original payment method",
           "form_token": token}
    preview = client.post(f"/beliefs/{story.refund}/correction/preview", data=fix, headers=HTML)
    seen = int(re.search(r'name="expected_revision" value="(\d+)"', preview.text).group(1))  # type: ignore[union-attr]
    with beliefdb.connect(db_url, principal="alice") as db:  # the belief changes meanwhile
        db.retract(source="return-policy.md", reason="checking")
        db.retract(source="return-policy.md", reason="", undo=True)
    stale = client.post(f"/beliefs/{story.refund}/correction", data={**fix, "expected_revision": str(seen)},
                        headers=HTML)
    assert stale.status_code == 409 and 'id="conflict"' in stale.text and "Nothing was written" in stale.text
    fresh = int(re.search(r'name="expected_revision" value="(\d+)"', stale.text).group(1))  # type: ignore[union-attr]
    assert fresh > seen
    done = client.post(f"/beliefs/{story.refund}/correction", data={**fix, "expected_revision": str(fresh)},
                       headers=HTML)
    assert done.status_code == 200 and "<h1>Corrected</h1>" in done.text, done.text
    with beliefdb.connect(db_url) as db:
        assert [b.status for b in db.beliefs(include_all=True) if b.id == story.refund] == ["superseded"]


def test_a_belief_superseded_since_the_preview_shows_the_conflict_and_a_fresh_preview(
        client: TestClient, db_url: str, story: Story) -> None:
    """A belief corrected over the API between a page's preview and its Apply was "Not understood" (400:
    "belief ... is superseded: correct the belief that replaced it instead"), where a changed revision shows
    the conflict: it is a conflict too (409), naming and linking the belief that replaced it, with a fresh
    preview of correcting that one, which applies."""
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    token = form_token(client.get(f"/beliefs/{story.refund}", headers=HTML).text)
    fix = {"statement": "Refunds go to the original payment method.", "value": "original payment method",
           "form_token": token}
    preview = client.post(f"/beliefs/{story.refund}/correction/preview", data=fix, headers=HTML)
    seen = int(re.search(r'name="expected_revision" value="(\d+)"', preview.text).group(1))  # type: ignore[union-attr]
    with beliefdb.connect(db_url, principal="alice") as db:  # meanwhile, corrected over the API
        meanwhile = db.apply_correction(story.refund, "Refunds go to store credit.", reviewer="alice",
                                        value="store credit",
                                        expect_revision=db.preview_correction(story.refund).revision)
    assert meanwhile.replacement is not None
    stale = client.post(f"/beliefs/{story.refund}/correction", data={**fix, "expected_revision": str(seen)},
                        headers=HTML)
    assert stale.status_code == 409 and 'id="conflict"' in stale.text and "Nothing was written" in stale.text, (
        stale.text)
    conflict = stale.text[stale.text.index('id="conflict"'):stale.text.index("</div>", stale.text.index(
        'id="conflict"'))]
    assert "superseded" in conflict and f'href="/beliefs/{meanwhile.replacement}"' in conflict, conflict
    assert "Refunds go to store credit." in conflict, conflict
    assert f'action="/beliefs/{meanwhile.replacement}/correction"' in stale.text, stale.text
    fresh = int(re.search(r'name="expected_revision" value="(\d+)"', stale.text).group(1))  # type: ignore[union-attr]
    done = client.post(f"/beliefs/{meanwhile.replacement}/correction",
                       data={**fix, "expected_revision": str(fresh)}, headers=HTML)
    assert done.status_code == 200 and "<h1>Corrected</h1>" in done.text, done.text
    with beliefdb.connect(db_url) as db:
        assert db.why(meanwhile.replacement).belief.status == "superseded"
        assert [b.value for b in db.beliefs() if b.subject == db.why(story.refund).belief.subject
                and b.attribute == db.why(story.refund).belief.attribute] == ["original payment method"]


def test_a_belief_superseded_twice_since_the_preview_offers_the_end_of_the_chain(
        client: TestClient, db_url: str, story: Story) -> None:
    """The conflict page previewed the belief's replacement, which was itself superseded since: that preview
    was refused, and the page was "Not understood" again. It follows the chain to the belief in force."""
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    token = form_token(client.get(f"/beliefs/{story.refund}", headers=HTML).text)
    fix = {"statement": "Refunds go to the original payment method.", "value": "original payment method",
           "form_token": token}
    preview = client.post(f"/beliefs/{story.refund}/correction/preview", data=fix, headers=HTML)
    seen = int(re.search(r'name="expected_revision" value="(\d+)"', preview.text).group(1))  # type: ignore[union-attr]
    with beliefdb.connect(db_url, principal="alice") as db:  # meanwhile, corrected twice over the API
        first = db.apply_correction(story.refund, "Refunds go to store credit.", reviewer="alice",
                                    value="store credit", expect_revision=db.preview_correction(story.refund).revision)
        assert first.replacement is not None
        second = db.apply_correction(first.replacement, "Refunds go to a gift card.", reviewer="alice",
                                     value="gift card",
                                     expect_revision=db.preview_correction(first.replacement).revision)
    stale = client.post(f"/beliefs/{story.refund}/correction", data={**fix, "expected_revision": str(seen)},
                        headers=HTML)
    assert stale.status_code == 409 and 'id="conflict"' in stale.text, stale.text
    assert f'action="/beliefs/{second.replacement}/correction"' in stale.text, stale.text


def test_a_change_page_names_what_it_touched_by_looking_up_those_nodes_only(
        client: TestClient, db_url: str, story: Story, monkeypatch: pytest.MonkeyPatch) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    token = form_token(client.get(f"/beliefs/{story.seven}", headers=HTML).text)

    # (listing a workspace's decisions, actions or beliefs is what a page of a large one must not do:
    # 25 s for 150,000 decisions)
    def listing(*_: object, **__: object) -> None:
        raise AssertionError("the page listed the workspace")
    for name in ("decisions", "actions", "beliefs"):
        monkeypatch.setattr(beliefdb.BeliefDB, name, listing)
    preview = client.post(f"/beliefs/{story.seven}/correction/preview", headers=HTML,
                          data={"statement": "Returns are accepted within 30 days.", "value": "30 days",
                                "form_token": token})
    assert preview.status_code == 200, preview.text
    assert "Refuse the return of order 1042 (day 10)" in preview.text and "Email the customer a refusal" in preview.text


def test_labels_names_the_beliefs_decisions_and_actions_asked_for_and_nothing_else(db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url) as db:
        unknown = uuid.uuid4()
        got = {(n.id, n.kind, n.label) for n in db.labels([story.seven, story.refuse, story.email, unknown,
                                                            story.refuse])}
        assert got == {(story.seven, "belief", db.why(story.seven).belief.statement),
                       (story.refuse, "decision", "Refuse the return of order 1042 (day 10)"),
                       (story.email, "action", "Email the customer a refusal")}
        assert db.labels([]) == []


def test_a_busy_workspace_is_a_503_page_with_retry_after(db_url: str, story: Story,
                                                          postgresql: psycopg.Connection[Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Another writer holds the workspace past BELIEFDB_LOCK_TIMEOUT: a person's retraction is the page
    saying so (503), with the Retry-After the JSON API's 503 workspace_busy carries; nothing was written."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as client:
        sign_in(client, api.create_token("default", "alice", url=db_url).token)
        page = client.get("/sources/retract?source=return-policy.md", headers=HTML)
        expected = re.search(r'name="expected" value="([0-9a-f]+)"', page.text)
        assert page.status_code == 200 and expected, page.text
        form = {"source": "return-policy.md", "reason": "checking", "expected": expected.group(1),
                "form_token": form_token(page.text)}
        postgresql.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                           " where w.name = 'default' for update of h")
        try:
            busy = client.post("/sources/retract", data=form, headers=HTML)
        finally:
            postgresql.rollback()
        assert busy.status_code == 503 and "Memory unavailable" in busy.text, busy.text
        assert busy.headers.get("Retry-After") == "1", busy.headers
    with beliefdb.connect(db_url) as db:
        assert [b.status for b in db.beliefs(include_all=True) if b.id == story.refund] == ["current"]


def test_the_impact_page_of_fixture_material_shows_it_labelled(client: TestClient, db_url: str,
                                                               story: Story) -> None:
    """The review queue links a proposed retraction of a fixture source to /impact (its dry run), which
    answered 400 "add include_fixtures=True", advice a page cannot follow: a retraction changes every
    world, so the page draws fixture material too, labelled, as the retract page does."""
    with beliefdb.connect(db_url, principal="alice") as alice:
        alice.ingest_text("Test discount: 50%\n", source="fixture.md", label="fixture")
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/impact", params={"ref": "fixture.md"}, headers=HTML)
    assert page.status_code == 200, page.text
    assert "fixture" in page.text and "include_fixtures" not in page.text
