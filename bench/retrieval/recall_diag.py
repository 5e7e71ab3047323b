"""Why recall@10 of ask's vector path is what it is (issue 21): per question, on a database the
retrieval benchmark loaded (``run.py --db URL``), exact top-10 (numpy, over every vector of the
workspace) with and without the truth filter against the vector index at several ``ef_search``
(with an IVFFlat index: ``probes`` = ef / 5, as run.py's ``recall_at_10_by_ef``).

    python bench/retrieval/recall_diag.py --db URL [--ef 40,100,400]

Prints one JSON object: ``f<ef>`` recall@10 of recall's vector query (truth filter, iterative scan)
against exact truth-filtered search; ``u<ef>`` the index alone (no filter, no iterative scan)
against exact unfiltered search; ``tol<eps>`` at the largest ef, the share of the index's 10 within
``eps`` (cosine distance) of the exact 10th; the distances and the gap between ranks 10 and 11;
which exact neighbours are missed (corpus beliefs, which have evidence, or filler) and by kind.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: _common
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from _common import arguments, log, print_json
from run import EXTENSION_PATH, VECTOR_QUERY

from beliefdb.embedders import get_embedder

UNFILTERED = """
    select e.belief_id from beliefdb.belief_embedding e
     where e.workspace_id = %(ws)s and e.model = %(model)s and vector_dims(e.embedding) = 384
     order by e.embedding::vector(384) <=> %(q)s::vector(384) limit 10"""
# the same over an IVFFlat index on halfvec (the cast is the index's)
UNFILTERED_HALFVEC = UNFILTERED.replace("::vector(384) <=> %(q)s::vector(384)",
                                        "::halfvec(384) <=> %(q)s::halfvec(384)")

RECALLABLE = """
    select b.id from beliefdb.belief b
     where b.workspace_id = %(ws)s and b.confidence >= 0 and beliefdb.recallable(b, null, %(scope)s::jsonb, false)"""


def diagnose(url: str, efs: list[int]) -> dict[str, Any]:
    embedder = get_embedder()
    model = embedder.model
    qs = corpus.questions()
    vecs = [np.asarray(embedder.query(q.text), np.float32) for q in qs]
    conn = psycopg.connect(url, autocommit=True)
    ws = conn.execute("select workspace_id from beliefdb.belief group by 1 order by count(*) desc limit 1").fetchone()
    assert ws is not None, "no beliefs: load the database with run.py --db URL first"
    corpus_ids = {r[0] for r in conn.execute("select distinct belief_id from beliefdb.evidence")}
    halfvec = conn.execute("select beliefdb._halfvec_lists(384) is not null").fetchone() == (True,)
    rows = conn.execute("select belief_id, embedding::text from beliefdb.belief_embedding "
                        "where workspace_id = %s and model = %s", (ws[0], model)).fetchall()
    ids = [r[0] for r in rows]
    position = {i: n for n, i in enumerate(ids)}
    emb = np.array([json.loads(r[1]) for r in rows], np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    log(f"{len(ids):,} vectors, {len(corpus_ids)} corpus beliefs, {len(qs)} questions")
    res: dict[str, list[float]] = {}
    missed = {"corpus": 0, "filler": 0}
    slots = {"corpus": 0, "filler": 0}
    by_kind: dict[str, list[float]] = {}
    for q, v in zip(qs, vecs, strict=True):
        scope = json.dumps(dict(q.scope or {}))
        p = {"ws": ws[0], "model": model, "q": json.dumps(v.tolist()), "scope": scope, "k": 10}
        ok = {r[0] for r in conn.execute(RECALLABLE, p)}
        d = 1 - emb @ (v / np.linalg.norm(v))
        order = np.argsort(d)
        exact_u = {ids[i] for i in order[:10]}
        fo = [i for i in order if ids[i] in ok][:11]
        exact_f = {ids[i] for i in fo[:10]}
        res.setdefault("gap_10_11", []).append(float(d[fo[10]] - d[fo[9]]))
        res.setdefault("d1", []).append(float(d[fo[0]]))
        res.setdefault("d10", []).append(float(d[fo[9]]))
        for i in exact_f:
            slots["corpus" if i in corpus_ids else "filler"] += 1
        for ef in efs:
            with conn.transaction():
                conn.execute(EXTENSION_PATH)
                got = [r[0] for r in conn.execute(VECTOR_QUERY, {**p, "ef_search": ef, "probes": ef // 5})]
                res.setdefault(f"f{ef}", []).append(len(set(got) & exact_f) / 10)
                conn.execute("select set_config('hnsw.iterative_scan', 'off', true), "
                             "set_config('ivfflat.iterative_scan', 'off', true), "
                             "set_config('enable_sort', 'off', true), "
                             "set_config('hnsw.ef_search', %s, true), set_config('ivfflat.probes', %s, true)",
                             (str(ef), str(ef // 5)))
                unfiltered = UNFILTERED_HALFVEC if halfvec else UNFILTERED
                res.setdefault(f"u{ef}", []).append(len({r[0] for r in conn.execute(unfiltered, p)} & exact_u) / 10)
            if ef == efs[-1]:
                for eps in (0.001, 0.01):
                    within = sum(d[position[g]] <= d[fo[9]] + eps for g in got)
                    res.setdefault(f"tol{eps}", []).append(within / 10)
                for m in exact_f - set(got):
                    missed["corpus" if m in corpus_ids else "filler"] += 1
                by_kind.setdefault(q.kind, []).append(len(set(got) & exact_f) / 10)
    out: dict[str, Any] = {k: round(statistics.fmean(x), 4) for k, x in res.items() if k != "gap_10_11"}
    gaps = res["gap_10_11"]
    out.update(gap_10_11_median=statistics.median(gaps), gap_10_11_p10=float(np.percentile(gaps, 10)),
               ties_at_10=sum(g < 1e-6 for g in gaps), exact_top10_slots=slots, missed_at_max_ef=missed,
               recall_by_kind_at_max_ef={k: round(statistics.fmean(x), 3) for k, x in by_kind.items()})
    return out


def main() -> int:
    parser = arguments(__doc__, db_help="libpq URL of a database run.py --db loaded")
    parser.add_argument("--ef", default="40,100,400", help="ef_search values, comma-separated")
    args = parser.parse_args()
    if not args.db:
        parser.error("--db is required")
    print_json(diagnose(args.db, [int(x) for x in args.ef.split(",")]), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
