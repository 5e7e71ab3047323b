"""What the product view's tests share: the app under a test client, the return-policy story before
v3.3 (``product_story``, written once per module into a template that each test clones), signing in
with a token, the form token a page carries, and a page's words."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from conftest import SEEDS, seeded_proc, url_of
from fastapi.testclient import TestClient
from product_story import Story, before_v33
from pytest_postgresql.executors import NoopExecutor

import beliefdb
from beliefdb.interfaces.http import create_app

HTML = {"Accept": "text/html,application/xhtml+xml"}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as c:
        yield c


def _write_story(url: str) -> Story:
    with beliefdb.connect(url, principal="alice") as db:
        return before_v33(db)


def story_proc() -> Callable[..., Iterator[NoopExecutor]]:
    """A process fixture whose template holds the story before v3.3, written once: a module of story tests
    gives it a name of its own (``lead_story_proc = story_proc()``) and sets ``postgresql =
    factories.postgresql("lead_story_proc")``; each of its tests gets a clone."""
    return seeded_proc(_write_story)


@pytest.fixture
def story(postgresql: psycopg.Connection[Any]) -> Iterator[Story]:
    """The story before v3.3 in this test's database (cloned from its module's template), with alice's
    session open on it as when the test wrote the story itself."""
    with beliefdb.connect(url_of(postgresql), principal="alice"):
        yield SEEDS[postgresql.info.dbname]


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
