"""A user trial: ``GET /beliefs?subject=`` (empty) answered 200 ``[]``, as if no belief had that subject,
while every other parameter given empty is refused with 400. An empty or blank (spaces only) subject or
attribute names nothing: it is refused at the library's door, so in the same words over HTTP, MCP and the
library; so is a blank source or subject to retract or forget (they were 404, "source   is unknown")."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from serving import bearer, tool_answer

import beliefdb
from beliefdb import errors

POLICY = "The restocking fee is 10%."


def tool(bdb: beliefdb.BeliefDB, name: str, arguments: dict[str, Any]) -> Any:
    """The tool error of calling ``name`` (in-memory, as stdio's tools act)."""
    return tool_answer(bdb, name, arguments, error=True)


def test_an_empty_or_blank_filter_of_beliefs_is_refused(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                        db_url: str) -> None:
    bdb.ingest_text(POLICY, source="policy.md")
    for name in ("subject", "attribute"):
        for value, said in (("", "is empty"), (" ", "is blank (' ')"), ("\t ", "is blank ('\\t ')")):
            response = http_client.get("/beliefs", params={name: value}, headers=bearer(db_url))
            expected = f"{name} {said}: it names no {name}"
            assert (response.status_code, response.json()) == (400, {"error": "invalid_input", "message": expected})
            assert tool(bdb, "beliefs", {name: value}) == {"error": "invalid_input", "message": expected}
            with pytest.raises(errors.InvalidInput) as library:
                bdb.beliefs(**{name: value})
            assert library.value.message == f"{name}= {said}: it names no {name}"
    # a subject given is served as before
    listed = http_client.get("/beliefs", params={"subject": "restocking_policy"}, headers=bearer(db_url)).json()
    assert [b["value"] for b in listed] == ["10%"]


def test_a_blank_source_or_subject_to_retract_or_forget_is_refused(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                   db_url: str) -> None:
    bdb.ingest_text(POLICY, source="policy.md")
    for path, body, name in (("/retractions", {"source": "", "preview": True}, "source"),
                             ("/retractions", {"source": "  ", "reason": "wrong"}, "source"),
                             ("/forget", {"subject": " ", "preview": True}, "subject"),
                             ("/forget", {"source": " ", "preview": True}, "source")):
        response = http_client.post(path, json=body, headers=bearer(db_url))
        said = response.json()
        assert (response.status_code, said["error"]) == (400, "invalid_input"), (path, body, said)
        assert said["message"].startswith(f"{name} is ") and said["message"].endswith(f": it names no {name}"), said
    assert [b.value for b in bdb.beliefs()] == ["10%"]  # (nothing retracted or forgotten)
