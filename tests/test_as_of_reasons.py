"""As-of questions read back in time the reasons without a quote too (rules 2, 3, 9 and 16): a belief
derived from others, and an agent's memory written by a step, held at a moment when one of their reasons
recorded by then had every antecedent current then (`beliefdb.node_held_at`), not "as recorded". So
`beliefs(as_of=...)` lists them while they held then (it left them out at every moment), not while what
they rest on was retracted, superseded or not yet recorded; circular support never counts; a memory has
its memory weight as of a moment only while its step held then. And as a property: after random ingests,
derivations, memories, retractions and restorations, each at its own moment, what was believed as of each
moment is exactly what was current then (which the reference of tests/model_reference.py computes for
the reasons without a quote)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import set_clock, url_at
from hypothesis import HealthCheck, given, settings
from model_reference import LIVE, Reasoned, reasons_current
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb.store.workspaces import create_workspace

START = datetime(2026, 1, 1, tzinfo=UTC)
TEXT = "Product alpha colour: {}\n"


def moment(day: int) -> datetime:
    return START + timedelta(days=day)


def at(db_url: str, day: int, workspace: str = "default", max_size: int = 4) -> beliefdb.BeliefDB:
    """The library with beliefdb's clock fixed at ``day``."""
    return beliefdb.connect(url_at(db_url, moment(day).isoformat()), workspace=workspace, max_size=max_size)


def clock(db: beliefdb.BeliefDB, day: int) -> int:
    """Fix the clock of ``db``'s one connection at ``day`` (conftest's set_clock): one session for a whole plan
    instead of a new one per step, a sixth of an example's time. The session's backend id."""
    return set_clock(db, moment(day).isoformat())


def believed(db: beliefdb.BeliefDB, day: int | None = None) -> dict[uuid.UUID, str]:
    """Every belief believed as of ``day`` (now when None), with its status then."""
    return {b.id: b.status for b in db.beliefs(as_of=moment(day) if day is not None else None)}


def status_at(db_url: str, belief: uuid.UUID, day: int) -> str:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("select beliefdb.belief_status_at(b, %s)::text from beliefdb.belief b where b.id = %s",
                           (moment(day), belief)).fetchone()
    assert row is not None
    return str(row[0])


def factors_at(db_url: str, belief: uuid.UUID, day: int) -> dict[str, float]:
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("select f.factor, f.weight from beliefdb.belief b,"
                            " beliefdb.confidence_factors_at(b.workspace_id, b.id, %s) f where b.id = %s",
                            (moment(day), belief)).fetchall()
    return {factor: weight for factor, weight in rows}


def test_a_derived_belief_is_believed_as_of_a_moment_while_what_it_rests_on_was_current(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 1) as db:
        warm = db.derive("Product alpha looks warm", "product_alpha", "look", "warm", [red]).id
        hot = db.derive("Product alpha looks hot", "product_alpha", "heat", "hot", [warm]).id
    with at(db_url, 10) as db:
        db.retract(source="catalogue.md", reason="poisoned")
    with at(db_url, 20) as db:
        db.retract(source="catalogue.md", undo=True)
    with at(db_url, 30) as db:
        assert believed(db, 0) == {red: "current"}  # not derived yet
        # (the code before: only red, at every moment; a derived belief was never an as-of answer)
        assert believed(db, 5) == {red: "current", warm: "current", hot: "current"}
        assert believed(db, 15) == {}  # its source retracted then: nothing it rests on was current
        assert believed(db, 25) == believed(db) == {red: "current", warm: "current", hot: "current"}
    # (the code before: "held as recorded", current at every moment its belief was not retracted)
    assert [status_at(db_url, b, 15) for b in (red, warm, hot)] == ["unsupported"] * 3
    assert [status_at(db_url, b, 5) for b in (red, warm, hot)] == ["current"] * 3


def test_a_derived_belief_is_not_believed_as_of_a_moment_its_antecedent_was_superseded(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="b.md", authority="internal").accepted[0].id
        warm = db.derive("Product alpha looks warm", "product_alpha", "look", "warm", [red]).id
    with at(db_url, 10) as db:
        blue = db.ingest_text(TEXT.format("blue"), source="a.md", authority="official").accepted[0].id
    with at(db_url, 20) as db:
        db.retract(source="a.md", reason="wrong")
    with at(db_url, 30) as db:
        assert believed(db, 5) == {red: "current", warm: "current"}
        assert believed(db, 15) == {blue: "current"}  # red superseded then: not current, nor what rests on it
        assert believed(db, 25) == believed(db) == {red: "current", warm: "current"}
    assert status_at(db_url, warm, 15) == "unsupported"


