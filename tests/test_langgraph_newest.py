"""A LangGraph search without a query lists the newest items of its prefix, and reads only as many.

It read every current belief of the workspace into Python (``db.beliefs()``), kept those under the prefix,
sorted them by recording and cut the page: a store of 100,000 memories read them all for a page of 10.
Now memory lists them newest first itself (``BeliefDB.newest``: of the given subjects, or of the whole
workspace from the ``belief_recent`` index in order), a page at a time; a filter (which may name evidence
or warnings) reads pages until it has its items."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from plans import rows_read
from test_plans_at_scale import filler, statement_plans

import beliefdb
from beliefdb import errors
from beliefdb.adapters import langgraph
from beliefdb.adapters.langgraph import BeliefStore
from beliefdb.db.queries import Q


def _put(store: BeliefStore, namespace: tuple[str, ...], key: str, value: str) -> None:
    store.put(namespace, key, {"value": value, "quote": f"{key} is {value}", "source": f"{'/'.join(namespace)}/{key}",
                               "text": f"Note: {key} is {value}."})


def _reference(db: beliefdb.BeliefDB, under: str | None) -> list[tuple[str, str, str]]:
    """Every current belief under ``under``, newest first, read whole (what the store did)."""
    beliefs = [b for b in db.beliefs() if under is None or b.subject == under or b.subject.startswith(under + ".")]
    ordered = sorted(sorted(beliefs, key=lambda b: b.id), key=lambda b: b.recorded_at, reverse=True)
    return [(b.subject, b.attribute, b.value) for b in ordered]  # (those recorded together: by id)


def _listed(items: list[Any]) -> list[tuple[str, str, str]]:
    return [(".".join(i.namespace), i.key, str(i.value["value"])) for i in items]


def test_search_without_a_query_pages_the_newest_items_of_its_prefix(bdb: beliefdb.BeliefDB) -> None:
    store = BeliefStore(bdb)
    for n in range(7):
        _put(store, ("users", "1"), f"pref_{n}", f"v{n}")
        _put(store, ("users", "12"), f"pref_{n}", f"w{n}")  # a subject that starts with the other's name
    _put(store, ("users", "1", "deep"), "colour", "red")
    _put(store, ("users", "1"), "pref_2", "changed")  # supersedes v2: the old value is never listed
    store.delete(("users", "1"), "pref_4")
    want = _reference(bdb, "users.1")
    assert len(want) == 7 and ("users.1", "pref_2", "v2") not in want and want[0] == ("users.1", "pref_2", "changed")
    assert all(subject in ("users.1", "users.1.deep") for subject, _, _ in want)
    pages = [_listed(store.search(("users", "1"), limit=3, offset=offset)) for offset in (0, 3, 6, 9)]
    assert pages == [want[0:3], want[3:6], want[6:7], []]
    assert _listed(store.search((), limit=100)) == _reference(bdb, None)
    assert _listed(store.search(("users", "1", "deep"))) == [("users.1.deep", "colour", "red")]
    assert store.search(("nobody",)) == []


def test_a_filter_reads_pages_until_it_has_its_items(bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langgraph, "FILTER_PAGE", 7)  # pages of 7: every search below reads several
    store = BeliefStore(bdb)
    for n in range(60):  # every tenth one passes
        _put(store, ("shop",), f"item_{n:02d}", "rare" if n % 10 == 0 else "common")
    want = [row for row in _reference(bdb, "shop") if row[2] == "rare"]
    assert len(want) == 6
    assert _listed(store.search(("shop",), filter={"value": "rare"}, offset=3, limit=2)) == want[3:5]
    assert _listed(store.search(("shop",), filter={"value": "rare"}, limit=50)) == want
    assert _listed(store.search((), filter={"value": "rare"}, offset=5, limit=5)) == want[5:]


def test_a_filtered_search_neither_repeats_nor_skips_an_item_written_meanwhile(
        bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages follow the last item of the page before, not an offset: a put or a delete between two pages
    moved every later item by one (one item came twice, or one current all along was missing)."""
    monkeypatch.setattr(langgraph, "FILTER_PAGE", 3)
    store = BeliefStore(bdb)
    for n in range(8):
        _put(store, ("shop",), f"k{n}", "rare")
    before = _listed(store.search(("shop",), filter={"value": "rare"}, limit=20))
    pages = 0
    newest = bdb.newest

    def between_pages(**kwargs: Any) -> list[Any]:
        nonlocal pages
        pages += 1
        if pages == 2:  # after the first page was read: a put, then a delete of the newest item read
            _put(store, ("shop",), "k8", "rare")
            store.delete(("shop",), "k7")
        return newest(**kwargs)

    monkeypatch.setattr(bdb, "newest", between_pages)
    seen = _listed(store.search(("shop",), filter={"value": "rare"}, limit=20))
    assert len(seen) == len(set(seen)) == 8, seen  # no item twice
    assert seen == before, (seen, before)  # every item current all along, in order


def test_a_search_longer_than_a_page_reads_pages(bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langgraph, "MAX_PAGE", 2)  # (100,000 a call: as if a page were two)
    store = BeliefStore(bdb)
    for n in range(5):
        _put(store, ("shop",), f"k{n}", "v")
    want = _reference(bdb, "shop")
    assert _listed(store.search(("shop",), limit=4, offset=1)) == want[1:5]
    assert _listed(store.search(("shop",), limit=200_000)) == want


def test_newest_refuses_what_is_no_page(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput, match="limit"):
        bdb.newest(limit=0)
    with pytest.raises(errors.InvalidInput, match="offset"):
        bdb.newest(offset=-1)
    assert bdb.newest(subjects=[]) == []
    bdb.remember("The desk opens at 9.", "desk", "opens", "9", "The desk opens at 9.", source="desk.md",
                 text="The desk opens at 9.")
    (only,) = bdb.newest()
    with pytest.raises(errors.InvalidInput, match="do not go together"):
        bdb.newest(after=only.id, offset=1)
    assert bdb.newest(after=str(only.id)[:8]) == []  # a prefix, as every cursor


def test_a_page_without_a_query_reads_the_newest_beliefs_only(bdb: beliefdb.BeliefDB, db_url: str,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    """The page reads belief_recent in order (as the product view's page does), not every current belief to
    sort them; of subjects, it reads those subjects' beliefs by subject."""
    filler(bdb)
    postgresql.execute("analyze")
    postgresql.commit()
    some = [f"item_{d}_{i}" for d in range(2) for i in range(10)]  # one belief each of the 1,500
    middle = bdb.newest(limit=800)[-1].id  # a page after it starts there, not at the newest
    for subjects, after, budget in ((None, None, 30), (some, None, 40), (None, middle, 30)):
        result: list[Any] = []
        params = {"subjects": subjects, "fixtures": False, "offset": 10, "limit": 11, "after": after}
        query = Q.newest_current_beliefs if after is None else Q.newest_current_beliefs_after
        plans = statement_plans(db_url, bdb, query, params, result=result,
                                settings=("enable_seqscan", "enable_bitmapscan"))
        assert result[0] is not None
        (page,) = [p for p in plans if "from beliefdb.current_beliefs b" in p["Query Text"]]
        assert after is None or result[0][0] != middle
        read = rows_read(page["Plan"], "belief", filtered=True)
        assert read <= budget, (subjects, after, read)
