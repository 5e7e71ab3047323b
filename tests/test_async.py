"""The async client (``beliefdb.aconnect``): every BeliefDB method has an async twin with the same
parameters and result, each passes its arguments on unchanged, a story runs through it against the
real database, and concurrent awaits really run at once in PostgreSQL, each on its own connection."""

from __future__ import annotations

import asyncio
import gc
import inspect
import time
from collections.abc import Callable
from typing import Any, cast

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import AsyncBeliefDB, BeliefDB, errors

POLICY = """# Return policy
Owner: Operations

Returns are accepted within 7 days of delivery.
The restocking fee is 10%.
The refund method is store credit.
"""

# public callables an async client has beyond BeliefDB's
ASYNC_ONLY = {"aclose", "call"}


def _methods(cls: type) -> dict[str, Callable[..., Any]]:
    """Public methods of the class, those it inherits (BeliefDB's pictures) included."""
    return {n: v for k in reversed(cls.__mro__[:-1]) for n, v in vars(k).items()
            if not n.startswith("_") and inspect.isfunction(v)}


# --- the twins ------------------------------------------------------------------------------------


def test_every_beliefdb_method_has_an_async_twin_with_its_signature() -> None:
    sync, twins = _methods(BeliefDB), _methods(AsyncBeliefDB)
    assert len(sync) > 40
    assert set(twins) - ASYNC_ONLY == set(sync), "a BeliefDB method without an async twin (or one too many)"
    for name, method in sync.items():
        twin = twins[name]
        assert inspect.iscoroutinefunction(twin), name
        # parameters (names, kinds, defaults, annotations) and the result's type, annotations resolved
        assert inspect.signature(twin, eval_str=True) == inspect.signature(method, eval_str=True), name
        if name not in ("close", "record_run"):  # (how to close and flush differ)
            assert twin.__doc__ == method.__doc__, name  # one description of each operation
        assert twin.__doc__, name
    assert isinstance(vars(AsyncBeliefDB)["workspace"], property)
    assert set(beliefdb.__all__) >= {"aconnect", "AsyncBeliefDB", "connect", "BeliefDB"}


class _Recording:
    """Stands in for a BeliefDB to see what each async method hands it (no database: forwarding only)."""

    class database:  # the attribute AsyncBeliefDB reads the pool size from
        max_size = 2

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Callable[..., str]:
        def record(*args: Any, **kwargs: Any) -> str:
            self.calls.append((name, args, kwargs))
            return f"result of {name}"
        return record


def test_each_twin_passes_every_argument_to_the_same_parameter() -> None:
    async def check() -> None:
        recording = _Recording()
        client = AsyncBeliefDB(cast(BeliefDB, recording))
        for name, method in _methods(BeliefDB).items():
            if name == "close":
                continue
            signature = inspect.signature(method)
            args: list[Any] = []
            kwargs: dict[str, Any] = {}
            expected: dict[str, Any] = {}
            for p in list(signature.parameters.values())[1:]:
                token = f"<{name}.{p.name}>"
                if p.kind is p.VAR_POSITIONAL:
                    expected[p.name] = (token + "1", token + "2")
                    args += expected[p.name]
                elif p.kind is p.KEYWORD_ONLY:
                    kwargs[p.name] = expected[p.name] = token
                else:
                    args.append(token)
                    expected[p.name] = token
            assert await getattr(client, name)(*args, **kwargs) == f"result of {name}"
            called, got_args, got_kwargs = recording.calls[-1]
            bound = signature.bind(None, *got_args, **got_kwargs)
            assert called == name and {k: v for k, v in bound.arguments.items() if k != "self"} == expected, name
        await client.aclose()
        assert recording.calls[-1][0] == "close"

    asyncio.run(check())


# --- a story through it, on the real database ---------------------------------------------------


