"""A Ctrl-C that cuts off a commit (a bulk ingest's batch, an ingest's file): the transaction may have committed
on the server all the same, and what the interrupted run says it stored counts it then. It said "160 of 200
documents stored" of 170 (the interrupt arrived once the batch's commit was under way, before its reports were
counted)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.db.connector import Database


def _versions(db_url: str) -> int:
    with psycopg.connect(db_url) as conn:
        row = conn.execute("select count(*) from beliefdb.source_version").fetchone()
    assert row is not None
    return int(row[0])


def _cut_second_write(monkeypatch: pytest.MonkeyPatch, committed: bool) -> None:
    """Ctrl-C in the second transaction that writes: before its commit, or once it committed (its answer never
    read, as when the interrupt arrives while the server commits)."""
    writes: list[None] = []
    transaction = Database.transaction

    @contextmanager
    def cut(self: Database, conn: psycopg.Connection[Any] | None = None) -> Iterator[psycopg.Connection[Any]]:
        with transaction(self, conn) as c:
            yield c
            row = c.execute("select pg_current_xact_id_if_assigned() is not null").fetchone()
            if conn is None and row is not None and row[0]:
                writes.append(None)
            second = len(writes) == 2 and conn is None and row is not None and bool(row[0])
            if second and not committed:
                raise KeyboardInterrupt  # (the transaction rolls back)
        if second and committed:
            raise KeyboardInterrupt

    monkeypatch.setattr(Database, "transaction", cut)


def _bulk(db: beliefdb.BeliefDB, tmp_path: Path) -> None:
    db.bulk_ingest(*[(f"notes/{i}.md", f"The room {i} is on floor {i}.\n") for i in range(6)], batch=2, embed=False)


def _files(db: beliefdb.BeliefDB, tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"{i}.md").write_text(f"The room {i} is on floor {i}.\n", encoding="utf-8")
    db.ingest(*sorted(tmp_path.glob("*.md")), embed=False)


@pytest.mark.parametrize(("run", "said"), [
    (_bulk, "{} of 6 documents stored (run the same command again to store the rest)"),
    (_files, "{} of 3 files stored"),
], ids=["bulk", "files"])
@pytest.mark.parametrize("committed", [True, False], ids=["committed", "rolled-back"])
def test_the_transaction_whose_commit_a_ctrl_c_cut_off_is_counted_when_it_committed(
        bdb: beliefdb.BeliefDB, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, committed: bool,
        run: Callable[[beliefdb.BeliefDB, Path], None], said: str) -> None:
    _cut_second_write(monkeypatch, committed)
    with pytest.raises(KeyboardInterrupt) as info:
        run(bdb, tmp_path)
    stored = (4 if committed else 2) if run is _bulk else (2 if committed else 1)
    assert _versions(db_url) == stored
    assert info.value.__notes__[0].startswith(said.format(stored)), info.value.__notes__
