"""A document proposed to its source's owner waits in a review item whose proposal holds the text as it
would be stored, with the path the proposer's machine read the file at (/home/…/private/clients/acme/…).
``GET /review-items`` and the ``review_list`` tool of ``beliefdb serve``'s /mcp gave that path to every
caller with a token of the workspace: they name the file by its name, as ``GET /jobs`` does a queued
file; ``beliefdb review list`` and a local ``beliefdb mcp`` (the operator's own) keep the path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from mcp.client import Client
from serving import bearer
from test_mcp_jobs import _call

import beliefdb
from beliefdb import errors
from beliefdb.models import IngestReport


@pytest.fixture
def proposed(tmp_path: Path, alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> Path:
    """alice's trap0.md; bob's file of the same name, read at a path of his machine, proposed to her."""
    alice.ingest_text("Trap 0: yes\n", source="trap0.md")
    folder = tmp_path / "private" / "clients" / "acme"
    folder.mkdir(parents=True)
    (folder / "trap0.md").write_text("Trap 0: no\n", encoding="utf-8")
    (report,) = bob.ingest(folder / "trap0.md", source="trap0.md")
    assert isinstance(report, IngestReport) and report.proposed, report
    (item,) = [i for i in alice.review_items() if i.kind == "version_proposed"]
    assert item.proposal is not None and item.proposal["path"] == str(folder / "trap0.md")
    return folder / "trap0.md"


def test_get_review_items_names_the_proposed_file_not_its_path(http_client: TestClient, db_url: str, cli: Cli,
                                                               proposed: Path) -> None:
    listed = http_client.get("/review-items", headers=bearer(db_url, "alice"))
    assert listed.status_code == 200, listed.text
    (item,) = [i for i in listed.json() if i["kind"] == "version_proposed"]
    assert item["proposal"]["path"] == "trap0.md"
    assert str(proposed.parent) not in listed.text and "private" not in listed.text
    assert item["proposal"]["content"] == "Trap 0: no\n"  # the rest of the proposal as it was
    (own,) = [i for i in cli.json("review", "list") if i["kind"] == "version_proposed"]
    assert own["proposal"]["path"] == str(proposed)


def test_the_review_list_tool_names_it_as_get_review_items_does(alice: beliefdb.BeliefDB, proposed: Path) -> None:
    from beliefdb.interfaces.mcp import build

    async def run() -> tuple[bool, Any]:
        async with Client(build(local=alice)) as client:
            return await _call(client, "review_list", {})

    failed, items = anyio.run(run)
    (local,) = [i for i in items if i["kind"] == "version_proposed"]
    assert not failed and local["proposal"]["path"] == str(proposed)
    with errors.remote():  # (as beliefdb serve answers every request)
        failed, items = anyio.run(run)
    (remote,) = [i for i in items if i["kind"] == "version_proposed"]
    assert not failed and remote["proposal"]["path"] == "trap0.md"
