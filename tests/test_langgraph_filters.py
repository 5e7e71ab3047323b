"""The LangGraph store's search filters compare typed values, as LangGraph's own stores do: the same
puts into ``BeliefStore`` and LangGraph's ``InMemoryStore`` and the same filters (hypothesis draws
them) match the same keys.

LangGraph's stores do not agree among themselves everywhere, and the adapter follows one documented
contract (the module documentation of ``beliefdb.adapters.langgraph``):

* ``InMemoryStore`` compares ``$gt``/``$gte``/``$lt``/``$lte`` through ``float()``, so it raises on a
  missing field or a string that is not a number (langgraph#7880); ``PostgresStore`` compares the
  text of both sides (langgraph#7684), so strings compare as text and a missing field is no match.
  Where InMemoryStore raises, the reference here is PostgresStore's answer: strings compare with
  strings, anything else does not match;
* a boolean is not a number (JSON, and PostgresStore's jsonb): ``True`` does not equal ``1``;
* a string operand is not a number even when it spells one (``"3"``), nor a number a string: the
  property draws no string that spells a number, and a test below pins that difference down;
* an operator LangGraph's stores do not have (``$in``, ``$nin``, ``$and``...) is refused with a one-line
  error, before anything is read (InMemoryStore raises too, once it has an item to compare).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, example, given, settings
from langgraph.store.memory import InMemoryStore

import beliefdb
from beliefdb import errors
from beliefdb.adapters.langgraph import BeliefStore

NS = ("filters",)
# key, value, quote (in the turn "Customer: <quote>, please."), scope
CORPUS: list[tuple[str, Any, str, dict[str, str]]] = [
    ("zero", 0, "nothing at all", {}),
    ("two", 2, "two bags", {"region": "EU"}),
    ("five", 5, "five nights", {"region": "EU", "tier": "gold"}),
    ("ten", 10, "ten kilos", {"region": "US"}),
    ("minus", -3, "three below", {}),
    ("half", 2.5, "two and a half", {"tier": "gold"}),
    ("tenth", 0.1, "a tenth", {}),
    ("large", 12345678901, "a big number", {"region": "US"}),
    ("aisle", "aisle", "an aisle seat", {"region": "EU"}),
    ("window", "Window", "Window please", {}),
    ("days", "10 days", "within ten days", {"tier": "silver"}),
]
RANGE: dict[str, Callable[[Any, Any], bool]] = {"$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt,
                                                "$lte": operator.le}
OPERATORS = ["$eq", "$ne", *RANGE]
FIELDS = ["value", "quote", "source", "scope", "color"]  # color: a field no item has


def put_value(key: str, value: Any, quote: str, scope: dict[str, str]) -> dict[str, Any]:
    return {"value": value, "quote": quote, "source": f"chat-filters/{key}", "text": f"Customer: {quote}, please.",
            "scope": scope}


@pytest.fixture
def stores(bdb: beliefdb.BeliefDB) -> Iterator[tuple[BeliefStore, InMemoryStore]]:
    """The corpus put into a BeliefStore and into an InMemoryStore, each item of the latter under a
    namespace of its own (``("m", key)``) so that one item's exception does not hide another's answer."""
    ours, theirs = BeliefStore(bdb), InMemoryStore()
    for key, value, quote, scope in CORPUS:
        ours.put(NS, key, put_value(key, value, quote, scope))
        theirs.put(("m", key), key, put_value(key, value, quote, scope))
    yield ours, theirs


def _inmemory(theirs: InMemoryStore, key: str, flt: dict[str, Any]) -> bool:
    return bool(theirs.search(("m", key), filter=flt))


def _reference_op(theirs: InMemoryStore, key: str, field: str, op: str, operand: Any) -> bool:
    try:
        return _inmemory(theirs, key, {field: {op: operand}})
    except (TypeError, ValueError):  # float() of a missing field or of a word: PostgresStore's answer
        item = theirs.get(("m", key), key)
        got = item.value.get(field) if item else None
        return isinstance(got, str) and isinstance(operand, str) and RANGE[op](got, operand)


def reference(theirs: InMemoryStore, key: str, flt: dict[str, Any]) -> bool:
    """Whether LangGraph matches this item: InMemoryStore's answer, condition by condition; where it
    raises, PostgresStore's."""
    for field, condition in flt.items():
        try:
            if not _inmemory(theirs, key, {field: condition}):
                return False
        except (TypeError, ValueError):
            if not all(_reference_op(theirs, key, field, op, operand) for op, operand in condition.items()):
                return False
    return True


