"""As-of questions read retractions as they were at their moment (rule 16): a source, version or belief
retracted later was still believed before; while retracted it was not; restored, it is again. A tie is
conflicting as of a moment only while its rival was believed then. And as a property: after random
ingests, ties, claims whose valid time ends (when said, at a later step's moment, or after the last),
retractions and restorations, each at its own moment, what was believed as of each moment,
with the status and the confidence it had, is exactly what was current then, however much changed after it."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import set_clock, url_at
from hypothesis import HealthCheck, given, settings

import beliefdb
from beliefdb import render
from beliefdb.store.workspaces import create_workspace

START = datetime(2026, 1, 1, tzinfo=UTC)
TEXT = "Product alpha colour: {}\n"


def moment(day: int) -> datetime:
    return START + timedelta(days=day)


def at(db_url: str, day: int, workspace: str = "default", max_size: int = 4) -> beliefdb.BeliefDB:
    """The library with beliefdb's clock fixed at ``day``."""
    return beliefdb.connect(url_at(db_url, moment(day).isoformat()), workspace=workspace, max_size=max_size)


def colours(db: beliefdb.BeliefDB, day: int | None = None) -> list[str]:
    """The colours believed as of ``day`` (now when None)."""
    return sorted(value for value, _ in standing(db, day))


def standing(db: beliefdb.BeliefDB, day: int | None = None) -> list[tuple[str, str]]:
    """The colours believed as of ``day`` (now when None), with their status then."""
    rows = db.beliefs(subject="product_alpha", as_of=moment(day) if day is not None else None)
    return sorted((b.value, b.status) for b in rows)


def test_a_retracted_source_is_not_believed_while_it_is_retracted(db_url: str) -> None:
    with at(db_url, 0) as db:
        db.ingest_text(TEXT.format("red"), source="catalogue.md")
    with at(db_url, 10) as db:
        db.retract(source="catalogue.md", reason="poisoned")
    with at(db_url, 20) as db:
        db.retract(source="catalogue.md", undo=True)
    with at(db_url, 30) as db:
        assert colours(db, 5) == ["red"]    # before the retraction
        assert colours(db, 10) == []        # from the moment it was retracted (the code before: red)
        assert colours(db, 15) == []
        assert colours(db, 20) == ["red"]   # restored
        assert colours(db) == colours(db, 30) == ["red"]


def test_a_belief_retracted_later_was_believed_before(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 10) as db:
        db.retract(belief=red, reason="wrong")
    with at(db_url, 30) as db:
        assert colours(db, 5) == ["red"]    # the code before hid it at every moment
        assert colours(db, 15) == colours(db) == []
        # why as of then says it was believed then, with the status it had
        assert db.why(red, as_of=moment(5)).belief.status == "current"


def test_a_retracted_version_puts_the_one_before_back_in_force_from_then(db_url: str) -> None:
    with at(db_url, 0) as db:
        db.ingest_text(TEXT.format("red"), source="catalogue.md")
    with at(db_url, 10) as db:
        db.ingest_text(TEXT.format("blue"), source="catalogue.md")
    with at(db_url, 20) as db:
        db.retract(source="catalogue.md", version=2, reason="a mistake")
    with at(db_url, 30) as db:
        assert colours(db, 5) == ["red"]
        assert colours(db, 15) == ["blue"]
        # version 2 retracted: version 1 is in force again, and blue, which superseded red, no longer holds
        # (the code before: blue, and red hidden by that supersession)
        assert colours(db, 25) == colours(db) == ["red"]


