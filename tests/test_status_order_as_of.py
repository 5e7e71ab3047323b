"""Rules 3 and 16: the status a belief has now and the one `beliefdb.belief_status_at` reads back for
the same moment agree; both take the documented order (docs/dba.md): retracted, superseded,
unsupported, expired."""

from __future__ import annotations

import datetime as dt

from conftest import url_at

import beliefdb

# (a clock the tests set: a valid time ending a second after now ended before the next statement on a
# loaded machine, and the belief expired before it was superseded)
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def at(db_url: str, days: float) -> beliefdb.BeliefDB:
    return beliefdb.connect(url_at(db_url, (START + dt.timedelta(days=days)).isoformat()), workspace="default")


def _live_and_as_of(bdb: beliefdb.BeliefDB) -> dict[str, tuple[str, str]]:
    with bdb.database.transaction() as c:
        rows = c.execute("select b.value, b.status::text, beliefdb.belief_status_at(b, beliefdb.clock())::text"
                         "  from beliefdb.belief b where b.workspace_id = beliefdb.current_workspace_id()").fetchall()
    return {value: (live, at) for value, live, at in rows}


def test_superseded_and_unsupported_is_superseded_live_and_as_of(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Return window: 7 days\n", source="pol", authority="official", embed=False)
    bdb.ingest_text("Return window: 15 days\n", source="pol", embed=False)  # v2 drops the 7-day quote
    assert _live_and_as_of(bdb) == {"7 days": ("superseded", "superseded"), "15 days": ("current", "current")}


def test_superseded_then_ended_is_superseded_live_and_as_of(db_url: str) -> None:
    with at(db_url, 0) as bdb:
        bdb.remember("Return window: 30 days", "return_policy", "window", "30 days", quote="Return window: 30 days",
                     source="promo", text="Return window: 30 days", authority="user",
                     valid_to=START + dt.timedelta(days=1))
        bdb.ingest_text("Return window: 15 days\n", source="pol", authority="official", embed=False)
    with at(db_url, 2) as bdb:
        bdb.expire()
        assert _live_and_as_of(bdb) == {"30 days": ("superseded", "superseded"), "15 days": ("current", "current")}


def test_unsupported_and_ended_is_unsupported_live_and_as_of(db_url: str) -> None:
    with at(db_url, 0) as bdb:
        bdb.remember("Return window: 30 days", "return_policy", "window", "30 days", quote="Return window: 30 days",
                     source="promo", text="Return window: 30 days", authority="user",
                     valid_to=START + dt.timedelta(days=1))
        bdb.retract(source="promo", reason="wrong")
    with at(db_url, 2) as bdb:
        bdb.expire()
        assert _live_and_as_of(bdb) == {"30 days": ("unsupported", "unsupported")}
