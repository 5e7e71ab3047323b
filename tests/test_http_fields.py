"""A body's field that the resource does not take is named with the fields it takes, never dropped nor
hidden (README): POST /ask {"when": ...} said "when: not one of the fields this request takes" without
the fields (the MCP tool ``ask`` lists them), and POST /corrections {"zzz": 1} named three missing
fields, then "and 1 more", never ``zzz``. The unknown fields come first, with what the body (or the
object inside it, a turn of POST /jobs) takes, then each other problem."""

from __future__ import annotations

import re

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from serving import bearer, refused

SAID = "not one of the fields this request takes"


def test_an_unknown_field_of_ask_is_named_with_those_ask_takes(http_client: TestClient, db_url: str) -> None:
    said = refused(http_client.post("/ask", json={"question": "x", "when": "now"}, headers=bearer(db_url)),
                   400, "invalid_input")
    assert said == f"when: {SAID} (question, k, as_of, scope, min_confidence, include_fixtures, run, subjects)", said


def test_an_unknown_field_is_named_first_and_no_field_is_left_out(http_client: TestClient, db_url: str) -> None:
    said = refused(http_client.post("/corrections", json={"zzz": 1}, headers=bearer(db_url)), 400, "invalid_input")
    assert said == (f"zzz: {SAID} (belief, statement, expected_revision, value, reason, idempotency_key);"
                    " belief: missing (it is required); statement: missing (it is required);"
                    " expected_revision: missing (it is required)"), said


def test_an_unknown_field_with_a_line_break_in_its_name_is_named_on_one_line(http_client: TestClient,
                                                                            db_url: str) -> None:
    said = refused(http_client.post("/ask", json={"question": "x", "wh\nen\t": "now"}, headers=bearer(db_url)),
                   400, "invalid_input")
    assert said.startswith(f'"wh\\nen\\t": {SAID} ('), said


def test_unknown_fields_are_named_together_and_every_problem_is_said(http_client: TestClient, db_url: str) -> None:
    body = {"belief": "", "statement": "", "expected_revision": "x", "value": 1, "reason": 2, "b": 1, "a": 2}
    said = refused(http_client.post("/corrections", json=body, headers=bearer(db_url)), 400, "invalid_input")
    assert said.startswith(f"b, a: {SAID} (belief, statement, expected_revision, value, reason, idempotency_key); ")
    for field in ("belief", "statement", "expected_revision", "value", "reason"):
        assert f"; {field}: " in said, said
    assert "more" not in said, said


def test_an_unknown_field_inside_the_body_is_named_with_those_its_object_takes(http_client: TestClient,
                                                                              db_url: str) -> None:
    turn = {"speaker": "Maya", "text": "I live in Lisbon.", "mood": "ok"}
    said = refused(http_client.post("/jobs", json={"source": "c", "turns": [turn]}, headers=bearer(db_url)),
                   400, "invalid_input")
    assert said == f"turns.0.mood: {SAID} (speaker, text, time)", said


def test_every_body_names_an_unknown_field_with_the_fields_it_takes(http_client: TestClient, db_url: str) -> None:
    from beliefdb.interfaces.http import conversations_router, forget_router, jobs_router, router

    routes = [r for each in (router, jobs_router, conversations_router, forget_router) for r in each.routes
              if isinstance(r, APIRoute) and r.body_field is not None]
    assert len(routes) >= 10, routes
    for route in routes:
        model = route.body_field.field_info.annotation  # type: ignore[union-attr]
        takes = ", ".join(f.alias or name for name, f in model.model_fields.items())
        path = re.sub(r"\{[^}]+\}", "00000000", route.path)
        for method in route.methods:
            said = refused(http_client.request(method, path, json={"colour": "red"}, headers=bearer(db_url)),
                           400, "invalid_input")
            assert said.startswith(f"colour: {SAID} ({takes})"), (route.path, said)
            assert "more" not in said, said
