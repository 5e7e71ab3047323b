"""A memory whose every pooled connection stays in use by other calls: the call that waited for one was
``database_unavailable`` saying "couldn't get a connection after 28.00 sec" (psycopg_pool's words, and not the
30 s it waited), as if the database were down. It says the database is up and every connection was in use, and
what to do. A real server; the pool's wait shortened for the test."""

from __future__ import annotations

import threading

import pytest

import beliefdb
from beliefdb import errors
from beliefdb.db import pooling


def test_a_call_that_gets_no_connection_says_every_one_was_in_use(db_url: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pooling, "POOL_WAIT", pooling.PROBE_AFTER + 1.0)
    held, release = threading.Event(), threading.Event()
    with beliefdb.connect(db_url, max_size=1) as db:
        def hold() -> None:
            with db.database.transaction():
                held.set()
                release.wait(30)

        holder = threading.Thread(target=hold)
        holder.start()
        try:
            assert held.wait(30)
            with pytest.raises(errors.DatabaseUnavailable) as caught:
                db.beliefs(limit=1)
        finally:
            release.set()
            holder.join(30)
        said = caught.value.message
        assert said.startswith("the database is up, but all 1 connection of this memory stayed in use by other"
                               " calls for 3 s (max_size 1)"), said
        assert db.beliefs(limit=1) is not None  # free again, the memory works