def test_why_lists_the_retractions_of_a_belief_and_of_where_its_evidence_comes_from(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 10) as db:
        db.retract(source="catalogue.md", reason="poisoned")
    with at(db_url, 20) as db:
        db.retract(source="catalogue.md", undo=True)
    with at(db_url, 30) as db:
        db.retract(belief=red, reason="wrong after all")
    with at(db_url, 40) as db:
        db.retract(belief=red, undo=True)
        now = db.why(red)
        assert [(r.what, r.name, r.retracted_at, r.reason, r.restored_at) for r in now.retractions] == [
            ("source", "catalogue.md", moment(10), "poisoned", moment(20)),
            ("belief", TEXT.format("red").strip(), moment(30), "wrong after all", moment(40))]
        assert "source catalogue.md retracted at 2026-01-11T00:00:00+00:00 — poisoned; restored at" in render.why(now)
        # as of a moment, what had happened by then: a restoration after it is not shown
        assert db.why(red, as_of=moment(5)).retractions == []
        assert [(r.what, r.restored_at) for r in db.why(red, as_of=moment(25)).retractions] == [
            ("source", moment(20))]
        # not believed while its source was retracted: shown with its status then, the retraction listed
        # (restored later: not by then)
        retracted = db.why(red, as_of=moment(15))
        assert retracted.belief.status == "unsupported"
        assert [(r.what, r.retracted_at, r.restored_at) for r in retracted.retractions] == [
            ("source", moment(10), None)]
        with pytest.raises(beliefdb.errors.NotFound):
            db.why(red, as_of=moment(-1))  # not recorded yet


def test_a_tie_is_conflicting_only_while_its_rival_is_believed(db_url: str) -> None:
    # two users' claims valid from one moment tie (rule 8); the rival's source is retracted later
    for day, source, colour in ((0, "x.md", "red"), (10, "y.md", "blue")):
        with at(db_url, day) as db:
            say(db, source, colour)
    with at(db_url, 20) as db:
        db.retract(source="y.md", reason="wrong")
    with at(db_url, 30) as db:
        assert standing(db, 15) == [("blue", "conflicting"), ("red", "conflicting")]
        # the code before: still conflicting, with no rival believed
        assert standing(db, 25) == standing(db) == [("red", "current")]


def test_a_belief_that_also_holds_by_a_derivation_is_taken_as_recorded(db_url: str) -> None:
    # blue is derived, then quoted by an official source, and supersedes red; the quote's source is
    # retracted, and blue still holds by its derivation (what it was derived from was current then)
    with at(db_url, 0) as db:
        weight = db.ingest_text("Widget weight: 5 kg\n", source="w.md").accepted[0].id
        db.derive("Product alpha colour: blue", "product_alpha", "colour", "blue", [weight])
    with at(db_url, 1) as db:
        db.ingest_text(TEXT.format("blue"), source="c.md", authority="official")
    with at(db_url, 2) as db:
        db.ingest_text(TEXT.format("red"), source="b.md", authority="internal")
    with at(db_url, 3) as db:
        db.retract(source="c.md", reason="wrong")
    with at(db_url, 4) as db:
        # (the first version of this reading dropped blue once its quote was retracted, and showed red)
        assert standing(db) == standing(db, 4) == standing(db, 2) == [("blue", "current")]


def test_a_tie_with_a_rival_not_yet_valid_is_conflicting_as_of_then(db_url: str) -> None:
    # rule 8 counts a rival whose valid time has not started: red (no valid time) and blue (valid from
    # June), recorded at one moment, tie; as of then red is in conflict, as it is now
    with at(db_url, 0) as db:
        for colour, valid_from in (("red", None), ("blue", "2026-06-01T00:00:00+00:00")):
            db.remember(TEXT.format(colour).strip(), "product_alpha", "colour", colour, f"colour: {colour}",
                        source=f"{colour}.md", text=TEXT.format(colour), valid_from=valid_from)
    with at(db_url, 1) as db:
        assert standing(db) == [("red", "conflicting")]
        # (the first version of this reading counted only a rival valid then: current)
        assert standing(db, 1) == [("red", "conflicting")]


