"""What a user trial of the HTTP API found at its edges: a path with a trailing slash redirected (307, to
the server's own internal address, with no JSON), a body over the limit was called ``invalid_input``, and a
query parameter given twice was dropped silently (the README says parameters are never dropped)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from serving import bearer, refused


def test_a_path_with_a_trailing_slash_is_404_json_not_a_redirect(http_client: TestClient, db_url: str) -> None:
    headers = bearer(db_url)
    for method, path in (("GET", "/beliefs/"), ("POST", "/ask/"), ("GET", "/whoami/"), ("GET", "/decisions/")):
        answer = http_client.request(method, path, headers=headers, follow_redirects=False,
                                     json={"question": "x"} if method == "POST" else None)
        said = refused(answer, 404, "not_found")
        assert "location" not in answer.headers and path in said, (path, said)
    assert http_client.get("/whoami", headers=headers).status_code == 200
