"""Benchmark of impact and correction apply on a large synthetic support graph.

    python bench/impact.py [--nodes N] [--json] [--db URL [--keep | --workspace ID]] [--no-corrections]
                           [--runs 30] [--seed 1] [--explain FILE]

Builds one workspace of N nodes (default 1,000,000) with about 4 justification edges per node:
sources -> source versions -> fragments -> beliefs (evidence) -> derived beliefs -> decisions ->
actions. Parents are picked with a power-law skew, so a few fragments and beliefs are hubs that
much of the graph rests on. The graph is loaded with binary COPY, then measured:

* ``beliefdb.impact(array[seed])`` for seeds whose forward closure is about 10, 1,000 and 10,000
  nodes (p50 / p95 over ``--runs`` seeds each), as the application role bound to the workspace;
* the same question answered in memory by Python on the same graph, in the same run: networkx
  ``descendants`` for the closure, then a dict-based least fixpoint of holding inside the closure
  (a justification holds when each antecedent is outside the closure or holds again), the flags,
  held actions and surviving decisions with their live support; ratio = beliefdb / Python, over
  all the seeds and (``handful_ratio``) over those whose retraction stops at most ``HANDFUL``
  nodes holding, the issue's case;
* ``beliefdb.apply_correction`` on ``--runs`` different beliefs, each its own committed
  transaction (the call and the commit are timed).

Every impact answer is checked against the Python answer (same flagged decisions, held actions,
surviving decisions and stopped nodes), so the benchmark also tests correctness at scale.

Without ``--db`` it starts a throw-away embedded server in a temporary directory, migrates it,
and stops and deletes it at the end. With ``--db`` it loads into a new workspace of that database
(as a superuser) and deletes the workspace's rows at the end unless ``--keep``.
Progress goes to stderr; the report (or, with ``--json``, one JSON object) to stdout.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from _common import (
    Nullable,
    arguments,
    belief_sha256,
    copy_binary,
    copy_rows,
    database,
    log,
    machine,
    ms_since,
    percentile,
    print_json,
    random_uuid_bytes,
    server_settings,
    timed,
)
from impact_reference import ACTION, BELIEF, DECISION, DERIVED, FRAGMENT, Memory, NetworkxMemory, distinct
from psycopg import sql

Reference = Memory | NetworkxMemory
CHUNK_ROWS = 500_000  # rows per binary COPY chunk built in numpy
PRINCIPAL = "bench"  # who loads the graph, owns its beliefs and measures
KIND_NAME = {FRAGMENT: "fragment", BELIEF: "belief", DERIVED: "belief", DECISION: "decision", ACTION: "action"}
# share of each kind among the nodes
MIX = {FRAGMENT: 0.15, BELIEF: 0.25, DERIVED: 0.30, DECISION: 0.15, ACTION: 0.15}
FRAGMENTS_PER_SOURCE = 10
SKEW = 2.5  # parent = floor(pool * u**SKEW): density ~ x**(1/SKEW - 1), a power law; hubs get ~1% of all picks
TARGETS = (10, 1000, 10000)
# "a handful of nodes stop holding" (issue 21): seeds whose answer stops at most this many, the seed included
HANDFUL = 10
TABLES_BY_DEPENDENCY = ("evidence", "justification_antecedent", "justification", "relation", "review_item",
                        "correction", "action", "decision", "belief", "fragment", "source_version", "source",
                        "node", "adjacency", "audit_event", "audit_head")


# ---------------------------------------------------------------------------------------------
# the synthetic graph


class Ids:
    """The uuids of an ``(n, 16)`` byte array, made one at a time when asked for (29M uuid objects
    would take ~3.5 GB at 10M nodes)."""

    def __init__(self, raw: np.ndarray) -> None:
        self.raw = raw

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, i: int) -> uuid.UUID:
        return uuid.UUID(bytes=self.raw[i].tobytes())


@dataclass
class Graph:
    """Nodes 0..n-1 in layers (kind[i]); justification j: consequent cons[j], antecedents
    ant[ptr[j]:ptr[j+1]]. Every antecedent comes from an earlier layer or an earlier derived
    belief, so the graph is a DAG and, with every source in force, every node holds."""

    kind: np.ndarray
    cons: np.ndarray
    ptr: np.ndarray
    ant: np.ndarray
    action_decision: np.ndarray  # per action (in layer order): its decision's node index
    fragment_source: np.ndarray  # per fragment (in layer order): its source number
    sources: int
    node_raw: np.ndarray = field(default_factory=lambda: np.zeros((0, 16), dtype=np.uint8))
    justification_raw: np.ndarray = field(default_factory=lambda: np.zeros((0, 16), dtype=np.uint8))

    @property
    def node_ids(self) -> Ids:
        return Ids(self.node_raw)

    @property
    def justification_ids(self) -> Ids:
        return Ids(self.justification_raw)

    @property
    def nodes(self) -> int:
        return len(self.kind)

    @property
    def edges(self) -> int:
        return len(self.ant)

    def first(self, k: int) -> int:
        return int(np.searchsorted(self.kind, k))


def skewed(rng: np.random.Generator, pool: np.ndarray | int, size: int) -> np.ndarray:
    """``size`` indices into range(pool) (pool may vary per draw), power-law skewed towards 0."""
    pools = np.asarray(pool, dtype=np.int64)
    picked: np.ndarray = np.minimum((pools * rng.random(size) ** SKEW).astype(np.int64), np.maximum(pools - 1, 0))
    return picked


def distinct_pairs(first: np.ndarray, second: np.ndarray, bound: int) -> np.ndarray:
    """The distinct rows of ``stack([first, second], axis=1)`` in lexicographic order, as
    ``np.unique(..., axis=0)`` returns them (``second`` < ``bound``), by sorting one int64 key."""
    keys = distinct(first.astype(np.int64) * bound + second)
    return np.stack([keys // bound, keys % bound], axis=1)


def generate(n: int, rng: np.random.Generator) -> Graph:
    counts = {k: int(n * share) for k, share in MIX.items()}
    counts[ACTION] = n - sum(v for k, v in counts.items() if k != ACTION)
    start = {}
    offset = 0
    for k in (FRAGMENT, BELIEF, DERIVED, DECISION, ACTION):
        start[k] = offset
        offset += counts[k]
    kind = np.repeat(np.arange(5, dtype=np.int8), [counts[k] for k in range(5)])
    # hubs are spread over each layer by a random permutation, except among derived beliefs,
    # whose parents must be earlier (the oldest derived beliefs become hubs, as in preferential attachment)
    perm = {k: rng.permutation(counts[k]) + start[k] for k in (FRAGMENT, BELIEF, DERIVED, DECISION)}
    parts_cons: list[np.ndarray] = []
    parts_size: list[np.ndarray] = []
    parts_ant: list[np.ndarray] = []

    def add(cons: np.ndarray, size: np.ndarray, ant: np.ndarray) -> None:
        # drop repeated antecedents within a justification (the primary key forbids them)
        just = np.repeat(np.arange(len(cons)), size)
        pairs = distinct_pairs(just, ant, n)
        parts_cons.append(cons)
        parts_size.append(np.bincount(pairs[:, 0], minlength=len(cons)))
        parts_ant.append(pairs[:, 1])

    # beliefs: one evidence justification per fragment quoted (mean 4, distinct fragments)
    per = np.minimum(rng.geometric(1 / 4, counts[BELIEF]), 20)
    cons = np.repeat(np.arange(start[BELIEF], start[DERIVED]), per)
    frag = perm[FRAGMENT][skewed(rng, counts[FRAGMENT], len(cons))]
    pairs = distinct_pairs(cons, frag, n)
    add(pairs[:, 0], np.ones(len(pairs), dtype=np.int64), pairs[:, 1])

    # derived beliefs: 1-3 alternative justifications of 2-10 antecedents each; an antecedent is an
    # earlier derived belief with probability 0.25, else an extracted belief
    per = rng.choice([1, 2, 3], p=[0.5, 0.3, 0.2], size=counts[DERIVED])
    cons = np.repeat(np.arange(start[DERIVED], start[DECISION]), per)
    size = 2 + np.minimum(rng.poisson(2.0, len(cons)), 8)
    owner = np.repeat(cons, size)
    from_derived = (rng.random(len(owner)) < 0.25) & (owner > start[DERIVED])
    ant = np.where(from_derived,
                   start[DERIVED] + skewed(rng, owner - start[DERIVED], len(owner)),
                   perm[BELIEF][skewed(rng, counts[BELIEF], len(owner))])
    add(cons, size, ant)

    # decisions: alternative reasons (mean 2.5), each citing one belief (60%) or 2+ jointly
    per = np.minimum(rng.geometric(1 / 2.5, counts[DECISION]), 12)
    cons = np.repeat(np.arange(start[DECISION], start[ACTION]), per)
    size = np.where(rng.random(len(cons)) < 0.6, 1, 2 + rng.poisson(0.5, len(cons)))
    m = int(size.sum())
    ant = np.where(rng.random(m) < 0.5, perm[BELIEF][skewed(rng, counts[BELIEF], m)],
                   perm[DERIVED][skewed(rng, counts[DERIVED], m)])
    add(cons, size, ant)

    # actions: each carries out one decision (some decisions have many actions, some none)
    action_decision = perm[DECISION][skewed(rng, counts[DECISION], counts[ACTION])]
    add(np.arange(start[ACTION], n), np.ones(counts[ACTION], dtype=np.int64), action_decision)

    cons_all = np.concatenate(parts_cons)
    ptr = np.zeros(len(cons_all) + 1, dtype=np.int64)
    np.cumsum(np.concatenate(parts_size), out=ptr[1:])
    sources = max(1, -(-counts[FRAGMENT] // FRAGMENTS_PER_SOURCE))
    graph = Graph(kind=kind, cons=cons_all, ptr=ptr, ant=np.concatenate(parts_ant), action_decision=action_decision,
                  fragment_source=np.arange(counts[FRAGMENT]) // FRAGMENTS_PER_SOURCE, sources=sources)
    graph.node_raw = random_uuid_bytes(rng, n)
    graph.justification_raw = random_uuid_bytes(rng, len(cons_all))
    return graph


# ---------------------------------------------------------------------------------------------
# loading with binary COPY


def stored_confidence(g: Graph, authority_weight: float) -> list[float]:
    """Each belief's confidence as beliefdb.confidence_factors computes it (float4 where it is
    float4, float8 where it is float8), so that the stored values are what the rules say and a
    correction recomputes only what it changes: an extracted belief, 1 - prod(1 - w) over the
    distinct sources it quotes (evidence written at load time: no decay); a derived belief, the
    product of everything it is derived from; products stop at 1e-9."""
    b0, d0, c0 = g.first(BELIEF), g.first(DERIVED), g.first(DECISION)
    f0 = g.first(FRAGMENT)
    one_minus = np.float32(1) - np.float32(authority_weight)
    floor = math.log(1e-9)  # what confidence_factors puts under a product's logarithm
    out = [0.0] * (c0 - b0)
    sources: list[set[int]] = [set() for _ in range(d0 - b0)]
    derived_from: list[list[int]] = [[] for _ in range(c0 - d0)]
    cons, ptr, ant = g.cons.tolist(), g.ptr.tolist(), g.ant.tolist()
    fragment_source = g.fragment_source.tolist()
    for j, c in enumerate(cons):
        if b0 <= c < d0:
            sources[c - b0].add(fragment_source[ant[ptr[j]] - f0])
        elif d0 <= c < c0:
            derived_from[c - d0].extend(ant[ptr[j]:ptr[j + 1]])
    for i, quoted in enumerate(sources):
        total = 0.0
        for _ in quoted:
            total += math.log(max(float(one_minus), 1e-9))
        out[i] = float(np.float32(1 - math.exp(max(total, floor))) if quoted else np.float32(0))
    for i, antecedents in enumerate(derived_from):  # what a derived belief rests on comes earlier
        total = 0.0
        for a in antecedents:
            total += math.log(max(out[a - b0], 1e-9))
        out[d0 - b0 + i] = float(np.float32(math.exp(max(total, floor))))
    return out


def id_order(raw: np.ndarray) -> np.ndarray:
    """Positions of ``raw``'s uuids in uuid order (PostgreSQL compares uuids bytewise): rows arrive in
    primary-key order, so the btrees fill left to right instead of splitting pages at random."""
    words = raw.view(">u8").reshape(len(raw), 2)
    order: np.ndarray = np.lexsort((words[:, 1], words[:, 0]))
    return order


def chunked(order: np.ndarray, make: Callable[[np.ndarray], list[Any]],
            size: int = CHUNK_ROWS) -> Iterator[list[Any]]:
    """``make(rows)`` for ``order`` a chunk at a time (the copy's memory stays bounded at 10M)."""
    for at in range(0, len(order), size):
        yield make(order[at:at + size])


def uuid_text(raw: np.ndarray) -> np.ndarray:
    """The canonical text of each uuid of an ``(n, 16)`` byte array, as ``S36`` bytes (built in numpy:
    millions of ``str(uuid.UUID)`` calls would be client time at 10M nodes)."""
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    nibbles = np.empty((len(raw), 32), dtype=np.uint8)
    nibbles[:, 0::2] = digits[raw >> 4]
    nibbles[:, 1::2] = digits[raw & 15]
    out = np.full((len(raw), 36), ord("-"), dtype=np.uint8)
    for a, b, at in ((0, 8, 0), (8, 12, 9), (12, 16, 14), (16, 20, 19), (20, 32, 24)):
        out[:, at:at + b - a] = nibbles[:, a:b]
    return np.ascontiguousarray(out).view("S36").reshape(-1)


def ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(lo[i], hi[i])`` for every i, without a Python loop."""
    counts = hi - lo
    starts = np.repeat(lo - (np.cumsum(counts) - counts), counts)
    out: np.ndarray = np.arange(int(counts.sum()), dtype=np.int64) + starts
    return out


def decision_reasons(g: Graph, decisions: np.ndarray, node_rank: np.ndarray) -> list[str]:
    """``decision.reasons`` of these decisions as ``refresh_decision_reasons`` computes it, each as
    the jsonb binary form (version 1, then the text): {justification id: [antecedent ids in uuid
    order]}, ``{}`` for a decision without justifications. The rows of one decision's justifications
    are adjacent in ``g.cons`` (the generator adds them decision by decision). The uuids' texts are
    made in numpy for the whole chunk; only the joins are Python."""
    lo = np.searchsorted(g.cons, decisions, side="left")
    hi = np.searchsorted(g.cons, decisions, side="right")
    justs = ranges(lo, hi)
    edges = ranges(g.ptr[justs], g.ptr[justs + 1])
    owner = np.repeat(np.arange(len(justs)), g.ptr[justs + 1] - g.ptr[justs])
    edges = edges[np.lexsort((node_rank[g.ant[edges]], owner))]
    just_text = uuid_text(g.justification_raw[justs]).astype("U36").tolist()
    ant_text = uuid_text(g.node_raw[g.ant[edges]]).astype("U36").tolist()
    edge_at = np.concatenate([[0], np.cumsum(g.ptr[justs + 1] - g.ptr[justs])]).tolist()
    reasons = ['"' + just_text[k] + '": ["' + '", "'.join(ant_text[edge_at[k]:edge_at[k + 1]]) + '"]'
               for k in range(len(justs))]
    just_at = np.concatenate([[0], np.cumsum(hi - lo)]).tolist()
    return ["\x01{" + ", ".join(reasons[just_at[i]:just_at[i + 1]]) + "}" for i in range(len(decisions))]


def copy_adjacency(conn: psycopg.Connection[Any], ws: uuid.UUID, g: Graph, node_order: np.ndarray,
                   node_rank: np.ndarray, just_rank: np.ndarray, first: np.ndarray) -> tuple[int, float]:
    """The workspace's ``beliefdb.adjacency`` rows as ``rebuild_adjacency`` writes them, computed from
    the graph and written with binary COPY in primary-key order (node, then self < out < in, then
    justification), instead of derived by the server from the loaded tables (36 min at 10M nodes).
    Every node holds and is current, none is retracted, and no relation is loaded (related false)."""
    n, jn = g.nodes, len(g.cons)
    owner = np.repeat(np.arange(jn), np.diff(g.ptr))
    cons, ant = g.cons, g.ant
    # an out row into a leaf carries the leaf: not a belief, one justification of one antecedent,
    # no edge out of it (see _refresh_leaf_entries)
    one_justification = np.bincount(cons, minlength=n) == 1
    no_edge_out = np.bincount(ant, minlength=n) == 0
    leaf_kind = (g.kind == DECISION) | (g.kind == ACTION)
    leaf_just = (np.diff(g.ptr) == 1) & (one_justification & no_edge_out & leaf_kind)[cons]
    # out rows by (antecedent's uuid, justification's uuid); in rows by (consequent's, justification's)
    out_rank = node_rank[ant]
    out_order = np.argsort(out_rank * jn + just_rank[owner], kind="stable")
    out_rank = out_rank[out_order]
    in_rank = node_rank[cons]
    in_order = np.argsort(in_rank * jn + just_rank, kind="stable")
    in_rank = in_rank[in_order]
    kind_label = np.array([KIND_NAME[k] for k in range(5)], dtype=np.bytes_)
    wsb = np.frombuffer(ws.bytes, dtype=np.uint8)
    ids, jids = g.node_raw, g.justification_raw
    step = max(1, CHUNK_ROWS * n // max(n + len(ant) + jn, 1))  # nodes per chunk of ~CHUNK_ROWS rows

    def chunks() -> Iterator[list[Any]]:
        for r0 in range(0, n, step):
            r1 = min(n, r0 + step)
            self_nodes = node_order[r0:r1]
            o0, o1 = np.searchsorted(out_rank, [r0, r1])
            i0, i1 = np.searchsorted(in_rank, [r0, r1])
            edges, justs = out_order[o0:o1], in_order[i0:i1]
            a, b, c = len(self_nodes), len(edges), len(justs)
            # a stable sort by node rank keeps self, out, in and each group's justification order
            order = np.argsort(np.concatenate([np.arange(r0, r1), out_rank[o0:o1], in_rank[i0:i1]]), kind="stable")
            m = a + b + c
            is_self = np.concatenate([np.ones(a, dtype=bool), np.zeros(b + c, dtype=bool)])[order]
            is_out = np.concatenate([np.zeros(a, dtype=bool), np.ones(b, dtype=bool), np.zeros(c, dtype=bool)])[order]
            j_out = owner[edges]
            leaf = np.concatenate([np.zeros(a, dtype=bool), leaf_just[j_out], np.zeros(c, dtype=bool)])[order]
            standing = is_self | leaf  # rows with kind, holds, current, retracted
            node = np.concatenate([self_nodes, ant[edges], cons[justs]])[order]
            justification = np.concatenate([ids[self_nodes], jids[j_out], jids[justs]])[order]
            # self: the node; out: the consequent (the leaf whose standing the row carries); in: null
            target = np.concatenate([self_nodes, cons[j_out], cons[justs]])[order]
            consequent, kinds = ids[target], kind_label[g.kind[target]]
            support = np.concatenate([np.zeros(a, dtype=bool), first[cons[j_out]] == j_out,
                                      np.zeros(c, dtype=bool)])[order]
            yield [np.broadcast_to(wsb, (m, 16)), ids[node],
                   np.array([b"self", b"out", b"in"], dtype=np.bytes_)[np.where(is_self, 0, np.where(is_out, 1, 2))],
                   justification, Nullable(consequent, ~is_out), Nullable(np.zeros(m, dtype=">i4"), is_self | is_out),
                   Nullable(kinds, ~standing), Nullable(np.ones(m, dtype="?"), ~standing),
                   Nullable(np.ones(m, dtype="?"), ~standing), Nullable(np.zeros(m, dtype="?"), ~standing),
                   Nullable(np.zeros(m, dtype="?"), ~is_self), Nullable(np.ones(m, dtype="?"), ~support),
                   # out: whether the consequent is a decision (revision 0030)
                   Nullable(g.kind[target] == DECISION, ~is_out)]

    return copy_binary(conn, "adjacency", ("workspace_id", "node", "entry", "justification", "consequent", "unmet",
                                           "kind", "holds", "current", "retracted", "related", "support",
                                           "into_decision"), chunks())


@dataclass
class LoadReport:
    """What each phase of the load took: seconds, rows, and (after the load) bytes on disk."""
    phases: dict[str, dict[str, float]] = field(default_factory=dict)

    def add(self, name: str, seconds: float, rows: int | None = None) -> None:
        self.phases[name] = {"s": round(seconds, 1), **({"rows": rows} if rows is not None else {})}


SECONDARY_INDEXES = """
    select i.indexrelid::regclass::text, pg_catalog.pg_get_indexdef(i.indexrelid)
      from pg_catalog.pg_index i
      join pg_catalog.pg_class t on t.oid = i.indrelid
      join pg_catalog.pg_namespace ns on ns.oid = t.relnamespace
     where ns.nspname = 'beliefdb' and t.relname = any(%s)
       and not exists (select from pg_catalog.pg_constraint c where c.conindid = i.indexrelid)
     order by 1"""


def load(conn: psycopg.Connection[Any], ws: uuid.UUID, g: Graph, report: LoadReport | None = None) -> None:
    report = report if report is not None else LoadReport()
    ids, jids = g.node_raw, g.justification_raw
    f0, b0, d0, c0, a0 = (g.first(k) for k in (FRAGMENT, BELIEF, DERIVED, DECISION, ACTION))
    # This is a bulk load of a synthetic graph, not a sequence of user changes: the per-row
    # triggers (node creation, fragment/evidence text checks, row audit, foreign keys) are
    # switched off for this session with session_replication_role = replica, and the rows are
    # written consistent by construction instead. The audit chain is not fed with millions of
    # synthetic rows, which would make the load dominated by hashing and is not what is measured.
    conn.execute("set session_replication_role = replica")
    conn.execute("set synchronous_commit = off")
    conn.execute("set maintenance_work_mem = '1GB'")
    # The secondary indexes (GIN full-text and trigram on beliefs and fragments, the reverse-edge
    # btrees) are dropped and built once after the COPY, in this transaction: maintaining them row
    # by row in random key order is what made a 10M-node load take hours. Primary keys and unique
    # constraints stay; their rows arrive sorted.
    tables = ["node", "source", "source_version", "fragment", "belief", "decision", "action", "justification",
              "justification_antecedent", "evidence", "adjacency"]
    indexes = conn.execute(SECONDARY_INDEXES, (tables,)).fetchall()
    for name, _ in indexes:
        conn.execute(sql.SQL("drop index {}").format(sql.Identifier(*name.split("."))))
    wsb = np.frombuffer(ws.bytes, dtype=np.uint8)

    def wsc(m: int) -> np.ndarray:
        return np.broadcast_to(wsb, (m, 16))

    def copy(table: str, columns: tuple[str, ...], chunks: Iterable[list[Any]]) -> None:
        rows, seconds = copy_binary(conn, table, columns, chunks)
        report.add(f"copy {table}", seconds, rows)

    node_order = id_order(ids)
    kind_label = np.array([KIND_NAME[k] for k in range(5)], dtype=np.bytes_)
    # each node's stored support (rule 2): its first justification, all of whose antecedents come
    # earlier, so the node's index is a rank above theirs; a premise (a fragment) has none and rank 0.
    # Two COPYs, premises and the rest, as the numpy COPY writes no nulls.
    first = np.full(g.nodes, -1, dtype=np.int64)
    first[g.cons[::-1]] = np.arange(len(g.cons) - 1, -1, -1)
    premise = first[node_order] < 0
    copy("node", ("workspace_id", "id", "kind", "holds", "current", "support_rank"),
         chunked(node_order[premise], lambda r: [
             wsc(len(r)), ids[r], kind_label[g.kind[r]], np.ones(len(r), dtype="?"), np.ones(len(r), dtype="?"),
             np.zeros(len(r), dtype=">i8")]))
    rows = report.phases.pop("copy node")
    copy("node", ("workspace_id", "id", "kind", "holds", "current", "support", "support_rank"),
         chunked(node_order[~premise], lambda r: [
             wsc(len(r)), ids[r], kind_label[g.kind[r]], np.ones(len(r), dtype="?"), np.ones(len(r), dtype="?"),
             jids[first[r]], r.astype(">i8")]))
    report.phases["copy node"]["s"] = round(report.phases["copy node"]["s"] + rows["s"], 1)
    report.phases["copy node"]["rows"] += rows["rows"]

    t0 = time.perf_counter()
    source_ids = [uuid.uuid4() for _ in range(g.sources)]
    version_ids = [uuid.uuid4() for _ in range(g.sources)]
    copy_rows(conn, "source", ("workspace_id", "id", "name"), ("uuid", "uuid", "text"),
              ((ws, source_ids[s], f"bench-source-{s}") for s in range(g.sources)), g.sources)
    # each source has one version, whose text is its fragments' texts one per line
    texts = [f"Fragment {i} of the synthetic corpus." for i in range(b0 - f0)]
    contents: list[list[str]] = [[] for _ in range(g.sources)]
    offsets: list[tuple[int, int]] = []
    lengths = [0] * g.sources
    for i, s in enumerate(g.fragment_source.tolist()):
        contents[s].append(texts[i])
        offsets.append((lengths[s], lengths[s] + len(texts[i])))
        lengths[s] += len(texts[i]) + 1
    versions = []
    for s in range(g.sources):
        content = "\n".join(contents[s])
        versions.append((ws, version_ids[s], source_ids[s], 1, content,
                         hashlib.sha256(content.encode()).digest(), "synthetic"))
    del contents
    copy_rows(conn, "source_version", ("workspace_id", "id", "source_id", "version", "content", "sha256", "label"),
              ("uuid", "uuid", "uuid", "int4", "text", "bytea", "text"), versions, g.sources)
    del versions
    report.add("copy source, source_version", time.perf_counter() - t0, 2 * g.sources)
    source_of = g.fragment_source
    version_raw = np.frombuffer(b"".join(v.bytes for v in version_ids), dtype=np.uint8).reshape(-1, 16)
    start = np.array([o[0] for o in offsets], dtype=">i4")
    end = np.array([o[1] for o in offsets], dtype=">i4")
    del offsets
    copy("fragment", ("workspace_id", "id", "source_version_id", "start_offset", "end_offset", "text"),
         chunked(f0 + id_order(ids[f0:b0]), lambda r: [
             wsc(len(r)), ids[r], version_raw[source_of[r - f0]], start[r - f0], end[r - f0],
             [texts[i] for i in (r - f0).tolist()]]))

    t0 = time.perf_counter()
    row = conn.execute("select weight from beliefdb.confidence_policy where factor = 'authority' "
                       "and key = 'unverified'").fetchone()  # the sources' authority: the column default
    confidence = np.array(stored_confidence(g, float(row[0]) if row else 0.3), dtype=">f4")
    report.add("confidence (python)", time.perf_counter() - t0, c0 - b0)
    log(f"  confidence of {c0 - b0:,} beliefs computed in {time.perf_counter() - t0:.1f} s")

    def beliefs(r: np.ndarray) -> list[Any]:
        m = len(r)
        numbers = r.tolist()
        said = ([f"Synthetic {'derived ' if i >= d0 else ''}belief {i}." for i in numbers],
                [f"subject_{i % 9973}" for i in numbers], [f"attribute_{i}" for i in numbers],
                [f"value {i}" for i in numbers])
        sha256 = np.frombuffer(b"".join(belief_sha256(*row) for row in zip(*said, strict=True)),
                               dtype=np.uint8).reshape(m, 32)
        return [wsc(m), ids[r], *said, confidence[r - b0],
                ["derived" if i >= d0 else "extracted" for i in numbers], [PRINCIPAL] * m, sha256]
    # owned by the principal the measurements act as, so its corrections apply (another
    # principal's would only be proposed to the owner)
    copy("belief", ("workspace_id", "id", "statement", "subject", "attribute", "value", "confidence",
                    "confidence_kind", "owner", "sha256"), chunked(b0 + id_order(ids[b0:c0]), beliefs))
    node_rank = np.empty(g.nodes, dtype=np.int64)
    node_rank[node_order] = np.arange(g.nodes)
    # with their reasons, which the switched-off trigger would have written (refresh_decision_reasons)
    copy("decision", ("workspace_id", "id", "title", "reasons"), chunked(c0 + id_order(ids[c0:a0]), lambda r: [
        wsc(len(r)), ids[r], [f"Synthetic decision {i}" for i in r.tolist()], decision_reasons(g, r, node_rank)]))
    act_dec = g.action_decision
    copy("action", ("workspace_id", "id", "decision_id", "description"),
         chunked(a0 + id_order(ids[a0:g.nodes]), lambda r: [
             wsc(len(r)), ids[r], ids[act_dec[r - a0]], [f"Synthetic action {i}" for i in r.tolist()]]))

    cons = g.cons
    copy("justification", ("workspace_id", "id", "consequent"), chunked(id_order(jids), lambda r: [
        wsc(len(r)), jids[r], ids[cons[r]]]))
    edge_label = np.array(["", "evidence", "derives", "cites", "carries_out"], dtype=np.bytes_)
    just_edge = g.kind[cons]  # the edge kind of a justification: its consequent's kind (FRAGMENT never is one)
    # antecedent rows in primary-key order: by justification id, then antecedent id
    t0 = time.perf_counter()
    owner = np.repeat(np.arange(len(cons)), np.diff(g.ptr))
    just_rank = np.empty(len(cons), dtype=np.int64)
    just_rank[id_order(jids)] = np.arange(len(cons))
    edge_order = np.lexsort((node_rank[g.ant], just_rank[owner]))
    report.add("sort antecedents", time.perf_counter() - t0, len(edge_order))
    log(f"  {len(edge_order):,} antecedent rows sorted in {time.perf_counter() - t0:.1f} s")
    ant = g.ant
    # justification.unmet (antecedents not current) keeps its default 0: every node is current
    copy("justification_antecedent", ("workspace_id", "justification_id", "antecedent", "edge_kind", "consequent"),
         chunked(edge_order, lambda e: [wsc(len(e)), jids[owner[e]], ids[ant[e]],
                                        edge_label[just_edge[owner[e]]], ids[cons[owner[e]]]]))

    evidence_j = np.flatnonzero(just_edge == BELIEF)  # one antecedent each: the fragment quoted
    frag = ant[g.ptr[evidence_j]]
    evidence_order = evidence_j[np.lexsort((node_rank[frag], node_rank[cons[evidence_j]]))]
    copy("evidence", ("workspace_id", "belief_id", "fragment_id", "quote", "justification_id"),
         chunked(evidence_order, lambda j: [wsc(len(j)), ids[cons[j]], ids[ant[g.ptr[j]]],
                                            [texts[i] for i in (ant[g.ptr[j]] - f0).tolist()], jids[j]]))
    del evidence_order
    # what the switched-off triggers would have written to the adjacency, from the graph (the server's
    # rebuild_adjacency took 36 min at 10M nodes); the decisions' reasons came with their rows
    adjacency_rows, seconds = copy_adjacency(conn, ws, g, node_order, node_rank, just_rank, first)
    report.add("copy adjacency", seconds, adjacency_rows)
    del just_rank
    for name, definition in indexes:
        t0 = time.perf_counter()
        conn.execute(definition)  # type: ignore[arg-type]  # from pg_get_indexdef, not user input
        report.add(f"index {name.split('.')[-1]}", time.perf_counter() - t0)
        log(f"  index {name}: built in {time.perf_counter() - t0:.1f} s")
    conn.execute("set session_replication_role = origin")
    t0 = time.perf_counter()
    conn.commit()
    report.add("commit", time.perf_counter() - t0)


DERIVED_DRIFT = """
    select (select count(*) from (select * from pg_temp.loaded except all
                                  select * from beliefdb.{table} where workspace_id = %(ws)s) x),
           (select count(*) from (select * from beliefdb.{table} where workspace_id = %(ws)s except all
                                  select * from pg_temp.loaded) x),
           (select count(*) from pg_temp.loaded)"""


def derived_drift(conn: psycopg.Connection[Any], ws: uuid.UUID) -> dict[str, list[int]]:
    """What the loader wrote of the rows the server derives, against what the server derives:
    the workspace's adjacency rows against ``rebuild_adjacency``'s and its decisions (with their
    reasons) against ``refresh_decision_reasons``'s, each compared with ``except all`` both ways;
    per table [loaded rows the server's lack, server rows the loaded lack, loaded rows]. Rolled back."""
    out: dict[str, list[int]] = {}
    with conn.transaction(force_rollback=True):
        conn.execute("set local session_replication_role = replica")  # no audit or trigger of the rewrite
        conn.execute("set local work_mem = '256MB'")
        for table, derive in (
                ("adjacency", "select beliefdb.rebuild_adjacency(%(ws)s)"),
                ("decision", "select beliefdb.refresh_decision_reasons(%(ws)s, array(select d.id from "
                             "beliefdb.decision d where d.workspace_id = %(ws)s))")):
            conn.execute(sql.SQL("create temporary table loaded on commit drop as "
                                 "select * from beliefdb.{} where workspace_id = %(ws)s").format(sql.Identifier(table)),
                         {"ws": ws})
            conn.execute(derive, {"ws": ws})
            row = conn.execute(sql.SQL(DERIVED_DRIFT).format(table=sql.Identifier(table)), {"ws": ws}).fetchone()
            assert row is not None
            out[table] = [int(v) for v in row]
            conn.execute("drop table pg_temp.loaded")
    return out


# ---------------------------------------------------------------------------------------------
# seeds


def pick_seeds(g: Graph, mem: Reference, runs: int, rng: np.random.Generator) -> dict[int, list[int]]:
    """For each target size, ``runs`` distinct fragments or beliefs whose closure is within ~25% of it."""
    t0 = time.perf_counter()
    pool = np.arange(g.first(FRAGMENT), g.first(DECISION))
    out_degree = np.bincount(g.ant, minlength=g.nodes)[pool]
    hubs = pool[np.argsort(-out_degree)[: 40 * runs]]
    candidates = distinct(np.concatenate([rng.choice(pool, size=min(len(pool), 100 * runs), replace=False), hubs]))
    rng.shuffle(candidates)
    cap = int(TARGETS[-1] * 1.25)
    chosen: dict[int, list[int]] = {t: [] for t in TARGETS}
    sizes: dict[int, int] = {}
    for c in candidates.tolist():
        size = mem.closure_size(c, cap)
        sizes[c] = size
        for t in TARGETS:
            if t * 0.8 <= size <= t * 1.25 and len(chosen[t]) < runs:
                chosen[t].append(c)
        if all(len(v) >= runs for v in chosen.values()):
            break
    for t in TARGETS:
        if not chosen[t]:  # nothing close enough: the nearest ones
            chosen[t] = sorted(sizes, key=lambda c: abs(sizes[c] - t))[:runs]
    histogram = np.histogram([min(s, cap) for s in sizes.values()], bins=[1, 2, 11, 101, 1001, 10001, cap + 2])[0]
    log(f"closure sizes of {len(sizes):,} candidates (1 | 2-10 | 11-100 | 101-1000 | 1001-10000 | >10000): "
        f"{histogram.tolist()}; seeds per target: {({t: len(v) for t, v in chosen.items()})} "
        f"in {time.perf_counter() - t0:.1f} s")
    return chosen


# ---------------------------------------------------------------------------------------------
# measurement


def app_session(url: str, ws: uuid.UUID) -> psycopg.Connection[Any]:
    conn = psycopg.connect(url, autocommit=True)
    conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(ws),))
    conn.execute("select set_config('beliefdb.principal', %s, false)", (PRINCIPAL,))
    conn.execute("set role beliefdb_app")
    return conn


