"""Listing decisions and actions a page at a time: the library's ``limit``/``after``, the CLI's
``--limit``/``--after`` and GET /decisions and /actions with their ``Link`` header cover each once, in
the order of the whole listing (oldest first), and a page reads the listing's index, not the workspace."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Cli, url_at
from fastapi.testclient import TestClient
from plans import app_session_with_plans, rows_read
from test_belief_pages import _ids, follow_links

import beliefdb
from beliefdb import api
from beliefdb.interfaces.http import create_app
from beliefdb.store.decisions import list_actions, list_decisions


def _record(db: beliefdb.BeliefDB, n: int) -> list[str]:
    """``n`` decisions resting on one belief, each carried out by one action; the decisions' ids."""
    belief = db.ingest_text("Product alpha colour: red\n", source="catalogue.md").accepted[0].id
    decisions = [db.decide(f"decision {i}", because=[belief]).id for i in range(n)]
    for i, d in enumerate(decisions):
        db.act(d, f"action {i}")
    return [str(d) for d in decisions]


def _pages(listing: Any, size: int) -> list[list[Any]]:
    pages, after = [], None
    while page := listing(limit=size, after=after):
        pages.append(page)
        after = page[-1].id
    return pages


def test_pages_cover_the_listing_once_in_its_order(bdb: beliefdb.BeliefDB) -> None:
    recorded = _record(bdb, 7)
    whole = bdb.decisions()
    assert _ids(whole) == recorded
    keys = [(d.created_at, str(d.id)) for d in whole]
    assert keys == sorted(keys)
    pages = _pages(bdb.decisions, 3)
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [d for p in pages for d in p] == whole   # reasons and all
    actions = bdb.actions()
    assert len(actions) == 7 and [str(a.decision_id) for a in actions] == recorded
    pages = _pages(bdb.actions, 2)
    assert [len(p) for p in pages] == [2, 2, 2, 1] and [a for p in pages for a in p] == actions
    # a status keeps to its own rows; a prefix of the last id works as the cursor
    assert bdb.decisions("active", limit=2, after=recorded[1][:13]) == whole[2:4]
    assert bdb.decisions("rejected", limit=2) == []
    assert bdb.actions("scheduled", limit=3, after=str(actions[0].id)[:10]) == actions[1:4]


def test_decisions_recorded_at_one_moment_page_by_id(db_url: str) -> None:
    # a frozen clock gives every decision the same created_at: the id orders them, and no page repeats or
    # skips one
    with beliefdb.connect(url_at(db_url, "2026-01-01 00:00:00+00")) as db:
        _record(db, 6)
        whole = db.decisions()
        assert len({d.created_at for d in whole}) == 1
        assert [str(d.id) for d in whole] == sorted(str(d.id) for d in whole)
        assert [d for p in _pages(db.decisions, 4) for d in p] == whole
        assert [a for p in _pages(db.actions, 4) for a in p] == db.actions()


def test_bad_pages_are_refused(bdb: beliefdb.BeliefDB) -> None:
    recorded = _record(bdb, 2)
    for listing in (bdb.decisions, bdb.actions):
        with pytest.raises(beliefdb.errors.InvalidInput, match="limit must be between 1 and 100,000"):
            listing(limit=0)
        with pytest.raises(beliefdb.errors.NotFound):
            listing(after="00000000-0000-0000-0000-000000000000")
    # the cursor is a node of the listing's kind: an action's id does not page decisions
    with pytest.raises(beliefdb.errors.NotFound, match=r"is an action, not a decision$"):
        bdb.decisions(after=bdb.actions()[0].id)
    assert _ids(bdb.decisions(after=recorded[0])) == recorded[1:]


