"""Every moment an answer gives back is in UTC at every door (the README), the moment an answer is as of
too: ``ask --as-of 2099-03-01T10:00:00+01:00 --json`` answered ``"as_of": "2099-03-01T10:00:00+01:00"`` and
its context said "as of …+01:00 … Days are UTC days", and so did the library's ``AskResult.as_of``, HTTP's
``POST /ask`` and the MCP tool ``ask``, and a moment without a zone under ``TZ=Europe/Berlin`` came back with
Berlin's offset; the workspace picture's title and a run's read of the past named the caller's offset too.
Each now names the same instant in UTC (``+00:00``)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from typing import Any

from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, tool_answer

import beliefdb

TEXT = "Hotel cost: 150 EUR\n"
QUESTION = "hotel cost"
BERLIN = "2099-03-01T10:00:00+01:00"
UTC_SAID = "2099-03-01T09:00:00+00:00"
#: a database no command could reach: ask answers memory_unavailable, with the moment it was asked about
UNREACHABLE = "postgresql://nobody@127.0.0.1:9/none?connect_timeout=1"


@contextmanager
def in_berlin() -> Iterator[None]:
    """This process's local time is Berlin's while the block runs (TZ, then as it was)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Berlin"
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


def tool(bdb: beliefdb.BeliefDB, name: str, arguments: dict[str, Any]) -> Any:
    """The parsed answer of one call of the MCP tool ``name``."""
    return tool_answer(bdb, name, arguments, error=False)


def said_in_utc(answer: dict[str, Any]) -> None:
    assert answer["status"] == "ok" and answer["as_of"] == UTC_SAID, answer
    assert f"as of {UTC_SAID}" in answer["context"] and "+01:00" not in answer["context"], answer["context"]


def test_an_answer_as_of_a_moment_names_it_in_utc_at_every_door(bdb: beliefdb.BeliefDB, cli: Cli,
                                                                http_client: TestClient, db_url: str) -> None:
    bdb.ingest_text(TEXT, source="p.md", embed=False)
    moment = datetime.fromisoformat(BERLIN)
    answer = bdb.ask(QUESTION, as_of=moment)
    assert answer.as_of is not None and answer.as_of.isoformat() == UTC_SAID, answer.as_of
    assert answer.as_of == moment  # (the same instant)
    assert f"as of {UTC_SAID}" in answer.context, answer.context
    said_in_utc(cli.json("ask", QUESTION, "--as-of", BERLIN))
    said_in_utc(http_client.post("/ask", json={"question": QUESTION, "as_of": BERLIN}, headers=bearer(db_url)).json())
    said_in_utc(tool(bdb, "ask", {"question": QUESTION, "as_of": BERLIN}))
    nothing = cli("ask", "what is the weather on mars", "--as-of", BERLIN).stdout
    assert f"as of {UTC_SAID}" in nothing and "+01:00" not in nothing, nothing
    # memory out of reach: the answer the command line writes itself says the moment in UTC too
    unavailable = cli.json("ask", QUESTION, "--as-of", BERLIN, env={"BELIEFDB_URL": UNREACHABLE}, expect=1)
    assert unavailable["status"] == "memory_unavailable" and unavailable["as_of"] == UTC_SAID, unavailable
    # a moment without a zone is local time, given back in UTC
    with in_berlin():
        local = datetime(2099, 3, 1, 10, 0)
        assert (said := bdb.ask(QUESTION, as_of=local).as_of) is not None and said.isoformat() == UTC_SAID, said
        said_in_utc(cli.json("ask", QUESTION, "--as-of", "2099-03-01T10:00:00"))


def test_the_workspace_picture_names_its_moment_in_utc(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(TEXT, source="p.md", embed=False)
    title = bdb.workspace_graph(as_of=datetime.fromisoformat(BERLIN)).title
    assert title == f"Workspace, as believed at {UTC_SAID}", title


def test_a_runs_read_of_the_past_records_its_moment_in_utc(bdb: beliefdb.BeliefDB) -> None:
    """The memory_read step's ``as_of`` (what decide_in_run's refusal quotes) was the caller's text of it."""
    bdb.ingest_text(TEXT, source="p.md", embed=False)
    moment = datetime.fromisoformat(BERLIN)
    run = str(bdb.record_step("user_input", {"text": "What does the hotel cost?"}, task="trip").run)
    belief = bdb.beliefs()[0].id
    bdb.ask(QUESTION, as_of=moment, run=run)
    bdb.why(belief, as_of=datetime(2099, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=-5))), run=run)
    reads = [s.payload for s in bdb.steps(run) if s.kind == "memory_read"]
    assert reads == [{"question": QUESTION, "as_of": UTC_SAID},
                     {"why": str(belief), "as_of": "2099-03-01T14:00:00+00:00"}], reads