def test_a_story_through_the_async_client(db_url: str) -> None:
    async def story() -> None:
        async with await beliefdb.aconnect(db_url) as db:
            assert db.workspace == "default"
            report = await db.ingest_text(POLICY, source="return-policy.md", authority="official")
            days = next(a for a in report.accepted if a.value == "7 days")
            answer = await db.ask("how many days for returns?")
            assert answer.status == "ok" and answer.beliefs[0].belief.id == days.id
            assert answer.beliefs[0].evidence[0].quote == days.quote

            decision = await db.decide("Refuse the return of order 1042", because=[days.id])
            await db.act(decision.id, "Email the customer a refusal")
            seen = await db.preview_correction(days.id)
            assert seen.would_flag == [decision.id]
            applied = await db.apply_correction(days.id, "Returns are accepted within 14 days.", value="14 days",
                                                reviewer="rita", expect_revision=seen.revision)
            assert applied.flagged == [decision.id]
            with pytest.raises(errors.NotCorrectable):  # errors arrive as they do from BeliefDB (superseded now)
                await db.apply_correction(days.id, "Returns are accepted within 30 days.", value="30 days",
                                          reviewer="rita", expect_revision=seen.revision - 1)

            old = await db.why(days.id)
            assert old.belief.status == "superseded" and old.replaced_by[0].new_value == "14 days"
            now = await db.ask("how many days for returns?")
            assert [a.belief.value for a in now.beliefs if a.belief.attribute == days.attribute] == ["14 days"]
            assert [d.status for d in await db.decisions()] == ["needs_review"]
            assert (await db.audit_verify()).ok
        with pytest.raises(errors.DatabaseUnavailable, match="closed"):
            await db.beliefs()
        await db.aclose()  # again: nothing to do

    asyncio.run(story())


def test_a_run_recorded_from_a_coroutine(db_url: str) -> None:
    async def story() -> None:
        async with await beliefdb.aconnect(db_url, max_size=2) as db:
            run = await db.record_run(task="refund 1042", agent="support-bot")
            asked = run.step("user_input", {"text": "Can I return it?"})
            run.step("plan", {"answer": "yes"}, inputs=[("initiates", asked)])
            await db.call(run.flush)
            trace = await db.run_trace(run.id)
            assert [s.kind for s in trace.steps] == ["user_input", "plan"]
            assert (await db.record_step("observation", {"ok": True}, run=run.id)).seq == 2

    asyncio.run(story())


