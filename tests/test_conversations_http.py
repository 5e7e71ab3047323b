"""Conversations over the network: ``POST /conversations`` and ``POST /conversations/{conversation}/turns``
of the HTTP API and the MCP tool ``remember_turn`` answer what the library does (each turn a fragment with
its speaker and time, the later value replacing the earlier), with the API's token rules and error shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer

from beliefdb.interfaces.http import create_app

MAYA = [{"speaker": "Maya", "time": "2023-05-01T09:00:00+00:00", "text": "I live in Lisbon."},
        {"speaker": "Ben", "time": "2023-05-01T09:01:00+00:00", "text": "Nice! Is it sunny there?"},
        {"speaker": "Maya", "time": "2023-09-01T09:00:00+00:00", "text": "I moved to Porto last week."}]


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url)) as c:
        yield c



def lives_in(cli: Cli) -> list[tuple[str, str]]:
    return [(b["value"], b["status"]) for b in cli.json("beliefs", "--all", "--attribute", "lives_in")]


@pytest.mark.slow
def test_a_conversation_posted_whole_is_its_turns_and_the_later_value_is_current(
        client: TestClient, db_url: str, cli: Cli) -> None:
    alice, rita = bearer(db_url, "alice"), bearer(db_url, "rita", read_only=True)
    body: dict[str, Any] = {"source": "maya-chat", "turns": MAYA}
    preview = client.post("/conversations", json={**body, "preview": True}, headers=rita)
    assert preview.status_code == 200, preview.text  # a read-only token may preview: nothing is written
    assert cli.json("beliefs", "--all") == []
    assert client.post("/conversations", json=body, headers=rita).status_code == 403
    stored = client.post("/conversations", json=body, headers=alice)
    assert stored.status_code == 200, stored.text
    assert {(a["subject"], a["value"]) for a in stored.json()["accepted"]} == {("maya", "Lisbon"), ("maya", "Porto")}
    assert sorted(lives_in(cli)) == [("Lisbon", "superseded"), ("Porto", "current")]
    porto = next(a["id"] for a in stored.json()["accepted"] if a["value"] == "Porto")
    (evidence,) = cli.json("why", porto)["evidence"]
    assert evidence["quote"] in MAYA[2]["text"]


@pytest.mark.slow
def test_turns_appended_one_by_one_are_the_same_conversation(client: TestClient, db_url: str, cli: Cli) -> None:
    alice = bearer(db_url, "alice")
    for turn in MAYA:
        said = client.post("/conversations/maya-chat/turns", json=turn, headers=alice)
        assert said.status_code == 200, said.text
    assert sorted(lives_in(cli)) == [("Lisbon", "superseded"), ("Porto", "current")]
    assert client.post("/conversations/maya-chat/turns", json=MAYA[0], headers=bearer(db_url, "rita", read_only=True)
                       ).status_code == 403


@pytest.mark.parametrize(("path", "body", "status", "says"), [
    ("/conversations", {"source": "c", "turns": []}, 400, "turns"),
    ("/conversations", {"source": "c", "turns": [{"speaker": "Maya", "text": "hi", "time": "yesterday"}]}, 400, "time"),
    ("/conversations", {"source": "c", "turns": [{"speaker": "Maya", "text": "hi", "mood": "ok"}]}, 400, "mood"),
    ("/conversations/c/turns", {"speaker": "", "text": "I live in Lisbon."}, 400, "speaker"),
    ("/conversations/c/turns", {"speaker": "Maya", "text": "hi", "time": "2023-05-01T09:00:00"}, 400, "time"),
])
def test_bad_conversations_are_one_error_and_write_nothing(client: TestClient, db_url: str, cli: Cli, path: str,
                                                           body: dict[str, Any], status: int, says: str) -> None:
    response = client.post(path, json=body, headers=bearer(db_url, "alice"))
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error", "message"} and says in response.json()["message"]
    assert cli.json("beliefs", "--all") == []


def test_a_turn_appended_to_a_document_is_refused(client: TestClient, db_url: str, cli: Cli) -> None:
    alice = bearer(db_url, "alice")
    assert client.post("/sources", json={"source": "policy.md", "text": "The restocking fee is 10%."},
                       headers=alice).status_code == 200
    refused = client.post("/conversations/policy.md/turns", json=MAYA[0], headers=alice)
    assert refused.status_code == 400 and "not a conversation" in refused.json()["message"], refused.text


def test_the_openapi_document_names_the_conversation_resources(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/conversations", "/conversations/{conversation}/turns"} <= set(paths)
    for path in ("/conversations", "/conversations/{conversation}/turns"):
        assert {"200", "400", "401", "403", "409", "503"} <= set(paths[path]["post"]["responses"]), path


def test_a_turn_retried_with_its_idempotency_key_is_stored_once(client: TestClient, db_url: str, cli: Cli,
                                                               alice: Any) -> None:
    """An agent that retries a turn sent without a time (said now) stored it twice, with a second current
    belief: each was another turn. With an ``idempotency_key`` the retry appends nothing and answers the first
    one's turn, ``already_applied``; the key with another turn is 409 idempotency_key_reused (rule 18)."""
    token = bearer(db_url, "alice")
    said = {"speaker": "ana", "text": "I live in Madrid.", "idempotency_key": "msg-1"}
    first = client.post("/conversations/chat/turns", json=said, headers=token)
    assert first.status_code == 200 and first.json()["already_applied"] is False, first.text
    (belief,) = [a["id"] for a in first.json()["accepted"]]
    again = client.post("/conversations/chat/turns", json=said, headers=token)
    assert again.status_code == 200, again.text
    assert (again.json()["already_applied"], again.json()["version"], again.json()["accepted"]) == (
        True, first.json()["version"], [])
    assert [u["id"] for u in again.json()["unchanged"]] == [belief]
    assert lives_in(cli) == [("Madrid", "current")]
    # the same key with another turn, or the same words at a time given: another request
    for other in ({"text": "I live in Rome."}, {"speaker": "bo"}, {"time": "2024-06-18T14:03:00Z"}):
        answer = client.post("/conversations/chat/turns", json=said | other, headers=token)
        assert answer.status_code == 409 and answer.json()["error"] == "idempotency_key_reused", answer.text
    assert client.post("/conversations/other/turns", json=said, headers=token).status_code == 409
    # a turn given its time is recognised again, key or not; the library and the tool take the key too
    timed = {"speaker": "ana", "text": "I moved to Rome.", "time": "2030-01-01T09:00:00Z"}
    assert client.post("/conversations/chat/turns", json=timed | {"idempotency_key": "msg-2"}, headers=token
                       ).json()["already_applied"] is False
    replay = alice.remember_turn("chat", "ana", "I moved to Rome.", time=timed["time"], idempotency_key="msg-2")
    assert replay.already_applied and sorted(lives_in(cli)) == [("Madrid", "superseded"), ("Rome", "current")]
