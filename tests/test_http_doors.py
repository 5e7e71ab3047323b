"""What an agent meets at the HTTP API's edges, besides its resources: the status codes' own headers and
the OpenAPI document's account of every answer a route can give."""

from __future__ import annotations

from fastapi.testclient import TestClient
from serving import bearer, refused


def test_a_method_a_resource_does_not_take_says_which_it_takes(http_client: TestClient, db_url: str) -> None:
    """405 must name the methods the resource allows (RFC 9110, Allow): the error handler answered the
    error shape and dropped the header, so a client learnt only that DELETE /beliefs was wrong (and
    Starlette's own header named the methods of the path's first route only: POST, not GET)."""
    answer = http_client.delete("/beliefs", headers=bearer(db_url))
    refused(answer, 405, "method_not_allowed")
    assert sorted(m.strip() for m in answer.headers["allow"].split(",")) == ["GET", "HEAD", "POST"], answer.headers
    answer = http_client.get("/jobs/retry", headers=bearer(db_url))
    refused(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == "POST", answer.headers


def test_the_openapi_document_names_every_status_a_route_answers(http_client: TestClient) -> None:
    """A body over its limit is refused with 413 (README), and a busy workspace's 503 says when to try again
    (Retry-After): the OpenAPI document named neither, so a generated client had no type for the one and
    no word of the other."""
    spec = http_client.get("/openapi.json").json()
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert ("413" in responses) == ("requestBody" in operation), (method, path, sorted(responses))
            if "413" in responses:
                assert responses["413"]["content"]["application/json"]["schema"] == \
                    responses["400"]["content"]["application/json"]["schema"], (method, path)
            if "503" in responses:
                said = responses["503"].get("headers", {}).get("Retry-After", {}).get("description", "")
                for code in ("workspace_busy", "database_unavailable", "extractor_unavailable"):
                    assert code in said, (method, path, said)
    limits = spec["paths"]["/ask"]["post"]["responses"]["413"]["description"]
    assert "1 MiB" in limits, limits
    assert "BELIEFDB_INGEST_MAX_BYTES" in spec["paths"]["/sources"]["post"]["responses"]["413"]["description"]


def test_a_json_body_sent_as_another_type_is_told_to_say_json(http_client: TestClient, db_url: str) -> None:
    """curl -d sends a form's type: a JSON object sent so was answered "the request body must be a JSON
    object", which it was; the answer names the Content-Type to send, and the one it came with."""
    body = b'{"question": "how many days for returns?"}'
    for sent, said in (({"Content-Type": "application/x-www-form-urlencoded"}, "application/x-www-form-urlencoded"),
                       ({"Content-Type": "text/plain"}, "text/plain"), ({}, "none")):
        message = refused(http_client.post("/ask", content=body, headers={**bearer(db_url), **sent}), 400,
                          "invalid_input")
        assert "Content-Type: application/json" in message and said in message, message
    # a JSON type is JSON, and a body that is JSON but no object is still told so
    assert http_client.post("/ask", content=body, headers={**bearer(db_url), "Content-Type":
                                                           "application/json; charset=utf-8"}).status_code == 200
    assert refused(http_client.post("/ask", json=[1], headers=bearer(db_url)), 400, "invalid_input") == \
        "the request body must be a JSON object"


def test_an_unknown_resource_or_method_is_named_with_where_to_look(http_client: TestClient, db_url: str) -> None:
    """An agent that guessed a path (GET /belief) or a method was told "Not Found" or "Method Not
    Allowed", Starlette's words: now which request was wrong and where the resources are listed."""
    said = refused(http_client.get("/belief", headers=bearer(db_url)), 404, "not_found")
    assert said == "no resource at GET /belief: the HTTP API's resources are listed at /openapi.json", said
    said = refused(http_client.delete("/beliefs", headers=bearer(db_url)), 405, "method_not_allowed")
    assert said == "/beliefs does not take DELETE: it takes GET, HEAD, POST", said


def test_the_link_to_the_next_page_holds_behind_a_proxy(http_client: TestClient, db_url: str) -> None:
    """The Link header named the next page by the address the server saw: behind the README's nginx
    (proxy_pass http://127.0.0.1:8765, TLS ended there) that is http://127.0.0.1:8765/..., which the
    agent outside cannot reach. It is a relative reference now (RFC 8288), resolved against the URL the
    agent asked."""
    alice = bearer(db_url)
    policy = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
    http_client.post("/sources", headers=alice, json={"source": "p.md", "text": policy})
    for i in range(2):
        http_client.post("/steps", headers=alice, json={"kind": "user_input", "task": f"task {i}"})
        http_client.post("/jobs", headers=alice, json={"source": f"doc-{i}.md", "text": "The fee is 10%.\n"})
    proxied = {**alice, "Host": "127.0.0.1:8765"}  # (what nginx's proxy_pass sends by default)
    for path in ("/beliefs?limit=1", "/runs?limit=1", "/jobs?limit=1"):
        link = http_client.get(path, headers=proxied).headers["link"]
        assert link.startswith("</") and link.endswith('>; rel="next"') and "127.0.0.1" not in link, (path, link)
        following = http_client.get(link[1:link.index(">")], headers=alice)
        assert following.status_code == 200 and len(following.json()) == 1, following.text


def test_head_is_answered_wherever_get_is(http_client: TestClient, db_url: str) -> None:
    """Every general-purpose server must take HEAD where it takes GET (RFC 9110, 9.1): HEAD /beliefs was
    405, and its message said the resource takes GET. It answers GET's status and headers, no body."""
    alice = bearer(db_url)
    answer = http_client.head("/beliefs", headers=alice)
    assert (answer.status_code, answer.content) == (200, b""), answer.text
    assert answer.headers["content-type"] == "application/json"
    assert int(answer.headers["content-length"]) == len(http_client.get("/beliefs", headers=alice).content)
    unauthenticated = http_client.head("/whoami")
    assert (unauthenticated.status_code, unauthenticated.content) == (401, b"")
    assert unauthenticated.headers["www-authenticate"] == "Bearer"
    refused_head = http_client.head("/jobs/retry", headers=alice)
    assert (refused_head.status_code, refused_head.headers["allow"]) == (405, "POST")
    assert http_client.delete("/beliefs", headers=alice).headers["allow"] == "GET, HEAD, POST"


def test_a_body_json_cannot_read_says_why(http_client: TestClient, db_url: str) -> None:
    """A body that is no UTF-8 (a Latin-1 é) or nests deeper than Python's JSON reader goes was answered
    FastAPI's "There was an error parsing the body", saying neither what nor where, and before the token
    was looked at: a caller without a valid one got it too, where every other bad request is 401 first."""
    json_type = {"Content-Type": "application/json"}
    latin1, deep = b'{"question": "caf\xe9?"}', b"[" * 5000 + b"]" * 5000
    message = refused(http_client.post("/ask", content=latin1, headers={**bearer(db_url), **json_type}), 400,
                      "invalid_input")
    assert message.startswith("the request body is not valid JSON") and "UTF-8" in message, message
    assert "byte 17" in message, message  # (where: the é, counted from 0)
    message = refused(http_client.post("/steps", content=deep, headers={**bearer(db_url), **json_type}), 400,
                      "invalid_input")
    assert message.startswith("the request body is not valid JSON") and "deep" in message, message
    for headers in ({}, {"Authorization": "Bearer bdb_nope"}):
        for body in (latin1, deep):
            refused(http_client.post("/ask", content=body, headers={**headers, **json_type}), 401, "unauthenticated")


def test_a_query_parameter_a_resource_does_not_take_is_named(http_client: TestClient, db_url: str) -> None:
    """A body's unknown field is refused ("not one of the fields this request takes"), and so is an MCP
    tool's unknown argument; a query's was dropped: GET /beliefs?subjet=return_policy (a typo) answered
    every belief of the workspace, GET /jobs?state=failed every job, as if unfiltered. It is bad input
    naming the parameter and those the resource takes (after the token: 401 without a valid one)."""
    auth = bearer(db_url)
    message = refused(http_client.get("/beliefs", params={"subjet": "return_policy"}, headers=auth), 400,
                      "invalid_input")
    assert message.startswith("subjet: not one of the parameters") and "subject" in message, message
    message = refused(http_client.get("/jobs", params={"state": "failed", "limit": 5}, headers=auth), 400,
                      "invalid_input")
    assert message.startswith("state: ") and "status" in message, message
    message = refused(http_client.get("/whoami", params={"workspace": "other"}, headers=auth), 400,
                      "invalid_input")
    assert message.startswith("workspace: ") and "takes none" in message, message
    head = http_client.head("/beliefs", params={"subjet": "x"}, headers=auth)
    assert head.status_code == 400, head.status_code
    refused(http_client.get("/beliefs", params={"subjet": "x"}), 401, "unauthenticated")
    # the parameters a resource takes, as before (its dependencies' too)
    assert http_client.get("/beliefs", params={"subject": "x", "limit": 5}, headers=auth).json() == []
    assert http_client.get("/jobs", params={"status": "failed"}, headers=auth).json() == []
    assert http_client.get("/review-items", params={"limit": 1}, headers=auth).status_code == 200
