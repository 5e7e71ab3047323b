"""A moment without a time zone is local time, the documented reading of the library and the CLI
(``beliefdb.api.parse_moment``): it was so only where Python read it. A claim's ``valid_from`` /
``valid_to`` text went to PostgreSQL as written and was read in the database session's time zone (the
server's, not the caller's), and a ``datetime`` without a zone given as ``as_of`` was sent as a
``timestamp`` and read there too: the same "09:00" was two moments, depending on the door. And a
time in the hour that clocks skip (``2024-03-10T02:30`` in New York) was read an hour early by
Python's ``astimezone()``, where PostgreSQL and ``zoneinfo`` read it with the offset before the change.

Here the process's local zone (New York) and the database session's (Tokyo) differ, as for a client and
a server in two places."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import Cli
from hypothesis import HealthCheck, given, settings
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import api, errors
from beliefdb.inputs import moment_text

TEXT = "The office is open until February.\n"
QUOTE = "The office is open until February."


@contextmanager
def local_zone(zone: str) -> Iterator[None]:
    """This process's local time is ``zone``'s while the block runs (TZ, then as it was)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


@pytest.fixture
def in_new_york(db_url: str) -> Iterator[None]:
    """This process's local time is New York's (the database session's stays its own: the test server
    is started before, by ``db_url``, so it does not take the zone from this process's environment)."""
    with local_zone("America/New_York"):
        yield


def in_tokyo(url: str, moment: str | None = None) -> str:
    """``url`` whose sessions' time zone is Tokyo's (and whose clock is fixed at ``moment``)."""
    clock = f" -c beliefdb.now={moment}" if moment else ""
    return make_conninfo(url, options=f"-c TimeZone=Asia/Tokyo{clock}")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def valid_time(db: beliefdb.BeliefDB) -> tuple[datetime | None, datetime | None]:
    (b,) = db.beliefs(include_all=True)
    return b.valid_time.lower, b.valid_time.upper


def test_a_claims_time_without_a_zone_is_local_time(in_new_york: None, db_url: str) -> None:
    with beliefdb.connect(in_tokyo(db_url)) as db:
        db.remember(QUOTE, "office", "open", "yes", QUOTE, source="office.md", text=TEXT,
                    valid_from="2026-01-05T09:00", valid_to="2026-02-01T09:00:00")
        # nine o'clock in New York, not in Tokyo (the session's zone) nor UTC
        assert valid_time(db) == (utc(2026, 1, 5, 14), utc(2026, 2, 1, 14))


def test_a_claims_file_time_without_a_zone_is_local_time(in_new_york: None, db_url: str, tmp_path: Path) -> None:
    (tmp_path / "office.md").write_text(TEXT)
    claim = {"statement": QUOTE, "subject": "office", "attribute": "open", "value": "yes", "quote": QUOTE,
             "valid_from": "2026-01-05", "valid_to": "2026-02-01T09:00"}
    (tmp_path / "claims.jsonl").write_text(json.dumps(claim) + "\n")
    Cli({"BELIEFDB_URL": in_tokyo(db_url)})("ingest", tmp_path / "office.md", "--claims", tmp_path / "claims.jsonl",
                                            "--extractor", "none")
    with beliefdb.connect(db_url) as db:
        # a date alone is local midnight
        assert valid_time(db) == (utc(2026, 1, 5, 5), utc(2026, 2, 1, 14))


def test_a_moment_python_reads_is_the_moment_stored(in_new_york: None, bdb: beliefdb.BeliefDB) -> None:
    """ISO 8601 that Python reads and PostgreSQL does not (a week date, a decimal comma) was checked, then
    refused by the database with its own words, naming no field."""
    bdb.remember(QUOTE, "office", "open", "yes", QUOTE, source="office.md", text=TEXT,
                 valid_from="2026-W02-1T09:00Z", valid_to="2026-02-01T09:00:00,5Z")
    assert valid_time(bdb) == (utc(2026, 1, 5, 9), datetime(2026, 2, 1, 9, 0, 0, 500000, tzinfo=UTC))


