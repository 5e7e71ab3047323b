"""A copy is no independent evidence (rules 5 and 9): sources whose versions in force are the same bytes
under other names count as one source in a belief's confidence, the strongest of them, and ``why`` names
the copies. A user trial renamed a file, ingested it again, and saw "2 independent source(s)" and the
confidence rise from 0.80 to 0.96; the same with ``ingest_text`` under "a/support.md" and "b/support.md"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
from conftest import url_at

import beliefdb

TEXT = "Support hours: 9 to 5.\n"
START = datetime(2026, 1, 1, tzinfo=UTC)


def at(db_url: str, day: int) -> beliefdb.BeliefDB:
    return beliefdb.connect(url_at(db_url, (START + timedelta(days=day)).isoformat()), workspace="default")


def factors(db: beliefdb.BeliefDB, belief: object, day: int | None = None) -> dict[str, list[tuple[str, float]]]:
    why = db.why(str(belief), as_of=START + timedelta(days=day) if day is not None else None)
    out: dict[str, list[tuple[str, float]]] = {}
    for f in why.confidence:
        out.setdefault(f.factor, []).append((f.detail, round(f.weight, 4)))
    return out


def stored(db_url: str) -> list[float]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        return [round(r[0], 4) for r in conn.execute("select confidence from beliefdb.belief order by recorded_at")]


def test_the_same_text_under_another_name_is_one_source(db_url: str) -> None:
    with at(db_url, 0) as db:
        (belief,) = db.ingest_text(TEXT, source="a/support.md", authority="internal").accepted
        assert stored(db_url) == [0.8]
        report = db.ingest_text(TEXT, source="b/support.md", authority="internal")
        assert [c.id for c in report.corroborated] == [belief.id]
        # one source, not two: 0.8, not 1 - 0.2 * 0.2
        assert stored(db_url) == [0.8]
        got = factors(db, belief.id)
        assert got["independent_sources"] == [("1 independent source(s), combined as 1 - prod(1 - w)", 0.8)]
        # (of copies of one authority, the first by id counts: either name)
        assert got["authority"] in (
            [("internal source a/support.md (the same text as b/support.md: one source)", 0.8)],
            [("internal source b/support.md (the same text as a/support.md: one source)", 0.8)])
        # a copy of a stronger authority is the one that counts
        db.ingest_text(TEXT, source="c/support.md", authority="official")
        assert stored(db_url) == [0.9]
        assert factors(db, belief.id)["authority"] == [
            ("official source c/support.md (the same text as a/support.md, b/support.md: one source)", 0.9)]
        # another text that says it is independent evidence
        db.ingest_text("Contact us.\n" + TEXT, source="d/team.md", authority="internal")
        assert stored(db_url) == [round(1 - 0.1 * 0.2, 4)]
        assert factors(db, belief.id)["independent_sources"][0][0].startswith("2 independent source(s)")
    # as of a moment (beliefdb.confidence_factors_at) the copies are one source too
    with at(db_url, 1) as db:
        assert factors(db, belief.id, day=0)["independent_sources"] == [
            ("2 independent source(s), combined as 1 - prod(1 - w)", 0.98)]
        assert factors(db, belief.id, day=0)["authority"][0][0] == (
            "official source c/support.md (the same text as a/support.md, b/support.md: one source)")


def test_a_copy_that_changes_counts_again(db_url: str) -> None:
    with at(db_url, 0) as db:
        (belief,) = db.ingest_text(TEXT, source="a.md", authority="internal").accepted
        db.ingest_text(TEXT, source="b.md", authority="internal")
        assert stored(db_url) == [0.8]
        # b.md's next version is its own text (it still says the same): two sources now
        db.ingest_text("Updated.\n" + TEXT, source="b.md", authority="internal")
        assert stored(db_url) == [0.96]
        assert factors(db, belief.id)["independent_sources"][0] == (
            "2 independent source(s), combined as 1 - prod(1 - w)", 0.96)