def test_a_memory_that_superseded_a_belief_counts_only_until_it_is_deleted(db_url: str) -> None:
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 10) as db, db.record_run(task="remember the new colour") as run:
        blue = run.memory(run.step("plan", {"colour": "blue"}), "product_alpha", "colour", "blue", supersedes=red)
    with at(db_url, 20) as db, db.record_run(task="forget it again") as run:
        run.delete_memory(run.step("plan", {"colour": None}), blue)
    with at(db_url, 30) as db:
        assert colours(db, 5) == ["red"]
        # superseded by a memory, believed then itself (its step held then; before, a belief no fragment
        # quoted was no as-of answer)
        assert colours(db, 15) == ["blue"]
        # deleted (retracted) at day 20: red is current again, as of then too
        assert colours(db) == colours(db, 25) == ["red"]


def test_unextracted_text_as_of_a_moment_reads_retractions_as_they_stood(db_url: str) -> None:
    question = "what does the loading dock say about pallets?"
    with at(db_url, 0) as db:
        db.ingest_text("The loading dock stacks pallets three high on Mondays.\n", source="dock.md")
    with at(db_url, 10) as db:
        db.retract(source="dock.md", reason="outdated")
    with at(db_url, 20) as db:
        def texts(day: int) -> list[str]:
            return [f.text for f in db.ask(question, as_of=moment(day)).fragments]
        assert texts(5) == ["The loading dock stacks pallets three high on Mondays."]
        assert texts(15) == []  # retracted then (the code before read only what is retracted now)


def test_every_retraction_and_its_undo_leave_one_period(db_url: str, postgresql: psycopg.Connection[object]) -> None:
    with at(db_url, 0) as db:
        db.ingest_text(TEXT.format("red"), source="catalogue.md")
    for day, undo in ((10, False), (20, True), (30, False)):
        with at(db_url, day) as db:
            db.retract(source="catalogue.md", undo=undo, reason=f"checking on day {day}")
    rows = postgresql.execute(
        "select p.retracted_at, p.reason, p.restored_at from beliefdb.retraction_period p"
        " join beliefdb.source s on s.workspace_id = p.workspace_id and s.id = p.source_id"
        " where s.name = 'catalogue.md' order by p.retracted_at").fetchall()
    assert rows == [(moment(10), "checking on day 10", moment(20)), (moment(30), "checking on day 30", None)]


# --- the property ---------------------------------------------------------------------------------

SOURCES = {"a.md": "official", "b.md": "internal", "c.md": "internal"}
SPEAKERS = ("x.md", "y.md")
COLOURS = ("red", "blue", "green")


def say(db: beliefdb.BeliefDB, source: str, colour: str, until: datetime | None = None) -> None:
    """A user's claim valid from one fixed moment: two of them with different values tie (rule 8); with
    ``until``, valid until then (rule 16: expired from that moment, at once when it is the clock's)."""
    db.remember(TEXT.format(colour).strip(), "product_alpha", "colour", colour, f"colour: {colour}",
                source=source, text=TEXT.format(colour), valid_from="2025-06-01T00:00:00+00:00", valid_to=until)

steps = st.lists(st.one_of(
    st.tuples(st.just("ingest"), st.sampled_from(sorted(SOURCES)), st.sampled_from(COLOURS)),
    st.tuples(st.just("say"), st.sampled_from(SPEAKERS), st.sampled_from(COLOURS)),
    # valid until 0 to 2 days after it is said: expired when said, at the next step's moment, or after
    st.tuples(st.just("say_until"), st.sampled_from(SPEAKERS), st.sampled_from(COLOURS), st.integers(0, 2)),
    st.tuples(st.just("retract_source"), st.sampled_from(sorted(SOURCES) + list(SPEAKERS)), st.booleans()),
    st.tuples(st.just("retract_version"), st.sampled_from(sorted(SOURCES)), st.integers(1, 3)),
    st.tuples(st.just("retract_belief"), st.integers(0, 5), st.booleans()),
    st.tuples(st.just("correct"), st.integers(0, 5), st.sampled_from(COLOURS)),
    st.tuples(st.just("retract_correction"), st.integers(0, 3), st.booleans()),
), min_size=1, max_size=9)


