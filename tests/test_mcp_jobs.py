"""The queue through MCP: an agent reached memory's queue only over HTTP (POST /jobs, GET /jobs,
/jobs/retry, /jobs/cancel) and the CLI; the MCP server had no job tool. ``submit_job`` queues a text or a
conversation's turns and answers its job id at once, ``jobs`` lists them, ``retry_jobs`` and
``cancel_jobs`` queue failed ones again and delete queued or failed ones with their text: each a call of
``BeliefDB`` (submit, jobs, retry, cancel), answering what ``POST /jobs`` and its kin answer, errors
in the same words."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer, refused

import beliefdb
from beliefdb import errors

POLICY = "# Returns\nReturns are accepted within 30 days.\n"
MAYA = [{"speaker": "Maya", "time": "2023-05-01T09:00:00Z", "text": "I live in Lisbon."},
        {"speaker": "Maya", "time": "2023-09-01T09:00:00Z", "text": "I moved to Porto last week."}]
SMALL = {"BELIEFDB_INGEST_MAX_BYTES": "10"}  # (the worker's limit is lower than the submitter's)


async def _call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return bool(result.is_error), json.loads(result.content[0].text)


def test_an_agent_queues_lists_retries_and_cancels_jobs_through_mcp(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    from beliefdb.interfaces.mcp import build

    state: dict[str, Any] = {}

    async def queue() -> None:
        async with Client(build(local=bdb)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {"submit_job", "jobs", "retry_jobs", "cancel_jobs"} <= set(tools)
            for name in ("submit_job", "jobs", "retry_jobs", "cancel_jobs"):
                assert len(tools[name].description or "") > 120, name
            state["text"] = await _call(client, "submit_job", {"source": "returns.md", "text": POLICY})
            state["turns"] = await _call(client, "submit_job", {"source": "maya-chat", "turns": MAYA,
                                                                 "max_attempts": 1})
            state["listed"] = await _call(client, "jobs", {"status": "queued"})

    anyio.run(queue)
    (failed, (text_job,)), (failed2, (turns_job,)) = (state["text"][0], state["text"][1]["jobs"]), \
        (state["turns"][0], state["turns"][1]["jobs"])
    assert not failed and not failed2
    assert [(j["id"], j["source"]) for j in state["listed"][1]] == [(turns_job, "maya-chat"), (text_job, "returns.md")]
    cli("worker", "--until-empty", "--no-embed", "--backoff", "0", env=SMALL, expect=1)

    async def repair() -> None:
        async with Client(build(local=bdb)) as client:
            state["failed"] = await _call(client, "jobs", {"status": "failed", "limit": 1})
            state["retried"] = await _call(client, "retry_jobs", {"ids": [turns_job]})
            state["cancelled"] = await _call(client, "cancel_jobs", {"source": "returns.md"})

    anyio.run(repair)
    assert [j["id"] for j in state["failed"][1]] == [turns_job]
    assert state["retried"] == (False, {"jobs": [turns_job]})
    assert state["cancelled"] == (False, {"jobs": [text_job]})
    assert cli.json("worker", "--until-empty", "--no-embed")["done"] == 1
    assert sorted((b.value, b.status) for b in bdb.beliefs(subject="maya", include_all=True)) == [
        ("Lisbon", "superseded"), ("Porto", "current")]


def test_the_job_tools_refuse_as_the_http_api_does(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                   db_url: str) -> None:
    from beliefdb.interfaces.mcp import build

    token = bearer(db_url, "postgres")  # (the tools act as the database login: the same principal)
    (queued,) = bdb.submit(text=POLICY, source="returns.md")
    cases = [
        ("retry_jobs", {"ids": [queued]}, "/jobs/retry", {"ids": [queued]}),
        ("retry_jobs", {"ids": [999999]}, "/jobs/retry", {"ids": [999999]}),
        ("retry_jobs", {}, "/jobs/retry", {}),
        ("cancel_jobs", {"ids": [queued], "source": "returns.md"}, "/jobs/cancel",
         {"ids": [queued], "source": "returns.md"}),
        ("cancel_jobs", {"ids": [0]}, "/jobs/cancel", {"ids": [0]}),
        ("submit_job", {"source": "a.md", "text": POLICY, "turns": MAYA}, "/jobs",
         {"source": "a.md", "text": POLICY, "turns": MAYA}),
        ("submit_job", {"source": "a.md"}, "/jobs", {"source": "a.md"}),
        ("submit_job", {"source": "a.md", "turns": [{"speaker": "Maya", "text": "Hi", "time": "2023-05-01"}]},
         "/jobs", {"source": "a.md", "turns": [{"speaker": "Maya", "text": "Hi", "time": "2023-05-01"}]}),
        ("jobs", {"status": "lost"}, "/jobs", None),
    ]

    async def run() -> list[tuple[bool, Any]]:
        async with Client(build(local=bdb)) as client:
            return [await _call(client, tool, arguments) for tool, arguments, _, _ in cases]

    answers = anyio.run(run)
    for (tool, arguments, path, body), (failed, said) in zip(cases, answers, strict=True):
        assert failed, (tool, arguments, said)
        response = (http_client.post(path, headers=token, json=body) if body is not None
                    else http_client.get(path, headers=token, params=arguments))
        over_http = response.json()
        # (what is wrong with the whole body, the HTTP API says of the request body; a tool of its arguments)
        over_http["message"] = over_http["message"].removeprefix("the request body: ")
        assert response.status_code >= 400 and said == over_http, (tool, arguments, said, over_http)
        assert refused(response, response.status_code, said["error"])
    assert [j.id for j in bdb.jobs()] == [queued]  # nothing was queued or cancelled


def test_a_source_name_that_cannot_be_stored_is_refused_as_over_http(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                    db_url: str) -> None:
    """A lone surrogate in a job tool's source was refused in pydantic's words ('unable to parse raw data')
    before beliefdb's check could say what was wrong: the tools take it as the other tools' names do."""
    from beliefdb.interfaces.mcp import build

    bad = "salaries\ud800.txt"

    async def run() -> tuple[bool, Any]:
        async with Client(build(local=bdb)) as client:
            return await _call(client, "cancel_jobs", {"source": bad})

    failed, said = anyio.run(run)
    assert failed and said["error"] == "invalid_input" and "parse" not in said["message"], said
    over_http = http_client.post("/jobs/cancel", content=json.dumps({"source": bad}).encode(),
                                 headers={**bearer(db_url, "postgres"), "Content-Type": "application/json"})
    assert said == over_http.json(), (said, over_http.text)


def test_retrying_neither_ids_nor_all_failed_is_said_in_the_callers_words(
        bdb: beliefdb.BeliefDB, http_client: TestClient, db_url: str, cli: Cli) -> None:
    """retry_jobs and POST /jobs/retry without ids or all_failed (or with both) told the agent
    "all_failed=True", a Python keyword argument: they name the parameter, as the tool and the body spell it."""
    from beliefdb.interfaces.mcp import build

    said = "give the ids of the failed jobs to retry, or set all_failed: one of them"

    async def run() -> list[tuple[bool, Any]]:
        async with Client(build(local=bdb)) as client:
            return [await _call(client, "retry_jobs", arguments)
                    for arguments in ({}, {"ids": [1], "all_failed": True})]

    assert anyio.run(run) == [(True, {"error": "invalid_input", "message": said})] * 2
    assert refused(http_client.post("/jobs/retry", headers=bearer(db_url), json={}), 400, "invalid_input") == said
    with pytest.raises(errors.InvalidInput, match=r"or all_failed=True: one of them$"):  # (the library's keyword)
        bdb.retry()
    assert cli.one_line_error("jobs", "retry").startswith(
        "error: give the ids of the failed jobs to retry, or --all-failed: one of them")


def test_the_jobs_tool_names_a_submitted_file_as_get_jobs_does(bdb: beliefdb.BeliefDB, cli: Cli,
                                                               write_doc: Any) -> None:
    """Served remotely (/mcp of beliefdb serve), the jobs tool shows a queued file's name, as GET /jobs does,
    not its path on the machine that queued it; a local server (beliefdb mcp, the operator's own) the path."""
    from beliefdb.interfaces.mcp import build

    doc = write_doc("returns.md", POLICY)
    cli.json("ingest", str(doc), "--queue")

    async def run() -> tuple[bool, Any]:
        async with Client(build(local=bdb)) as client:
            return await _call(client, "jobs", {})

    (failed, (local,)) = anyio.run(run)
    assert not failed and local["path"] == str(doc)
    with errors.remote():  # (as beliefdb serve answers every request)
        (failed, (remote,)) = anyio.run(run)
    assert not failed and remote["path"] == "returns.md"
