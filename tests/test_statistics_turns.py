"""Forgets and workspace deletes of different workspaces at once: each gathers the text tables' planner
statistics before it commits (rule 14 of docs/rules.md), one session at a time database-wide, and one that waited
longer than ``BELIEFDB_LOCK_TIMEOUT`` for another's failed ``workspace_busy`` (7 of 14 deletes at once in a user
trial). Having rolled back whole, such a change is made again, up to three times in all; past that it is
``StatisticsBusy`` (code ``workspace_busy``). Another session's ANALYZE held open here stands for the others."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

import beliefdb
from beliefdb import api, errors

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"


def holding_statistics(url: str, seconds: float) -> threading.Thread:
    """A session that gathers beliefdb.belief's statistics and keeps its transaction (and the lock) ``seconds``."""
    taken = threading.Event()

    def hold() -> None:
        with psycopg.connect(url) as conn:
            conn.execute("analyze beliefdb.belief")
            taken.set()
            time.sleep(seconds)
            conn.commit()

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(30)
    return thread


@pytest.fixture
def two_sources(db_url: str) -> None:
    for ws in ("A", "B"):
        api.create_workspace(ws, url=db_url)
        with beliefdb.connect(db_url, ws) as db:
            db.ingest_text(POLICY, source="policy.md", authority="official")


def test_a_forget_and_a_delete_wait_their_turn(db_url: str, two_sources: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "1")
    holder = holding_statistics(db_url, 1.6)
    with beliefdb.connect(db_url, "A") as db:
        forgotten = db.forget(source="policy.md")
    holder.join()
    assert forgotten.versions == 1 and forgotten.beliefs == 1, forgotten
    holder = holding_statistics(db_url, 1.6)
    deleted = api.delete_workspace("B", force=True, url=db_url)
    holder.join()
    assert deleted.name == "B" and deleted.beliefs == 1


def test_past_three_tries_it_is_statistics_busy_and_nothing_changed(db_url: str, two_sources: None,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    holder = holding_statistics(db_url, 4.0)
    started = time.monotonic()
    with beliefdb.connect(db_url, "A") as db, pytest.raises(errors.StatisticsBusy) as caught:
        db.forget(source="policy.md")
    waited = time.monotonic() - started
    holder.join()
    assert caught.value.code == "workspace_busy" and "planner statistics" in caught.value.message
    assert waited >= 1.5  # three waits of 0.5 s
    with beliefdb.connect(db_url, "A") as db:
        assert [b.value for b in db.beliefs()] == ["7 days"]


def test_a_bulk_ingest_whose_statistics_stay_busy_says_what_it_stored(db_url: str, two_sources: None,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """(found by review) Every batch committed, the statistics gathered at the end found another session's and
    the run failed "nothing was changed: try again". It reports what it stored and leaves them to autovacuum."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.3")
    holder = holding_statistics(db_url, 4.0)
    try:
        with beliefdb.connect(db_url, "A") as db:
            # (enough rows that beliefdb.belief outgrows its statistics: bulk_analyze gathers them again)
            report = db.bulk_ingest(*((f"item-{n}.md", f"# Item {n}\n\nThe price is {n} EUR.\n") for n in range(150)),
                                    embed=False)
    finally:
        holder.join()
    assert report.documents == 150 and report.accepted == 150
    assert report.statistics_deferred is not None and "left to autovacuum" in report.statistics_deferred