def sql_impact(conn: psycopg.Connection[Any], seed: uuid.UUID) -> tuple[float, list[tuple[Any, ...]]]:
    # every row is fetched; detail as the text the server sends, not parsed into Python objects
    # (psycopg's JSON parsing of a few hundred rows is client work: 2-3 ms for ~1,000-node closures)
    t0 = time.perf_counter()
    rows = conn.execute("select node, kind, effect, detail::text from beliefdb.impact(array[%s::text])",
                        (seed,)).fetchall()
    return ms_since(t0), rows


def check_same(g: Graph, seed: int, rows: list[tuple[Any, ...]], expected: dict[str, Any]) -> None:
    index = {u: i for i, u in ((i, g.node_ids[i]) for i in expected["stopped"] | set(expected["flagged"])
                               | set(expected["held"]) | set(expected["survives"]))}
    got: dict[str, set[Any]] = {"stops_holding": set(), "flag": set(), "hold": set(), "survives": set()}
    by: dict[Any, set[tuple[str, ...]]] = {}
    for node, _kind, effect, detail in rows:
        got[effect].add(index.get(node, node))
        if effect == "survives":
            by[index.get(node, node)] = {tuple(reason) for reason in json.loads(detail)["by"]}
    want = {"stops_holding": expected["stopped"], "flag": set(expected["flagged"]), "hold": set(expected["held"]),
            "survives": set(expected["survives"])}
    if got != want:
        diff = {k: (len(got[k] - want[k]), len(want[k] - got[k])) for k in want if got[k] != want[k]}
        raise SystemExit(f"impact of node {seed} differs from the in-memory answer (extra, missing): {diff}")
    # each survivor's live reasons, each as its antecedents (sorted, as the database sorts uuids)
    want_by = {d: {tuple(sorted(str(g.node_ids[a]) for a in ants)) for ants in reasons}
               for d, reasons in expected["survives"].items()}
    if by != want_by:
        wrong = [d for d in want_by if by.get(d) != want_by[d]]
        raise SystemExit(f"impact of node {seed}: the live reasons of {len(wrong)} surviving decisions differ "
                         f"from the in-memory answer")