def matched(ours: BeliefStore, flt: dict[str, Any]) -> list[str]:
    return sorted(item.key for item in ours.search(NS, filter=flt, limit=100))


# no string that spells a number (see the module's documentation): words of the corpus and letters
WORDS = sorted({str(v) for _, v, _, _ in CORPUS if isinstance(v, str) and v != "10 days"}
               | {q for _, _, q, _ in CORPUS} | {f"chat-filters/{k}" for k, *_ in CORPUS})
strings = st.one_of(st.sampled_from(WORDS), st.text(alphabet="aAWwz -/", max_size=4))
numbers = st.one_of(st.integers(-15, 15), st.floats(-15, 15, allow_nan=False), st.sampled_from([12345678901, 0.1]))
orderable = st.one_of(numbers, strings)
scalars = st.one_of(orderable, st.none())
scopes = st.dictionaries(st.sampled_from(["region", "tier"]), st.sampled_from(["EU", "US", "gold", "silver"]),
                         max_size=2)
conditions = st.one_of(
    scalars,  # equality
    scopes,  # a nested object: the item's holds these keys with these values
    st.dictionaries(st.sampled_from(["region", "tier"]),
                    st.dictionaries(st.sampled_from(["$eq", "$ne"]), st.sampled_from(["EU", "gold", None]),
                                    min_size=1), min_size=1),
    st.dictionaries(st.sampled_from(["$eq", "$ne"]), st.one_of(scalars, scopes), min_size=1),
    st.dictionaries(st.sampled_from(OPERATORS), orderable, min_size=1, max_size=3),
)
filters = st.dictionaries(st.sampled_from(FIELDS), conditions, min_size=1, max_size=2)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flt=filters)
@example(flt={"value": {"$gt": 3}})  # the exploratory test's: no number ever matched
@example(flt={"value": {"$gte": 2, "$lt": 10}})
@example(flt={"value": {"$lte": 2.5}})
@example(flt={"value": {"$lt": 0}})
@example(flt={"value": 5})
@example(flt={"value": {"$eq": 5.0}})
@example(flt={"value": {"$ne": 5}})
@example(flt={"value": {"$gt": "a"}})
@example(flt={"quote": {"$gte": "t"}, "value": {"$gt": 1}})
@example(flt={"scope": {"region": "EU"}})
@example(flt={"scope": {}})
@example(flt={"scope": {"$eq": {"region": "EU"}}})
@example(flt={"scope": {"region": {"$ne": "EU"}}})
@example(flt={"color": {"$ne": 1}})
@example(flt={"color": {"$gt": 1}})
def test_filters_match_what_langgraph_matches(stores: tuple[BeliefStore, InMemoryStore], flt: dict[str, Any]) -> None:
    ours, theirs = stores
    expected = sorted(key for key, *_ in CORPUS if reference(theirs, key, flt))
    assert matched(ours, flt) == expected


def test_a_number_comes_back_a_number(stores: tuple[BeliefStore, InMemoryStore]) -> None:
    ours, theirs = stores
    for key, value, _, _ in CORPUS:
        item, their_item = ours.get(NS, key), theirs.get(("m", key), key)
        assert item is not None and their_item is not None
        assert item.value["value"] == their_item.value["value"] == value
        assert type(item.value["value"]) is type(value)
    assert [i.value["value"] for i in ours.search(NS, filter={"value": 0})] == [0]  # 0 is a value, not a missing one


