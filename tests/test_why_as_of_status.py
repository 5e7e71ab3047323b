"""`why --as-of` of a belief that was recorded by then but not believed then (superseded, expired or
retracted then) shows it with the status it had then (``beliefdb.belief_status_at``) and its history as
recorded by then, at every door (library, CLI text and --json, HTTP, MCP), as the pictures and the
listings of what was built on a belief do; only a belief not recorded yet then is not found. It refused
them: ``error: belief ... was not believed at T``, exit 1."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import anyio
import pytest
from conftest import Cli, url_at
from fastapi.testclient import TestClient
from mcp.client import Client

import beliefdb
from beliefdb import api, errors
from beliefdb.interfaces.http import create_app

START = datetime(2026, 1, 1, tzinfo=UTC)


def moment(day: int) -> datetime:
    return START + timedelta(days=day)


def at(db_url: str, day: int) -> beliefdb.BeliefDB:
    """The library with beliefdb's clock fixed at ``day``."""
    return beliefdb.connect(url_at(db_url, moment(day).isoformat()))


def one(db: beliefdb.BeliefDB, source: str, value: str, *, valid_to: str | None = None) -> UUID:
    quote = f"The {source} colour is {value}."
    report = db.remember(quote, source, "colour", value, quote, source=f"{source}.md", text=f"Note. {quote}",
                         valid_to=valid_to)
    (accepted,) = report.accepted
    return accepted.id


def test_why_as_of_shows_a_belief_with_the_status_it_had_then(db_url: str, cli: Cli) -> None:
    with at(db_url, 0) as db:
        red = one(db, "alpha", "red")
        wrong = one(db, "beta", "green")
        short = one(db, "gamma", "blue", valid_to=moment(12).isoformat())
    with at(db_url, 10) as db:
        fixed = db.apply_correction(red, "The alpha colour is crimson.", value="crimson", reviewer="rita",
                                    expect_revision=db.preview_correction(red).revision)
        db.retract(belief=wrong, reason="a typo")
    with at(db_url, 20) as db:
        db.retract(belief=wrong, reason="", undo=True)
    with at(db_url, 30) as db:
        # believed then: as before
        assert db.why(red, as_of=moment(5)).belief.status == "current"
        assert db.why(red, as_of=moment(5)).replaced_by == []  # (the correction came later)
        # superseded then: shown superseded, with what replaced it by then
        then = db.why(red, as_of=moment(15))
        assert then.belief.status == "superseded"
        assert [h.new_belief for h in then.replaced_by] == [fixed.replacement]
        # retracted then (restored since): retracted, its retraction listed
        retracted = db.why(wrong, as_of=moment(15))
        assert retracted.belief.status == "retracted" and [r.reason for r in retracted.retractions] == ["a typo"]
        assert db.why(wrong, as_of=moment(25)).belief.status == "current"
        # its valid time over by then: expired
        assert db.why(short, as_of=moment(15)).belief.status == "expired"
        # the status then is what the SQL that decides it says (beliefdb.belief_status_at)
        with db.database.transaction() as c:
            said = dict(c.execute("select b.id, beliefdb.belief_status_at(b, %s)::text from beliefdb.belief b"
                                  " where b.id = any(%s)", (moment(15), [red, wrong, short])).fetchall())
        assert said == {red: "superseded", wrong: "retracted", short: "expired"}
        # not recorded yet then: not found
        with pytest.raises(errors.NotFound, match="not recorded yet"):
            db.why(fixed.replacement, as_of=moment(5))  # type: ignore[arg-type]
        # the picture of it as of then is drawn too, the belief with its status then
        graph = db.why_graph(red, as_of=moment(15))
        assert [n.status for n in graph.nodes if n.id == red] == ["superseded"]

    when = moment(15).isoformat()
    text = cli("why", str(red), "--as-of", when).stdout
    assert "[superseded, revision" in text, text
    shown = cli.json("why", str(red), "--as-of", when)
    assert shown["belief"]["status"] == "superseded"
    assert cli.json("why", str(wrong), "--as-of", when)["belief"]["status"] == "retracted"
    assert cli.json("why", str(short), "--as-of", when)["belief"]["status"] == "expired"
    cli.error("why", str(fixed.replacement), "--as-of", moment(5).isoformat(), code="not_found")

    with TestClient(create_app(db_url)) as client:
        token = api.create_token("default", "alice", url=db_url).token
        got = client.get(f"/beliefs/{red}", params={"as_of": when}, headers={"Authorization": f"Bearer {token}"})
        assert got.status_code == 200, got.text
        assert got.json() == shown
        early = client.get(f"/beliefs/{fixed.replacement}", params={"as_of": moment(5).isoformat()},
                           headers={"Authorization": f"Bearer {token}"})
        assert early.status_code == 404 and early.json()["error"] == "not_found"

    from beliefdb.interfaces.mcp import build

    async def session() -> Any:
        with beliefdb.connect(db_url) as bdb:
            async with Client(build(local=bdb)) as client:
                result = await client.call_tool("why", {"belief": str(red), "as_of": when})
                assert not result.is_error, result
                return json.loads(result.content[0].text)  # type: ignore[union-attr]

    assert anyio.run(session) == shown
