"""As-of listings include what was derived and remembered (rules 2, 9 and 16 read back in time): a belief
derived from others, and an agent's memory, are listed by ``beliefs(as_of=...)`` at a moment they held, with
the confidence they had then, and not at a moment what they rested on did not hold. Their confidence as of
a moment is computed over what they derive from once per belief (``beliefdb._confidences_at``), not once per
path: a chain of 25 derivation diamonds (2^25 paths to its root) answers ``confidence_at``. As a property,
over a random small derivation graph written a day at a time, each belief's confidence as of each day is
what a plain recursive reference (the product of what it derived from then, floored at 1e-9, over every
path) gives from the quoted beliefs' confidences then."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import url_at
from hypothesis import HealthCheck, given, settings

import beliefdb
from beliefdb.store.workspaces import create_workspace

START = datetime(2026, 1, 1, tzinfo=UTC)
TEXT = "Product alpha colour: {}\n"
FLOOR = 1e-9


def moment(day: int) -> datetime:
    return START + timedelta(days=day)


def at(db_url: str, day: int, workspace: str = "default") -> beliefdb.BeliefDB:
    """The library with beliefdb's clock fixed at ``day``."""
    return beliefdb.connect(url_at(db_url, moment(day).isoformat()), workspace=workspace)


def listed(db: beliefdb.BeliefDB, day: int) -> dict[uuid.UUID, float]:
    """The as-of listing at ``day``: each belief with its confidence then."""
    return {b.id: b.confidence for b in db.beliefs(as_of=moment(day))}


def confidence_at(db_url: str, belief: uuid.UUID, day: int) -> float:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("select beliefdb.confidence_at(b, %s) from beliefdb.belief b where b.id = %s",
                           (moment(day), belief)).fetchone()
    assert row is not None
    return float(row[0])


def test_a_derived_belief_and_a_memory_are_listed_as_of_a_moment_they_held(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 1) as db:
        warm = db.derive("Product alpha looks warm", "product_alpha", "look", "warm", [red]).id
    with at(db_url, 1) as db, db.record_run(task="remember what was read") as run:
        said = run.step("user_input", {"text": "what colour is it?"})
        read = run.step("memory_write", {"key": "colour"}, inputs=[("initiates", said), ("reads", red)])
        memory = run.memory(read, "user:42", "favourite_colour", "red")
    with at(db_url, 10) as db:
        db.retract(source="catalogue.md", reason="poisoned")
    with at(db_url, 30) as db:
        then = listed(db, 5)
        # (the code before: only red; a derived belief or a memory was never an as-of answer)
        assert set(then) == {red, warm, memory}
        # with the confidence they had then: red's then, for what was derived from it alone
        assert then[warm] == pytest.approx(then[red], rel=1e-6)
        assert then[red] == pytest.approx(confidence_at(db_url, red, 5), rel=1e-6)
        assert then[memory] == pytest.approx(confidence_at(db_url, memory, 5), rel=1e-6)
        # the source retracted then: neither red nor what was derived from it or remembered reading it
        assert listed(db, 15) == {}
        assert listed(db, 0) == {red: pytest.approx(confidence_at(db_url, red, 0), rel=1e-6)}


def test_a_chain_of_derivation_diamonds_answers_its_confidence_as_of_a_moment(db_url: str) -> None:
    """25 levels, each two beliefs deriving from both of the level below: 2^25 paths from the top to the
    quoted beliefs at the bottom. Computed once per belief it returns (a walk of every path did not, within
    the statement timeout); the value is the product of what each derives from, floored."""
    with at(db_url, 0) as db:
        report = db.ingest_text("Product alpha colour: red\nProduct beta colour: blue\n", source="base.md")
        level = [a.id for a in report.accepted]
        assert len(level) == 2
        bottom = listed(db, 0)
        for depth in range(1, 26):
            level = [db.derive(f"Level {depth} side {side}", f"level{depth}", f"side{side}", "yes", level).id
                     for side in (0, 1)]
    expected = {0: bottom}
    for depth in range(1, 26):  # each level: the product of the two below it, floored
        below = list(expected[depth - 1].values())
        expected[depth] = {side: max(FLOOR, below[0] * below[1]) for side in (0, 1)}
    # (through the library: its session has the statement timeout it is configured with, 600 s by default)
    with at(db_url, 1) as db, db.database.transaction() as c:
        row = c.execute("select beliefdb.confidence_at(b, %s) from beliefdb.belief b where b.id = %s",
                        (moment(1), level[0])).fetchone()
    assert row is not None
    top = float(row[0])
    assert top == pytest.approx(expected[25][0], rel=1e-5)