def apply(db: beliefdb.BeliefDB, step: tuple[object, ...], believed: list[uuid.UUID],
          corrections: list[uuid.UUID], day: int = 0) -> bool:
    """One step at ``day``; False when it names nothing there (an unknown version, no belief, a belief no
    longer current to correct, nothing to retract or restore) and so changed nothing."""
    kind = step[0]
    try:
        if kind == "ingest":
            _, source, colour = step
            # (no vectors: what was believed when, and how confidently, reads none; a third of an ingest's time)
            report = db.ingest_text(TEXT.format(colour), source=str(source), authority=SOURCES[str(source)],
                                    embed=False)
            believed.extend(a.id for a in report.accepted)
        elif kind == "say":
            _, source, colour = step
            say(db, str(source), str(colour))
        elif kind == "say_until":
            _, source, colour, days = step
            say(db, str(source), str(colour), moment(day + int(str(days))))
        elif kind == "retract_source":
            _, source, undo = step
            db.retract(source=str(source), undo=bool(undo), reason="step")
        elif kind == "retract_version":
            _, source, version = step
            db.retract(source=str(source), version=int(str(version)), reason="step")
        elif kind == "correct":
            _, index, colour = step
            old = db.why(believed[int(str(index)) % len(believed)]).belief if believed else None
            if old is None or old.status != "current":
                return False
            done = db.apply_correction(old.id, TEXT.format(colour).strip(), reviewer="reviewer",
                                       expect_revision=old.revision, value=str(colour))
            assert done.replacement is not None and done.correction is not None
            believed.append(done.replacement)
            corrections.append(done.correction)
        elif kind == "retract_correction":
            _, index, undo = step
            if not corrections:
                return False
            # (a correction is a node, not a belief: retracting it retracts its fragment too)
            db.retract(fragment=corrections[int(str(index)) % len(corrections)], undo=bool(undo), reason="step")
        else:
            _, index, undo = step
            if not believed:
                return False
            db.retract(belief=believed[int(str(index)) % len(believed)], undo=bool(undo), reason="step")
    except beliefdb.errors.DatabaseUnavailable:
        raise  # (one connection: a call that waited for another would be no step that did nothing)
    except beliefdb.errors.BeliefDBError:
        return False
    return True


def clock(db: beliefdb.BeliefDB, day: int) -> int:
    """Fix the clock of ``db``'s one connection at ``day`` (conftest's set_clock): one session for a whole plan
    instead of a new one per step, a fifth of an example's time. The session's backend id."""
    return set_clock(db, moment(day).isoformat())


def run(db_url: str, plan: list[tuple[object, ...]]) -> list[bool]:
    """Each step at its own moment (day 1, 2, ...) in a new workspace; then, as of each of those moments,
    what was believed must be what was current right after its step. Which steps did something."""
    name = f"asof-{uuid.uuid4().hex[:12]}"
    create_workspace(db_url, name)
    current: list[list[tuple[str, str]]] = []
    confident: list[list[tuple[str, float]]] = []
    believed: list[uuid.UUID] = []
    corrections: list[uuid.UUID] = []
    applied = []
    with at(db_url, 1, name, max_size=1) as db:
        sessions = set()
        for day, step in enumerate(plan, start=1):
            sessions.add(clock(db, day))
            applied.append(apply(db, step, believed, corrections, day))
            # what expired by this moment, processed as a writer would: a read with the clock fixed writes
            # nothing, so after a step that wrote nothing (refused) it still showed a rival whose valid time
            # had ended (rule 13 of docs/rules.md), while as of that moment it is expired
            db.expire()
            current.append(standing(db))
            # every stored confidence brought to this moment: what as-of confidence must give back later
            db.decay()
            confident.append(confidences(db))
        sessions.add(clock(db, len(plan) + 1))
        assert len(sessions) == 1, sessions  # (every step on the session whose clock was set)
        for day, was in enumerate(current, start=1):
            # (status and confidence then, read by one call as of that moment)
            then = db.beliefs(subject="product_alpha", as_of=moment(day))
            assert sorted((b.value, b.status) for b in then) == was, (day, plan)
            assert sorted((b.value, round(b.confidence, 5)) for b in then) == confident[day - 1], (day, plan)
    return applied


