"""Listing beliefs a page at a time: the library's ``limit``/``after``, the CLI's ``--limit``/``--after``
and GET /beliefs with its ``Link`` header cover every belief once, in the order of the whole listing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from conftest import Cli
from fastapi.testclient import TestClient
from plans import app_session_with_plans, rows_read

import beliefdb
from beliefdb import api
from beliefdb.interfaces.http import create_app
from beliefdb.store.beliefs import list_beliefs

TEXT = "".join(f"Product {p} colour: {c}\n" for p in ("alpha", "beta", "gamma", "delta") for c in ("red",))
TEXT += "Product alpha weight: 3 kg\nProduct beta weight: 4 kg\nProduct gamma weight: 5 kg\n"


def _ids(rows: list[Any]) -> list[str]:
    return [str(r.id) if hasattr(r, "id") else str(r["id"]) for r in rows]


def test_pages_cover_the_listing_once_in_its_order(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(TEXT, source="catalogue.md")
    bdb.ingest_text("Product alpha colour: blue\n", source="update.md")  # supersedes red: listed with --all
    for include_all in (False, True):
        whole = bdb.beliefs(include_all=include_all)
        assert len(whole) == (8 if include_all else 7)
        keys = [(b.subject, b.attribute, b.recorded_at, str(b.id)) for b in whole]
        assert keys == sorted(keys)
        pages: list[list[beliefdb.Belief]] = []
        after = None
        while True:
            page = bdb.beliefs(include_all=include_all, limit=3, after=after)
            if not page:
                break
            pages.append(page)
            after = page[-1].id
        assert [len(p) for p in pages] == ([3, 3, 2] if include_all else [3, 3, 1])
        assert _ids([b for p in pages for b in p]) == _ids(whole)
    # a prefix of the last id works as the cursor, as it does everywhere an id is taken
    first = bdb.beliefs(limit=2)
    assert bdb.beliefs(limit=2, after=str(first[-1].id)[:12]) == bdb.beliefs()[2:4]


def test_bad_pages_are_refused(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(TEXT, source="catalogue.md")
    with pytest.raises(beliefdb.errors.InvalidInput, match="limit must be between 1 and 100,000"):
        bdb.beliefs(limit=0)
    with pytest.raises(beliefdb.errors.UnknownBelief):
        bdb.beliefs(after="00000000-0000-0000-0000-000000000000")
    # a limit that is no whole number (an agent's JSON string, a float, a bool) is refused as such, not a
    # TypeError from comparing it
    for limit in ("a", "10", 2.5, True):
        with pytest.raises(beliefdb.errors.InvalidInput, match=r"^limit must be a whole number between 1 and 100,000,"):
            bdb.beliefs(limit=limit)  # type: ignore[arg-type]
        with pytest.raises(beliefdb.errors.InvalidInput, match=r"^limit must be a whole number"):
            bdb.decisions(limit=limit)  # type: ignore[arg-type]
        with pytest.raises(beliefdb.errors.InvalidInput, match=r"^limit must be a whole number"):
            bdb.jobs(limit=limit)  # type: ignore[arg-type]
        with pytest.raises(beliefdb.errors.InvalidInput, match=r"^k must be a whole number"):
            bdb.ask("what is the price?", k=limit)  # type: ignore[arg-type]
    with pytest.raises(beliefdb.errors.InvalidInput, match=r"must be a job id \(a whole number\)"):
        bdb.jobs(before="12")  # type: ignore[arg-type]


def test_the_cli_pages(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    bdb.ingest_text(TEXT, source="catalogue.md")
    whole = cli.json("beliefs")
    first = cli.json("beliefs", "--limit", "1")
    assert _ids(first) == _ids(whole)[:1]
    rest = cli.json("beliefs", "--after", first[0]["id"])
    assert _ids(first + rest) == _ids(whole)
    assert "--limit" in cli("beliefs", "--help").output
    failed = cli.error("beliefs", "--after", "ffffffff")
    assert "ffffffff" in failed["message"]


def follow_links(client: TestClient, path: str, limit: int, headers: dict[str, str]) -> list[str]:
    """The ids of every page of GET ``path``, from the first (``limit`` a page) along the ``Link`` headers."""
    seen: list[str] = []
    response = client.get(path, params={"limit": limit}, headers=headers)
    while True:
        assert response.status_code == 200, response.text
        seen += _ids(response.json())
        if "link" not in response.headers:
            return seen
        assert response.headers["link"].endswith('>; rel="next"')
        response = client.get(response.headers["link"][1:-len('>; rel="next"')], headers=headers)


def test_get_beliefs_names_the_next_page(db_url: str) -> None:
    with beliefdb.connect(db_url) as db:
        db.ingest_text(TEXT, source="catalogue.md")
        whole = _ids(db.beliefs())
    token = api.create_token("default", "alice", url=db_url).token
    headers = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(db_url)) as client:
        seen = follow_links(client, "/beliefs", 4, headers)
        assert seen == whole and len(whole) == 7
        everything = client.get("/beliefs", headers=headers)
        assert _ids(everything.json()) == whole and "link" not in everything.headers
        refused = client.get("/beliefs", params={"limit": 0}, headers=headers)
        assert refused.status_code == 400, refused.text


@pytest.mark.slow
def test_a_page_reads_the_listing_index_in_order_not_the_whole_workspace(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    # with no statistics on workspace_id the planner takes a workspace for a few rows: a page read all of
    # its beliefs to sort them (1.3 s for 20 of 550,000), where the index (subject, attribute) is in order
    bdb.ingest_text("".join(f"Product p{i:03} colour: red\n" for i in range(300)), source="big.md")
    plans: list[dict[str, Any]] = []
    # (in a caller's transaction: the page's setting would outlive it)
    with app_session_with_plans(db_url, bdb.database.workspace_id, ["belief"], plans) as conn, conn.transaction():
        page = list_beliefs(bdb.database, limit=3, conn=conn)
        assert conn.execute("show enable_bitmapscan").fetchone() == ("on",)   # (as it was, after the page)
    assert [b.subject for b in page] == ["product_p000", "product_p001", "product_p002"]
    [plan] = [p["Plan"] for p in plans if "beliefdb.current_beliefs" in p["Query Text"]]
    assert rows_read(plan, "belief") <= 10


def test_a_listing_as_of_a_moment_is_what_beliefs_as_of_returns(bdb: beliefdb.BeliefDB,
                                                                postgresql: psycopg.Connection[Any]) -> None:
    # the listing tests each belief as it reads it (a page, a subject: only their rows), and says what the
    # SQL function says of the whole workspace, status and all
    moments = []
    bdb.ingest_text(TEXT, source="catalogue.md")
    moments.append(datetime.now(UTC))
    bdb.ingest_text("Product alpha colour: blue\n", source="update.md")
    moments.append(datetime.now(UTC))
    bdb.retract(source="update.md", reason="wrong")
    moments.append(datetime.now(UTC))
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(bdb.database.workspace_id),))
    for at in moments:
        want = {(str(i), s) for i, s in postgresql.execute(
            "select id, status::text from beliefdb.beliefs_as_of(%s)", (at,)).fetchall()}
        assert {(str(b.id), b.status) for b in bdb.beliefs(as_of=at)} == want, at
        page = bdb.beliefs(as_of=at, limit=2)
        assert page == bdb.beliefs(as_of=at)[:2]
        assert bdb.beliefs(as_of=at, subject="product_alpha") == [
            b for b in bdb.beliefs(as_of=at) if b.subject == "product_alpha"]
    postgresql.commit()
    # (what was believed then: red, then blue, then red again once blue's source was retracted)
    assert [[b.value for b in bdb.beliefs(as_of=at, subject="product_alpha", attribute="colour")]
            for at in moments] == [["red"], ["blue"], ["red"]]