def test_a_derivation_cycle_gives_no_confidence_as_of_a_moment(db_url: str,
                                                               postgresql: psycopg.Connection[Any]) -> None:
    """derive cannot record a cycle (its belief is new), but the schema does not refuse one: written by the
    schema's owner, warm and hot deriving from each other (warm from red too), their confidence as of a
    moment is the least fixpoint of the products, the floor (circular support gives no confidence, rule 2),
    and so is that of what derives from them; red's own is untouched. (Per path, the recursion never
    ended.)"""
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
        warm = db.derive("Product alpha looks warm", "product_alpha", "look", "warm", [red]).id
        hot = db.derive("Product alpha looks hot", "product_alpha", "heat", "hot", [warm]).id
        above = db.derive("Product alpha sells in summer", "product_alpha", "season", "summer", [hot, red]).id
    postgresql.execute("select set_config('beliefdb.now', %s, false)", (moment(0).isoformat(),))
    postgresql.execute("select beliefdb._add_justification(b.workspace_id, b.id, array[%s]::uuid[], 'derives')"
                       "  from beliefdb.belief b where b.id = %s", (hot, warm))
    postgresql.commit()
    assert [confidence_at(db_url, b, 1) for b in (warm, hot, above)] == pytest.approx([FLOOR] * 3, rel=1e-3)
    assert confidence_at(db_url, red, 1) > 0.5
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("select c.belief_id, c.confidence from beliefdb.belief b,"
                            " beliefdb.confidences_at(b.workspace_id, array[%s, %s]::uuid[], %s) c where b.id = %s",
                            (above, red, moment(1), red)).fetchall()
    assert dict(rows) == {above: pytest.approx(FLOOR, rel=1e-3), red: pytest.approx(confidence_at(db_url, red, 1))}


# --- the property: a plain recursive reference over a small random derivation graph -----------------

SOURCES = {"a.md": "official", "b.md": "internal", "c.md": "community"}

steps = st.lists(st.one_of(
    st.tuples(st.just("ingest"), st.sampled_from(sorted(SOURCES)), st.sampled_from(("red", "blue", "green"))),
    # derived from one to three beliefs made so far, by their place among them (a diamond when two share one)
    st.tuples(st.just("derive"), st.lists(st.integers(0, 15), min_size=1, max_size=3, unique=True)),
    st.tuples(st.just("retract_source"), st.sampled_from(sorted(SOURCES)), st.booleans()),
), min_size=1, max_size=9)


def reference(factors: dict[uuid.UUID, dict[str, Any]], belief: uuid.UUID) -> float:
    """A belief's confidence as the rule says it, recursively over every path: a quoted belief's is what
    its own factors give; a derived one's the product of its antecedents' (each at least 1e-9), floored at
    1e-9."""
    row = factors[belief]
    if not row["derived_from"]:
        return float(row["confidence"])
    return max(FLOOR, math.prod(max(FLOOR, reference(factors, a)) for a in row["derived_from"]))