def test_a_local_time_in_the_hour_clocks_skip_or_repeat_is_read_as_postgresql_reads_it(in_new_york: None,
                                                                                      db_url: str) -> None:
    """2024-03-10T02:30 does not exist in New York (02:00 EST is 03:00 EDT): read with the offset before the
    change (EST), it is 07:30 UTC, as PostgreSQL reads it; ``astimezone()`` said 06:30."""
    assert api.parse_moment("2024-03-10T02:30", "--as-of") == utc(2024, 3, 10, 7, 30)
    assert api.check_moment(datetime(2024, 3, 10, 2, 30), "as_of") == utc(2024, 3, 10, 7, 30)
    with beliefdb.connect(in_tokyo(db_url)) as db:
        db.remember(QUOTE, "office", "open", "yes", QUOTE, source="office.md", text=TEXT,
                    valid_from="2024-03-10T02:30", valid_to=datetime(2024, 3, 10, 2, 45))
        assert valid_time(db) == (utc(2024, 3, 10, 7, 30), utc(2024, 3, 10, 7, 45))
    # a local time that occurs twice (clocks going back) is read with the offset after the change (EST)
    assert api.parse_moment("2024-11-03T01:30", "--as-of") == utc(2024, 11, 3, 6, 30)


def test_an_as_of_without_a_zone_is_local_time_at_every_door(in_new_york: None, db_url: str, cli: Cli) -> None:
    """Valid until 09:00 New York time (14:00 UTC): as of 08:59 local it was believed, as of 09:00 local
    no longer (valid time ends before its end, rule 16). In Tokyo's zone both are before 14:00 UTC."""
    with beliefdb.connect(in_tokyo(db_url, "2026-01-10T00:00:00Z")) as january:
        (office,) = january.remember(QUOTE, "office", "open", "yes", QUOTE, source="office.md", text=TEXT,
                                     valid_to="2026-02-01T14:00:00Z").accepted
    before, after = datetime(2026, 2, 1, 8, 59), datetime(2026, 2, 1, 9, 0)
    with beliefdb.connect(in_tokyo(db_url)) as db:
        seen: dict[str, list[Any]] = {
            "beliefs": [[b.id for b in db.beliefs(as_of=m)] for m in (before, after)],
            "answers": [[a.belief.id for a in db.answers(as_of=m)] for m in (before, after)],
            "ask": [[a.belief.id for a in db.ask("is the office open?", as_of=m).beliefs] for m in (before, after)],
            "why": [db.why(office.id, as_of=before).belief.status],
            "graph": [[n.id for n in db.workspace_graph(as_of=m).nodes if n.kind == "belief"]
                      for m in (before, after)],
        }
        assert seen == {"beliefs": [[office.id], []], "answers": [[office.id], []], "ask": [[office.id], []],
                        "why": ["current"], "graph": [[office.id], []]}
        # as of 09:00 local its valid time was over: why shows it expired then
        assert db.why(office.id, as_of=after).belief.status == "expired"
        with pytest.raises(errors.NotFound, match="was not recorded yet at 2026-01-01T09:00:00-05:00"):
            db.why(office.id, as_of=datetime(2026, 1, 1, 9, 0))
    on_tokyo = Cli({"BELIEFDB_URL": in_tokyo(db_url)})
    assert [len(on_tokyo.json("beliefs", "--as-of", m.isoformat())) for m in (before, after)] == [1, 0]


# --- the property: a local time is read as PostgreSQL reads it in a session of the same zone -------

ZONES = ("America/New_York", "Europe/Lisbon", "Europe/Dublin", "Australia/Lord_Howe", "America/St_Johns",
         "Pacific/Chatham", "America/Santiago", "Asia/Kathmandu")


def transitions(zone: str) -> list[datetime]:
    """The local wall times (before each change, naive) at which ``zone`` changed its offset in 2023-2025
    (a zone that kept its offset: midsummer)."""
    tz = ZoneInfo(zone)
    out, at = [], datetime(2023, 1, 1, tzinfo=UTC)
    while at.year < 2026:
        step = at + timedelta(minutes=30)
        if at.astimezone(tz).utcoffset() != step.astimezone(tz).utcoffset():
            out.append(step.astimezone(tz).replace(tzinfo=None) - (step.astimezone(tz).utcoffset() or timedelta())
                       + (at.astimezone(tz).utcoffset() or timedelta()))
        at = step
    return out or [datetime(2024, 6, 21, 12)]