def test_a_call_racing_another_loops_aclose_says_the_client_is_closed(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """(trial55) A client shared by threads' event loops, closed by one while another calls: the call passed
    the closed check, then the executor (shut down by then) refused it with a bare RuntimeError ("cannot
    schedule new futures after shutdown"), where every other late call is DatabaseUnavailable. Here the
    close lands between the two, where the call checks its process."""
    async def story() -> None:
        db = await beliefdb.aconnect(db_url, max_size=1)
        from beliefdb.api import async_memory

        def closed_meanwhile(pid: int) -> None:
            db._closed = True
            db._executor.shutdown(wait=True)
        monkeypatch.setattr(async_memory, "opened_here", closed_meanwhile)
        with pytest.raises(errors.DatabaseUnavailable, match="closed"):
            await db.call(lambda: None)
        monkeypatch.undo()
        await db.aclose()

    asyncio.run(story())


def test_aconnect_refuses_a_pool_of_nothing(db_url: str) -> None:
    with pytest.raises(errors.InvalidInput, match="max_size"):
        asyncio.run(beliefdb.aconnect(db_url, max_size=0))


# --- concurrency ----------------------------------------------------------------------------------


def _waiting_on(watcher: psycopg.Connection[Any], locker: int) -> set[int]:
    """Backends of this database waiting for a lock ``locker`` holds."""
    rows = watcher.execute("select pid from pg_stat_activity where datname = current_database() "
                           "and %s = any(pg_catalog.pg_blocking_pids(pid))", (locker,)).fetchall()
    return {int(r[0]) for r in rows}


async def _blocked_remember(db: beliefdb.AsyncBeliefDB, watcher: psycopg.Connection[Any],
                            locker: psycopg.Connection[Any]) -> asyncio.Future[Any]:
    """A remember started on ``db``, once it waits in the server for the lock ``locker`` holds on beliefs."""
    running = asyncio.ensure_future(db.remember("Maya prefers email.", "maya", "channel", "email", "email me",
                                                source="chat-1/1", text="Please email me."))
    deadline = time.monotonic() + 120
    while not _waiting_on(watcher, locker.info.backend_pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return running


def test_concurrent_awaits_run_at_once_each_on_its_own_connection(db_url: str,
                                                                   postgresql: psycopg.Connection[Any]) -> None:
    """N awaits on a client of max_size N while the test holds an exclusive lock on beliefdb.belief: all
    N are inside PostgreSQL at the same time, each on its own backend, blocked by the test's lock
    (so they overlap, whatever the machine's load: no timing involved), and the event loop keeps
    running meanwhile (it polls). Released, each gets its answer."""
    n = 4
    # a stuck call fails after a while instead of hanging the suite
    url = make_conninfo(db_url, options="-c lock_timeout=120s")

    async def race() -> None:
        async with await beliefdb.aconnect(url, max_size=n) as db:
            report = await db.ingest_text(POLICY, source="return-policy.md", authority="official")
            fee = next(a for a in report.accepted if a.value == "10%")
            alone = [await db.beliefs(), await db.beliefs(subject=fee.subject), await db.why(fee.id),
                     await db.ask("what is the restocking fee?")]
            with psycopg.connect(db_url, autocommit=True) as watcher:
                postgresql.execute("lock table beliefdb.belief in access exclusive mode")
                try:
                    calls = [asyncio.ensure_future(c) for c in (
                        db.beliefs(), db.beliefs(subject=fee.subject), db.why(fee.id),
                        db.ask("what is the restocking fee?"))]
                    locker = postgresql.info.backend_pid
                    deadline = time.monotonic() + 120
                    while len(waiting := _waiting_on(watcher, locker)) < n and time.monotonic() < deadline:
                        assert not any(c.done() for c in calls), [c.exception() for c in calls if c.done()]
                        await asyncio.sleep(0.05)
                    assert len(waiting) == n, f"only {len(waiting)} of {n} calls were in the server at once"
                finally:
                    postgresql.rollback()  # releases the lock
            together = await asyncio.gather(*calls)
            assert together[:3] == alone[:3]
            assert [a.belief.id for a in together[3].beliefs] == [a.belief.id for a in alone[3].beliefs]

    asyncio.run(race())


# --- cancellation ---------------------------------------------------------------------------------


def _sessions(watcher: psycopg.Connection[Any], name: str) -> int:
    row = watcher.execute("select count(*) from pg_stat_activity where application_name = %s", (name,)).fetchone()
    return int(row[0]) if row else 0


def test_an_aconnect_given_up_on_closes_what_it_opened(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """aconnect opens its pool on a worker thread; a caller that stops waiting (a timeout, a cancelled
    task) never got the client to close, and its pool stayed open, a session held in the server (and
    the pool's threads running), until the garbage collector happened to find it. The test holds the
    workspace table locked so that aconnect is still opening when it is cancelled."""
    name = "beliefdb-aconnect-given-up"
    url = make_conninfo(db_url, application_name=name, options="-c lock_timeout=120s")

    async def give_up() -> None:
        opening = asyncio.ensure_future(beliefdb.aconnect(url, max_size=2))
        with psycopg.connect(db_url, autocommit=True) as watcher:
            postgresql.execute("lock table beliefdb.workspace in access exclusive mode")
            try:
                deadline = time.monotonic() + 120
                while not _waiting_on(watcher, postgresql.info.backend_pid) and time.monotonic() < deadline:
                    assert not opening.done()
                    await asyncio.sleep(0.05)
                opening.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await opening
            finally:
                postgresql.rollback()  # releases the lock: the opening goes on, on its thread
            deadline = time.monotonic() + 60
            while _sessions(watcher, name) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert _sessions(watcher, name) == 0, "the cancelled aconnect left its pool open"

    gc.disable()  # (what the collector might close is not what the test asks about)
    try:
        asyncio.run(give_up())
    finally:
        gc.enable()


def test_a_cancelled_await_finishes_a_running_call_and_never_starts_a_waiting_one(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """What the README says of a cancelled await (a timeout too): a call already running in the server
    commits all the same; a call still waiting for a free worker is not run at all."""
    url = make_conninfo(db_url, options="-c lock_timeout=120s")

    async def cancel() -> None:
        async with await beliefdb.aconnect(url, max_size=1) as db:
            with psycopg.connect(db_url, autocommit=True) as watcher:
                postgresql.execute("lock table beliefdb.belief in access exclusive mode")
                try:
                    running = await _blocked_remember(db, watcher, postgresql)
                    waiting = asyncio.ensure_future(db.remember(  # the one worker is busy: it waits
                        "Maya lives in Porto.", "maya", "lives_in", "Porto", "Porto", source="chat-1/2",
                        text="I live in Porto."))
                    await asyncio.sleep(0.1)
                    with pytest.raises(TimeoutError):
                        await asyncio.wait_for(asyncio.gather(running, waiting), timeout=0.1)
                    assert running.cancelled() and waiting.cancelled()
                finally:
                    postgresql.rollback()
            deadline = time.monotonic() + 60
            while not await db.beliefs(subject="maya") and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            # (one worker, first come first served: the waiting call, had it stayed queued, ran before this read)
            assert [b.value for b in await db.beliefs(subject="maya")] == ["email"]

    asyncio.run(cancel())


@pytest.mark.parametrize("own_stop", [False, True])
def test_a_cancelled_await_of_work_stops_the_worker(db_url: str, monkeypatch: pytest.MonkeyPatch,
                                                    own_stop: bool) -> None:
    """``await db.work()`` runs until its stop is set; cancelled, the worker went on on its thread for
    good, unawaited: aclose waited for it forever, and so did the interpreter at exit. Cancelling it now
    sets its stop (the caller's, when given): the job under way is finished and the worker returns."""
    import threading

    stops: list[threading.Event] = []

    async def story() -> None:
        db = await beliefdb.aconnect(db_url, max_size=3)
        work = db.sync.work

        def seen(**kwargs: Any) -> Any:  # the very BeliefDB.work, noting the stop it runs until (to clean up)
            if kwargs["stop"] is None:  # (as it was: none at all; one the test can set)
                kwargs["stop"] = threading.Event()
            stops.append(kwargs["stop"])
            return work(**kwargs)

        monkeypatch.setattr(db.sync, "work", seen)
        given = threading.Event() if own_stop else None
        (job,) = await db.submit(text=POLICY, source="return-policy.md")
        worker = asyncio.ensure_future(db.work(embed=False, stop=given))
        deadline = time.monotonic() + 60
        while (await db.jobs())[0].status != "done" and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert [(j.id, j.status) for j in await db.jobs()] == [(job, "done")]
        worker.cancel()
        with pytest.raises(asyncio.CancelledError):
            await worker
        try:
            await asyncio.wait_for(db.aclose(), timeout=30)
        finally:
            for stop in stops:  # (a worker left running would hold the suite at exit)
                stop.set()
        assert given is None or given.is_set()

    asyncio.run(story())


def test_leaving_the_async_with_block_stops_a_worker_still_running(db_url: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker started as a task inside ``async with await aconnect() as db`` and still running when the
    block ends: aclose waited for it, and it runs until its stop is set, so leaving the block hung for
    good. aclose now asks each worker in flight to stop (its job under way is finished), then waits."""
    import threading

    stops: list[threading.Event] = []

    async def story() -> None:
        db = await beliefdb.aconnect(db_url, max_size=3)
        work = db.sync.work

        def seen(**kwargs: Any) -> Any:  # the very BeliefDB.work, noting its stop (to clean up)
            stops.append(kwargs["stop"] if kwargs["stop"] is not None else threading.Event())
            return work(**{**kwargs, "stop": stops[-1]})

        monkeypatch.setattr(db.sync, "work", seen)
        started: list[asyncio.Future[Any]] = []

        async def block() -> None:
            async with db:
                await db.submit(text=POLICY, source="return-policy.md")
                started.append(asyncio.ensure_future(db.work(embed=False)))
                deadline = time.monotonic() + 60
                while (await db.jobs())[0].status != "done" and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
            # the block is left with the worker still running

        leaving = asyncio.ensure_future(block())
        try:
            await asyncio.wait_for(asyncio.shield(leaving), timeout=30)
        finally:
            for stop in stops:  # (a worker left running would hold the suite at exit)
                stop.set()
            await leaving
        report = await started[0]
        assert (report.done, report.failed) == (1, 0)

    asyncio.run(story())


def test_a_second_aclose_waits_for_the_calls_in_flight_as_the_first_does(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """aclose is idempotent and waits for the calls in flight; but a second aclose while the first was still
    waiting (a service's shutdown hook and an ``async with`` exit, both closing) returned at once, the call
    still running and the pool open. Every aclose now returns once the client is closed."""
    url = make_conninfo(db_url, options="-c lock_timeout=120s")

    async def close_twice() -> None:
        db = await beliefdb.aconnect(url, max_size=1)
        with psycopg.connect(db_url, autocommit=True) as watcher:
            postgresql.execute("lock table beliefdb.belief in access exclusive mode")
            try:
                running = await _blocked_remember(db, watcher, postgresql)
                first = asyncio.ensure_future(db.aclose())
                await asyncio.sleep(0.1)
                second = asyncio.ensure_future(db.aclose())
                await asyncio.sleep(0.5)
                assert not running.done() and not first.done()
                assert not second.done(), "a second aclose returned with a call still in flight"
            finally:
                postgresql.rollback()
            await asyncio.wait_for(asyncio.gather(first, second), timeout=120)
            assert running.done() and db.sync.database._pool.closed
            assert running.result().accepted

    asyncio.run(close_twice())
