"""What the product view's tests share: the app under a test client, the return-policy story before
v3.3 (``product_story``), signing in with a token, the form token a page carries, and a page's words."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from product_story import Story, before_v33

import beliefdb
from beliefdb.interfaces.http import create_app

HTML = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as c:
        yield c


@pytest.fixture
def story(db_url: str) -> Iterator[Story]:
    with beliefdb.connect(db_url, principal="alice") as db:
        yield before_v33(db)


def sign_in(client: TestClient, token: str) -> None:
    response = client.post("/signin", data={"token": token, "next": "/review"}, headers=HTML)
    assert response.status_code == 303 and response.headers["location"] == "/review", response.text


def form_token(html: str) -> str:
    found = re.search(r'name="form_token" value="([0-9a-f]+)"', html)
    assert found, "the page has no form"
    return found.group(1)


def text_of(html: str) -> str:
    """The page's words: no tags, whitespace folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'").replace("&amp;", "&")