def measure_impact(url: str, ws: uuid.UUID, g: Graph, mem: Reference, seeds: dict[int, list[int]],
                   budget_s: float) -> dict[str, Any]:
    result: dict[str, Any] = {}
    with app_session(url, ws) as conn:
        # warm up: the session's working-set table, plan caches
        for s in seeds[TARGETS[0]][:3]:
            sql_impact(conn, g.node_ids[s])
        for t in TARGETS:
            sql_ms: list[float] = []
            py_ms: list[float] = []
            desc_ms: list[float] = []
            closures: list[int] = []
            flagged: list[int] = []
            stopped: list[int] = []
            began = time.perf_counter()
            for s in seeds[t]:
                if len(sql_ms) >= 5 and time.perf_counter() - began > budget_s:
                    log(f"impact ~{t}: time budget of {budget_s:.0f} s spent after {len(sql_ms)} runs")
                    break
                ms, rows = sql_impact(conn, g.node_ids[s])
                with timed(desc_ms):
                    mem.descendants(s)
                with timed(py_ms):
                    expected = mem.impact(s)
                check_same(g, s, rows, expected)
                sql_ms.append(ms)
                closures.append(expected["closure"])
                flagged.append(len(expected["flagged"]))
                stopped.append(len(expected["stopped"]))
            # the case: a closure where only a handful of nodes stop holding (the seed included)
            few = [i for i, n in enumerate(stopped) if n <= HANDFUL]
            result[str(t)] = {
                "p50_ms": statistics.median(sql_ms), "p95_ms": percentile(sql_ms, 95),
                "python_p50_ms": statistics.median(py_ms), "python_p95_ms": percentile(py_ms, 95),
                "descendants_p50_ms": statistics.median(desc_ms),
                "ratio": statistics.median(sql_ms) / statistics.median(py_ms),
                "closure_median": statistics.median(closures), "closure_range": [min(closures), max(closures)],
                "flagged_median": statistics.median(flagged), "runs": len(sql_ms),
                "stopped_median": statistics.median(stopped), "handful_runs": len(few),
                "handful_ratio": (statistics.median(sql_ms[i] for i in few) / statistics.median(py_ms[i] for i in few)
                                  if few else None)}
            r = result[str(t)]
            log(f"impact ~{t:>5} nodes (closure {r['closure_range'][0]}-{r['closure_range'][1]}): "
                f"beliefdb p50 {r['p50_ms']:.2f} ms p95 {r['p95_ms']:.2f} ms | python p50 {r['python_p50_ms']:.2f} ms "
                f"(descendants alone {r['descendants_p50_ms']:.2f} ms) | ratio {r['ratio']:.2f} | stopping: median "
                f"{r['stopped_median']:g}, {len(few)} seeds with <= {HANDFUL}, their ratio "
                f"{'-' if r['handful_ratio'] is None else format(r['handful_ratio'], '.2f')}")
    return result