def run(db_url: str, plan: list[tuple[Any, ...]]) -> None:
    name = f"asofc-{uuid.uuid4().hex[:12]}"
    create_workspace(db_url, name)
    made: list[uuid.UUID] = []
    derived: dict[uuid.UUID, tuple[int, list[uuid.UUID]]] = {}
    for day, step in enumerate(plan, start=1):
        with at(db_url, day, name) as db:
            try:
                if step[0] == "ingest":
                    made += [a.id for a in db.ingest_text(TEXT.format(step[2]), source=step[1],
                                                          authority=SOURCES[step[1]]).accepted]
                elif step[0] == "derive" and made:
                    antecedents = sorted({made[i % len(made)] for i in step[1]})
                    belief = db.derive(f"Derivation {day}", "derived", f"d{day}", "yes", antecedents).id
                    derived[belief] = (day, antecedents)
                    made.append(belief)
                elif step[0] == "retract_source":
                    db.retract(source=step[1], undo=step[2], reason="step")
            except beliefdb.errors.BeliefDBError:
                pass
    with psycopg.connect(db_url) as conn:
        for day in range(0, len(plan) + 2):
            factors: dict[uuid.UUID, dict[str, Any]] = {}
            for belief in made:
                rows = conn.execute("select f.factor, f.detail, f.weight from beliefdb.belief b,"
                                    " beliefdb.confidence_factors_at(b.workspace_id, b.id, %s) f where b.id = %s",
                                    (moment(day), belief)).fetchall()
                factors[belief] = {
                    "confidence": rows[-1][2],
                    "derived_from": [uuid.UUID(d.removeprefix("belief ")) for f, d, _ in rows if f == "derived_from"],
                    "weights": {uuid.UUID(d.removeprefix("belief ")): w for f, d, w in rows if f == "derived_from"}}
                assert rows[-1][0] == "confidence"
                # what it derived from then: the derivation, once recorded
                if belief in derived:
                    made_on, antecedents = derived[belief]
                    assert sorted(factors[belief]["derived_from"]) == (antecedents if day >= made_on else [])
            for belief in made:
                row = factors[belief]
                for antecedent, weight in row["weights"].items():
                    assert weight == pytest.approx(reference(factors, antecedent), rel=1e-5), (day, plan)
                if row["derived_from"]:
                    assert row["confidence"] == pytest.approx(reference(factors, belief), rel=1e-5), (day, plan)


@settings(max_examples=15, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=steps)
def test_confidence_as_of_each_moment_is_the_recursive_reference(db_url: str, plan: list[tuple[Any, ...]]) -> None:
    run(db_url, plan)


def test_confidence_as_of_a_diamond_example(db_url: str) -> None:
    """A diamond (two derivations from one belief, one from both) whose root's source is retracted later."""
    run(db_url, [("ingest", "a.md", "red"), ("ingest", "b.md", "blue"), ("derive", [0, 1]), ("derive", [0]),
                 ("derive", [2, 3]), ("retract_source", "a.md", False), ("derive", [4, 1]),
                 ("retract_source", "a.md", True)])


def test_the_sql_listing_as_of_a_moment_has_each_beliefs_confidence_then(db_url: str) -> None:
    """A DBA's ``select * from beliefdb.beliefs_as_of(...)`` gave each belief its stored confidence, today's,
    beside the status it had then; the library's listing gave the confidence then."""
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
        warm = db.derive("Product alpha looks warm", "product_alpha", "look", "warm", [red]).id
    with at(db_url, 200) as db:  # (two hundred days later: recency has lowered what red stores)
        db.ingest_text(TEXT.format("red") + "Product beta colour: blue\n", source="catalogue.md")
        then = listed(db, 5)
    with psycopg.connect(url_at(db_url, moment(200).isoformat())) as conn:
        conn.execute("select beliefdb.use_workspace('default')")
        rows = dict(conn.execute("select id, confidence from beliefdb.beliefs_as_of(%s)", (moment(5),)).fetchall())
        stored = dict(conn.execute("select id, confidence from beliefdb.belief").fetchall())
    assert set(rows) == {red, warm}
    assert rows[red] == pytest.approx(then[red], rel=1e-6) and rows[warm] == pytest.approx(then[warm], rel=1e-6)
    assert rows[red] != pytest.approx(stored[red], rel=1e-3)  # (what it stores now is another figure)
