"""A LangGraph namespace is exactly one subject (its labels joined by "."), as LangGraph's own stores
act on exactly the namespace given: get, delete and search never reach another subject by reading the
namespace as a person's name or ignoring its case, as the library's ``answers`` and
``retract_attribute`` do for their own callers. A search's filter is a mapping, else InvalidInput."""

from __future__ import annotations

from typing import Any

import pytest

import beliefdb
from beliefdb import errors
from beliefdb.adapters.langgraph import BeliefStore


def city(value: str, turn: str) -> dict[str, Any]:
    return {"value": value, "quote": value, "source": f"ml/{turn}", "text": f"I live in {value}."}


@pytest.fixture
def store(bdb: beliefdb.BeliefDB) -> BeliefStore:
    return BeliefStore(bdb)


def test_get_and_search_read_exactly_the_namespace_given(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(("maya_lopez",), "city", city("Lisbon", "1"))
    for other in (("Maya López",), ("MAYA_LOPEZ",), ("Maya_Lopez",)):
        assert store.get(other, "city") is None, other
        assert store.search(other) == [], other
    item = store.get(("maya_lopez",), "city")
    assert item is not None and item.value["value"] == "Lisbon"
    # the library still reads a person's name as their subject, for its own callers
    assert [a.belief.value for a in bdb.answers(subject="Maya López")] == ["Lisbon"]


def test_delete_retracts_exactly_the_namespace_given(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(("maya_lopez",), "city", city("Lisbon", "1"))
    store.delete(("Maya López",), "city")
    store.delete(("MAYA_LOPEZ",), "city")
    item = store.get(("maya_lopez",), "city")
    assert item is not None and item.value["value"] == "Lisbon"
    assert [b.status for b in bdb.beliefs(subject="maya_lopez", include_all=True)] == ["current"]
    # a namespace that is the name itself is its own subject, apart from maya_lopez
    store.put(("Maya López",), "city", city("Porto", "2"))
    got = store.get(("Maya López",), "city")
    assert got is not None and got.value["value"] == "Porto" and got.namespace == ("Maya López",)
    store.delete(("Maya López",), "city")
    assert store.get(("Maya López",), "city") is None
    kept = store.get(("maya_lopez",), "city")
    assert kept is not None and kept.value["value"] == "Lisbon"


@pytest.mark.parametrize("wanted", ["value", ["value"], 5])
def test_a_filter_that_is_no_mapping_is_invalid_input(store: BeliefStore, wanted: Any) -> None:
    store.put(("maya_lopez",), "city", city("Lisbon", "1"))
    for query in (None, "where does she live?"):
        with pytest.raises(errors.InvalidInput) as caught:
            store.search(("maya_lopez",), query=query, filter=wanted)
        message = caught.value.message
        assert "filter" in message and type(wanted).__name__ in message and "\n" not in message, message


def test_subjects_lists_current_subjects_under_a_prefix_by_its_labels(bdb: beliefdb.BeliefDB) -> None:
    """What a namespace prefix stands for, read by the database (the store listed every current belief
    in Python for each search and each listing of namespaces): the subject itself and those below it."""
    store = BeliefStore(bdb)
    for n, namespace in enumerate([("shop",), ("shop", "eu"), ("shopping",), ("shop_x",), ("sh%p",)]):
        store.put(namespace, "colour", {"value": f"colour {n}", "quote": f"colour {n}", "source": f"s/{n}",
                                        "text": f"The colour is colour {n}."})
    assert sorted(bdb.subjects()) == sorted({b.subject for b in bdb.beliefs()})  # (in the server's collation)
    assert bdb.subjects(under="shop") == ["shop", "shop.eu"]
    assert bdb.subjects(under="sh%p") == ["sh%p"] and bdb.subjects(under="shop_") == []  # (no pattern)
    assert bdb.subjects(under="nobody") == []
    with pytest.raises(errors.InvalidInput):
        bdb.subjects(under="")
