"""Callbacks the work calls as it goes (``progress``, ``on_outcome``, the demo's ``say``, the vector
indexes' ``starting``) are plain functions: beliefdb calls them on the thread doing the work (the async
client's too), where an ``async def`` one's coroutine would never be awaited (Python's "coroutine ...
was never awaited", at run time, after the writes). Each entry point refuses one up front, as the repair
executor does, with InvalidInput naming the parameter, and writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb import api, errors

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
CHAT = "Maya: I always want an aisle seat.\nAgent: Noted.\n"


async def told(*_: Any) -> None:
    """A callback written as a coroutine function."""


class Told:
    """A callable object whose ``__call__`` is a coroutine function."""

    async def __call__(self, *_: Any) -> None:
        return None


def _written(postgresql: psycopg.Connection[Any]) -> tuple[Any, ...]:
    """What the database holds that any of these entry points would write: audit events, workspaces,
    source versions, vectors, the jobs' states and beliefdb's indexes."""
    row = postgresql.execute(
        "select (select count(*) from beliefdb.audit_event), (select count(*) from beliefdb.workspace),"
        " (select count(*) from beliefdb.source_version), (select count(*) from beliefdb.belief_embedding),"
        " (select coalesce(string_agg(j.status::text, ',' order by j.id), '') from beliefdb.job j),"
        " (select count(*) from pg_catalog.pg_indexes i where i.schemaname = 'beliefdb')").fetchone()
    postgresql.rollback()
    assert row is not None
    return tuple(row)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    policy, chat = tmp_path / "policy.md", tmp_path / "chat.txt"
    policy.write_text(POLICY, encoding="utf-8")
    chat.write_text(CHAT, encoding="utf-8")
    return policy, chat


def _entry_points(db: beliefdb.BeliefDB, db_url: str, policy: Path,
                  chat: Path) -> dict[str, tuple[str, Callable[[Any], Any]]]:
    """Each public entry point that takes a callback, as (the parameter, a call giving it ``fn``)."""
    return {
        "ingest": ("progress", lambda fn: db.ingest(policy, progress=fn)),
        "ingest_transcripts": ("progress", lambda fn: db.ingest_transcripts(chat, progress=fn)),
        "bulk_ingest": ("progress", lambda fn: db.bulk_ingest(policy, ("inline.md", POLICY), progress=fn)),
        "embed": ("progress", lambda fn: db.embed(progress=fn)),
        "reembed": ("progress", lambda fn: db.reembed(progress=fn)),
        "work": ("on_outcome", lambda fn: db.work(once=True, embed=False, on_outcome=fn)),
        "demo": ("say", lambda fn: api.demo(say=fn, url=db_url, keep=True)),
        "ensure_vector_indexes": ("starting", lambda fn: api.ensure_vector_indexes(url=db_url, starting=fn)),
    }


def test_each_entry_point_refuses_an_async_callback_before_writing(bdb: beliefdb.BeliefDB, db_url: str,
                                                                    postgresql: psycopg.Connection[Any],
                                                                    files: tuple[Path, Path]) -> None:
    policy, chat = files
    bdb.ingest_text(POLICY.replace("7 days", "9 days"), source="old.md", embed=False)  # (for embed to find)
    bdb.submit(text=POLICY, source="queued.md")  # (for work to find)
    before = _written(postgresql)
    assert before[4] == "queued"
    for name, (parameter, call) in _entry_points(bdb, db_url, policy, chat).items():
        for fn in (told, Told()):
            with pytest.raises(errors.InvalidInput) as refused:
                call(fn)
            said = str(refused.value)
            assert said.startswith(f"{parameter}= is an async function"), (name, said)
            assert "plain function" in said and "\n" not in said, (name, said)
            assert _written(postgresql) == before, name


def test_the_async_client_refuses_them_too(db_url: str, postgresql: psycopg.Connection[Any],
                                           files: tuple[Path, Path]) -> None:
    policy, _ = files

    async def run() -> None:
        async with await beliefdb.aconnect(db_url, max_size=2) as adb:
            await adb.submit(text=POLICY, source="queued.md")
            before = _written(postgresql)
            with pytest.raises(errors.InvalidInput, match=r"^progress= is an async function"):
                await adb.ingest(policy, progress=told)
            with pytest.raises(errors.InvalidInput, match=r"^on_outcome= is an async function"):
                await adb.work(once=True, on_outcome=told)
            assert _written(postgresql) == before

    asyncio.run(run())


def test_a_plain_callback_is_still_called(bdb: beliefdb.BeliefDB, files: tuple[Path, Path]) -> None:
    policy, _ = files
    seen: list[Path] = []
    (report,) = bdb.ingest(policy, progress=seen.append, embed=False)
    assert seen == [policy] and report.accepted
    with pytest.raises(errors.InvalidInput, match=r"^progress= takes a function, not str"):
        bdb.embed(progress="print")  # type: ignore[arg-type]