def test_a_memory_is_believed_as_of_a_moment_while_its_step_held(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 1) as db, db.record_run(task="remember what was read") as run:
        said = run.step("user_input", {"text": "what colour is it?"})
        read = run.step("memory_write", {"key": "colour"}, inputs=[("initiates", said), ("reads", red)])
        memory = run.memory(read, "user:42", "favourite_colour", "red")
        note = run.memory(said, "user:42", "asked_about", "colour")
    with at(db_url, 10) as db:
        db.retract(belief=red, reason="wrong")
    with at(db_url, 20) as db:
        assert believed(db, 5) == {red: "current", memory: "current", note: "current"}
        # the step read red, retracted then: it did not hold, nor the memory it wrote; the user's input did
        assert believed(db, 15) == believed(db) == {note: "current"}
    assert status_at(db_url, memory, 15) == "unsupported"
    # the memory weight while its step held; none (no quote either) while it did not
    then = factors_at(db_url, memory, 5)
    assert then["agent_memory"] == pytest.approx(0.5) and then["confidence"] == pytest.approx(0.5, abs=0.01)
    later = factors_at(db_url, memory, 15)
    assert "agent_memory" not in later and later["confidence"] == 0.0


def test_circular_support_cannot_be_recorded(db_url: str) -> None:
    """A plan that reads a memory it wrote itself (one batch records both) would hold by itself alone: the
    trace is refused (seq is execution order, record_trace), so no circular support is ever stored, and the
    fixpoint's refusal of it (node_held_at) has nothing to read back. Nothing is written."""
    step, memory = uuid.uuid4(), uuid.uuid4()
    with at(db_url, 0) as db:
        with pytest.raises(beliefdb.errors.InvalidInput, match="what a step rests on comes before it"), \
                db.database.transaction() as c:
            c.execute("select beliefdb.record_trace(%s, %s, %s, %s)", (
                Jsonb({"id": str(uuid.uuid4()), "task": "talk to itself"}),
                Jsonb([{"id": str(step), "seq": 0, "kind": "plan", "payload": {}}]),
                Jsonb([{"id": str(memory), "step": str(step), "subject": "user:42", "attribute": "mood",
                        "value": "sure"}]),
                Jsonb([{"from_node": str(memory), "to_node": str(step), "kind": "reads"}])))
        assert db.beliefs(include_all=True) == []


def test_a_user_input_retracted_then_holds_no_memory_then(db_url: str) -> None:
    """Premises read back in time: a user's input is a premise while it is not retracted."""
    with at(db_url, 0) as db, db.record_run(task="remember the traveller") as run:
        said = run.step("user_input", {"text": "I fly from SFO"})
        memory = run.memory(said, "user:42", "home_airport", "SFO")
    with at(db_url, 10) as db:
        db.retract(fragment=said, reason="someone else typed it")
    with at(db_url, 20) as db:
        db.retract(fragment=said, undo=True)
    with at(db_url, 30) as db:
        assert [set(believed(db, day)) for day in (5, 15, 25)] == [{memory}, set(), {memory}]


# --- the property ---------------------------------------------------------------------------------

SOURCES = {"a.md": "official", "b.md": "internal", "c.md": "internal"}
COLOURS = ("red", "blue", "green")

steps = st.lists(st.one_of(
    st.tuples(st.just("ingest"), st.sampled_from(sorted(SOURCES)), st.sampled_from(COLOURS)),
    # derived from one or two beliefs (quoted, derived or memories) by their place among those made so far
    st.tuples(st.just("derive"), st.lists(st.integers(0, 15), min_size=1, max_size=2)),
    # a memory written by a step that reads these beliefs (none: by the user's input alone)
    st.tuples(st.just("memory"), st.lists(st.integers(0, 15), max_size=2)),
    st.tuples(st.just("retract_source"), st.sampled_from(sorted(SOURCES)), st.booleans()),
    st.tuples(st.just("retract_belief"), st.integers(0, 15), st.booleans()),
    st.tuples(st.just("retract_input"), st.integers(0, 7), st.booleans()),
), min_size=1, max_size=10)


