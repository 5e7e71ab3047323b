"""A Ctrl-C that cuts off a bulk ingest's commit: the batch may have committed on the server all the same,
and what the interrupted run says it stored counts it then. It said "160 of 200 documents stored" of 170
(the interrupt arrived once the batch's commit was under way, before its reports were counted)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.db.connector import Database
from beliefdb.store import bulk


def _versions(db_url: str) -> int:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("select count(*) from beliefdb.source_version").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("committed", [True, False])
def test_the_batch_whose_commit_a_ctrl_c_cut_off_is_counted_when_it_committed(
        bdb: beliefdb.BeliefDB, db_url: str, monkeypatch: pytest.MonkeyPatch, committed: bool) -> None:
    staged = {"batches": 0}
    stage, transaction = bulk._stage, Database.transaction

    def counting_stage(*args: Any, **kwargs: Any) -> None:
        staged["batches"] += 1
        stage(*args, **kwargs)

    @contextmanager
    def cut(self: Database, conn: psycopg.Connection[Any] | None = None) -> Iterator[psycopg.Connection[Any]]:
        before = staged["batches"]
        with transaction(self, conn) as c:
            yield c
            second = before == 1 and staged["batches"] == 2  # (the transaction that wrote the second batch)
            if second and not committed:
                raise KeyboardInterrupt  # (before the commit: the batch rolls back)
        if second and committed:
            raise KeyboardInterrupt  # (the commit done, its answer never read)

    monkeypatch.setattr(bulk, "_stage", counting_stage)
    monkeypatch.setattr(Database, "transaction", cut)
    docs = [(f"notes/{i}.md", f"The room {i} is on floor {i}.\n") for i in range(6)]
    with pytest.raises(KeyboardInterrupt) as info:
        bdb.bulk_ingest(*docs, batch=2, embed=False)
    stored = 4 if committed else 2
    assert _versions(db_url) == stored
    assert info.value.__notes__ == [f"{stored} of 6 documents stored (run the same command again to store the rest)"]
