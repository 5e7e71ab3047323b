"""Writers of one workspace racing each other: they wait for one another (or give up with
``WorkspaceBusy``), and never deadlock (docs/dba.md: writers in one workspace serialize).

Each race is set up so that the losing order happens every time: one session holds what the other
needs and the test waits until the other is seen waiting in ``pg_stat_activity`` before going on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

import beliefdb
import beliefdb.api
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


def test_a_forget_and_another_workspaces_statistics_refresh_wait_instead_of_deadlocking(db_url: str) -> None:
    """Forgetting gathers the text tables' statistics again in its transaction (rule 14), and
    refreshing the ranking statistics (or a bulk ingest's end) gathers those of the tables retrieval
    reads: each ANALYZE keeps its table's lock until its transaction ends, whatever the workspace. The
    two went through their tables in different orders (source ... belief against belief ... fragment),
    so a forget in one workspace and a refresh in another deadlocked (40P01). They now take the tables
    in one order (by name), and the later one waits for the earlier one."""
    beliefdb.api.create_workspace("other", url=db_url)
    with beliefdb.connect(db_url) as mine, beliefdb.connect(db_url, "other") as other:
        mine.remember("The warehouse opens at 8.", "warehouse", "opens", "8", quote="opens at 8",
                      source="hours", text="The warehouse opens at 8.")
        other.remember("The shop opens at 9.", "shop", "opens", "9", quote="opens at 9",
                       source="shop-hours", text="The shop opens at 9.")
        outcome: dict[str, object] = {}

        def run(name: str, call: Callable[[], object]) -> threading.Thread:
            def target() -> None:
                try:
                    outcome[name] = call()
                except Exception as exc:
                    outcome[name] = exc
            thread = threading.Thread(target=target)
            thread.start()
            return thread

        refresh_url = make_conninfo(db_url, application_name="bdb-refresh")
        forget_url = make_conninfo(db_url, application_name="bdb-forget")

        def refresh() -> object:
            with psycopg.connect(refresh_url) as conn:
                conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (other.database.workspace_id,))
                conn.execute("set role beliefdb_app")
                row = conn.execute("select beliefdb.refresh_ranking_stats()").fetchone()
                return row[0] if row else None

        with beliefdb.connect(forget_url) as forgetting, psycopg.connect(db_url) as holder:
            # a third session holds one table both need, so that each has taken some tables before it
            holder.execute("lock table beliefdb.fragment in share update exclusive mode")
            forgets = run("forget", lambda: forgetting.forget(source="hours"))
            _wait_until(lambda: _waiting_on_a_lock(db_url, "bdb-forget"), "the forget waits")
            refreshes = run("refresh", refresh)
            _wait_until(lambda: _waiting_on_a_lock(db_url, "bdb-refresh"), "the refresh waits")
            holder.rollback()
            forgets.join(timeout=60)
            refreshes.join(timeout=60)
        assert not forgets.is_alive() and not refreshes.is_alive()
        assert not isinstance(outcome["forget"], Exception), outcome
        assert not isinstance(outcome["refresh"], Exception), outcome
        assert mine.beliefs(subject="warehouse") == []
        assert [b.value for b in other.beliefs(subject="shop")] == ["9"]


def test_a_retraction_preview_waits_for_a_forget_instead_of_deadlocking(db_url: str) -> None:
    """A preview is the change, run in a subtransaction rolled back (rule 7). The preview of a
    retraction (and impact's dry run) wrote its first rows (the retraction, which keys the belief's
    node) before it waited for the workspace's write lock, which a forget of the belief's source held:
    the forget then waited to delete that node, and one of them failed with 'deadlock detected'. A
    dry run now takes the write lock first, as the change it previews does."""
    previewer_url = make_conninfo(db_url, application_name="bdb-preview")
    with beliefdb.connect(db_url) as mine, beliefdb.connect(previewer_url) as previewer:
        (belief,) = [a.id for a in mine.remember("The warehouse opens at 8.", "warehouse", "opens", "8",
                                                 quote="opens at 8", source="hours",
                                                 text="The warehouse opens at 8.").accepted]
        outcome: dict[str, object] = {}

        def preview() -> None:
            try:
                outcome["preview"] = previewer.preview_retract(belief=belief)
            except Exception as exc:
                outcome["preview"] = exc

        with psycopg.connect(db_url) as writer:
            writer.execute("select set_config('beliefdb.workspace_id', %s, false)", (mine.database.workspace_id,))
            writer.execute("set role beliefdb_app")
            writer.execute("select beliefdb.lock_workspace()")  # a forget under way holds the workspace
            racer = threading.Thread(target=preview)
            racer.start()
            _wait_until(lambda: _waiting_on_a_lock(db_url, "bdb-preview"), "the preview waits")
            forgotten = writer.execute("select (beliefdb.forget('source', 'hours')).beliefs").fetchone()
            writer.commit()
            racer.join(timeout=60)
        assert not racer.is_alive()
        assert forgotten == (1,)
        # the preview ran after the forget: the belief it names is gone, and it says so
        assert isinstance(outcome["preview"], beliefdb.errors.NotFound), outcome
        assert mine.audit_verify().ok


def test_a_read_that_processes_expiry_does_not_keep_writers_waiting(db_url: str) -> None:
    """Every transaction first processes what expired (rule 16), which takes the workspace's write
    lock when something did. A read (an ask embedding its question, a page) then kept that lock until
    it ended, and every writer of the workspace waited for it. The expiry is now committed first, on
    its own, and the read goes on without the lock."""
    with beliefdb.connect(db_url) as bdb:
        soon = datetime.now(UTC) + timedelta(seconds=1)
        (promo,) = [a.id for a in bdb.remember("The promo price is 5.", "promo", "price", "5", quote="price is 5",
                                               source="promo", text="The promo price is 5.", valid_to=soon).accepted]
        _wait_until(lambda: datetime.now(UTC) > soon + timedelta(milliseconds=100), "the promo ends")
        with bdb.database.transaction() as c:
            # the read sees the expiry processed ...
            row = c.execute("select status::text from beliefdb.belief where id = %s", (promo,)).fetchone()
            assert row == ("expired",)
            # ... and another writer is not kept waiting meanwhile
            with psycopg.connect(db_url, options="-c lock_timeout=200ms") as writer:
                writer.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
                writer.execute("select beliefdb.lock_workspace()")
        assert bdb.audit_verify().ok


def test_a_read_that_waits_for_expiry_beyond_the_lock_timeout_says_why(db_url: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A listing is no change, yet it waits for another writer when beliefs have expired since the
    last change (rule 16: they stop being current before anything is read). Past
    BELIEFDB_LOCK_TIMEOUT it said only that 'another writer holds this workspace': it now says what
    the read waited for."""
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    with beliefdb.connect(db_url) as bdb:
        soon = datetime.now(UTC) + timedelta(seconds=1)
        bdb.remember("The promo price is 5.", "promo", "price", "5", quote="price is 5", source="promo",
                     text="The promo price is 5.", valid_to=soon)
        _wait_until(lambda: datetime.now(UTC) > soon + timedelta(milliseconds=100), "the promo ends")
        with psycopg.connect(db_url) as writer:
            writer.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
            writer.execute("select beliefdb.lock_workspace()")
            with pytest.raises(beliefdb.errors.WorkspaceBusy) as busy:
                bdb.beliefs()
            answer = bdb.ask("promo price")
        assert busy.value.message == (
            "another writer holds this workspace, and beliefs whose valid time has ended must stop being current"
            " before anything is read or written: gave up waiting after BELIEFDB_LOCK_TIMEOUT; nothing was"
            " changed: try again")
        assert answer.status == "memory_unavailable" and answer.reason == busy.value.message
        assert [b.status for b in bdb.beliefs(include_all=True)] == ["expired"]


def test_a_forget_that_waits_for_another_workspaces_statistics_says_so(db_url: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A forget gathers the text tables' statistics in its transaction (rule 14), and one table's
    statistics are gathered by one session at a time, whatever its workspace: a forget waits for
    another workspace's. Past BELIEFDB_LOCK_TIMEOUT it said 'another writer holds this workspace', which
    nobody did; it now says what it waited for."""
    beliefdb.api.create_workspace("other", url=db_url)
    monkeypatch.setenv("BELIEFDB_LOCK_TIMEOUT", "0.5")
    with beliefdb.connect(db_url) as mine, beliefdb.connect(db_url, "other") as other:
        for db, name in ((mine, "hours"), (other, "shop-hours")):
            db.remember("The shop opens at 9.", "shop", "opens", "9", quote="opens at 9", source=name,
                        text="The shop opens at 9.")
        with psycopg.connect(db_url) as elsewhere:
            elsewhere.execute("select set_config('beliefdb.workspace_id', %s, false)", (other.database.workspace_id,))
            elsewhere.execute("set role beliefdb_app")
            elsewhere.execute("select beliefdb.forget('source', 'shop-hours')")  # not committed yet
            with pytest.raises(beliefdb.errors.WorkspaceBusy) as busy:
                mine.forget(source="hours")
        assert busy.value.message == (
            "another session is gathering planner statistics of a table this change needs (a forget gathers"
            " them before it commits, rule 14; a bulk ingest after it, in any workspace): gave up waiting after"
            " BELIEFDB_LOCK_TIMEOUT; nothing was changed: try again")
        assert [b.value for b in mine.beliefs(subject="shop")] == ["9"]
        assert mine.forget(source="hours").beliefs == 1


def test_a_belief_forgotten_while_its_vector_was_computed_is_not_embedded(db_url: str) -> None:
    """The worker embeds the beliefs still without a vector while a writer forgets one of them: the
    vector came back from the model after the forget committed, and storing it failed ('violates foreign
    key constraint'), with the worker's whole batch. What is gone by the time the vectors are stored is
    left out."""
    embedder_url = make_conninfo(db_url, application_name="bdb-embedder")
    with beliefdb.connect(db_url) as mine, beliefdb.connect(embedder_url) as embedding:
        mine.remember("The warehouse opens at 8.", "warehouse", "opens", "8", quote="opens at 8",
                      source="hours", text="The warehouse opens at 8.")  # the workspace's model is recorded
        kept, gone = _unembedded(mine, "a")[0], _unembedded(mine, "b")[0]
        embedder = get_embedder()
        outcome: dict[str, object] = {}

        def embed() -> None:
            try:
                with embedding.database.transaction() as c:
                    outcome["embedded"] = vectors.embed_beliefs(embedding.database, embedder, [kept, gone], c)
            except Exception as exc:
                outcome["embedded"] = exc

        with psycopg.connect(db_url) as writer:
            writer.execute("select set_config('beliefdb.workspace_id', %s, false)", (mine.database.workspace_id,))
            writer.execute("set role beliefdb_app")
            writer.execute("select beliefdb.lock_workspace()")  # the forget is under way
            racer = threading.Thread(target=embed)
            racer.start()
            _wait_until(lambda: _waiting_on_a_lock(db_url, "bdb-embedder"), "the vectors wait to be stored")
            writer.execute("select beliefdb.forget('source', 'policy-b')")
            writer.commit()
            racer.join(timeout=60)
        assert not racer.is_alive()
        assert outcome["embedded"] == 1, outcome
        stored = mine.database.scalar("select array_agg(belief_id) from beliefdb.belief_embedding"
                                      " where belief_id = any(%s)", ([kept, gone],))
        assert stored == [kept]
