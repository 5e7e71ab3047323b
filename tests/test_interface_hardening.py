"""What a network client could do to the memory of others, closed: a valid time no client can read
back, a name longer than an index row, an llm preview on a read-only token, a step's payload nested too
deep to read back. Each is a clear 4xx, and
nothing is stored."""

from __future__ import annotations

import json
import secrets
from typing import Any

import anyio
import psycopg
import pytest
from fastapi.testclient import TestClient
from mcp.client import Client
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb import api, errors
from beliefdb.interfaces.mcp import build

TEXT = "The return window is 7 days.\n"


def _beliefs(postgresql: psycopg.Connection[Any]) -> int:
    row = postgresql.execute("select count(*) from beliefdb.belief").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize(("valid_from", "valid_to"), [
    ("infinity", None), (None, "infinity"), ("-infinity", None),
    ("0001-01-01T00:00:00+14:00", None), (None, "9999-12-31T23:59:59-14:00"),
])
def test_a_valid_time_no_client_could_read_back_is_refused(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any],
                                                           valid_from: str | None, valid_to: str | None) -> None:
    before = _beliefs(postgresql)
    # (refused as the library's every moment is, before the database's own check)
    with pytest.raises(errors.InvalidInput,
                       match=r"^valid_(from|to): (not an ISO 8601 timestamp: '-?infinity'|.* is out of range)"):
        bdb.remember("The return window is 7 days.", "return_policy", "window", "7 days",
                     "The return window is 7 days.", source="policy.md", text=TEXT,
                     valid_from=valid_from, valid_to=valid_to)
    assert _beliefs(postgresql) == before
    assert bdb.beliefs() == []  # and listing still works: nothing unreadable was stored
    bdb.remember("The return window is 7 days.", "return_policy", "window", "7 days",
                 "The return window is 7 days.", source="policy.md", text=TEXT,
                 valid_from="2020-01-01T00:00:00+00:00", valid_to="9999-01-01T00:00:00+00:00")
    assert [b.value for b in bdb.beliefs()] == ["7 days"]


def test_a_name_longer_than_an_index_row_is_bad_input(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput, match="too large"):
        bdb.ingest_text(TEXT, source=secrets.token_urlsafe(6000))  # incompressible: the index row limit




def test_a_read_only_token_may_not_spend_the_llm_budget(http_client: TestClient, db_url: str) -> None:
    reader = {"Authorization": f"Bearer {api.create_token('default', 'rita', read_only=True, url=db_url).token}"}
    plain = http_client.post("/sources", json={"source": "p.md", "text": TEXT, "preview": True}, headers=reader)
    assert plain.status_code == 200, plain.text
    llm = http_client.post("/sources", json={"source": "p.md", "text": TEXT, "preview": True, "extractor": "llm"},
                      headers=reader)
    assert llm.status_code == 403 and llm.json()["error"] == "read_only_token", llm.text


@pytest.mark.parametrize("valid_to", ["infinity", "9999-12-31T23:59:59-14:00"])
def test_the_database_refuses_a_valid_time_no_client_could_read_back(postgresql: psycopg.Connection[Any],
                                                                     bdb: beliefdb.BeliefDB, valid_to: str) -> None:
    """The library checks a moment first; a DBA's claim from psql meets the database's own check."""
    (workspace,) = postgresql.execute("select id from beliefdb.workspace where name = 'default'").fetchone() or (None,)
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(workspace),))
    claim = {"statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
             "value": "7 days", "quote": "7 days", "start": TEXT.index("7 days"), "end": TEXT.index("7 days") + 6,
             "valid_to": valid_to}
    with pytest.raises(psycopg.DatabaseError, match="valid time out of range") as refused:
        postgresql.execute("select beliefdb.ingest_version('policy.md', %s, p_claims => %s)", (TEXT, Jsonb([claim])))
    assert refused.value.sqlstate == "BD005"


@pytest.mark.parametrize(("valid_from", "valid_to"), [
    (None, "9999-12-30T12:00:00Z"), ("9999-12-30T23:59:59Z", None), (None, "9999-12-30T15:00:00-08:00"),
])
def test_a_valid_time_on_the_last_day_of_the_range_is_stored(bdb: beliefdb.BeliefDB, valid_from: str | None,
                                                            valid_to: str | None) -> None:
    """The library takes a moment "from 0001-01-02 to 9999-12-30 UTC" through the end of 9999-12-30, but the
    database refused any bound after its first instant (9999-12-30 00:00 UTC): `valid_to: 9999-12-30` in
    Los Angeles (08:00 UTC) was "valid time out of range ... (from 0001-01-02 to 9999-12-30)". The whole
    last day is in range at every door, and read back in every time zone."""
    report = bdb.remember("The return window is 7 days.", "return_policy", "window", "7 days",
                          "The return window is 7 days.", source="policy.md", text=TEXT,
                          valid_from=valid_from, valid_to=valid_to)
    assert len(report.accepted) == 1
    (belief,) = bdb.beliefs(include_all=True)
    bound = belief.valid_time.lower if valid_from else belief.valid_time.upper
    assert bound == api.parse_moment(valid_from or valid_to or "", "bound")


