"""What an index could gain on a store the retrieval benchmark loaded (``run.py --db URL``), simulated
in numpy over every vector of the workspace (issue 21): recall@10 against the exact top-10 of the
truth-filtered set (no scope) of the labelled questions,

* reading a share of the store by lists of a k-means partition (``--lists L:SAMPLE:ITERATIONS``,
  our own k-means on a sample, lists read nearest centroid first), as an IVF index would;
* taking the best R by cosine over a lower-dimensional first pass (``--dims``: the top principal
  components of a sample, or the first stored dimensions) and re-ranking them by the full vector.

    python bench/retrieval/vector_sim.py --db URL [--lists 2000:100000:6,8000:160000:4] [--dims 64,128]

Prints one JSON object. Reads the vectors with binary COPY (1.5 GB at 1M; numpy needs ~3 times that).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: _common
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from _common import arguments, log, print_json
from run import EXTENSION_PATH

from beliefdb.embedders import get_embedder

SHARES = (0.005, 0.01, 0.015, 0.02, 0.04, 0.08)
RERANK = (160, 400, 1000)


def load(url: str, dim: int = 384) -> tuple[np.ndarray, np.ndarray]:
    """(unit vectors, recallable flags) of the workspace with the most beliefs."""
    conn = psycopg.connect(url, autocommit=True)
    row = conn.execute("select workspace_id from beliefdb.belief group by 1 order by count(*) desc limit 1").fetchone()
    assert row is not None, "no beliefs: load the database with run.py --db URL first"
    ws = row[0]
    # pgvector's vector_dims wherever the extension is installed
    conn.execute(EXTENSION_PATH.replace("pg_temp', true)", "pg_temp', false)"))
    dt = np.dtype([("nf", ">i2"), ("l1", ">i4"), ("id", "V16"), ("l2", ">i4"), ("dim", ">i2"), ("u", ">i2"),
                   ("vec", ">f4", (dim,))])
    buf = bytearray()
    with conn.cursor() as cur, cur.copy(
            "copy (select belief_id, embedding from beliefdb.belief_embedding where workspace_id = %s "
            "and vector_dims(embedding) = %s) to stdout (format binary)", (ws, dim)) as cp:
        for chunk in cp:
            buf += chunk
    rows = np.frombuffer(bytes(buf[19:-2]), dtype=dt)  # COPY's header and trailer
    vec = rows["vec"].astype(np.float32)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True)
    ok_ids = {r[0].bytes for r in conn.execute(
        "select b.id from beliefdb.belief b where b.workspace_id = %s "
        "and beliefdb.recallable(b, null, '{}'::jsonb, false)", (ws,))}
    ok = np.array([bytes(i) in ok_ids for i in rows["id"].tolist()])
    return vec, ok


def assign(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = np.empty(len(x), np.int64)
    for s in range(0, len(x), 20000):
        out[s:s + 20000] = np.argmax(x[s:s + 20000] @ c.T, axis=1)
    return out


def kmeans(x: np.ndarray, lists: int, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """Spherical k-means (unit centroids, nearest by cosine), as IVFFlat's cosine lists."""
    c = x[rng.choice(len(x), lists, replace=False)].copy()
    for _ in range(iterations):
        a = assign(x, c)
        sums = np.zeros_like(c)
        np.add.at(sums, a, x)
        kept = np.linalg.norm(sums, axis=1) > 0
        c[kept] = sums[kept] / np.linalg.norm(sums[kept], axis=1, keepdims=True)
    return c


def simulate(url: str, partitions: list[tuple[int, int, int]], dims: list[int]) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    vec, ok = load(url)
    n = len(vec)
    embedder = get_embedder()
    q = np.asarray([embedder.query(x.text) for x in corpus.questions()], np.float32)
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    sims = np.empty((len(q), n), np.float32)
    for s in range(0, n, 100000):
        sims[:, s:s + 100000] = q @ vec[s:s + 100000].T
    sims[:, ~ok] = -9
    top = np.argpartition(-sims, 10, axis=1)[:, :10]
    log(f"{n:,} vectors, {len(q)} questions: exact top-10 computed")
    out: dict[str, Any] = {"vectors": n, "questions": len(q)}
    for lists, sample, iterations in partitions:
        xs = vec[np.sort(rng.choice(n, min(sample, n), replace=False))]
        c = kmeans(xs, lists, iterations, rng)
        sizes = np.bincount(assign(xs, c), minlength=lists) * (n / len(xs))
        where = assign(vec[top.ravel()], c).reshape(top.shape)
        order = np.argsort(-(q @ c.T), axis=1)
        by_share = {}
        for share in SHARES:
            found = []
            for i in range(len(q)):
                read = order[i][:int(np.searchsorted(np.cumsum(sizes[order[i]]), share * n)) + 1]
                found.append(np.isin(where[i], read).mean())
            by_share[f"{share:.1%}"] = round(float(np.mean(found)), 3)
        out[f"lists {lists}"] = by_share
        log(f"lists {lists}: {by_share}")
    if dims:
        xs = vec[np.sort(rng.choice(n, min(100000, n), replace=False))]
        _, _, vt = np.linalg.svd(xs - xs.mean(0), full_matrices=False)
        for name, basis in (("pca", vt), ("first dims", np.eye(vec.shape[1], dtype=np.float32))):
            for m in dims:
                b = basis[:m].T.astype(np.float32)
                p = vec @ b
                p /= np.linalg.norm(p, axis=1, keepdims=True)
                qp = q @ b
                qp /= np.linalg.norm(qp, axis=1, keepdims=True)
                first = qp @ p.T
                first[:, ~ok] = -9
                by_r = {}
                for r in RERANK:
                    cand = np.argpartition(-first, r, axis=1)[:, :r]
                    found = [np.isin(top[i], cand[i][np.argsort(-sims[i, cand[i]])[:10]]).mean()
                             for i in range(len(q))]
                    by_r[f"re-rank {r}"] = round(float(np.mean(found)), 3)
                out[f"{name} {m}"] = by_r
                log(f"{name} {m}: {by_r}")
    return out


def main() -> int:
    parser = arguments(__doc__, db_help="libpq URL of a database run.py --db loaded, as a superuser")
    parser.add_argument("--lists", default="2000:100000:6",
                        help="k-means partitions, LISTS:SAMPLE:ITERATIONS comma-separated (none: '')")
    parser.add_argument("--dims", default="64,128", help="first-pass dimensions, comma-separated (none: '')")
    args = parser.parse_args()
    if not args.db:
        parser.error("--db is required")
    partitions = [(int(a), int(b), int(c)) for a, b, c in (p.split(":") for p in args.lists.split(",") if p)]
    print_json(simulate(args.db, partitions, [int(d) for d in args.dims.split(",") if d]), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
