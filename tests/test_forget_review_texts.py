"""Forgetting (rule 14 of docs/rules.md) and the text of corrections and review items: a correction
whose replacement is forgotten goes with it (its statement is the forgotten belief's), a correction
proposed of a forgotten belief goes with its item whatever became of it, and where a correction or a
review item's typed words name a forgotten person (its statement, value, reviewer, reason) the report
lists it."""

from __future__ import annotations

from typing import Any

import psycopg

import beliefdb

TEAM = "# Team\nThe team grows by one.\n"
MAYA = "Maya lives in Lisbon.\n"


def texts(conn: psycopg.Connection[Any], sql: str) -> str:
    return str(conn.execute(sql).fetchall())


def test_forgetting_a_corrections_replacement_takes_the_correction_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The replacement's statement is the correction's new statement: forgetting the replacement leaves
    neither in beliefdb.correction (nor its value or reason), and the old belief stands again."""
    team = bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                        source="team.md", text=TEAM).accepted[0]
    fixed = bdb.apply_correction(team.id, "The team grows by two with Porto hires.", reviewer="ana",
                                 value="two", reason="the Porto office said so", expect_revision=1)
    postgresql.commit()
    assert "Porto" in texts(postgresql, "select new_statement, reason from beliefdb.correction")
    preview = bdb.forget(belief=str(fixed.replacement), preview=True)
    done = bdb.forget(belief=str(fixed.replacement))
    assert done.fingerprint() == preview.fingerprint()
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
    assert "Porto" not in texts(postgresql, "select content from beliefdb.source_version")
    assert "Porto" not in texts(postgresql, "select statement, value from beliefdb.belief")
    assert [b.status for b in bdb.beliefs()] == ["current"]


def test_forgetting_a_corrections_source_takes_the_correction_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The reviewer's text is a source of its own (correction:<uuid>): forgetting it forgets the text,
    and the correction that holds the same words goes with it."""
    team = bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                        source="team.md", text=TEAM).accepted[0]
    bdb.apply_correction(team.id, "The team grows by two with Porto hires.", reviewer="ana", value="two",
                         expect_revision=1)
    postgresql.commit()
    (name,) = postgresql.execute("select name from beliefdb.source where name like 'correction:%'").fetchone()
    bdb.forget(source=name)
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
    assert "Porto" not in texts(postgresql, "select content from beliefdb.source_version")
    assert [b.value for b in bdb.beliefs()] == ["one"]

