"""Correcting a belief that was superseded meanwhile was refused as bad input (400 ``invalid_input`` over
HTTP, the same code from the MCP tool ``correct`` and the CLI), where it is a conflict with the current
state, as a changed revision is: 409 ``not_correctable`` at every door, naming the belief that replaced
it (the end of the chain when that one was replaced in turn), so the caller knows what to correct."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer

import beliefdb
from beliefdb import errors
from beliefdb.interfaces.mcp import build

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"


def _superseded(db: beliefdb.BeliefDB, *fixes: str) -> tuple[str, list[str]]:
    """The window belief, and the replacements of each correction in ``fixes``, each correcting the last."""
    report = db.ingest_text(POLICY, source="return-policy.md", authority="official")
    first = str(next(a.id for a in report.accepted if a.attribute == "window"))
    replacements, belief = [], first
    for fix in fixes:
        done = db.apply_correction(belief, f"Returns are accepted within {fix}.", value=fix, reviewer="rita",
                                   expect_revision=db.preview_correction(belief).revision)
        belief = str(done.replacement)
        replacements.append(belief)
    return first, replacements


def _revision(db: beliefdb.BeliefDB, belief: str) -> int:
    return db.why(belief).belief.revision


def test_the_library_names_the_replacement(bdb: beliefdb.BeliefDB) -> None:
    old, (new,) = _superseded(bdb, "14 days")
    with pytest.raises(errors.NotCorrectable) as preview:
        bdb.preview_correction(old, "Returns are accepted within 20 days.", "20 days")
    with pytest.raises(errors.NotCorrectable) as apply:
        bdb.apply_correction(old, "Returns are accepted within 20 days.", value="20 days", reviewer="rita",
                             expect_revision=_revision(bdb, old))
    for refused in (preview.value, apply.value):
        assert refused.code == "not_correctable" and f"superseded by belief {new}" in refused.message, refused
        assert isinstance(refused, errors.InvalidInput)  # (what callers caught before still catches it)


def test_the_end_of_a_chain_is_named(bdb: beliefdb.BeliefDB) -> None:
    old, (middle, last) = _superseded(bdb, "14 days", "21 days")
    with pytest.raises(errors.NotCorrectable) as refused:
        bdb.preview_correction(old)
    assert f"superseded by belief {middle}" in refused.value.message, refused.value.message
    assert f"the belief in force is {last}" in refused.value.message, refused.value.message


def test_http_answers_409(http_client: TestClient, db_url: str, bdb: beliefdb.BeliefDB) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice:
        old, (new,) = _superseded(alice, "14 days")
        revision = _revision(alice, old)
    body = {"belief": old, "statement": "Returns are accepted within 20 days.", "value": "20 days"}
    for path, sent in (("/corrections/preview", body), ("/corrections", body | {"expected_revision": revision})):
        answer = http_client.post(path, json=sent, headers=bearer(db_url))
        assert answer.status_code == 409, (path, answer.text)
        said = answer.json()
        assert said["error"] == "not_correctable" and new in said["message"], said


def test_the_mcp_tool_and_the_cli_say_not_correctable(db_url: str, cli: Cli) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice:
        old, (new,) = _superseded(alice, "14 days")
        revision = _revision(alice, old)

        async def run() -> Any:
            async with Client(build(local=alice)) as client:
                return [await client.call_tool("correct", {"belief": old, "statement": "Returns within 20 days.",
                                                           **extra})
                        for extra in ({}, {"expected_revision": revision})]

        for result in anyio.run(run):
            said = json.loads(result.content[0].text)
            assert result.is_error and said["error"] == "not_correctable" and new in said["message"], said
    for args in (["--preview"], ["--apply", "--expect-revision", str(revision), "--reviewer", "rita"]):
        err = cli.error("correct", old, "Returns within 20 days.", *args, "--as", "alice", code="not_correctable")
        assert new in err["message"], err
