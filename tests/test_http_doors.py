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
    assert sorted(m.strip() for m in answer.headers["allow"].split(",")) == ["GET", "POST"], answer.headers
    answer = http_client.get("/jobs/retry", headers=bearer(db_url))
    refused(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == "POST", answer.headers
