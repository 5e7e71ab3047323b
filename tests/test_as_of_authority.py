"""A source's authority read back in time (rule 9 as of a moment): a source raised from user to official
weighs its beliefs as official from then on, not before. ``source.authority`` holds only what it is now;
each change is kept with the authority before it (``beliefdb.authority_change``), and as-of confidence
reads the authority a source had then (``beliefdb.authority_at``). Before, a source raised today made its
beliefs' past confidence today's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from conftest import url_at

import beliefdb

START = datetime(2026, 1, 1, tzinfo=UTC)
HOURS = "Support hours: 9 am.\n"


def moment(day: int) -> datetime:
    return START + timedelta(days=day)


def at(db_url: str, day: int) -> beliefdb.BeliefDB:
    return beliefdb.connect(url_at(db_url, moment(day).isoformat()), workspace="default")


def confidence(db: beliefdb.BeliefDB, day: int | None) -> float:
    (row,) = db.beliefs(subject="support", as_of=moment(day) if day is not None else None)
    return row.confidence


def test_a_source_raised_later_weighed_as_what_it_was_before(db_url: str, postgresql: psycopg.Connection) -> None:
    with at(db_url, 0) as db:
        db.ingest_text(HOURS, source="notes.md", authority="user")
    with at(db_url, 10) as db:
        db.ingest_text(HOURS, source="notes.md", authority="official")
    with at(db_url, 20) as db:
        user, official = (db.database.scalar("select weight from beliefdb.confidence_policy"
                                             " where factor = 'authority' and key = %s", (key,))
                          for key in ("user", "official"))
        half = 0.5 ** (1 / 365)
        assert confidence(db, 5) == pytest.approx(user * half ** 5, abs=0.001)
        assert confidence(db, 15) == pytest.approx(official * half ** 15, abs=0.001)
        (belief,) = db.beliefs(subject="support")
        then = db.why(belief.id, as_of=moment(5))
        assert [f.detail for f in then.confidence if f.factor == "authority"] == ["user source notes.md"]
    rows = postgresql.execute("select c.authority_before::text, c.changed_at from beliefdb.authority_change c"
                              " join beliefdb.source s on s.workspace_id = c.workspace_id and s.id = c.source_id"
                              " where s.name = 'notes.md'").fetchall()
    assert rows == [("user", moment(10))]


def test_a_source_lowered_twice_reads_each_authority_in_its_time(db_url: str) -> None:
    with at(db_url, 0) as db:
        db.ingest_text(HOURS, source="notes.md", authority="official")
    with at(db_url, 10) as db:
        db.ingest_text(HOURS, source="notes.md", authority="internal")
    with at(db_url, 20) as db:
        db.ingest_text(HOURS, source="notes.md", authority="unverified")
    with at(db_url, 30) as db:
        kinds = [db.why(db.beliefs(subject="support")[0].id, as_of=moment(day)).confidence for day in (5, 15, 25)]
        assert [[f.detail for f in k if f.factor == "authority"] for k in kinds] == [
            ["official source notes.md"], ["internal source notes.md"], ["unverified source notes.md"]]

