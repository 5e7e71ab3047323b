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
    return [(b.subject, b.attribute, b.value) for b in sorted(beliefs, key=lambda b: (b.recorded_at, b.id),
                                                                reverse=True)]


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


def test_newest_refuses_what_is_no_page(bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.InvalidInput, match="limit"):
        bdb.newest(limit=0)
    with pytest.raises(errors.InvalidInput, match="offset"):
        bdb.newest(offset=-1)
    assert bdb.newest(subjects=[]) == []


def test_a_page_without_a_query_reads_the_newest_beliefs_only(bdb: beliefdb.BeliefDB, db_url: str,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    """The page reads belief_recent in order (as the product view's page does), not every current belief to
    sort them; of subjects, it reads those subjects' beliefs by subject."""
    filler(bdb)
    postgresql.execute("analyze")
    postgresql.commit()
    some = [f"item_{d}_{i}_policy" for d in range(2) for i in range(10)]  # one belief each of the 1,500
    for subjects, budget in ((None, 30), (some, 40)):
        result: list[Any] = []
        plans = statement_plans(db_url, bdb, Q.newest_current_beliefs,
                                {"subjects": subjects, "fixtures": False, "offset": 10, "limit": 11}, result=result,
                                settings=("enable_seqscan", "enable_bitmapscan"))
        assert result[0] is not None
        (page,) = [p for p in plans if "newest first" in p["Query Text"] or "order by b.recorded_at desc" in
                   p["Query Text"]]
        read = rows_read(page["Plan"], "belief", filtered=True)
        assert read <= budget, (subjects, read)