def measure_corrections(url: str, ws: uuid.UUID, g: Graph, mem: Reference, runs: int,
                        rng: np.random.Generator, budget_s: float) -> dict[str, Any]:
    beliefs = rng.choice(np.arange(g.first(BELIEF), g.first(DERIVED)), size=runs + 2, replace=False).tolist()
    times: list[float] = []
    commits: list[float] = []
    closures: list[int] = []
    began = time.perf_counter()
    cpus: list[float] = []
    with app_session(url, ws) as conn:
        # the backend's time on a CPU (ns; the server runs on this machine): what waiting for pages and
        # for a core, which the wall clock counts too, leaves out
        pid = conn.execute("select pg_backend_pid()").fetchone()
        schedstat = Path(f"/proc/{pid[0] if pid else 0}/schedstat")
        conn.autocommit = False
        for i, b in enumerate(beliefs):
            if len(times) >= 5 and time.perf_counter() - began > budget_s:
                log(f"correction apply: time budget of {budget_s:.0f} s spent after {len(times)} runs")
                break
            bid = g.node_ids[b]
            row = conn.execute("select revision from beliefdb.belief where id = %s", (bid,)).fetchone()
            conn.commit()
            assert row is not None
            cpu0 = int(schedstat.read_text().split()[0]) if schedstat.exists() else 0
            t0 = time.perf_counter()
            applied = conn.execute("select proposed from beliefdb.apply_correction(%s::text, %s, null, 'bench', "
                                   "'benchmark', %s, null)",
                                   (bid, f"Corrected synthetic belief {b}.", row[0])).fetchone()
            t1 = time.perf_counter()
            conn.commit()
            ms = ms_since(t0)
            cpu_ms = (int(schedstat.read_text().split()[0]) - cpu0) / 1e6 if schedstat.exists() else float("nan")
            assert applied == (False,), "the correction was only proposed"
            if i >= 2:  # the first two warm the session up
                times.append(ms)
                commits.append(ms_since(t1))
                cpus.append(cpu_ms)
                closures.append(mem.closure_size(b, 10**7))
    result = {"p50_ms": statistics.median(times), "p95_ms": percentile(times, 95), "runs": len(times),
              "closure_median": statistics.median(closures), "closure_range": [min(closures), max(closures)],
              # of which the commit (its WAL flushed: after a load's checkpoint, full pages of what it touched)
              "commit_p50_ms": statistics.median(commits), "commit_p95_ms": percentile(commits, 95),
              "cpu_p50_ms": statistics.median(cpus), "cpu_p95_ms": percentile(cpus, 95)}
    log(f"correction apply (closure median {result['closure_median']}, {min(closures)}-{max(closures)}): "
        f"p50 {result['p50_ms']:.2f} ms p95 {result['p95_ms']:.2f} ms "
        f"(the commit: p50 {result['commit_p50_ms']:.2f} ms p95 {result['commit_p95_ms']:.2f} ms; the backend's CPU: "
        f"p50 {result['cpu_p50_ms']:.2f} ms p95 {result['cpu_p95_ms']:.2f} ms)")
    return result


