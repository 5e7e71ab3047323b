"""A LangGraph search with a query ranks within its prefix: ``search(("shop",), query=...)`` finds the
shop's items however many other beliefs of the workspace the question matches better. It asked memory
for the best answers of the whole workspace (at most 200, each search path nominating ~40) and kept
those under the prefix afterwards: with hundreds of closer beliefs elsewhere, nothing was left."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from conftest import seeded_proc, url_of
from pytest_postgresql import factories

import beliefdb
from beliefdb import errors
from beliefdb.adapters.langgraph import BeliefStore

OTHERS = 400
#: vectors nearer to the question than the one the recall test looks for
NEARER = 2400


def _crowd(url: str) -> None:
    """Beliefs elsewhere that the question matches better than the shop's own: one a document."""
    docs = [(f"catalog/{n}.md", f"The limit of widget X model {n} is {n} units.\n") for n in range(OTHERS)]
    with beliefdb.connect(url) as db:
        db.bulk_ingest(*docs, authority="official")


# The crowd, embedded (most of its tests' time), is written once into a template that its two tests, side by side
# (so that xdist's split keeps them on one worker), clone; the other tests here start from an empty database
crowd_proc = seeded_proc(_crowd)
crowd_postgresql = factories.postgresql("crowd_proc")


@pytest.fixture
def crowd(crowd_postgresql: psycopg.Connection[Any]) -> Iterator[beliefdb.BeliefDB]:
    """The library API on a fresh database holding the crowd."""
    with beliefdb.connect(url_of(crowd_postgresql)) as db:
        yield db


def test_a_search_with_a_query_finds_the_items_of_its_prefix(crowd: beliefdb.BeliefDB) -> None:
    bdb = crowd
    assert len(bdb.beliefs()) >= OTHERS
    store = BeliefStore(bdb)
    store.put(("shop",), "widget_limit", {"value": 12, "quote": "at most 12 widgets per order", "source": "shop/1",
                                          "text": "Shop: at most 12 widgets per order."})
    assert [i.key for i in store.search(("shop",))] == ["widget_limit"]
    started = time.monotonic()
    hits = store.search(("shop",), query="limit of widget X")
    assert [(i.namespace, i.key, i.value["value"]) for i in hits] == [(("shop",), "widget_limit", 12)]
    assert hits[0].score is not None and time.monotonic() - started < 10
    # the whole workspace still ranks the crowd first, and a prefix nothing is under finds nothing
    assert store.search((), query="limit of widget X", limit=3)[0].namespace != ("shop",)
    assert store.search(("nobody",), query="limit of widget X") == []


def test_ask_of_subjects_ranks_those_subjects_only(crowd: beliefdb.BeliefDB) -> None:
    bdb = crowd
    store = BeliefStore(bdb)
    store.put(("shop",), "widget_limit", {"value": 12, "quote": "at most 12 widgets per order", "source": "shop/1",
                                          "text": "Shop: at most 12 widgets per order."})
    assert "shop" not in {a.belief.subject for a in bdb.ask("limit of widget X", k=50).beliefs}
    answer = bdb.ask("limit of widget X", k=50, subjects=["shop", "widget_x_model_7"])
    assert {a.belief.subject for a in answer.beliefs} == {"shop", "widget_x_model_7"}, answer.beliefs
    assert bdb.ask("limit of widget X", subjects=["nobody"]).status == "no_match"
    # nor text of another subject no belief was extracted from, in its fragments or its context
    bdb.ingest_text("Some unrelated words about Lisbon weather and the harbour.\n", source="b.md")
    assert bdb.ask("Lisbon harbour weather").fragments  # (asked of no subject: the text fills the answer)
    other = bdb.ask("Lisbon harbour weather", subjects=["nobody"])
    assert (other.fragments, other.context) == ([], ""), other
    for wrong in ("shop", [1], ["sh\ud800op"]):
        with pytest.raises(errors.InvalidInput, match=r"^subjects="):
            bdb.ask("limit of widget X", subjects=wrong)  # type: ignore[arg-type]


@pytest.mark.parametrize("prefix", [("shop",), ("shop", "eu")])
def test_a_prefix_search_keeps_to_subjects_under_the_prefix(bdb: beliefdb.BeliefDB, prefix: tuple[str, ...]) -> None:
    store = BeliefStore(bdb)
    for ns, turn in ((("shop",), 1), (("shop", "eu"), 2), (("shopping",), 3), (("shop_eu",), 4)):
        store.put(ns, "order_cap", {"value": turn, "quote": f"cap {turn}", "source": f"s/{turn}",
                                    "text": f"The widget cap {turn} per order."})
    found = {i.namespace for i in store.search(prefix, query="widget cap per order", limit=10)}
    assert found == {("shop",), ("shop", "eu")} if prefix == ("shop",) else found == {("shop", "eu")}


@pytest.mark.slow
def test_recall_of_subjects_finds_their_vectors_however_many_others_are_nearer(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A search by the vector index filtered by subject stops at the index's scan limits, or where its graph
    leads no further: a subject whose vector is the farthest from the question, behind 2,400 nearer ones,
    was not found. The vectors of the subjects asked about, when few, are searched exactly."""
    lines = "".join(f"Item {n} colour: red\n" for n in range(NEARER)) + "Target colour: blue\n"
    bdb.bulk_ingest(("items.md", lines), embed=False)
    near = "[" + ",".join(["1"] * 384) + "]"
    far = "[" + ",".join(["-1"] * 384) + "]"
    postgresql.execute("""
        insert into beliefdb.belief_embedding (workspace_id, belief_id, model, embedding)
        select b.workspace_id, b.id, 'test-model',
               (case when b.subject = 'target' then %s
                     else (select array_agg(1 + (random() - 0.5) / 10) from generate_series(1, 384))::real[]
                              ::beliefdb_ext.vector::text end)::beliefdb_ext.vector
          from beliefdb.belief b""", (far,))
    postgresql.commit()
    query = ("select b.subject from beliefdb.recall('zzqx wvvy', %s::beliefdb_ext.vector, 'test-model', 5,"
             " p_min_similarity => -1, p_subjects => array['target']) r join beliefdb.belief b on b.id = r.belief_id")
    with bdb.database.transaction() as c:
        # (a workspace of more than 10 vectors is not searched exactly. Without the exact search of the subjects
        # the HNSW scan returned 400 to 2,400 of these vectors, never the target, whatever hnsw.max_scan_tuples
        # (1 to 1,000,000): it ran out of what the graph's ground layer, where it goes on, leads to)
        c.execute("select set_config('beliefdb.exact_vector_search_max', '10', true)")
        assert c.execute(query, (near,)).fetchall() == [("target",)]
