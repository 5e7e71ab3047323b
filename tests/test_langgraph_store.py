"""The LangGraph store (``beliefdb.adapters.langgraph.BeliefStore``) against the real langgraph package
and the real database: namespaces are subjects, keys attributes; put goes through the evidence gate;
get, search and list_namespaces see current beliefs only (a superseded, retracted, expired or fixture
belief never comes back); delete retracts; batch and abatch; a compiled graph that uses it."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import datetime
from typing import Any, TypedDict

import psycopg
import pytest
from conftest import url_at
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, InvalidNamespaceError, Item, ListNamespacesOp, PutOp, SearchOp
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import errors
from beliefdb.adapters.langgraph import DELETE_REASON, BeliefStore
from beliefdb.store import ingest, retraction
from beliefdb.text.extractor import Candidate

NS = ("customer", "c1042")
TURN_1 = "Customer: I always want an aisle seat, please."
TURN_2 = "Customer: Actually, from now on I want a window seat."


def seat(value: str, turn: int, text: str, quote: str, **more: Any) -> dict[str, Any]:
    return {"value": value, "quote": quote, "source": f"chat-1042/{turn}", "text": text, **more}


@pytest.fixture
def store(bdb: beliefdb.BeliefDB) -> BeliefStore:
    return BeliefStore(bdb)


def test_put_then_get_carries_the_evidence(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    item = store.get(NS, "seat_preference")
    assert isinstance(item, Item) and (item.namespace, item.key) == (NS, "seat_preference")
    v = item.value
    assert (v["subject"], v["attribute"], v["value"]) == ("customer.c1042", "seat_preference", "aisle")
    assert v["statement"] == "seat preference of customer.c1042: aisle"
    assert (v["quote"], v["source"], v["version"]) == ("I always want an aisle seat", "chat-1042/1", 1)
    assert TURN_1[v["start"]:v["end"]] == v["quote"]
    assert v["authority"] == "user" and v["confidence"] == pytest.approx(0.65) and v["warnings"] == []
    (belief,) = bdb.beliefs(subject="customer.c1042")
    assert v["belief_id"] == str(belief.id) and item.created_at == belief.recorded_at
    assert store.get(NS, "no_such_key") is None and store.get(("nobody",), "seat_preference") is None


def test_a_superseded_value_never_comes_back(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    store.put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
    statuses = {b.value: b.status for b in bdb.beliefs(subject="customer.c1042", include_all=True)}
    assert statuses == {"aisle": "superseded", "window": "current"}  # rule 8: the later word wins

    item = store.get(NS, "seat_preference")
    assert item is not None and item.value["value"] == "window"
    assert any(w.startswith("replaced 'aisle'") for w in item.value["warnings"])
    assert [i.value["value"] for i in store.search(("customer",))] == ["window"]
    assert [i.value["value"] for i in store.search(NS, filter={"attribute": "seat_preference"})] == ["window"]
    found = store.search((), query="which seat does the customer want?", limit=10)
    assert "window" in [i.value["value"] for i in found] and "aisle" not in [i.value["value"] for i in found]
    assert all(i.score is not None for i in found)
    # the store's batch gives the same
    got, searched = store.batch([GetOp(NS, "seat_preference"), SearchOp(("customer",), query="seat")])
    assert isinstance(got, Item) and got.value["value"] == "window"
    assert isinstance(searched, list) and [i.value["value"] for i in searched] == ["window"]


def test_put_goes_through_the_evidence_gate(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    with pytest.raises(errors.EvidenceMismatch, match="rule 1"):
        store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I want an aisle seat"))  # not in the text
    with pytest.raises(errors.InvalidInput, match="quote missing"):
        store.put(NS, "seat_preference", {"value": "aisle", "source": "chat-1042/1", "text": TURN_1})
    with pytest.raises(errors.InvalidInput, match="not confidence"):
        store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "aisle seat", confidence=1.0))
    with pytest.raises(InvalidNamespaceError):
        store.put(("customer.c1042",), "seat_preference", seat("aisle", 1, TURN_1, "aisle seat"))
    with pytest.raises(NotImplementedError, match="valid_to"):
        store.batch([PutOp(NS, "seat_preference", seat("aisle", 1, TURN_1, "aisle seat"), ttl=5.0)])
    assert bdb.beliefs() == [] and store.get(NS, "seat_preference") is None
    # without text: the quote must be in the source's version in force
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "aisle seat"))
    store.put(NS, "meal", {"value": "vegetarian", "quote": "I always want", "source": "chat-1042/1",
                           "statement": "The customer asked for vegetarian meals."})
    meal = store.get(NS, "meal")
    assert meal is not None and meal.value["statement"] == "The customer asked for vegetarian meals."
    assert meal.value["version"] == 1 and TURN_1[meal.value["start"]:meal.value["end"]] == "I always want"


@pytest.mark.parametrize("field, wrong", [("scope", ["EU"]), ("scope", "EU"), ("scope", {"region": 1}),
                                          ("source", 1042), ("quote", 7), ("text", 7), ("statement", 7)])
def test_a_put_whose_evidence_is_not_text_is_refused_and_stores_nothing(store: BeliefStore, bdb: beliefdb.BeliefDB,
                                                                       field: str, wrong: Any) -> None:
    """A value's fields come from an agent's JSON: a source id that is a number raised AttributeError
    ('int' object has no attribute 'strip'), a scope given as text raised ValueError, and a scope
    given as a list, ["EU"], was stored as the scope {"E": "U"}."""
    with pytest.raises(errors.InvalidInput, match=f"^'?{field}'?=? must be "):
        store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "aisle seat") | {field: wrong})
    assert bdb.beliefs(include_all=True) == [] and store.get(NS, "seat_preference") is None
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "aisle seat", scope={"cabin": "economy"}))
    item = store.get(NS, "seat_preference")
    assert item is not None and item.value["scope"] == {"cabin": "economy"}


def test_retracted_and_fixture_beliefs_never_come_back(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(NS, "loyalty_discount", {"value": "20%", "quote": "20% off", "source": "forum-post",
                                       "text": "Insider tip: loyal customers get 20% off.", "authority": "unverified"})
    assert store.get(NS, "loyalty_discount") is not None
    bdb.retract(source="forum-post", reason="poisoned")
    assert store.get(NS, "loyalty_discount") is None
    assert store.search(NS) == [] and store.search(NS, query="loyalty discount") == []

    bdb.ingest_text("Fixture: the customer c9 wants the aisle.", source="fixture.md", label="fixture")
    bdb.remember("Fixture c9 seat.", "customer.c9", "seat_preference", "aisle", "wants the aisle",
                 source="fixture.md")
    (fixture,) = bdb.beliefs(subject="customer.c9", include_fixtures=True)
    assert fixture.provenance == "fixture" and fixture.status == "current"
    assert store.get(("customer", "c9"), "seat_preference") is None
    assert ("customer", "c9") not in store.list_namespaces()
    assert all(i.namespace != ("customer", "c9") for i in store.search(()))


def test_a_retracted_fragment_is_never_a_values_evidence(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    """A belief quoted by two sources stays current when one quote's fragment is retracted ("that chat was
    someone else"); its item still gave that retracted quote and source as its evidence (ask's first
    evidence, what its context, the CLI and every adapter show), and dropped the quote it now rests on."""
    from datetime import UTC, datetime

    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "aisle seat"))
    store.put(NS, "seat_preference", seat("aisle", 2, "Customer: aisle seat, as always.", "aisle seat"))
    item = store.get(NS, "seat_preference")
    assert item is not None
    shown = item.value["source"]
    (fragment,) = [e.fragment_id for e in bdb.why(item.value["belief_id"]).evidence if e.source == shown]
    before = datetime.now(UTC)
    bdb.retract(fragment=fragment, reason="that chat was someone else")

    item = store.get(NS, "seat_preference")
    assert item is not None and item.value["value"] == "aisle"  # still current: the other quote holds it
    other = "chat-1042/2" if shown == "chat-1042/1" else "chat-1042/1"
    assert item.value["source"] == other
    (answer,) = bdb.answers(subject="customer.c1042")
    assert [e.source for e in answer.evidence] == [other]
    asked = bdb.ask("which seat does the customer want?").beliefs
    assert [e.source for e in asked[0].evidence] == [other]
    then = bdb.ask("which seat does the customer want?", as_of=before).beliefs  # as it stood before: both
    assert {e.source for e in then[0].evidence} == {shown, other}
    bdb.retract(fragment=fragment, undo=True)
    (answer,) = bdb.answers(subject="customer.c1042")
    assert {e.source for e in answer.evidence} == {shown, other}


def test_get_says_when_the_key_has_other_current_values_in_other_scopes(store: BeliefStore,
                                                                        bdb: beliefdb.BeliefDB) -> None:
    """Values of one key in different scopes are all current; get gives one of them, and its warnings
    (the module says) say so: they said nothing, so an agent reading "window" never learnt that for
    short flights the customer wants the aisle."""
    store.put(NS, "seat_preference", seat("aisle", 1, "Customer: aisle on short flights.", "aisle",
                                          scope={"flight": "short"}))
    store.put(NS, "seat_preference", seat("window", 2, "Customer: window on long flights.", "window",
                                          scope={"flight": "long"}))
    item = store.get(NS, "seat_preference")
    assert item is not None and item.value["value"] == "window"
    aisle = next(b for b in bdb.beliefs(subject="customer.c1042") if b.value == "aisle")
    assert item.value["warnings"] == [f"also current for another scope: 'aisle' ({str(aisle.id)[:8]})"
                                      " where flight=short: search lists each"]
    assert sorted(i.value["value"] for i in store.search(NS)) == ["aisle", "window"]
    store.delete(NS, "seat_preference")
    store.put(NS, "seat_preference", seat("aisle", 3, TURN_1, "aisle seat"))  # one value: no such warning
    item = store.get(NS, "seat_preference")
    assert item is not None and item.value["warnings"] == []


def test_an_expired_belief_never_comes_back(db_url: str) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-10T00:00:00Z")) as january:
        store = BeliefStore(january)
        store.put(NS, "discount", {"value": "10%", "quote": "10% off until February",
                                   "source": "chat-1042/5", "text": "Agent: you get 10% off until February.",
                                   "valid_to": "2026-02-01T00:00:00Z"})
        assert store.get(NS, "discount") is not None
    with beliefdb.connect(url_at(db_url, "2026-03-01T00:00:00Z")) as march:
        store = BeliefStore(march)
        assert store.get(NS, "discount") is None and store.search(NS) == []
    with beliefdb.connect(db_url) as now:  # (on the real clock: a read with a fixed one processes nothing)
        assert [b.status for b in now.beliefs(include_all=True)] == ["expired"]


def test_delete_retracts_every_value_of_the_key(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    store.put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
    window = store.get(NS, "seat_preference")
    assert window is not None
    decision = bdb.decide("Book a window seat", because=[window.value["belief_id"]])
    store.delete(NS, "seat_preference")
    assert store.get(NS, "seat_preference") is None  # and no older value came back
    assert store.search(NS) == [] and NS not in store.list_namespaces()
    assert {b.status for b in bdb.beliefs(subject="customer.c1042", include_all=True)} == {"retracted"}
    assert [d.status for d in bdb.decisions()] == ["needs_review"] and decision.id
    store.delete(NS, "seat_preference")  # nothing left to delete: nothing happens
    history = bdb.why(window.value["belief_id"])  # kept, with why: audited and undoable
    assert history.belief.status == "retracted"
    restored = bdb.retract(belief=window.value["belief_id"], undo=True)
    assert restored is not None
    back = store.get(NS, "seat_preference")
    assert back is not None and back.value["value"] == "window"
    assert DELETE_REASON == "deleted through the LangGraph store" and bdb.audit_verify().ok


def test_a_put_is_idempotent_by_content_and_a_text_replaces_its_source_in_force(store: BeliefStore,
                                                                                bdb: beliefdb.BeliefDB) -> None:
    """What the README says of puts (rule 18): the same quote of the same source text again stores
    nothing, whatever became of its belief (a step run again neither duplicates a memory nor brings back
    a value replaced or deleted since); a new text of a source replaces the one in force, so what only
    the old text said stops holding."""
    aisle = seat("aisle", 1, TURN_1, "I always want an aisle seat")
    store.put(NS, "seat_preference", aisle)
    store.put(NS, "seat_preference", aisle)  # run again
    assert len(bdb.beliefs(subject="customer.c1042", include_all=True)) == 1
    store.put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
    store.put(NS, "seat_preference", aisle)  # an earlier step run again: the window stays
    item = store.get(NS, "seat_preference")
    assert item is not None and item.value["value"] == "window"
    store.delete(NS, "seat_preference")
    store.put(NS, "seat_preference", aisle)  # deleted stays deleted
    assert store.get(NS, "seat_preference") is None
    store.put(NS, "seat_preference", seat("aisle", 3, "Customer: Aisle again, please.", "Aisle again"))
    item = store.get(NS, "seat_preference")  # said again, in a new source: current
    assert item is not None and (item.value["value"], item.value["source"]) == ("aisle", "chat-1042/3")

    store.put(NS, "meal", {"value": "vegan", "quote": "vegan meal", "source": "chat-1042/4",
                           "text": "Customer: a vegan meal."})
    store.put(NS, "bags", {"value": 2, "quote": "two bags", "source": "chat-1042/4",
                           "text": "Customer: two bags."})  # the same source, another text
    bags = store.get(NS, "bags")
    assert store.get(NS, "meal") is None and bags is not None and bags.value["value"] == 2


def test_delete_refuses_before_retracting_anything_when_a_value_is_not_the_callers(db_url: str) -> None:
    """A key holding another principal's belief too: delete refuses (not_owner) and retracts nothing,
    rather than stopping half-way through the key's values."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        BeliefStore(alice).put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
        BeliefStore(bob).put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
        before = {(b.value, b.status) for b in alice.beliefs(subject="customer.c1042", include_all=True)}
        with pytest.raises(errors.PermissionDenied):
            BeliefStore(alice).delete(NS, "seat_preference")
        after = {(b.value, b.status) for b in alice.beliefs(subject="customer.c1042", include_all=True)}
        assert after == before and "retracted" not in {status for _, status in after}