def test_the_cli_pages(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    recorded = _record(bdb, 3)
    first = cli.json("decisions", "--limit", "1")
    assert _ids(first) == recorded[:1]
    rest = cli.json("decisions", "--after", first[0]["id"])
    assert _ids(first + rest) == recorded
    actions = cli.json("actions")
    assert _ids(cli.json("actions", "--limit", "2", "--after", actions[0]["id"])) == _ids(actions)[1:3]
    for command in ("decisions", "actions"):
        assert "--after" in cli(command, "--help").output
    failed = cli.error("decisions", "--after", "ffffffff")
    assert "ffffffff" in failed["message"]


def test_get_decisions_and_actions_name_the_next_page(db_url: str) -> None:
    with beliefdb.connect(db_url) as db:
        recorded = _record(db, 5)
        actions = _ids(db.actions())
    token = api.create_token("default", "alice", url=db_url).token
    headers = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(db_url)) as client:
        for path, whole in (("/decisions", recorded), ("/actions", actions)):
            assert follow_links(client, path, 2, headers) == whole
            everything = client.get(path, headers=headers)
            assert _ids(everything.json()) == whole and "link" not in everything.headers
            assert client.get(path, params={"limit": 0}, headers=headers).status_code == 400
        # ``of`` names one decision, by its own id or by one of its actions' (as the CLI's argument does)
        assert _ids(client.get("/decisions", params={"of": recorded[3]}, headers=headers).json()) == [recorded[3]]
        assert _ids(client.get("/decisions", params={"of": actions[1]}, headers=headers).json()) == [recorded[1]]
        unknown = client.get("/decisions", params={"of": "ffffffff"}, headers=headers)
        assert unknown.status_code == 404, unknown.text


@pytest.mark.slow
def test_a_page_reads_the_listing_index_in_order_not_the_whole_workspace(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    # with no statistics on workspace_id the planner takes a workspace for a few rows: a page of 50 read
    # and sorted all of bench/impact.py's 150,000 decisions (0.8 s), where (workspace, created_at, id) is
    # the listing's order
    _record(bdb, 300)
    plans: list[dict[str, Any]] = []
    with app_session_with_plans(db_url, bdb.database.workspace_id, ["decision", "action"], plans) as conn:
        # (a plan made for any cursor, as a long-lived connection's prepared statement may get)
        conn.prepare_threshold = 0
        conn.execute("set plan_cache_mode = force_generic_plan")
        decisions = list_decisions(bdb.database, limit=3, conn=conn)
        actions = list_actions(bdb.database, limit=3, conn=conn)
        # a page deep in the listing, once psycopg prepares the statement and the server may plan it for
        # any cursor: the plan starts the index at the cursor
        deep = [list_decisions(bdb.database, limit=3, after=decisions[-1].id, conn=conn) for _ in range(8)][-1]
        later = [list_actions(bdb.database, limit=3, after=actions[-1].id, conn=conn) for _ in range(8)][-1]
        far = list_decisions(bdb.database, limit=3, after=_ids(list_decisions(bdb.database, conn=conn))[250],
                             conn=conn)
        farther = list_actions(bdb.database, limit=3, after=_ids(list_actions(bdb.database, conn=conn))[250],
                               conn=conn)
    assert [d.title for d in decisions] == ["decision 0", "decision 1", "decision 2"]
    assert [a.description for a in actions] == ["action 0", "action 1", "action 2"]
    assert [d.title for d in deep] == ["decision 3", "decision 4", "decision 5"]
    assert [a.description for a in later] == ["action 3", "action 4", "action 5"]
    assert [d.title for d in far] == ["decision 251", "decision 252", "decision 253"]
    assert [a.description for a in farther] == ["action 251", "action 252", "action 253"]
    pages = [("decision", p["Plan"]) for p in plans if "s.decision = d.id" in p["Query Text"]]
    assert len(pages) == 11   # the first page, eight deep ones, the whole listing, the far page
    del pages[9]
    actions_read = [("action", p["Plan"]) for p in plans if "a.description, a.status" in p["Query Text"]]
    assert len(actions_read) == 11   # the first page, eight later ones, the whole listing, the far page
    del actions_read[9]
    pages += actions_read
    for table, plan in pages:
        assert rows_read(plan, table) <= 10, (table, plan)
