"""A request with no credentials at all (no bearer token, no product-view session cookie) that carries a
body is answered 401 before its body is read. FastAPI reads a route's body before its token dependency:
against ``beliefdb serve``, a POST /sources without a token declaring 100 MB got no answer while the
server waited for the body, and a 120 MB one raised its memory from 105 MB to 223 MB. Only the sign-in
form takes a body from a caller not signed in (its token is the body), and a body there is capped at
1 MiB (:class:`beliefdb.interfaces.http.BodyLimit`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from beliefdb import api
from beliefdb.interfaces.http import create_app

#: what a call without a token is told (the routes' own 401, and /mcp's)
NO_TOKEN = {"error": "unauthenticated", "message": "a valid bearer token is required (beliefdb token create)"}


class Body:
    """A request body sent a chunk at a time, counting the chunks the server took."""

    def __init__(self, chunk: bytes, chunks: int) -> None:
        self.chunk, self.chunks, self.taken = chunk, chunks, 0

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(self.chunks):
            self.taken += 1
            yield self.chunk

    @property
    def size(self) -> int:
        return len(self.chunk) * self.chunks


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, mcp=True)) as c:
        yield c


@pytest.mark.parametrize("path", ["/sources", "/ask", "/steps", "/mcp", "/nowhere"])
@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_body_without_credentials_is_refused_before_it_is_read(client: TestClient, path: str,
                                                                 declared: bool) -> None:
    body = Body(b"a" * 2 ** 16, 160)  # 10 MiB: under the text routes' limit
    headers = {"Content-Type": "application/json", **({"Content-Length": str(body.size)} if declared else {})}
    response = client.post(path, content=iter(body), headers=headers)
    assert (response.status_code, response.json()) == (401, NO_TOKEN)
    assert response.headers["WWW-Authenticate"] == "Bearer"
    assert body.taken == 0


def test_a_body_with_a_token_of_any_kind_is_read_and_the_token_judged(client: TestClient, db_url: str) -> None:
    """A bearer token is looked at after the body as before: a valid one is served; an unknown one is 401
    from the route (the rule is about requests with no credentials at all)."""
    token = api.create_token("default", "alice", url=db_url).token
    for bearer, status in ((token, 200), ("bdb_unknown", 401)):
        body = Body(b'{"question": "return window?"}', 1)
        response = client.post("/ask", content=iter(body), headers={"Authorization": f"Bearer {bearer}",
                                                                      "Content-Type": "application/json"})
        assert response.status_code == status, response.text
        assert body.taken == 1
    # a scheme other than Bearer is no credential: refused before the body
    body = Body(b'{"question": "return window?"}', 1)
    response = client.post("/ask", content=iter(body), headers={"Authorization": f"Basic {token}",
                                                                  "Content-Type": "application/json"})
    assert (response.status_code, response.json(), body.taken) == (401, NO_TOKEN, 0)


def test_a_request_without_a_body_is_answered_as_before(client: TestClient) -> None:
    assert client.post("/ask", headers={"Content-Length": "0"}).json() == NO_TOKEN
    assert client.get("/beliefs").status_code == 401
    assert client.get("/health").json() == {"status": "ok"}


def test_the_product_view_signs_in_with_a_body_and_a_form_without_a_session_is_not_read(
        client: TestClient, db_url: str) -> None:
    """The sign-in form is the one body a caller not signed in sends: read (and capped at 1 MiB). A form
    posted without a session cookie is sent to sign in, as before, its body unread; with the cookie it is
    read."""
    token = api.create_token("default", "alice", url=db_url).token
    page = {"Accept": "text/html", "Content-Type": "application/x-www-form-urlencoded"}
    body = Body(b"form_token=x&statement=y", 1)
    response = client.post("/beliefs/0000aaaa/correction", content=iter(body), headers=page, follow_redirects=False)
    assert (response.status_code, response.headers["location"], body.taken) == (
        303, "/signin?next=/beliefs/0000aaaa/correction", 0)
    big = Body(b"a" * 2 ** 16, 17)  # over 1 MiB
    response = client.post("/signin", content=iter(big), headers=page)
    assert response.status_code == 413 and big.taken > 0
    signin = Body(f"token={token}&next=/".encode(), 1)
    response = client.post("/signin", content=iter(signin), headers=page, follow_redirects=False)
    assert (response.status_code, response.headers["location"], signin.taken) == (303, "/", 1)
    assert client.cookies.get("beliefdb_token") == token
    # signed in: a form's body is read (and its form token judged: 403, not the sign-in page)
    body = Body(b"form_token=x&statement=y", 1)
    response = client.post("/beliefs/0000aaaa/correction", content=iter(body), headers=page, follow_redirects=False)
    assert response.status_code == 403 and body.taken == 1