CHANGES = {zone: transitions(zone) for zone in ZONES}


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(zone=st.sampled_from(ZONES), which=st.integers(0, 5), minutes=st.integers(-100, 100),
       seconds=st.integers(0, 59))
def test_every_local_time_is_read_as_postgresql_reads_it(postgresql: psycopg.Connection[Any], zone: str,
                                                          which: int, minutes: int, seconds: int) -> None:
    """Around each change of offset of zones that skip or repeat an hour, half an hour, or change at odd
    offsets: a local time given to the library (a ``datetime``, ISO text, a claim's text) is the moment
    PostgreSQL reads for the same text in a session of that zone."""
    changes = CHANGES[zone]
    wall = changes[which % len(changes)] + timedelta(minutes=minutes, seconds=seconds)
    text = wall.isoformat()
    postgresql.execute(sql.SQL("set timezone = {}").format(sql.Literal(zone)))
    (database,) = postgresql.execute("select %s::text::timestamptz", (text,)).fetchone() or ()
    with local_zone(zone):
        read = {m.astimezone(UTC) for m in (api.check_moment(wall, "as_of"), api.parse_moment(text, "--as-of"),
                                             datetime.fromisoformat(moment_text(text, "valid_from") or ""))}
    # (in UTC: a time in the repeated hour, with fold=1, never equals one of another zone, PEP 495)
    assert read == {database.astimezone(UTC)}, (zone, text)


def test_the_beliefs_listing_says_when_each_belief_is_valid(db_url: str, cli: Cli) -> None:
    """`beliefs` printed a belief's status, statement and confidence but not its valid time: a fact valid
    from a moment, or one that ended (expired), or one whose start is still ahead (current, announced in
    advance) read the same as a fact with none. Each line says its valid time when one was stated, as `why`
    and `ask` do."""
    with beliefdb.connect(db_url) as db:
        db.remember(QUOTE, "office", "open", "yes", QUOTE, source="office.md", text=TEXT,
                    valid_from="2026-01-05T09:00:00-05:00", valid_to="2026-02-01T00:00:00Z")
        db.remember("The office is open", "office", "floor", "2", QUOTE, source="office.md")
    listed = cli("beliefs", "--all", "--db", db_url).output
    (opened,) = [line for line in listed.splitlines() if "confidence" in line and "open until" in line
                 and "valid" in line]
    assert "valid 2026-01-05T14:00:00+00:00 → 2026-02-01T00:00:00+00:00" in opened, listed
    assert "office / open = yes [expired]" in listed
    (floor_line,) = [line for line in listed.splitlines() if line.startswith(tuple("0123456789abcdef"))
                     and "floor" in line]
    floor_detail = listed.splitlines()[listed.splitlines().index(floor_line) + 1]
    assert "valid" not in floor_detail, listed


def test_why_says_a_valid_time_not_stated_as_ask_does(db_url: str, cli: Cli) -> None:
    """`why` said "valid always" of a belief given no valid time, where `ask` and the product view say
    "valid time not stated": such a belief claims nothing about when it holds, not that it holds always."""
    with beliefdb.connect(db_url) as db:
        (floor,) = db.remember("The office is open", "office", "floor", "2", QUOTE, source="office.md",
                               text=TEXT).accepted
    said = cli("why", str(floor.id), "--db", db_url).output
    assert "valid time not stated" in said and "always" not in said, said


def test_every_belief_as_of_a_moment_is_refused_not_read_as_those_believed_then(db_url: str, cli: Cli) -> None:
    """`beliefs --all --as-of T` (and all=true with as_of over HTTP) listed what was believed at T, --all
    silently dropped: a user asking for every belief's status then saw fewer and could not tell."""
    with beliefdb.connect(db_url) as db:
        db.remember("The office is open", "office", "floor", "2", QUOTE, source="office.md", text=TEXT)
        with pytest.raises(errors.InvalidInput, match=r"include_all=True and as_of= do not go together"):
            db.beliefs(include_all=True, as_of=datetime.now(UTC))
    line = cli.one_line_error("beliefs", "--all", "--as-of", "2030-01-01T00:00:00Z", "--db", db_url)
    assert "--all and --as-of do not go together" in line and "why ID --as-of" in line, line