class History:
    """A workspace written one step a day, with what the reference needs of each belief not quoted."""

    def __init__(self, db_url: str) -> None:
        self.url, self.name = db_url, f"asof-{uuid.uuid4().hex[:12]}"
        create_workspace(db_url, self.name)
        self.beliefs: list[uuid.UUID] = []           # every belief made, in order
        self.inputs: list[uuid.UUID] = []            # the user inputs memories rest on
        self.reasoned: dict[uuid.UUID, Reasoned] = {}
        self.retracted: set[uuid.UUID] = set()       # beliefs and inputs retracted now

    def pick(self, index: int) -> uuid.UUID:
        return self.beliefs[index % len(self.beliefs)]

    def apply(self, db: beliefdb.BeliefDB, step: tuple[Any, ...], day: int) -> bool:
        """One step; False when it names nothing (no belief yet, nothing to retract or restore)."""
        kind = step[0]
        try:
            if kind == "ingest":
                # (no vectors: what was believed when, and how confidently, reads none; a fifth of an ingest's time)
                report = db.ingest_text(TEXT.format(step[2]), source=step[1], authority=SOURCES[step[1]], embed=False)
                self.beliefs += [a.id for a in report.accepted]
            elif kind == "derive":
                if not self.beliefs:
                    return False
                made = db.derive(f"Derivation {day}", "derived", f"d{day}", "yes", [self.pick(i) for i in step[1]])
                self.reasoned[made.id] = Reasoned(frozenset(self.pick(i) for i in step[1]))
                self.beliefs.append(made.id)
            elif kind == "memory":
                read = [self.pick(i) for i in step[1]] if self.beliefs else []
                with db.record_run(task=f"day {day}") as run:
                    said = run.step("user_input", {"day": day})
                    wrote = run.step("memory_write", {"day": day},
                                     inputs=[("initiates", said), *(("reads", b) for b in read)])
                    memory = run.memory(wrote, f"user{day}", "note", "yes")
                self.reasoned[memory] = Reasoned(frozenset(read), said)
                self.inputs.append(said)
                self.beliefs.append(memory)
            elif kind == "retract_source":
                db.retract(source=step[1], undo=step[2], reason="step")
            else:
                targets = self.beliefs if kind == "retract_belief" else self.inputs
                if not targets:
                    return False
                target = targets[step[1] % len(targets)]
                if step[2] != (target in self.retracted):  # (restore what is retracted, retract what is not)
                    return False
                if kind == "retract_belief":
                    db.retract(belief=target, undo=step[2], reason="step")
                else:
                    db.retract(fragment=target, undo=step[2], reason="step")
                (self.retracted.discard if step[2] else self.retracted.add)(target)
        except beliefdb.errors.DatabaseUnavailable:
            raise  # (one connection: a call that waited for another would be no step that did nothing)
        except beliefdb.errors.BeliefDBError:
            return False
        return True

    def now(self, db: beliefdb.BeliefDB) -> dict[uuid.UUID, tuple[str, float]]:
        """What is believed now, with status and confidence, checked against the reference: a belief with a
        reason without a quote is current exactly when the reference's fixpoint says so, from the standing
        of the quoted beliefs (rule 8 between those is tests/test_model.py's)."""
        db.decay()  # every stored confidence brought to this moment: what as-of confidence must give back later
        rows = {b.id: (b.status, round(b.confidence, 5)) for b in db.beliefs(include_all=True)}
        live = {i for i, (status, _) in rows.items() if status in LIVE}
        expected = reasons_current(live - set(self.reasoned), self.reasoned, self.retracted)
        assert live & set(self.reasoned) == expected, (live, expected)
        return {i: row for i, row in rows.items() if i in live}


def run(db_url: str, plan: list[tuple[Any, ...]]) -> list[bool]:
    """Each step at its own moment (day 1, 2, ...); then, as of each of those moments, what was believed
    (with its status and confidence then) must be what was current right after its step."""
    history = History(db_url)
    current: list[dict[uuid.UUID, tuple[str, float]]] = []
    applied = []
    with at(db_url, 1, history.name, max_size=1) as db:
        sessions = set()
        for day, step in enumerate(plan, start=1):
            sessions.add(clock(db, day))
            applied.append(history.apply(db, step, day))
            current.append(history.now(db))
        sessions.add(clock(db, len(plan) + 1))
        assert len(sessions) == 1, sessions  # (every step on the session whose clock was set)
        for day, was in enumerate(current, start=1):
            then = {b.id: (b.status, round(b.confidence, 5)) for b in db.beliefs(as_of=moment(day))}
            assert then == was, (day, plan)
    return applied


@settings(max_examples=20, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=steps)
def test_as_of_each_moment_is_what_was_current_then(db_url: str, plan: list[tuple[Any, ...]]) -> None:
    run(db_url, plan)


@pytest.mark.parametrize("plan", [
    # derived from a belief superseded later, whose superseder's source is retracted, then restored
    [("ingest", "b.md", "red"), ("derive", [0]), ("ingest", "a.md", "blue"), ("retract_source", "a.md", False),
     ("retract_source", "a.md", True)],
    # a chain of derivations, its root retracted and restored
    [("ingest", "a.md", "red"), ("derive", [0]), ("derive", [1]), ("retract_belief", 0, False),
     ("retract_belief", 0, True)],
    # a memory reading a derived belief, the user's input retracted and restored, then its source retracted
    [("ingest", "c.md", "green"), ("derive", [0]), ("memory", [1]), ("retract_input", 0, False),
     ("retract_input", 0, True), ("retract_source", "c.md", False)],
    # a derivation from a memory and a quoted belief; the memory retracted, then restored
    [("ingest", "a.md", "red"), ("memory", []), ("derive", [0, 1]), ("retract_belief", 1, False),
     ("retract_belief", 1, True)],
])
def test_as_of_examples(db_url: str, plan: list[tuple[Any, ...]]) -> None:
    """Hand-picked plans the property must cover, whatever hypothesis draws; every step of each does something."""
    assert run(db_url, plan) == [True] * len(plan)
