"""Forgetting a source removes its text (rule 14), the history of it too: a belief that did not hold
before the forget (extracted from an older version the source replaced, or from a source retracted
before it was forgotten) whose every quote lay in the forgotten source goes with it. It kept no
evidence, its statement the forgotten text word for word. One with a quote elsewhere stays."""

from __future__ import annotations

from typing import Any

import psycopg

import beliefdb

MAYA = "Maya Lopez may return items within 30 days."
FIFTEEN = "Returns are accepted within 15 days."
SEVEN = "Returns are accepted within 7 days."


def note(db: beliefdb.BeliefDB, source: str, quote: str, value: str, subject: str = "returns") -> Any:
    return db.remember(quote, subject, "window", value, quote, source=source, text=quote + "\n")


def statements(db: beliefdb.BeliefDB) -> dict[str, str]:
    return {b.statement: b.status for b in db.beliefs(include_all=True)}


def evidence_less(conn: psycopg.Connection[Any]) -> list[str]:
    return [r[0] for r in conn.execute(
        "select b.statement from beliefdb.belief b where not exists"
        " (select from beliefdb.evidence e where e.workspace_id = b.workspace_id and e.belief_id = b.id)"
        " and b.confidence_kind <> 'derived' order by b.statement").fetchall()]


def forget(db: beliefdb.BeliefDB, source: str) -> beliefdb.Forgotten:
    """Preview, then apply what the preview showed: the two report the same."""
    preview = db.forget(source=source, preview=True)
    done = db.forget(source=source, expect=preview.fingerprint())
    assert (preview.versions, preview.fragments, preview.beliefs, preview.evidence) == (
        done.versions, done.fragments, done.beliefs, done.evidence)
    return done


def test_a_belief_of_a_replaced_version_goes_with_its_forgotten_source(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    note(bdb, "a.md", MAYA, "30 days", subject="maya")
    note(bdb, "a.md", FIFTEEN, "15 days")  # a new version: Maya's sentence is history (unsupported)
    assert statements(bdb) == {MAYA: "unsupported", FIFTEEN: "current"}
    done = forget(bdb, "a.md")
    assert (done.versions, done.beliefs) == (2, 2)
    assert statements(bdb) == {}
    postgresql.commit()
    assert evidence_less(postgresql) == []
    assert postgresql.execute("select count(*) from beliefdb.belief where statement like '%Maya%'").fetchone() == (0,)
    assert bdb.audit_verify().ok


def test_a_belief_of_a_source_retracted_before_it_was_forgotten_goes_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    note(bdb, "a.md", MAYA, "30 days", subject="maya")
    bdb.retract(source="a.md", reason="poisoned")
    assert statements(bdb) == {MAYA: "unsupported"}
    assert forget(bdb, "a.md").beliefs == 1
    assert statements(bdb) == {}
    postgresql.commit()
    assert evidence_less(postgresql) == []


def test_a_belief_that_did_not_hold_with_a_quote_elsewhere_stays(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Its quote in another source (of a version replaced there too) is its evidence still: it stays,
    as it was, with that evidence; the other belief of the forgotten source's old version goes."""
    note(bdb, "a.md", SEVEN, "7 days", subject="exchanges")
    note(bdb, "b.md", SEVEN, "7 days", subject="exchanges")  # the same claim: corroborated
    note(bdb, "a.md", MAYA, "30 days", subject="maya")
    note(bdb, "a.md", FIFTEEN, "15 days")    # a.md drops both
    note(bdb, "b.md", FIFTEEN, "15 days")    # b.md drops the seven days too
    assert statements(bdb) == {SEVEN: "unsupported", MAYA: "unsupported", FIFTEEN: "current"}
    assert forget(bdb, "a.md").beliefs == 1   # Maya's sentence; fifteen days has b.md's quote
    assert statements(bdb) == {SEVEN: "unsupported", FIFTEEN: "current"}
    postgresql.commit()
    assert evidence_less(postgresql) == []
    assert bdb.audit_verify().ok