def explain(url: str, ws: uuid.UUID, g: Graph, seeds: dict[int, list[int]], path: Path | None) -> dict[str, Any]:
    """Plans of every statement inside impact() (auto_explain, nested statements, ANALYZE) for one
    seed of each size, after the session ran impact enough times to settle its plan cache."""
    plans: dict[str, list[str]] = {}
    with app_session(url, ws) as conn:
        # auto_explain is loaded and configured as superuser, then the session acts as the app role again
        conn.execute("reset role")
        conn.execute("load 'auto_explain'")
        conn.execute("set auto_explain.log_level = log")
        conn.execute("set auto_explain.log_nested_statements = on")
        conn.execute("set auto_explain.log_analyze = on")
        conn.execute("set auto_explain.log_buffers = on")
        conn.execute("set auto_explain.log_min_duration = -1")
        conn.execute("set role beliefdb_app")
        for s in seeds[TARGETS[0]][:8]:  # plpgsql switches to generic plans after 5 executions
            sql_impact(conn, g.node_ids[s])
        notices: list[str] = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
        conn.execute("set client_min_messages = log")
        conn.execute("reset role")
        conn.execute("set auto_explain.log_min_duration = 0")
        conn.execute("set role beliefdb_app")
        for target in TARGETS:
            notices.clear()
            sql_impact(conn, g.node_ids[seeds[target][-1]])
            plans[str(target)] = list(notices)
    summary: dict[str, Any] = {}
    for t, texts in plans.items():
        # what rests on the seed by its stored support is read by one recursive statement when it is
        # small, else a level at a time by one recursive statement (a row a level): each reads every
        # row of the nodes it reaches with one index-only probe of the adjacency's primary key (which
        # carries adjacency.support, revision 0028), following the out rows that carry a support, and
        # a level's nodes that another justification keeps are found by probing
        # justification_antecedent by its key (a whole closure's walk, evaluate_closure, reads the
        # primary key's rows a statement a level); nothing reads the walked nodes' rows a second time
        walk = [p for p in texts if ("any(lv.frontier)" in p or "with recursive w" in p) and "beliefdb.adjacency" in p]
        levels = walk + [p for p in texts if "any(v_front)" in p]
        again = [p for p in texts if "beliefdb.adjacency" in p and p not in levels and "any(v_next)" not in p]
        keeping = [p for p in texts if "justification_antecedent a" in p and "lv.kept" in p]
        decisions = next((p for p in texts if "d.id = any(e.kept)" in p), "")
        summary[t] = {
            # (the level walk's statement reads its levels as loops of its probe)
            "closure_levels": sum(level_loops(p) if "any(lv.frontier)" in p else 1 for p in levels),
            "closure_reads_adjacency_index_only": bool(levels) and all(
                "Index Only Scan using adjacency_" in p for p in levels),
            "walk_reads_support_edges_only": bool(walk) and all(
                "Index Only Scan using adjacency_pkey" in p and "Seq Scan" not in p for p in walk),
            # a surviving decision's live reasons come with its row (decision.reasons), not from the edges
            # (None: the walk reached no decision, and impact read none)
            "decisions_by_index": ("using decision_pkey" in decisions) if decisions else None,
            "walked_nodes_read_once": bool(walk) and not again,
            # the other justifications of a level's nodes, by the key of justification_antecedent
            "keeps_by_justification_key": all("Index Only Scan using justification_antecedent_pkey" in p
                                              for p in keeping),
            "graph_seq_scans": sum(p.count("Seq Scan on justification") + p.count("Seq Scan on node")
                                   + p.count("Seq Scan on adjacency")
                                   for p in texts),
        }
    if path is not None:
        with path.open("w") as out:
            for t, texts in plans.items():
                out.write(f"==================== impact, closure ~{t} nodes ====================\n")
                for p in texts:
                    out.write(p.rstrip() + "\n\n")
        log(f"plans written to {path}")
    log(f"index use: {json.dumps(summary)}")
    return summary