def test_delete_retracts_all_of_a_key_or_nothing(store: BeliefStore, bdb: beliefdb.BeliefDB, db_url: str,
                                                 postgresql: psycopg.Connection[Any]) -> None:
    """A key's values are retracted in one transaction: when the database fails the second retraction
    (here a statement timeout, as a slow server or a lock would), the first is rolled back with it and the
    key holds every value it held, through the sync store and its async twin alike."""
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    store.put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
    ids = {b.value: b.id for b in bdb.beliefs(subject="customer.c1042", include_all=True)}
    before = {(b.value, b.status) for b in bdb.beliefs(subject="customer.c1042", include_all=True)}
    assert before == {("aisle", "superseded"), ("window", "current")}
    # retracting the window once the aisle is retracted (history first: the second retraction) outlasts
    # the statement timeout of the deleting sessions
    postgresql.execute(sql.SQL("""create function public.slow_second() returns trigger language plpgsql as $$
        begin
            if exists (select from beliefdb.node n where n.id = {} and n.retracted_at is not null) then
                perform pg_sleep(30);
            end if;
            return new;
        end $$""").format(sql.Literal(ids["aisle"])))
    postgresql.execute(sql.SQL("create trigger slow_second before update of retracted_at on beliefdb.node for each row"
                               " when (new.id = {} and new.retracted_at is not null)"
                               " execute function public.slow_second()").format(sql.Literal(ids["window"])))
    postgresql.commit()
    impatient = make_conninfo(db_url, options="-c statement_timeout=1000")

    def unchanged() -> bool:
        return {(b.value, b.status) for b in bdb.beliefs(subject="customer.c1042", include_all=True)} == before

    with beliefdb.connect(impatient) as db, pytest.raises(errors.DatabaseUnavailable, match="statement timeout"):
        BeliefStore(db).delete(NS, "seat_preference")
    assert unchanged()

    async def asynchronously() -> None:
        async with await beliefdb.aconnect(impatient, max_size=2) as adb:
            with pytest.raises(errors.DatabaseUnavailable, match="statement timeout"):
                await BeliefStore(adb).adelete(NS, "seat_preference")

    asyncio.run(asynchronously())
    assert unchanged() and bdb.audit_verify().ok