def test_what_langgraph_stores_do_not_agree_on(stores: tuple[BeliefStore, InMemoryStore],
                                               bdb: beliefdb.BeliefDB) -> None:
    ours, _ = stores
    # a missing field or a word under $gt: no match, where InMemoryStore raises (PostgresStore: no match)
    assert matched(ours, {"color": {"$gt": 1}}) == []
    assert matched(ours, {"value": {"$gt": 3}}) == ["five", "large", "ten"]
    # strings compare with strings, by code point (PostgresStore: by the database's collation)
    assert matched(ours, {"value": {"$gte": "W"}}) == ["aisle", "window"]
    # a string operand is not a number, even one that spells it (InMemoryStore: float("3"))
    assert matched(ours, {"value": {"$gt": "3"}}) == ["aisle", "window"]
    # JSON: a boolean is neither 1 nor 0 (InMemoryStore: True == 1)
    assert matched(ours, {"value": True}) == matched(ours, {"value": {"$eq": False}}) == []
    assert len(matched(ours, {"value": {"$ne": True}})) == len(CORPUS)
    # a belief's value is text: a string put that spells a number exactly as Python writes it reads as
    # that number (as remember's or ingest's value does); any other spelling stays a string
    spelled = ("spelled",)
    for key, value in [("plain", "7"), ("padded", "07"), ("exponent", "1e3"), ("signed", "+7"), ("point", "7.50")]:
        ours.put(spelled, key, put_value(key, value, f"the {key} one", {}))
    bdb.remember("Seven days to return.", "spelled", "days", "7.5", "Seven days", source="policy",
                 text="Seven days to return.")
    assert {i.key: i.value["value"] for i in ours.search(spelled)} == {
        "plain": 7, "padded": "07", "exponent": "1e3", "signed": "+7", "point": "7.50", "days": 7.5}


def test_a_query_search_filters_the_same(stores: tuple[BeliefStore, InMemoryStore]) -> None:
    ours, _ = stores
    hits = ours.search(NS, query="five, ten, two or large?", filter={"value": {"$gt": 3}}, limit=10)
    assert hits and all(isinstance(h.value["value"], int) and h.value["value"] > 3 for h in hits)


def test_puts_of_values_langgraph_would_store_but_a_belief_cannot_hold(bdb: beliefdb.BeliefDB) -> None:
    store = BeliefStore(bdb)
    for bad in (float("nan"), float("inf"), True, None, [1], {"a": 1}, ""):
        with pytest.raises(errors.InvalidInput, match="value"):
            store.put(NS, "bad", put_value("bad", bad, "bad luck", {}))
    assert bdb.beliefs() == []


REFUSED: list[tuple[dict[str, Any], str]] = [
    ({"value": {"$in": [2, 5]}}, "unknown filter operator '$in' on 'value'"),
    ({"value": {"$nin": [2, 5]}}, "unknown filter operator '$nin' on 'value'"),
    ({"value": {"$regex": "^a"}}, "unknown filter operator '$regex' on 'value'"),
    ({"value": {"$exists": True}}, "unknown filter operator '$exists' on 'value'"),
    ({"$and": [{"value": 5}]}, "unknown filter operator '$and'"),
    ({"$or": [{"value": 5}]}, "unknown filter operator '$or'"),
    ({"value": {"$gt": 1, "lt": 9}}, "unknown filter operator 'lt' on 'value'"),
    ({"scope": {"region": {"$like": "E%"}}}, "unknown filter operator '$like' on 'scope.region'"),
    ({"value": 5, "quote": {"$gt": None}}, "$gt on 'quote' compares a number or a string, not NoneType"),
    ({"value": {"$lt": True}}, "$lt on 'value' compares a number or a string, not bool"),
    ({"value": {"$gte": [1]}}, "$gte on 'value' compares a number or a string, not list"),
    ({"value": {"$lte": float("nan")}}, "$lte on 'value' compares a number or a string, not nan"),
]


def test_an_operator_langgraph_does_not_have_is_refused(bdb: beliefdb.BeliefDB) -> None:
    """Refused in one line before anything is read: on an empty store, with a query or without, and
    behind a condition that already failed."""
    store = BeliefStore(bdb)
    for flt, says in REFUSED:
        for query in (None, "seat"):
            with pytest.raises(errors.InvalidInput) as refused:
                store.search(NS, query=query, filter=flt)
            assert str(refused.value).startswith(says) and "\n" not in str(refused.value)
    store.put(NS, "aisle", put_value("aisle", "aisle", "an aisle seat", {}))
    for flt, says in REFUSED:
        with pytest.raises(errors.InvalidInput) as refused:
            store.search(NS, filter={"quote": "a window seat", **flt})
        assert str(refused.value).startswith(says)
