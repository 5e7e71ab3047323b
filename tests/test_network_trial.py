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


def test_a_query_parameter_given_twice_is_400_naming_it(http_client: TestClient, db_url: str) -> None:
    """``?limit=1&limit=2`` answered with one of them, silently: which one, the caller could not tell."""
    headers = bearer(db_url)
    for path, query in (("/beliefs", "limit=1&limit=2"), ("/beliefs", "subject=a&subject=b"),
                        ("/decisions", "status=active&status=active"), ("/jobs", "limit=1&limit=1")):
        said = refused(http_client.get(f"{path}?{query}", headers=headers), 400, "invalid_input")
        name = query.split("=")[0]
        assert said.startswith(f"{name}: given twice"), (path, said)
    said = refused(http_client.get("/beliefs?limit=1&limit=2&subject=a&subject=b", headers=headers), 400,
                   "invalid_input")
    assert "limit: given twice" in said and "subject: given twice" in said, said
    assert http_client.get("/beliefs?limit=1&subject=a", headers=headers).status_code == 200