def _nested(depth: int) -> dict[str, Any]:
    """A JSON object ``depth`` levels deep: {"a": {"a": ... {}}}."""
    value: dict[str, Any] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def test_a_step_payload_nested_too_deep_is_bad_input_everywhere(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                db_url: str) -> None:
    """POST /steps with a payload 500 levels deep answered 500 (the NUL check recursed past Python's limit),
    and the library stored a payload 900 levels deep that then broke GET /runs/{id} (500) and `run --json`
    for good. A payload nested over 100 levels is now bad input at every door, and nothing is stored."""
    writer = {"Authorization": f"Bearer {api.create_token('default', 'ada', url=db_url).token}"}
    for depth in (101, 500, 900):
        said = http_client.post("/steps", headers=writer, json={"kind": "plan", "payload": _nested(depth)})
        assert said.status_code == 400, (depth, said.status_code, said.text[:200])
        assert said.json() == {"error": "invalid_input", "message": "payload: nested deeper than 100 levels"}
    with pytest.raises(errors.InvalidInput, match=r"^payload: nested deeper than 100 levels$"):
        bdb.record_step("plan", _nested(3000))

    async def call() -> tuple[bool, str]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("record_step", {"kind": "plan", "payload": _nested(150)})
            assert result.content[0].type == "text"
            return bool(result.is_error), result.content[0].text

    failed, text = anyio.run(call)
    assert failed and json.loads(text) == {"error": "invalid_input",
                                           "message": "payload: nested deeper than 100 levels"}, text
    assert bdb.runs() == []
    # as deep as allowed: stored, and read back over HTTP
    step = http_client.post("/steps", headers=writer, json={"kind": "plan", "payload": _nested(100)})
    assert step.status_code == 200, step.text
    trace = http_client.get(f"/runs/{step.json()['run']}", headers=writer)
    assert trace.status_code == 200, trace.text[:200]


def test_a_valid_time_that_ends_before_it_starts_is_refused_in_words(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                                     db_url: str,
                                                                     postgresql: psycopg.Connection[Any]) -> None:
    """A valid_to equal to valid_from was refused as 'valid time is empty: valid_to (...) must be after
    valid_from', but one before it answered PostgreSQL's own 'range lower bound must be less than or
    equal to range upper bound' (over HTTP, MCP and the library alike). Both are now the same refusal,
    naming both moments as the database reads them, and nothing is stored."""
    claim = {"statement": "The return window is 7 days.", "subject": "return_policy", "attribute": "window",
             "value": "7 days", "quote": "The return window is 7 days.", "source": "policy.md", "text": TEXT,
             "valid_from": "2026-03-01T00:00:00Z", "valid_to": "2026-01-01T00:00:00Z"}
    said = ("valid time is empty: valid_to (2026-01-01 00:00:00+00) must be after valid_from"
            " (2026-03-01 00:00:00+00)")
    before = _beliefs(postgresql)
    writer = {"Authorization": f"Bearer {api.create_token('default', 'ada', url=db_url).token}"}
    answer = http_client.post("/beliefs", headers=writer, json=claim)
    assert (answer.status_code, answer.json()) == (400, {"error": "invalid_input", "message": said}), answer.text
    with pytest.raises(errors.InvalidInput) as refused:
        bdb.remember(*(claim[k] for k in ("statement", "subject", "attribute", "value", "quote")),
                     source="policy.md", text=TEXT, valid_from=claim["valid_from"], valid_to=claim["valid_to"])
    assert refused.value.message == said

    async def call() -> tuple[bool, str]:
        async with Client(build(local=bdb)) as client:
            result = await client.call_tool("remember", claim)
            assert result.content[0].type == "text"
            return bool(result.is_error), result.content[0].text

    failed, text = anyio.run(call)
    assert failed and json.loads(text) == {"error": "invalid_input", "message": said}, text
    assert _beliefs(postgresql) == before
