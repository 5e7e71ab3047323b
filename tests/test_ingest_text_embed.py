"""``db.ingest_text(..., embed=False)`` leaves the new beliefs for ``db.embed()``, as ``ingest``,
``ingest_conversation``, ``remember_turn`` and ``bulk_ingest`` do with ``embed=False`` (and its async
twin takes it too): it was a TypeError, unexpected keyword argument 'embed'."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg

import beliefdb


def vectors(postgresql: psycopg.Connection[Any]) -> int:
    row = postgresql.execute("select count(*) from beliefdb.belief_embedding").fetchone()
    postgresql.rollback()
    assert row is not None
    return int(row[0])


def test_ingest_text_can_leave_embedding_for_later(bdb: beliefdb.BeliefDB, db_url: str,
                                                   postgresql: psycopg.Connection[Any]) -> None:
    report = bdb.ingest_text("The return window is 7 days.\n", source="policy.md", embed=False)
    assert len(report.accepted) == 1 and vectors(postgresql) == 0

    async def later() -> None:
        async with await beliefdb.aconnect(db_url) as adb:
            await adb.ingest_text("The restocking fee is 10%.\n", source="fees.md", embed=False)

    asyncio.run(later())
    assert vectors(postgresql) == 0
    assert bdb.embed().embedded == 2 and vectors(postgresql) == 2
