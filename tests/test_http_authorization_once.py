"""A request carrying two ``Authorization`` headers acted as the first one's token, the other dropped
silently (a user trial): a client's bug or a proxy's merge would act as a principal nobody chose, as a
query parameter or a body's key given twice would store one value of two, which the API refuses. It is
refused the same way, 400 in one line, before anything else: before its token is looked up (a valid one
first is not served, an unknown one first is not 401), before its body is read, at every resource and at
``/mcp``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from test_robustness_input import row_counts

from beliefdb import api
from beliefdb.interfaces.http import create_app

TWICE = ("Authorization: given twice (2 headers): give it once (it names whom the request acts as, and one of them"
         " would be kept silently)")


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, mcp=True)) as c:
        yield c


def chunks(taken: list[int]) -> Iterator[bytes]:
    """A body of ten chunks, counting those the server took."""
    yield b'{"source": "a.md", "text": "'
    for _ in range(10):
        taken.append(1)
        yield b"The restocking fee is 10%. "
    yield b'"}'


def test_two_authorization_headers_are_refused_before_anything_else(client: TestClient, db_url: str) -> None:
    token = api.create_token("default", "alice", url=db_url).token
    before = row_counts(db_url)
    for first, second in ((token, "bdb_unknown"), ("bdb_unknown", token), (token, token)):
        headers = [("Authorization", f"Bearer {first}"), ("Authorization", f"Bearer {second}")]
        for method, path in (("GET", "/whoami"), ("GET", "/beliefs"), ("HEAD", "/beliefs"), ("GET", "/nowhere"),
                             ("GET", "/mcp")):
            response = client.request(method, path, headers=headers)
            assert response.status_code == 400, (method, path, response.text)
            if method != "HEAD":
                assert response.json() == {"error": "invalid_input", "message": TWICE}, (path, response.text)
        for path in ("/sources", "/mcp", "/ask"):
            taken: list[int] = []
            response = client.post(path, content=chunks(taken), headers=[*headers, ("Content-Type",
                                                                                    "application/json")])
            assert (response.status_code, response.json()) == (400, {"error": "invalid_input", "message": TWICE})
            assert taken == [], path  # (its body unread)
    three = [("Authorization", f"Bearer {token}")] * 3
    said = client.get("/whoami", headers=three).json()["message"]
    assert said.startswith("Authorization: given 3 times (3 headers): give it once"), said
    assert row_counts(db_url) == before
    # one header is served as before
    assert client.get("/whoami", headers={"Authorization": f"Bearer {token}"}).json()["principal"] == "alice"