def confidences(db: beliefdb.BeliefDB, day: int | None = None) -> list[tuple[str, float]]:
    """The colours believed as of ``day`` (now when None), with their confidence then."""
    rows = db.beliefs(subject="product_alpha", as_of=moment(day) if day is not None else None)
    return sorted((b.value, round(b.confidence, 5)) for b in rows)


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=steps)
def test_as_of_each_moment_is_what_was_current_then(db_url: str, plan: list[tuple[object, ...]]) -> None:
    run(db_url, plan)


@pytest.mark.parametrize("plan", [
    # a superseding source retracted, then restored
    [("ingest", "b.md", "red"), ("ingest", "a.md", "blue"), ("retract_source", "a.md", False),
     ("retract_source", "a.md", True)],
    # the latest version retracted, then its source, then the source restored
    [("ingest", "a.md", "red"), ("ingest", "a.md", "blue"), ("retract_version", "a.md", 2),
     ("retract_source", "a.md", False), ("retract_source", "a.md", True)],
    # a belief retracted while it superseded another, then restored
    [("ingest", "b.md", "red"), ("ingest", "c.md", "blue"), ("retract_belief", 1, False),
     ("retract_belief", 1, True)],
    # a correction, then retracted and restored
    [("ingest", "a.md", "red"), ("correct", 0, "blue"), ("retract_correction", 0, False),
     ("retract_correction", 0, True)],
    # a tie, its rival retracted, then restored
    [("say", "x.md", "red"), ("say", "y.md", "blue"), ("retract_source", "y.md", False),
     ("retract_source", "y.md", True)],
    # a tie whose rival's valid time ends at the next step's moment, one that ends as it is said, and a
    # value said again for a later time (rule 16: another claim) that ends exactly at a later step's moment
    [("say", "x.md", "red"), ("say_until", "y.md", "blue", 1), ("say_until", "y.md", "green", 0),
     ("say_until", "x.md", "red", 1), ("ingest", "b.md", "blue")],
])
def test_as_of_examples(db_url: str, plan: list[tuple[object, ...]]) -> None:
    """Hand-picked plans the property must cover, whatever hypothesis draws; every step of each does something."""
    assert run(db_url, plan) == [True] * len(plan)


def test_as_of_a_moment_after_a_refused_step_when_a_rival_expired(db_url: str) -> None:
    """Drawn by hypothesis (a CI run): the tie's rival ends at day 3, whose step is refused (no source a.md)."""
    assert run(db_url, [("say", "x.md", "red"), ("say_until", "y.md", "blue", 1),
                        ("retract_source", "a.md", False)]) == [True, True, False]


def test_a_writer_that_waited_for_the_lock_is_dated_after_the_one_it_waited_for(db_url: str) -> None:
    """A write is dated when it takes its workspace's write lock, not when its transaction began: a
    writer that began first but waited was dated before the one it waited for, and as of a moment
    between the two the later text read as in force before the earlier one (found over HTTP)."""
    with beliefdb.connect(db_url) as db:
        db.ingest_text("The fee is 1 EUR.", source="fee.md", extractor="none")
        workspace = str(db.database.workspace_id)
        with psycopg.connect(db_url) as waiting:
            waiting.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace,))
            began = waiting.execute("select now()").fetchone()  # its transaction has begun
            db.ingest_text("The fee is 2 EUR.", source="fee.md", extractor="none")  # commits meanwhile
            waiting.execute("select beliefdb.ingest_version('fee.md', 'The fee is 3 EUR.')")
            waiting.commit()
        with psycopg.connect(db_url) as conn:
            rows = conn.execute("select v.version, v.recorded_at from beliefdb.source_version v"
                                " order by v.version").fetchall()
    assert began is not None and [n for n, _ in rows] == [1, 2, 3]
    assert rows[0][1] < rows[1][1] < rows[2][1]
    assert rows[2][1] > began[0]