def _waiting_on_a_lock(url: str, application_name: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select count(*) from pg_stat_activity where application_name = %s"
                           " and wait_event_type = 'Lock'", (application_name,)).fetchone()
    return row is not None and row[0] > 0


@pytest.mark.parametrize(("asynchronous", "meanwhile"), [(False, "window"), (False, "aisle"), (True, "aisle")])
def test_a_delete_skips_a_value_another_session_retracted_meanwhile(db_url: str, bdb: beliefdb.BeliefDB,
                                                                   asynchronous: bool, meanwhile: str) -> None:
    """delete lists the key's values, then retracts them in one transaction: a value another session
    retracted in between failed the whole delete (not_found: "already retracted") and retracted nothing.
    One already retracted by the time the delete's transaction reaches it is skipped now. Here the other
    session has retracted one value and holds the workspace's write lock while the delete lists the key and
    waits for the lock; then it commits. The sync store and its async twin alike."""
    store = BeliefStore(bdb)
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    store.put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
    ids = {b.value: b.id for b in bdb.beliefs(subject="customer.c1042", include_all=True)}
    deleter_url = make_conninfo(db_url, application_name="bdb-deleter")
    outcome: dict[str, object] = {}

    def delete() -> None:
        try:
            if asynchronous:
                async def adelete() -> None:
                    async with await beliefdb.aconnect(deleter_url, max_size=2) as adb:
                        await BeliefStore(adb).adelete(NS, "seat_preference")
                asyncio.run(adelete())
            else:
                with beliefdb.connect(deleter_url) as db:
                    BeliefStore(db).delete(NS, "seat_preference")
            outcome["delete"] = "done"
        except Exception as exc:
            outcome["delete"] = exc

    with beliefdb.connect(db_url) as other, other.database.transaction() as c:
        retraction.retract(other.database, belief=ids[meanwhile], reason="retracted by another session", conn=c)
        deleter = threading.Thread(target=delete)
        deleter.start()
        deadline = time.monotonic() + 30
        while not _waiting_on_a_lock(db_url, "bdb-deleter"):  # it listed the key, and waits to retract
            assert deleter.is_alive() and time.monotonic() < deadline, outcome
            time.sleep(0.01)
    deleter.join(timeout=60)
    assert outcome["delete"] == "done", outcome
    assert {(b.value, b.status) for b in bdb.beliefs(subject="customer.c1042", include_all=True)} == {
        ("aisle", "retracted"), ("window", "retracted")}
    assert store.get(NS, "seat_preference") is None and bdb.audit_verify().ok
    assert bdb.why(ids[meanwhile]).belief.status == "retracted"