def level_loops(plan: str) -> int:
    """How many levels the level walk's statement read: the loops of its probe of the adjacency."""
    m = re.search(r"Index Only Scan using adjacency_pkey on adjacency y .*?loops=(\d+)", plan)
    return int(m.group(1)) if m else 1


# ---------------------------------------------------------------------------------------------
# the benchmark's workspace


def create_workspace(url: str) -> uuid.UUID:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("insert into beliefdb.workspace (name) values (%s) returning id",
                           (f"bench-{uuid.uuid4().hex[:12]}",)).fetchone()
    assert row is not None
    return uuid.UUID(str(row[0]))


def drop_workspace(url: str, ws: uuid.UUID) -> None:
    with psycopg.connect(url) as conn:
        conn.execute("set session_replication_role = replica")  # no per-row audit of the clean-up
        for table in TABLES_BY_DEPENDENCY:
            conn.execute(f"delete from beliefdb.{table} where workspace_id = %s", (ws,))
        conn.execute("delete from beliefdb.workspace where id = %s", (ws,))


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=30, help="measured runs per figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--explain", type=Path, help="write the plans of impact's statements to this file")
    parser.add_argument("--keep", action="store_true", help="with --db: keep the benchmark workspace")
    parser.add_argument("--workspace", type=uuid.UUID,
                        help="with --db: measure this workspace, loaded and kept by an earlier run with the same "
                             "--nodes and --seed, instead of loading a new one (implies --keep)")
    parser.add_argument("--no-corrections", action="store_true",
                        help="skip correction apply (it changes the graph: use it to keep a --workspace reusable)")
    parser.add_argument("--check-derived", action="store_true",
                        help="after the load, compare the adjacency and decision reasons it wrote with what "
                             "rebuild_adjacency and refresh_decision_reasons derive (rolled back) and stop")
    parser.add_argument("--budget", type=float, default=120,
                        help="seconds per figure after which fewer runs are taken (at least 5)")
    parser.add_argument("--reference", choices=("csr", "networkx"), default="csr",
                        help="storage of the in-memory reference: CSR arrays (default; ~1.1 GB at 10M nodes) "
                             "or a networkx DiGraph as before issue 21 (~1.75 kB per node)")
    args = parser.parse_args(argv)
    if args.workspace is not None and args.db is None:
        parser.error("--workspace needs --db")
    rng = np.random.default_rng(args.seed)
    began = time.perf_counter()

    t0 = time.perf_counter()
    g = generate(args.nodes, rng)
    log(f"generated {g.nodes:,} nodes, {len(g.cons):,} justifications, {g.edges:,} antecedent edges "
        f"({g.edges / g.nodes:.2f} per node), {g.sources:,} sources in {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    mem: Reference = Memory(g) if args.reference == "csr" else NetworkxMemory(g)
    reference_s = time.perf_counter() - t0
    seeds = pick_seeds(g, mem, args.runs, rng)
    loaded = LoadReport()

    with database(args.db) as url:
        ws = args.workspace or create_workspace(url)
        try:
            t0 = time.perf_counter()
            if args.workspace is None:
                log(f"loading into workspace {ws} with binary COPY")
                with psycopg.connect(url) as conn:
                    load(conn, ws, g, loaded)
            else:
                log(f"measuring workspace {ws} as loaded by an earlier run")
            if args.check_derived:
                with psycopg.connect(url) as conn:
                    t1 = time.perf_counter()
                    drift = derived_drift(conn, ws)
                log(f"derived rows, [loaded except all derived, derived except all loaded, loaded]: "
                    f"{json.dumps(drift)} in {time.perf_counter() - t1:.1f} s")
                if args.json:
                    print_json({"nodes": g.nodes, "derived_drift": drift, "load_phases": loaded.phases})
                return 0 if all(v[0] == v[1] == 0 for v in drift.values()) else 1
            with psycopg.connect(url, autocommit=True) as conn:
                if args.workspace is None:
                    t1 = time.perf_counter()
                    conn.execute("vacuum (analyze) " + ", ".join(f"beliefdb.{t}" for t in LOADED_TABLES))
                    loaded.add("vacuum (analyze)", time.perf_counter() - t1)
                    # what the load left dirty in the shared buffers is written now, not by the first
                    # corrections as they evict it, nor by a checkpoint running beside them (each still
                    # writes the full image of each page it first changes, as the first change after any
                    # checkpoint does; the spread between fresh loads stayed: docs/benchmarks.md)
                    t1 = time.perf_counter()
                    conn.execute("checkpoint")
                    loaded.add("checkpoint", time.perf_counter() - t1)
                server = server_settings(conn, ("server_version", "shared_buffers", "work_mem", "jit"))
                disk = disk_use(conn)
            load_s = time.perf_counter() - t0
            log(f"loaded, analyzed and checkpointed in {load_s:.1f} s; "
                f"database size {disk['database'] / 2**30:.2f} GiB; phases {json.dumps(loaded.phases)}; "
                f"bytes by table {json.dumps(disk)}")
            if args.workspace is None:
                check_confidence(url, ws)
            sanity(url, ws, g, seeds[TARGETS[0]], rng)
            impact = measure_impact(url, ws, g, mem, seeds, args.budget)
            plans = explain(url, ws, g, seeds, args.explain)
            corrections = (None if args.no_corrections
                           else measure_corrections(url, ws, g, mem, args.runs, rng, args.budget))
        finally:
            if args.db is not None and not args.keep and args.workspace is None:
                drop_workspace(args.db, ws)

    report = {
        "nodes": g.nodes,
        "impact_p50_ms": {t: round(impact[t]["p50_ms"], 3) for t in impact},
        "impact_p95_ms": {t: round(impact[t]["p95_ms"], 3) for t in impact},
        "python_ratio": {t: round(impact[t]["ratio"], 3) for t in impact},
        # the same over the seeds whose retraction stops at most HANDFUL nodes holding
        "handful_ratio": {t: None if impact[t]["handful_ratio"] is None else round(impact[t]["handful_ratio"], 3)
                          for t in impact},
        "handful_runs": {t: impact[t]["handful_runs"] for t in impact},
        "stopped_median": {t: impact[t]["stopped_median"] for t in impact},
        "correction_apply_p50_ms": round(corrections["p50_ms"], 3) if corrections else None,
        "correction_apply_p95_ms": round(corrections["p95_ms"], 3) if corrections else None,
        "python_p50_ms": {t: round(impact[t]["python_p50_ms"], 3) for t in impact},
        "closure_median": {t: impact[t]["closure_median"] for t in impact},
        "flagged_median": {t: impact[t]["flagged_median"] for t in impact},
        "runs": {t: impact[t]["runs"] for t in impact},
        "correction_runs": corrections["runs"] if corrections else None,
        "correction_commit_p50_ms": round(corrections["commit_p50_ms"], 3) if corrections else None,
        "correction_commit_p95_ms": round(corrections["commit_p95_ms"], 3) if corrections else None,
        "correction_cpu_p50_ms": round(corrections["cpu_p50_ms"], 3) if corrections else None,
        "correction_cpu_p95_ms": round(corrections["cpu_p95_ms"], 3) if corrections else None,
        "reference": args.reference,
        "reference_build_s": round(reference_s, 1),
        "load_s": round(load_s, 1),
        "load_phases": loaded.phases,
        "disk_bytes": disk,
        "total_s": round(time.perf_counter() - began, 1),
        "loadavg": loadavg(),
    }
    if args.json:
        print_json(report)
    else:
        print(f"beliefdb impact benchmark: {g.nodes:,} nodes, {g.edges:,} edges ({g.edges / g.nodes:.2f} per node), "
              f"{len(g.cons):,} justifications; load {load_s:.0f} s; total {time.perf_counter() - began:.0f} s")
        print(f"machine: {json.dumps(machine())}; reference: {args.reference}; server: {json.dumps(server)}")
        print(f"load phases: {json.dumps(loaded.phases)}; bytes: {json.dumps(disk)}; load average {loadavg()}")
        print(f"{'closure':>8} {'range':>13} {'runs':>4} {'p50 ms':>9} {'p95 ms':>9} {'py p50':>8} {'py p95':>8} "
              f"{'nx desc':>8} {'ratio':>7}")
        for t, r in impact.items():
            print(f"{t:>8} {r['closure_range'][0]:>6}-{r['closure_range'][1]:<6} {r['runs']:>4} {r['p50_ms']:>9.2f} "
                  f"{r['p95_ms']:>9.2f} {r['python_p50_ms']:>8.2f} {r['python_p95_ms']:>8.2f} "
                  f"{r['descendants_p50_ms']:>8.2f} {r['ratio']:>7.2f}")
        if corrections:
            print(f"correction apply: {corrections['runs']} runs, p50 {corrections['p50_ms']:.2f} ms, "
                  f"p95 {corrections['p95_ms']:.2f} ms "
                  f"(closure of the corrected belief: median {corrections['closure_median']}, "
                  f"{corrections['closure_range'][0]}-{corrections['closure_range'][1]})")
        print(f"index use in impact's plans: {json.dumps(plans)}")
    return 0


LOADED_TABLES = ("node", "fragment", "belief", "decision", "action", "justification", "justification_antecedent",
                 "evidence", "source", "source_version", "adjacency")


def disk_use(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """Bytes on disk of each loaded table with its indexes and TOAST, and of the whole database."""
    out = {}
    for table in LOADED_TABLES:
        row = conn.execute("select pg_catalog.pg_total_relation_size(%s::regclass)", (f"beliefdb.{table}",)).fetchone()
        out[table] = int(row[0]) if row else 0
    row = conn.execute("select pg_catalog.pg_database_size(current_database())").fetchone()
    out["database"] = int(row[0]) if row else 0
    return out


def loadavg() -> list[float]:
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


def check_confidence(url: str, ws: uuid.UUID) -> None:
    """The stored confidences are the rules' (stored_confidence): a sample of 500, checked by
    confidence_factors. After the load's commit and analyze: in the load's transaction the tables
    have no statistics, and at 10M nodes each call scanned the whole of justification_antecedent_pkey
    (the first 10M load stopped after 8 min here)."""
    with psycopg.connect(url) as conn:
        t0 = time.perf_counter()
        row = conn.execute("""
            select count(*) filter (where b.confidence is distinct from least(1, greatest(0, f.weight))), count(*)
              from (select b.id, b.confidence from beliefdb.belief b where b.workspace_id = %(ws)s
                     order by b.id limit 500) b
             cross join lateral (select cf.weight from beliefdb.confidence_factors(%(ws)s, b.id) cf
                                  where cf.factor = 'confidence') f""", {"ws": ws}).fetchone()
    log(f"confidence: {row[0] if row else '?'} of {row[1] if row else '?'} sampled beliefs differ from "
        f"confidence_factors ({time.perf_counter() - t0:.1f} s)")


def sanity(url: str, ws: uuid.UUID, g: Graph, seeds: list[int], rng: np.random.Generator) -> None:
    """The stored holding is the fixpoint: re-propagating small closures changes nothing (rolled back)."""
    late = np.arange(g.first(DECISION), g.nodes)
    sample = [g.node_ids[i] for i in seeds + rng.choice(late, size=min(len(late), 200), replace=False).tolist()]
    with psycopg.connect(url) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(ws),))
        row = conn.execute("select beliefdb.propagate(%s, %s)", (ws, sample)).fetchone()
        conn.rollback()
    assert row is not None
    changed = {k: len(v) for k, v in row[0].items() if v}
    if changed:
        raise SystemExit(f"the loaded graph's stored holding is not the fixpoint: {changed}")


if __name__ == "__main__":
    sys.exit(main())