def test_evidence_as_of_a_moment_says_whether_its_version_was_in_force_then(db_url: str) -> None:
    """``why`` and ``ask`` as of a moment show each quote's version as in force or history as it stood
    then (``beliefdb.in_force_at``), not as it stands now: red's version 1 was in force on day 5, and
    again from day 20 when version 2 was retracted, though blue's version 2 replaced it in between."""
    with at(db_url, 0) as db:
        red = db.ingest_text(TEXT.format("red"), source="catalogue.md").accepted[0].id
    with at(db_url, 10) as db:
        blue = db.ingest_text(TEXT.format("blue"), source="catalogue.md").accepted[0].id
    with at(db_url, 20) as db:
        db.retract(source="catalogue.md", version=2, reason="a mistake")
    with at(db_url, 30) as db:
        db.ingest_text(TEXT.format("green"), source="catalogue.md")
    with at(db_url, 40) as db:
        def in_force(belief: uuid.UUID, day: int) -> list[tuple[int, bool]]:
            return [(e.version, e.in_force) for e in db.why(belief, as_of=moment(day)).evidence]

        def asked(day: int) -> list[tuple[str, list[tuple[int, bool]]]]:
            answer = db.ask("product alpha colour", as_of=moment(day))
            return [(a.belief.value, [(e.version, e.in_force) for e in a.evidence]) for a in answer.beliefs]

        assert in_force(red, 5) == [(1, True)]      # the code before: (1, False), version 3 is in force now
        assert in_force(blue, 15) == [(2, True)]
        assert in_force(red, 25) == [(1, True)]
        assert [(e.version, e.in_force) for e in db.why(red).evidence] == [(1, False)]  # now: history
        assert "(in force)" in render.why(db.why(red, as_of=moment(5)))
        assert asked(5) == [("red", [(1, True)])]
        assert asked(15) == [("blue", [(2, True)])]
        assert [(a.belief.value, [(e.version, e.in_force) for e in a.evidence])
                for a in db.answers(subject="product_alpha", as_of=moment(25))] == [("red", [(1, True)])]


def test_why_marks_the_evidence_a_retraction_took_away_then_and_not_before(db_url: str) -> None:
    """A quote whose source, version or fragment was retracted supports nothing (rule 5); why showed it as
    "history", as a text a newer version replaced, beside the quote that holds the belief."""
    with at(db_url, 1) as db:
        db.ingest_text("Policy\nRefund window: 30 days.\n", source="policy.md")
        db.ingest_text("Memo\nRefund window: 30 days.\n", source="memo.md")
        (belief,) = [b.id for b in db.beliefs(subject="refund_policy")]
    with at(db_url, 10) as db:
        db.retract(source="memo.md", reason="a draft")
    with at(db_url, 20) as db:
        def marks(day: int | None) -> list[tuple[str, bool, bool]]:
            why = db.why(belief, as_of=None if day is None else moment(day))
            return [(e.source, e.in_force, e.retracted) for e in why.evidence]

        assert sorted(marks(None)) == [("memo.md", False, True), ("policy.md", True, False)]
        assert sorted(marks(5)) == [("memo.md", True, False), ("policy.md", True, False)]
        shown = render.why(db.why(belief))
        assert "memo.md v1 (retracted: counts for nothing)" in shown and "policy.md v1 (in force)" in shown, shown
        assert sorted((e["source"], e["retracted"]) for e in render.why_json(db.why(belief))["evidence"]) == [
            ("memo.md", True), ("policy.md", False)]
        (fragment,) = [e.fragment_id for e in db.why(belief).evidence if e.source == "policy.md"]
        db.retract(fragment=str(fragment), reason="misquoted")
        assert sorted(marks(None)) == [("memo.md", False, True), ("policy.md", True, True)]