def test_a_delete_retracts_a_value_another_session_put_while_it_waited(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    """delete lists the key's values inside its transaction, once it holds the workspace's write lock: a
    value another session put and committed while the delete waited for that lock is retracted with the
    others (it was listed before the wait, and that value survived the delete)."""
    store = BeliefStore(bdb)
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    store.put(NS, "seat_preference", seat("window", 2, TURN_2, "from now on I want a window seat"))
    deleter_url = make_conninfo(db_url, application_name="bdb-deleter")
    outcome: dict[str, object] = {}

    def delete() -> None:
        try:
            with beliefdb.connect(deleter_url) as db:
                BeliefStore(db).delete(NS, "seat_preference")
            outcome["delete"] = "done"
        except Exception as exc:
            outcome["delete"] = exc

    turn = "Customer: Make it a middle seat."
    with beliefdb.connect(db_url) as other, other.database.transaction() as c:
        ingest.ingest_text(other.database, turn, ingest.SourceOptions(name="chat-1042/3"), candidates=[Candidate(
            statement=turn, subject="customer.c1042", attribute="seat_preference", value="middle",
            quote="a middle seat")], extractor="none", conn=c)
        deleter = threading.Thread(target=delete)
        deleter.start()
        deadline = time.monotonic() + 30
        while not _waiting_on_a_lock(db_url, "bdb-deleter"):
            assert deleter.is_alive() and time.monotonic() < deadline, outcome
            time.sleep(0.01)
    deleter.join(timeout=60)
    assert outcome["delete"] == "done", outcome
    assert {(b.value, b.status) for b in bdb.beliefs(subject="customer.c1042", include_all=True)} == {
        ("aisle", "retracted"), ("window", "retracted"), ("middle", "retracted")}
    assert store.get(NS, "seat_preference") is None and bdb.audit_verify().ok


def test_list_namespaces_and_search_filters(store: BeliefStore, bdb: beliefdb.BeliefDB) -> None:
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    store.put(("customer", "c7"), "seat_preference", {"value": "window", "quote": "window", "source": "chat-7/1",
                                                      "text": "Customer: window, please."})
    bdb.ingest_text("Returns are accepted within 7 days of delivery.\n", source="policy.md", authority="official")
    assert store.list_namespaces() == [("customer", "c1042"), ("customer", "c7"), ("return_policy",)]
    assert store.list_namespaces(prefix=("customer",)) == [("customer", "c1042"), ("customer", "c7")]
    assert store.list_namespaces(suffix=("c7",)) == [("customer", "c7")]
    assert store.list_namespaces(prefix=("*", "c7")) == [("customer", "c7")]
    assert store.list_namespaces(max_depth=1) == [("customer",), ("return_policy",)]
    assert store.list_namespaces(limit=1, offset=1) == [("customer", "c7")]
    (listing,) = store.batch([ListNamespacesOp(max_depth=1)])
    assert listing == [("customer",), ("return_policy",)]

    everything = store.search(())
    assert [i.namespace for i in everything] == [("return_policy",), ("customer", "c7"), NS]  # newest first
    assert [i.value["value"] for i in store.search(("customer",), filter={"confidence": {"$gte": 0.6}})] == [
        "window", "aisle"]
    assert store.search((), filter={"source": "policy.md", "authority": "official"})[0].namespace == ("return_policy",)
    assert [i.value["value"] for i in store.search(("customer",), filter={"value": {"$ne": "aisle"}})] == ["window"]
    assert len(store.search(("customer",), limit=1)) == 1
    assert [i.value["value"] for i in store.search(("customer",), limit=1, offset=1)] == ["aisle"]
    with pytest.raises(errors.InvalidInput, match="operator"):
        store.search((), filter={"confidence": {"$near": 1}})


class State(TypedDict):
    message: str
    answer: str


def _seat_node(state: State, runtime: Runtime[None]) -> dict[str, str]:
    """A node that remembers what the customer said, with the turn as evidence, then reads it back."""
    store = runtime.store
    assert store is not None
    store.put(NS, "seat_preference", {"value": "window", "quote": "window seat", "source": "chat-1042/9",
                                      "text": state["message"]})
    item = store.get(NS, "seat_preference")
    return {"answer": item.value["value"] if item else "unknown"}


async def _aseat_node(state: State, runtime: Runtime[None]) -> dict[str, str]:
    store = runtime.store
    assert store is not None
    await store.aput(NS, "seat_preference", {"value": "aisle", "quote": "aisle seat", "source": "chat-1042/10",
                                             "text": state["message"]})
    hits = await store.asearch(NS, query="seat preference")
    return {"answer": ",".join(i.value["value"] for i in hits)}


def _graph(node: Any, store: BeliefStore) -> Any:
    builder = StateGraph(State)
    builder.add_node("seat", node)
    builder.add_edge(START, "seat")
    builder.add_edge("seat", END)
    return builder.compile(store=store)


def test_a_langgraph_graph_remembers_and_reads_through_the_store(store: BeliefStore, db_url: str) -> None:
    store.put(NS, "seat_preference", seat("aisle", 1, TURN_1, "I always want an aisle seat"))
    out = _graph(_seat_node, store).invoke({"message": "Customer: a window seat this time.", "answer": ""})
    assert out["answer"] == "window"

    async def asynchronously() -> None:
        async with await beliefdb.aconnect(db_url, max_size=2) as adb:
            astore = BeliefStore(adb)
            result = await _graph(_aseat_node, astore).ainvoke({"message": "Customer: aisle seat again.",
                                                                "answer": ""})
            assert result["answer"] == "aisle"  # the window it replaced is not an answer any more
            got = await astore.aget(NS, "seat_preference")
            assert got is not None and any("replaced 'window'" in w for w in got.value["warnings"])
            assert await astore.alist_namespaces() == [NS]

    asyncio.run(asynchronously())
    # a BeliefDB store's abatch runs on a worker thread too
    (item,) = asyncio.run(store.abatch([GetOp(NS, "seat_preference")]))
    assert isinstance(item, Item) and item.value["value"] == "aisle"
    assert isinstance(item.created_at, datetime)


def test_a_namespace_or_value_of_the_wrong_shape_is_refused_in_words(store: BeliefStore,
                                                                     bdb: beliefdb.BeliefDB) -> None:
    store.put(("customer",), "city", seat("Rome", 1, "customer: I live in Rome", "I live in Rome"))
    # a string is a sequence of labels too: it named the subject "c.u.s.t.o.m.e.r" and found nothing
    with pytest.raises(InvalidNamespaceError, match="a namespace is a tuple of labels, not str"):
        store.get("customer", "city")  # type: ignore[arg-type]
    # a value that is not a dict was read as a set of its characters ("not R, e, m, o")
    with pytest.raises(errors.InvalidInput, match="a BeliefStore value is a dict of value, quote, source"):
        store.put(("customer",), "city", "Rome")  # type: ignore[arg-type]
    item = store.get(("customer",), "city")
    assert item is not None and item.value["value"] == "Rome"
