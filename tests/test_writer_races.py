"""Writers of one workspace racing each other: they wait for one another (or give up with
``WorkspaceBusy``), and never deadlock (docs/dba.md: writers in one workspace serialize).

Each race is set up so that the losing order happens every time: one session holds what the other
needs and the test waits until the other is seen waiting in ``pg_stat_activity`` before going on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb.embedders import get_embedder
from beliefdb.store import vectors


def _waiting_on_a_lock(url: str, application_name: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select count(*) from pg_stat_activity where application_name = %s"
                           " and wait_event_type = 'Lock'", (application_name,)).fetchone()
    return row is not None and row[0] > 0


def _wait_until(predicate: Callable[[], bool], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.01)


def _unembedded(bdb: beliefdb.BeliefDB, tag: str) -> list[Any]:
    text = "".join(f"Returns of line {tag}{i} are accepted within {i + 2} days.\n" for i in range(2))
    report = bdb.ingest_text(text, source=f"policy-{tag}", authority="official", embed=False)
    assert len(report.accepted) == 2, report
    return [a.id for a in report.accepted]


def test_two_sessions_embedding_the_same_beliefs_wait_for_each_other(db_url: str) -> None:
    """A writer embeds what it just stored while the worker embeds every belief still without a vector:
    both store a vector of the same belief. The second one waited for the first one's row while the
    first waited for the audit chain's head the second had taken with its own first row: a deadlock
    (40P01, 'deadlock detected') that failed one of them. Each now takes the workspace's write lock
    before storing, as every writer does, and the second waits its turn."""
    second_url = make_conninfo(db_url, application_name="bdb-second")
    with beliefdb.connect(db_url) as first, beliefdb.connect(second_url) as second:
        first.remember("The warehouse opens at 8.", "warehouse", "opens", "8", quote="opens at 8",
                       source="hours", text="The warehouse opens at 8.")  # the workspace's model is recorded
        one, two = _unembedded(first, "a")
        embedder = get_embedder()
        embedder.passages(["warm up the model"])
        outcome: dict[str, object] = {}

        def embed_second() -> None:
            try:
                with second.database.transaction() as c:
                    outcome["second"] = vectors.embed_beliefs(second.database, embedder, [two], c)
            except Exception as exc:
                outcome["second"] = exc

        with first.database.transaction() as c:
            assert vectors.embed_beliefs(first.database, embedder, [one], c) == 1
            racer = threading.Thread(target=embed_second)
            racer.start()
            _wait_until(lambda: _waiting_on_a_lock(db_url, "bdb-second"), "the second session waits")
            assert vectors.embed_beliefs(first.database, embedder, [two], c) == 1
        racer.join(timeout=60)
        assert not racer.is_alive()
        assert outcome["second"] in (0, 1), outcome
        stored = first.database.scalar("select count(*) from beliefdb.belief_embedding where belief_id = any(%s)",
                                       ([one, two],))
        assert stored == 2
        assert first.audit_verify().ok
