"""Rules 3 and 16: the status a belief has now and the one `beliefdb.belief_status_at` reads back for
the same moment agree; both take the documented order (docs/dba.md): retracted, superseded,
unsupported, expired."""

from __future__ import annotations

import datetime as dt
import time

import beliefdb


def _live_and_as_of(bdb: beliefdb.BeliefDB) -> dict[str, tuple[str, str]]:
    with bdb.database.transaction() as c:
        rows = c.execute("select b.value, b.status::text, beliefdb.belief_status_at(b, now())::text"
                         "  from beliefdb.belief b where b.workspace_id = beliefdb.current_workspace_id()").fetchall()
    return {value: (live, at) for value, live, at in rows}


def test_superseded_and_unsupported_is_superseded_live_and_as_of(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("Return window: 7 days\n", source="pol", authority="official", embed=False)
    bdb.ingest_text("Return window: 15 days\n", source="pol", embed=False)  # v2 drops the 7-day quote
    assert _live_and_as_of(bdb) == {"7 days": ("superseded", "superseded"), "15 days": ("current", "current")}


def test_superseded_then_ended_is_superseded_live_and_as_of(bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("Return window: 30 days", "return_policy", "window", "30 days", quote="Return window: 30 days",
                 source="promo", text="Return window: 30 days", authority="user",
                 valid_to=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1))
    bdb.ingest_text("Return window: 15 days\n", source="pol", authority="official", embed=False)
    time.sleep(1.5)
    bdb.expire()
    assert _live_and_as_of(bdb) == {"30 days": ("superseded", "superseded"), "15 days": ("current", "current")}


def test_unsupported_and_ended_is_unsupported_live_and_as_of(bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("Return window: 30 days", "return_policy", "window", "30 days", quote="Return window: 30 days",
                 source="promo", text="Return window: 30 days", authority="user",
                 valid_to=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1))
    bdb.retract(source="promo", reason="wrong")
    time.sleep(1.5)
    bdb.expire()
    assert _live_and_as_of(bdb) == {"30 days": ("unsupported", "unsupported")}
