"""Where ``ask``'s time goes (issue 21), on a database the retrieval benchmark loaded (``run.py --db
URL``): per question, with its precomputed vector, the median of ``--runs`` timed calls of

* ``ask`` as a whole (``beliefdb.store.retrieve.ask``, k = 5, the question's scope) and what it sends,
  timed at the client: each statement alone around its ``execute``, each round trip of pipelined
  reads (recall; the answers' rows, evidence and warnings with the word matches; history and the
  fragment fallback) as one, named by its statements;
* inside ``beliefdb.recall``: recall as ask calls it, recall without a vector (its full-text and
  name searches, fusion and the answers' confidence: everything but the vector search), the
  vector search alone (``beliefdb._vector_candidates``), and ``--probes`` other widths of it;
* the plain pgvector top-k of run.py (same index, pgvector's defaults), the ratio's denominator.

    python bench/retrieval/profile_ask.py --db URL [--questions N] [--runs R] [--vectors FILE]
                                          [--ask-only [--no-vector]]

Prints one JSON object (medians over the questions of the per-question medians, in ms). The
question vectors are embedded once with the real model and kept in ``--vectors`` (.npy) for reuse.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector import Vector

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: _common
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from _common import arguments, log, print_json
from run import BASELINE_HALFVEC_QUERY, BASELINE_QUERY, EXTENSION_PATH, K, Precomputed

import beliefdb
from beliefdb.db.queries import Q
from beliefdb.embedders import get_embedder
from beliefdb.errors import EmbedderUnavailable
from beliefdb.store import retrieve

RECALL = ("select * from beliefdb.recall(%(t)s, %(v)s, %(model)s, %(k)s, null, %(scope)s::jsonb, 0, false, "
          "%(min)s)")
VECTOR = ("select count(*) from beliefdb._vector_candidates(%(q)s::vector, %(ws)s, %(model)s, 0, null, "
          "%(scope)s::jsonb, false, 40, %(min)s, null, %(probes)s)")

_by_sql = {sql: name for name, sql in Q.items()}
_spent: dict[str, float] = defaultdict(float)
_execute = psycopg.Cursor.execute


_reading = False
_reads = retrieve._reads


def _timed_reads(conn: psycopg.Connection[Any], *reads: retrieve.Read) -> list[list[Any]]:
    """ask's pipelined reads timed as one (their statements are sent together, and each ``execute``
    inside the pipeline returns before the server has run it: timing those alone put the reads'
    time in "python and round trips")."""
    global _reading
    t0 = time.perf_counter()
    _reading = True
    try:
        return _reads(conn, *reads)
    finally:
        _reading = False
        names = "+".join(_by_sql.get(query, query[:40]) for _, query, _ in reads)
        _spent[f"reads {names}"] += (time.perf_counter() - t0) * 1000


def _timed_execute(self: psycopg.Cursor[Any], query: Any, params: Any = None, **kw: Any) -> Any:
    if _reading:
        return _execute(self, query, params, **kw)
    t0 = time.perf_counter()
    try:
        return _execute(self, query, params, **kw)
    finally:
        text = query if isinstance(query, str) else repr(query)
        _spent[_by_sql.get(text, text[:40])] += (time.perf_counter() - t0) * 1000


def median_of(runs: list[float]) -> float:
    return statistics.median(runs)


class TextOnly(Precomputed):
    """An embedder that is down: ask answers from its full-text and name searches alone (everything
    ask does but the vector search, for an A/B of what is around it)."""

    def query(self, text: str) -> list[float]:
        raise EmbedderUnavailable("profile_ask --no-vector")


def profile(url: str, n_questions: int | None, runs: int, vectors_file: str | None,
            widths: list[int], ask_only: bool = False, no_vector: bool = False) -> dict[str, Any]:
    embedder = get_embedder()
    model = embedder.model
    qs = list(corpus.iter_questions(n_questions))
    path = Path(vectors_file) if vectors_file else None
    if path and path.exists() and len(np.load(path)) == len(qs):
        vecs = np.load(path)
    else:
        vecs = np.asarray([embedder.query(q.text) for q in qs], np.float32)
        if path:
            np.save(path, vecs)
    fixed = (TextOnly if no_vector else Precomputed)(model, vecs.shape[1], embedder.min_similarity)
    out: dict[str, list[float]] = defaultdict(list)
    psycopg.Cursor.execute = _timed_execute  # type: ignore[method-assign]
    retrieve._reads = _timed_reads
    with beliefdb.connect(url) as api, psycopg.connect(url, autocommit=True) as owner:
        db = api.database
        halfvec = owner.execute("select beliefdb._halfvec_lists(384) is not null").fetchone() == (True,)
        baseline = BASELINE_HALFVEC_QUERY if halfvec else BASELINE_QUERY
        for q, v in zip(qs, vecs, strict=True):
            fixed.vector = v.tolist()
            scope = json.dumps(dict(q.scope or {}))
            p = {"t": q.text, "v": Vector(v), "model": model, "k": K, "scope": scope, "min": embedder.min_similarity,
                 "ws": db.workspace_id, "q": json.dumps(v.tolist())}
            per: dict[str, list[float]] = defaultdict(list)
            for i in range(runs + 1):
                _spent.clear()
                t0 = time.perf_counter()
                retrieve.ask(db, q.text, k=K, scope=dict(q.scope or {}), embedder=fixed)
                total = (time.perf_counter() - t0) * 1000
                if i:
                    per["ask"].append(total)
                    for name, ms in _spent.items():
                        per[f"ask:{name}"].append(ms)
                    per["ask:python and round trips"].append(total - sum(_spent.values()))
                if ask_only:
                    continue
                for label, text, vec in (("recall", RECALL, p["v"]), ("recall without vector", RECALL, None)):
                    with db.transaction() as c:
                        t0 = time.perf_counter()
                        c.execute(text, {**p, "v": vec}).fetchall()
                        if i:
                            per[label].append((time.perf_counter() - t0) * 1000)
                # the baseline first, in a transaction of its own: _vector_candidates sets ivfflat.probes
                # for the rest of its transaction
                with owner.transaction():
                    owner.execute(EXTENSION_PATH)
                    t0 = time.perf_counter()
                    owner.execute(baseline, {**p, "k": K}).fetchall()
                    if i:
                        per["plain pgvector top-k"].append((time.perf_counter() - t0) * 1000)
                with owner.transaction():
                    owner.execute(EXTENSION_PATH)
                    for probes in [None, *widths]:
                        t0 = time.perf_counter()
                        owner.execute(VECTOR, {**p, "probes": probes}).fetchall()
                        if i:
                            per[f"vector search, probes {probes or 'recall'}"].append((time.perf_counter() - t0) * 1000)
            for name, xs in per.items():
                out[name].append(median_of(xs))
    psycopg.Cursor.execute = _execute  # type: ignore[method-assign]
    retrieve._reads = _reads
    n = len(qs)
    # a statement ask sends only for some questions counts 0 for the others
    return {"questions": n, "runs": runs,
            "p50_ms": {name: round(statistics.median(xs + [0.0] * (n - len(xs))), 3)
                       for name, xs in sorted(out.items())},
            "mean_ms": {name: round(sum(xs) / n, 3) for name, xs in sorted(out.items())}}


def main() -> int:
    parser = arguments(__doc__, db_help="libpq URL of a database run.py --db loaded, as a superuser")
    parser.add_argument("--questions", type=int, help="a spread subset of the 100 questions")
    parser.add_argument("--runs", type=int, default=3, help="timed calls per question (after one warm-up)")
    parser.add_argument("--vectors", help=".npy file caching the question vectors")
    parser.add_argument("--ask-only", action="store_true", help="time ask alone (for an A/B of two checkouts)")
    parser.add_argument("--no-vector", action="store_true",
                        help="with --ask-only: the embedder is down, ask runs without its vector search")
    parser.add_argument("--probes", default="", help="other IVFFlat widths of the vector search, comma-separated")
    args = parser.parse_args()
    if not args.db:
        parser.error("--db is required")
    log("profiling ask")
    print_json(profile(args.db, args.questions, args.runs, args.vectors,
                       [int(x) for x in args.probes.split(",") if x], args.ask_only, args.no_vector), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
