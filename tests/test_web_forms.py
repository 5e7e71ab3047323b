"""The product view's forms, sent with what a person (or a hand-made request) may leave out: each is the
page that says what to fill in (400), as the preview pages before them say it, and nothing is written."""

from __future__ import annotations

import web_pages
from fastapi.testclient import TestClient
from product_story import Story
from pytest_postgresql import factories
from web_pages import HTML, sign_in, text_of

import beliefdb
from beliefdb import api
from beliefdb.interfaces.web import session

#: the app under a test client, and the story before v3.3 (shared with test_web)
client, story = web_pages.client, web_pages.story
# every test here starts from the story before v3.3: each clones it from a template that holds it
forms_story_proc = web_pages.story_proc()
postgresql = factories.postgresql("forms_story_proc")


def test_a_retraction_form_without_a_source_asks_for_one(client: TestClient, db_url: str, story: Story) -> None:
    """The preview (GET) said 400 "name the source to retract"; the form's POST looked the blank name up and
    answered 404 "nothing to retract: source  is unknown", as if a source named "" had been asked for."""
    token = api.create_token("default", "alice", url=db_url).token
    sign_in(client, token)
    with beliefdb.connect(db_url) as db:
        before = [(b.id, b.status) for b in db.beliefs(include_all=True)]
    assert before  # the story's beliefs: what a retraction would have changed
    for blank in ("", "   "):
        page = client.post("/sources/retract", headers=HTML, data={
            "source": blank, "reason": "wrong", "expected": "0" * 16, "form_token": session.form_token(token)})
        assert page.status_code == 400, (blank, page.status_code, text_of(page.text))
        assert "name the source to retract" in text_of(page.text)
    with beliefdb.connect(db_url) as db:
        assert [(b.id, b.status) for b in db.beliefs(include_all=True)] == before
