"""Inputs a user trial of the library found refused with someone else's words (PostgreSQL's, Python's)
or not refused at all: each is InvalidInput in one line naming what is wrong, and nothing is written."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

import beliefdb
from beliefdb import errors
from beliefdb.adapters.langgraph import BeliefStore

TEXT = "Maya: I live in Lisbon."


def _remember(db: beliefdb.BeliefDB, **change: Any) -> None:
    fields: dict[str, Any] = {"statement": "Maya lives in Lisbon", "subject": "maya", "attribute": "city",
                              "value": "Lisbon", "quote": "Lisbon"}
    scope = change.pop("scope", None)
    fields.update(change)
    db.remember(fields["statement"], fields["subject"], fields["attribute"], fields["value"], fields["quote"],
                source="chat/1", text=TEXT, scope=scope)


@pytest.mark.parametrize("field", ["statement", "subject", "attribute", "value"])
def test_remember_refuses_a_lone_surrogate_naming_the_field(bdb: beliefdb.BeliefDB, field: str) -> None:
    with pytest.raises(errors.InvalidInput) as caught:
        _remember(bdb, **{field: "Lis\ud800bon"})
    message = caught.value.message
    assert message.startswith(f"'{field}': ") and "lone surrogate at character 3" in message, message
    assert "json" not in message and "\n" not in message
    assert bdb.beliefs() == []


def test_remember_refuses_a_lone_surrogate_in_a_scope_key(bdb: beliefdb.BeliefDB) -> None:
    for scope in ({"k\ud800": "EU"}, {"region": "E\ud800"}):
        with pytest.raises(errors.InvalidInput, match=r"^'scope': .*lone surrogate at character 1"):
            _remember(bdb, scope=scope)
    assert bdb.beliefs() == []


def test_the_langgraph_store_refuses_a_lone_surrogate_naming_the_field(bdb: beliefdb.BeliefDB) -> None:
    store = BeliefStore(bdb)
    value = {"value": "Lisbon", "quote": "Lisbon", "source": "chat/1", "text": TEXT}
    with pytest.raises(errors.InvalidInput, match=r"^'attribute': .*lone surrogate"):
        store.put(("maya",), "k\ud800", value)
    with pytest.raises(errors.InvalidInput, match=r"^'scope': .*lone surrogate"):
        store.put(("maya",), "city", {**value, "scope": {"k\ud800": "EU"}})
    assert bdb.beliefs() == []


@pytest.mark.parametrize(("payload", "where"), [({"x": object()}, "payload['x']"),
                                                 ({"a": [1, {"b": {1, 2}}]}, "payload['a'][1]['b']"),
                                                 ({"a": {(1, 2): "pair"}}, "payload['a']")])
def test_record_step_refuses_what_json_cannot_hold_naming_where(bdb: beliefdb.BeliefDB, payload: dict[str, Any],
                                                                where: str) -> None:
    with pytest.raises(errors.InvalidInput) as caught:
        bdb.record_step("observation", payload)
    message = caught.value.message
    assert message.startswith(f"{where}: ") and "not JSON" in message and "\n" not in message, message
    with pytest.raises(errors.InvalidInput, match=r"^payload\['x'\]: .*not JSON"), bdb.record_run(task="t") as run:
        run.step("observation", {"x": object()})
    assert bdb.runs() == []


def test_record_step_still_takes_any_json(bdb: beliefdb.BeliefDB) -> None:
    payload = {"s": "x", "n": 1, "f": 1.5, "b": True, "none": None, "list": [1, ("t", 2)], "nested": {"k": {}}}
    bdb.record_step("observation", payload)
    assert len(bdb.runs()) == 1


async def _plain(x: int) -> int:
    return x


def test_the_async_clients_call_refuses_an_async_function(db_url: str) -> None:
    async def story() -> None:
        async with await beliefdb.aconnect(db_url) as adb:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no coroutine left un-awaited
                with pytest.raises(errors.InvalidInput, match=r"^fn= is an async function"):
                    await adb.call(_plain, 1)
            assert await adb.call(len, "abc") == 3

    asyncio.run(story())


@pytest.mark.parametrize("revision", ["1", 1.0, None, True])
def test_apply_correction_refuses_a_revision_that_is_no_integer(bdb: beliefdb.BeliefDB, revision: Any) -> None:
    _remember(bdb)
    (belief,) = bdb.beliefs()
    with pytest.raises(errors.InvalidInput) as caught:
        bdb.apply_correction(belief.id, "Maya lives in Porto", reviewer="r", expect_revision=revision, value="Porto")
    message = caught.value.message
    assert message.startswith("expect_revision=") and "integer" in message and "\n" not in message, message
    assert [b.value for b in bdb.beliefs()] == ["Lisbon"]
