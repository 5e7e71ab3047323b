"""What a write embeds, it embeds once the write has committed (an ingest, a correction, an approved
proposal): the model, and its first load in each command's process, must not hold the workspace's write
lock and keep every other writer of the workspace waiting. Inside a caller's own transaction
(``conn=``), which holds the lock until it commits anyway, the vectors are stored in it."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from test_retrieval import FakeEmbeddings

import beliefdb
from beliefdb.store import corrections

TEXT = "Returns are accepted within 7 days of delivery.\n"
SEVEN = "Returns are accepted within 15 days of delivery."


class LockWatch:
    """While the embeddings endpoint is asked for vectors: whether another session could take the
    workspace's write lock at once, and whether the texts' beliefs are committed (seen from it)."""

    def __init__(self, db_url: str) -> None:
        self.db_url = db_url
        self.seen: list[tuple[str, bool, bool]] = []

    def __call__(self, texts: list[str]) -> None:
        with psycopg.connect(self.db_url) as conn:
            try:
                conn.execute("select from beliefdb.audit_head h join beliefdb.workspace w on w.id = h.workspace_id"
                             " where w.name = 'default' for update nowait")
                free = True
            except psycopg.errors.LockNotAvailable:
                free = False
            conn.rollback()
            for text in texts:
                committed = conn.execute("select exists (select from beliefdb.belief b"
                                         " where %s like '%%' || b.statement || '%%')", (text,)).fetchone()
                self.seen.append((text, free, bool(committed and committed[0])))


@pytest.fixture
def watched(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    watch = LockWatch(db_url)
    fake = FakeEmbeddings(on_request=watch)
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", fake.url)
    monkeypatch.setenv("BELIEFDB_EMBED_MODEL", "tiny-16")
    yield watch
    fake.close()


def test_a_corrections_replacement_is_embedded_after_it_commits(db_url: str, watched: LockWatch) -> None:
    with beliefdb.connect(db_url, principal="ops") as db:
        (seven,) = db.ingest_text(TEXT, source="policy.md").accepted
        revision = db.preview_correction(seven.id, SEVEN, "15 days").revision
        watched.seen.clear()
        done = db.apply_correction(seven.id, SEVEN, value="15 days", expect_revision=revision, reviewer="ops",
                                   reason="the policy changed")
        assert [(free, committed) for text, free, committed in watched.seen if SEVEN in text] == [(True, True)]
        assert db.ask("how many days for returns?", k=1).beliefs[0].belief.id == done.replacement


def test_an_approved_proposals_replacement_is_embedded_after_the_verdict_commits(db_url: str,
                                                                               watched: LockWatch) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        (seven,) = alice.ingest_text(TEXT, source="policy.md").accepted
        revision = bob.preview_correction(seven.id, SEVEN, "15 days").revision
        proposed = bob.apply_correction(seven.id, SEVEN, value="15 days", expect_revision=revision, reviewer="bob",
                                        reason="the policy changed")
        assert proposed.proposed and proposed.review_item is not None
        watched.seen.clear()
        alice.resolve_review(proposed.review_item, "approved")
        assert [(free, committed) for text, free, committed in watched.seen if SEVEN in text] == [(True, True)]


def test_in_a_callers_transaction_the_vectors_are_stored_in_it(db_url: str, watched: LockWatch) -> None:
    with beliefdb.connect(db_url, principal="ops") as db:
        (seven,) = db.ingest_text(TEXT, source="policy.md").accepted
        revision = db.preview_correction(seven.id, SEVEN, "15 days").revision
        watched.seen.clear()
        with db.database.transaction() as conn:
            corrections.apply(db.database, seven.id, SEVEN, value="15 days", expect_revision=revision,
                              reviewer="ops", reason="the policy changed", conn=conn)
        assert [(free, committed) for text, free, committed in watched.seen if SEVEN in text] == [(False, False)]
