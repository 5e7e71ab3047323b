"""A conversation through the queue over HTTP: ``POST /jobs`` takes a text or a conversation's turns (as
``POST /conversations`` takes them), answers its job id at once, and a worker ingests the turns as
``BeliefDB.submit(turns=...)`` queues them: each turn a fragment with its speaker and time, a belief's
evidence its turn, the later value replacing the earlier; ``GET /jobs`` shows the job."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused
from test_conversations import turns_of

import beliefdb
from beliefdb.interfaces.http_conversations import MAX_TURNS

MAYA = [{"speaker": "Maya", "time": "2023-05-01T09:00:00+00:00", "text": "I live in Lisbon."},
        {"speaker": "Ben", "time": "2023-05-01T09:01:00+00:00", "text": "Nice! Is it sunny there?"},
        {"speaker": "Maya", "time": "2023-09-01T09:00:00+00:00", "text": "I moved to Porto last week."}]


@pytest.mark.slow
def test_a_conversation_queued_over_http_is_ingested_by_a_worker_as_its_turns(
        http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    alice = bearer(db_url)
    queued = http_client.post("/jobs", json={"source": "maya-chat", "turns": MAYA}, headers=alice)
    assert queued.status_code == 202, queued.text
    (job,) = queued.json()["jobs"]
    (listed,) = http_client.get("/jobs", headers=alice).json()
    assert (listed["id"], listed["status"], listed["source"], listed["path"], listed["submitted_by"]) == (
        job, "queued", "maya-chat", None, "alice")
    assert bdb.beliefs(include_all=True) == [] and turns_of(db_url, "maya-chat") == []  # nothing ingested yet

    report = bdb.work(stop_when_empty=True, embed=False)
    assert (report.done, report.failed) == (1, 0)
    assert sorted((b.value, b.status) for b in bdb.beliefs(subject="maya", include_all=True)) == [
        ("Lisbon", "superseded"), ("Porto", "current")]
    # each turn is a fragment with its speaker and time, the version's text at its offsets
    assert [(text, speaker, spoken_at) for text, speaker, spoken_at, _ in turns_of(db_url, "maya-chat")] == [
        (t["text"], t["speaker"], datetime.fromisoformat(t["time"])) for t in MAYA]
    assert all(at_offsets for *_, at_offsets in turns_of(db_url, "maya-chat"))
    (porto,) = bdb.beliefs(subject="maya")
    (turn,) = bdb.why(porto.id).evidence
    assert (turn.speaker, turn.spoken_at, turn.source) == ("Maya", datetime(2023, 9, 1, 9, tzinfo=UTC), "maya-chat")
    assert turn.quote in MAYA[2]["text"] and turn.origin_type == "conversation"
    assert porto.owner == "alice"  # the worker ran the job as its submitter

    (done,) = http_client.get("/jobs", params={"status": "done"}, headers=alice).json()
    assert (done["id"], done["attempts"], done["last_error"]) == (job, 1, None)
    assert {k: done["result"][k] for k in ("source", "version", "new_version", "accepted")} == {
        "source": "maya-chat", "version": 1, "new_version": True, "accepted": 2}


def test_a_text_is_still_queued_as_a_document(http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    queued = http_client.post("/jobs", json={"source": "policy.md", "text": "The return window is 7 days.\n"},
                              headers=bearer(db_url))
    assert queued.status_code == 202, queued.text
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert [b.value for b in bdb.beliefs()] == ["7 days"]
    assert turns_of(db_url, "policy.md") == []  # a document: no turns


@pytest.mark.parametrize(("body", "said"), [
    ({"source": "maya-chat", "text": "I live in Lisbon.", "turns": MAYA},
     "the request body: give text or turns, not both"),
    ({"source": "maya-chat"}, "the request body: text or turns is required (one of them)"),
    ({"source": "maya-chat", "text": None, "turns": None}, "the request body: text or turns is required (one of them)"),
    ({"source": "maya-chat", "turns": []}, "turns: List should have at least 1 item after validation, not 0"),
    ({"source": "maya-chat", "turns": [{**MAYA[0], "time": "2023-05-01T09:00:00"}]},
     "turns.0.time: Input should have timezone info (Z or an offset such as +02:00): '2023-05-01T09:00:00'"),
    ({"source": "maya-chat", "turns": [{**MAYA[0], "mood": "ok"}]},
     "turns.0.mood: not one of the fields this request takes (speaker, text, time)"),
])
def test_text_and_turns_both_or_neither_or_bad_turns_are_one_line_and_queue_nothing(
        http_client: TestClient, db_url: str, cli: Cli, body: dict[str, Any], said: str) -> None:
    assert refused(http_client.post("/jobs", json=body, headers=bearer(db_url)), 400, "invalid_input") == said
    assert cli.json("jobs") == []


def test_turns_for_a_documents_source_are_refused_when_they_are_queued(
        http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    """POST /jobs queued them, and every attempt of the worker then met the same refusal: it is refused now,
    400 on one line, in the words of POST /conversations and ingest; nothing is queued."""
    alice = bearer(db_url)
    stored = http_client.post("/sources", json={"source": "policy.md", "text": "The return window is 30 days."},
                              headers=alice)
    assert stored.status_code == 200, stored.text
    assert refused(http_client.post("/jobs", json={"source": "policy.md", "turns": MAYA}, headers=alice),
                   400, "invalid_input") == (
        "policy.md is a document, not a conversation: its text has no turns, so turns are not stored in it"
        " (give the conversation another source name); nothing was queued")
    assert cli.json("jobs") == []
    direct = http_client.post("/conversations", json={"source": "policy.md", "turns": MAYA}, headers=alice)
    assert refused(direct, 400, "invalid_input").startswith("policy.md is a document, not a conversation:")
    # another's source is proposed to its owner, as POST /conversations proposes it: queued as before
    bob = http_client.post("/jobs", json={"source": "policy.md", "turns": MAYA}, headers=bearer(db_url, "bob"))
    assert bob.status_code == 202, bob.text


def test_the_turns_are_bounded_as_a_conversation_posted_whole(http_client: TestClient, db_url: str, cli: Cli) -> None:
    too_many = [{"speaker": "Maya", "text": "hi"}] * (MAX_TURNS + 1)
    said = refused(http_client.post("/jobs", json={"source": "c", "turns": too_many}, headers=bearer(db_url)),
                          400, "invalid_input")
    assert said.startswith("turns: List should have at most 100000 items"), said
    assert cli.json("jobs") == []


def test_a_read_only_token_queues_no_conversation(http_client: TestClient, db_url: str, cli: Cli) -> None:
    answer = http_client.post("/jobs", json={"source": "maya-chat", "turns": MAYA},
                              headers=bearer(db_url, "rita", read_only=True))
    assert refused(answer, 403, "read_only_token")
    assert cli.json("jobs") == []


def test_the_openapi_document_takes_text_or_turns(http_client: TestClient) -> None:
    submit = http_client.get("/openapi.json").json()["components"]["schemas"]["Submit"]
    assert {"text", "turns"} <= set(submit["properties"]) and submit["required"] == ["source"]


def test_queueing_answers_202_accepted_and_the_openapi_document_says_so(
        http_client: TestClient, db_url: str, cli: Cli) -> None:
    """``POST /jobs`` answered 200 although nothing was done yet but queue the work: 202 Accepted, its body
    the job ids as before; ``POST /jobs/retry`` only queues too (202); ``POST /jobs/cancel`` is done when it
    answers (200). The OpenAPI document names the status each answers."""
    alice = bearer(db_url)
    queued = http_client.post("/jobs", json={"source": "policy.md", "text": "The return window is 7 days.\n"},
                              headers=alice)
    assert queued.status_code == 202 and queued.json()["unchanged"] == [], queued.text
    (job,) = queued.json()["jobs"]
    assert [j["id"] for j in cli.json("jobs")] == [job]
    cancelled = http_client.post("/jobs/cancel", json={"ids": [job]}, headers=alice)
    assert cancelled.status_code == 200 and cancelled.json() == {"jobs": [job]}, cancelled.text
    retried = http_client.post("/jobs/retry", json={"all_failed": True}, headers=alice)
    assert retried.status_code == 202 and retried.json() == {"jobs": []}, retried.text
    paths = http_client.get("/openapi.json").json()["paths"]
    for path, status, title in (("/jobs", "202", "Submitted"), ("/jobs/retry", "202", "Queued"),
                                ("/jobs/cancel", "200", "Queued")):
        responses = paths[path]["post"]["responses"]
        assert {"200", "202"} & set(responses) == {status}, (path, sorted(responses))
        assert responses[status]["content"]["application/json"]["schema"]["title"] == title, (path, responses)


def test_get_jobs_names_a_submitted_file_by_its_name_not_its_path_on_the_submitters_machine(
        http_client: TestClient, db_url: str, cli: Cli, write_doc: Any) -> None:
    """GET /jobs showed the path `beliefdb ingest --queue` read a file at, on the machine it ran on
    (/home/maya/hr/…): an agent with a token of the workspace learnt where an operator keeps files, which
    it can do nothing with (POST /jobs takes no path). It sees the file's name; `beliefdb jobs` keeps the
    path, for the operator who queued it."""
    doc = write_doc("returns.md", "The return window is 7 days.\n")
    (job,) = cli.json("ingest", str(doc), "--queue")["jobs"]
    (listed,) = http_client.get("/jobs", headers=bearer(db_url)).json()
    assert (listed["id"], listed["source"], listed["path"]) == (job, "returns.md", "returns.md")
    (own,) = cli.json("jobs")
    assert own["path"] == str(doc) and str(doc.parent) in own["path"]


def test_a_jobs_error_names_no_endpoint_address_to_a_remote_caller(
        http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB, cli: Cli,
        postgresql: Any) -> None:
    """(review) A worker records its extractor's refusal for the operator, the endpoint's address with it
    ("the llm endpoint https://llm.corp:8443/v1/chat/completions refused ..."): GET /jobs gave it to the
    remote caller who submitted the job, whom the server's own answers never tell an internal address."""
    alice = bearer(db_url)
    (job,) = http_client.post("/jobs", json={"source": "policy.md", "text": "The return window is 7 days.\n"},
                              headers=alice).json()["jobs"]
    said = ("the llm endpoint https://llm.corp:8443/v1/chat/completions refused the request with HTTP 401"
            " (check BELIEFDB_LLM_URL, now 'http://10.0.0.5:8080/v1')")
    postgresql.execute("update beliefdb.job set status = 'failed', last_error = %s where id = %s", (said, job))
    postgresql.commit()
    (listed,) = http_client.get("/jobs", headers=alice).json()
    assert listed["last_error"] == ("the llm endpoint <server address> refused the request with HTTP 401"
                                    " (check BELIEFDB_LLM_URL, now '<server address>')")
    assert cli.json("jobs")[0]["last_error"] == said  # the operator's own view keeps it
