"""A memory opened before a fork is refused in the child, in one line that says what to do.

A ``BeliefDB`` holds a connection pool whose connections and threads are the parent's: a child made by
``fork`` (``multiprocessing``'s default start method on Linux) that used it hung, waiting for a pool thread
that does not exist there, or would have spoken on the parent's own socket. It is now refused at once; the
parent's memory goes on working."""

from __future__ import annotations

import asyncio
import os
import select
from collections.abc import Callable

import beliefdb


def _in_a_child(use: Callable[[], object]) -> str:
    """What ``use()`` gives in a forked child: "ok", or the error's class and message."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: say what happened, leave without running the parent's exit handlers
        try:
            use()
            said = "ok"
        except Exception as exc:  # (the child reports whatever it got)
            said = f"{type(exc).__name__}: {exc}"
        os.write(write, said.encode())
        os._exit(0)
    os.close(write)
    ready, _, _ = select.select([read], [], [], 20)
    said = os.read(read, 4096).decode() if ready else "hung"
    os.close(read)
    if not ready:
        os.kill(pid, 9)
    os.waitpid(pid, 0)
    return said


def test_a_memory_opened_before_a_fork_is_refused_in_the_child(bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("The desk opens at 9.", "desk", "opens", "9", "The desk opens at 9.", source="desk.md",
                 text="The desk opens at 9.")
    said = _in_a_child(bdb.beliefs)
    assert said.startswith("InvalidInput: this memory was opened in another process"), said
    assert "beliefdb.connect" in said and "\n" not in said
    assert [b.value for b in bdb.beliefs()] == ["9"]  # the parent's memory is untouched


def test_an_async_client_opened_before_a_fork_is_refused_in_the_child(db_url: str) -> None:
    """The async client's calls run on its executor's threads, which a child of fork does not have: its call
    hung there, before the pool was asked."""

    async def opened() -> beliefdb.AsyncBeliefDB:
        adb = await beliefdb.aconnect(db_url)
        await adb.beliefs()
        return adb

    adb = asyncio.run(opened())
    try:
        said = _in_a_child(lambda: asyncio.run(adb.beliefs()))
        assert said.startswith("InvalidInput: this memory was opened in another process"), said
        assert asyncio.run(adb.beliefs()) == []  # the parent's client is untouched
    finally:
        asyncio.run(adb.close())
