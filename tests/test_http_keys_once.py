"""A JSON body names each key of an object once, anywhere in it. RFC 8259 only says a name SHOULD be unique,
and Python's reader keeps the last value silently: ``{"question": "a", "question": "b"}`` asked about
"b", a turn's ``speaker`` given twice stored the second, a step's payload ``{"a": {"b": 1, "b": 2}}``
stored 2, so a client's bug or a proxy's merge changed what was stored without anyone knowing (only a
``scope`` at POST /ask and POST /beliefs was refused: tests/test_scope_once.py). Every route that takes
a body reads it with one reader that refuses such an object, 400 ``invalid_input`` naming the key by its
place in the body as every other field is named (``turns.1.speaker``), after the token (401) and a write
permission the route always needs (403), as every other problem of a body."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from serving import bearer, refused

JSON = {"Content-Type": "application/json"}


def _body_routes() -> list[tuple[str, str, APIRoute]]:
    """Each route of the HTTP API that takes a body: its method, a path to it, the route."""
    from beliefdb.interfaces.http import conversations_router, forget_router, jobs_router, router

    routes = [r for each in (router, jobs_router, conversations_router, forget_router) for r in each.routes
              if isinstance(r, APIRoute) and r.body_field is not None]
    assert len(routes) >= 18, [r.path for r in routes]
    return [(method, re.sub(r"\{[^}]+\}", "00000000", r.path), r) for r in routes for method in r.methods]


def test_every_body_refuses_a_key_given_twice(http_client: TestClient, db_url: str) -> None:
    """At every route, a key it does not even take: the key twice is said first (no field of it is read)."""
    headers = {**bearer(db_url), **JSON}
    for method, path, _ in _body_routes():
        said = refused(http_client.request(method, path, content='{"zz": 1, "zz": 2}', headers=headers),
                       400, "invalid_input")
        assert said.startswith("zz: given twice in one object: give it once"), (path, said)


def test_a_key_twice_at_the_top_of_a_body_is_refused_and_nothing_is_stored(http_client: TestClient,
                                                                          db_url: str) -> None:
    headers = {**bearer(db_url), **JSON}
    said = refused(http_client.post("/ask", content='{"question": "a", "k": 3, "question": "b"}', headers=headers),
                   400, "invalid_input")
    assert said.startswith("question: given twice in one object"), said
    text = ('{"source": "policy", "text": "The return window is 30 days.",'
            ' "text": "The return window is 90 days."}')
    said = refused(http_client.post("/sources", content=text, headers=headers), 400, "invalid_input")
    assert said.startswith("text: given twice"), said
    decision = '{"title": "Refuse it", "because": ["a"], "because": ["b"]}'
    said = refused(http_client.post("/decisions", content=decision, headers=headers), 400, "invalid_input")
    assert said.startswith("because: given twice"), said
    assert http_client.get("/beliefs", headers=headers).json() == []
    assert http_client.get("/decisions", headers=headers).json() == []


@pytest.mark.parametrize(("path", "body", "where"), [
    ("/conversations", '{"source": "chat", "turns": [{"speaker": "Maya", "text": "Hi."},'
                       ' {"speaker": "Maya", "text": "I live in Lisbon.", "speaker": "Ana"}]}', "turns.1.speaker"),
    ("/jobs", '{"source": "chat", "turns": [{"speaker": "Maya", "text": "Hi.", "time": null, "time": null}]}',
     "turns.0.time"),
    ("/steps", '{"kind": "tool_call", "payload": {"a": {"b": 1, "c": [{"d": 1}, {"e": 1, "e": 2}]}}}',
     "payload.a.c.1.e"),
    ("/steps", '{"kind": "tool_call", "payload": {"a": {"b": 1, "b": 2}}}', "payload.a.b"),
    ("/ask", '{"question": "q", "scope": {"regi\\u006fn": "EU", "region": "US"}}', "scope.region"),
    # (a key no terminal prints as is, in JSON's escapes: the message stays one line)
    ("/steps", '{"kind": "plan", "payload": {"a\\nb": 1, "a\\nb": 2}}', 'payload."a\\nb"'),
])
def test_a_key_twice_inside_a_body_is_named_by_its_place(http_client: TestClient, db_url: str, path: str,
                                                          body: str, where: str) -> None:
    said = refused(http_client.post(path, content=body, headers={**bearer(db_url), **JSON}), 400, "invalid_input")
    assert said.startswith(f"{where}: given twice in one object: give it once"), said


def test_each_key_given_more_than_once_is_named(http_client: TestClient, db_url: str) -> None:
    body = '{"kind": "plan", "task": "a", "payload": {"x": 1, "x": 2, "x": 3}, "task": "b"}'
    said = refused(http_client.post("/steps", content=body, headers={**bearer(db_url), **JSON}), 400, "invalid_input")
    assert said.startswith("task: given twice in one object: give it once"), said
    assert "; payload.x: given 3 times in one object: give it once" in said, said
    assert http_client.get("/runs", headers=bearer(db_url)).json() == []


def test_the_same_key_in_other_objects_or_spelt_otherwise_is_no_repeat(http_client: TestClient, db_url: str) -> None:
    headers = {**bearer(db_url), **JSON}
    body = json.dumps({"kind": "plan", "payload": {"x": {"x": 1}, "y": [{"x": 1}, {"x": 2}], "X": 3}})
    answer = http_client.post("/steps", content=body.replace('"X"', '"x "'), headers=headers)
    assert answer.status_code == 200, answer.text
    asked = http_client.post("/ask", content='{"question": "q", "scope": {"region": "EU", "Region": "US"}}',
                             headers=headers)
    assert asked.status_code == 200, asked.text


def test_the_token_is_checked_before_the_body(http_client: TestClient) -> None:
    for headers in (JSON, {**JSON, "Authorization": "Bearer bogus"}):
        for method, path, _ in _body_routes():
            answer = http_client.request(method, path, content='{"zz": 1, "zz": 2}', headers=headers)
            assert answer.status_code == 401, (path, headers, answer.text)


def test_a_read_only_token_is_refused_before_the_body_where_the_route_always_writes(http_client: TestClient,
                                                                                     db_url: str) -> None:
    headers = {**bearer(db_url, read_only=True), **JSON}
    for path in ("/beliefs", "/decisions", "/actions", "/outcomes", "/corrections", "/steps", "/jobs",
                 "/jobs/retry", "/jobs/cancel", "/review-items/00000000", "/conversations/chat/turns"):
        refused(http_client.post(path, content='{"zz": 1, "zz": 2}', headers=headers), 403, "read_only_token")


def test_a_key_twice_deep_inside_a_body_is_found(http_client: TestClient, db_url: str) -> None:
    """As deep as the reader reads (the walk that names the place is no recursion)."""
    deep = '{"a": ' * 600 + '{"b": 1, "b": 2}' + "}" * 600
    said = refused(http_client.post("/steps", content='{"kind": "plan", "payload": ' + deep + "}",
                                    headers={**bearer(db_url), **JSON}), 400, "invalid_input")
    # (a place that long is said by its start, as any word of 10 kB in a message)
    assert said.startswith("payload.a.a.a.") and said.endswith(" given twice in one object: give it once"), said
