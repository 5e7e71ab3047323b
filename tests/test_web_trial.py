"""What a support lead reviewing the agents' memory in the browser found the pages leaving out or
getting wrong, each checked against what :class:`BeliefDB` (and so the CLI and the JSON API) answers
for the same thing: a belief's retractions, an approval's consequences, what would stop being current."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from product_story import Story, before_v33, forum_post, publish_v33
from test_web import HTML, sign_in

import beliefdb
from beliefdb import api
from beliefdb.interfaces.http import create_app


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as c:
        yield c


@pytest.fixture
def story(db_url: str) -> Iterator[Story]:
    with beliefdb.connect(db_url, principal="alice") as db:
        yield before_v33(db)


def text_of(html: str) -> str:
    """The page's words: no tags, whitespace folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'").replace("&amp;", "&")


def test_the_belief_page_says_when_and_why_its_evidence_was_retracted(client: TestClient, db_url: str,
                                                                      story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        forum_post(db)
        (shipping,) = db.beliefs(subject="return", attribute="shipping")
        db.retract(source="forum-post.txt", reason="poisoned forum post")
        (retraction,) = db.why(shipping.id).retractions
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = text_of(client.get(f"/beliefs/{shipping.id}", headers=HTML).text)
    assert "Status: unsupported" in page
    # why it is unsupported: the CLI's 'source forum-post.txt retracted at ... — poisoned forum post'
    assert (f"source forum-post.txt retracted {retraction.retracted_at:%Y-%m-%d %H:%M:%S} UTC"
            " — poisoned forum post") in page
    # an already retracted source is not offered for retraction again
    assert "Retract forum-post.txt…" not in page
