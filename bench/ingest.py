"""Benchmark of bulk ingest (issue 20): beliefs per second on top of a large store, against a plain
binary COPY of the same rows and against the embedder's own throughput, in the same run.

    python bench/ingest.py [--beliefs N] [--measure M] [--batch B] [--embed-beliefs E] [--json] [--db URL]
                           [--keep] [--workspace NAME]

A new workspace gets a base store of N beliefs (default 1,000,000), each quoted by one fragment of
a synthetic source, loaded with binary COPY as bench/impact.py loads (triggers off, rows consistent
by construction, adjacency rebuilt, then analyzed). On top of it, measured:

* ``beliefs_per_s``: ``BeliefDB.bulk_ingest`` of documents holding M new beliefs (default 20,000;
  50 claims a document, the rules extractor, no embedding), every truth rule applied: each document
  also restates a claim of the one before with another value (supersession, rule 8) and one with
  the same value (corroboration). The time is the whole call: reading, extraction, gate, COPY, the
  SQL, the statistics at the end;
* ``copy_rows_per_s``: a plain binary COPY of the same claims (statement, subject, attribute, value,
  quote, offsets) into a plain table, same run; ``copy_ratio`` = copy_rows_per_s / beliefs_per_s;
* ``indexed_copy_beliefs_per_s``: the base store's own binary COPY into beliefdb's tables (their
  indexes kept up, no trigger, no truth rule, no audit): beliefs per second, each with its two node
  rows, fragment, justification, antecedent and evidence; what storing the rows alone costs here;
* ``embed_ratio``: bulk ingest with the default embedder of documents holding E new beliefs
  (default 1,000), beliefs per second until every one has its vector, over the embedder's own
  throughput on the same statements (``passages`` in batches of 64), same run.

``server_cpu_s`` and ``client_cpu_s``: the CPU seconds the database server's processes (when it runs on
this machine) and this client process spent in the bulk ingest, and ``load`` the 1-minute load average
before and after it: on a shared machine the wall time says more of the load than of the code.

``"queue"``: bench/queue_kill.py's run in the same database: ``--queue-documents`` documents (default
1,000) through 2 worker processes SIGKILLed mid-job, ``{"documents", "kills", "lost", "duplicated"}``
(``--queue-documents 0``: null, not run).
Without ``--db`` it starts a throw-away embedded server; with ``--db`` (a superuser's URL of a
migrated database) it loads into a new workspace, deleted at the end unless ``--keep``; with
``--workspace NAME`` it measures again on a workspace a ``--keep`` run loaded (new sources, the base
not loaded again: ``indexed_copy_beliefs_per_s`` is null), e.g. main and a branch back to back.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import queue_kill
from _common import arguments, belief_sha256, copy_rows, database, log, machine, print_json

import beliefdb
from beliefdb.embedders import get_embedder
from beliefdb.store.ingest import prepare
from beliefdb.store.vectors import EMBED_BATCH

PRINCIPAL = "bench"
CLAIMS_PER_DOCUMENT = 50
BASE_PER_SOURCE = 1000
TABLES_BY_DEPENDENCY = ("belief_embedding", "evidence", "justification_antecedent", "justification", "relation",
                        "review_item", "belief", "fragment", "source_version", "source", "node", "adjacency",
                        "embedding_model", "audit_event", "audit_head")


def load_base(conn: psycopg.Connection[Any], ws: uuid.UUID, n: int) -> float:
    """``n`` beliefs, each with one fragment of a synthetic source as its evidence (binary COPY; the
    per-row triggers are off for this session and the rows consistent by construction). Returns the
    seconds the COPYs into the tables took (their indexes kept up, no trigger, no adjacency)."""
    conn.execute("set session_replication_role = replica")
    conn.execute("set synchronous_commit = off")
    sources = max(1, -(-n // BASE_PER_SOURCE))
    started = time.perf_counter()
    source_ids = [uuid.uuid4() for _ in range(sources)]
    version_ids = [uuid.uuid4() for _ in range(sources)]
    fragment_ids = sorted(uuid.uuid4() for _ in range(n))
    belief_ids = sorted(uuid.uuid4() for _ in range(n))
    justification_ids = sorted(uuid.uuid4() for _ in range(n))
    texts = [f"Base fact {i} holds." for i in range(n)]
    offsets: list[tuple[int, int]] = []
    contents: list[list[str]] = [[] for _ in range(sources)]
    lengths = [0] * sources
    for i, text in enumerate(texts):
        s = i // BASE_PER_SOURCE
        contents[s].append(text)
        offsets.append((lengths[s], lengths[s] + len(text)))
        lengths[s] += len(text) + 1
    copy_rows(conn, "node", ("workspace_id", "id", "kind", "holds", "current"),
              ("uuid", "uuid", "text", "bool", "bool"),
              sorted([(ws, f, "fragment", True, True) for f in fragment_ids]
                     + [(ws, b, "belief", True, True) for b in belief_ids], key=lambda r: r[1]), 2 * n)
    copy_rows(conn, "source", ("workspace_id", "id", "name", "owner"), ("uuid", "uuid", "text", "text"),
              ((ws, source_ids[s], f"base-{s}", PRINCIPAL) for s in range(sources)), sources)
    versions = []
    for s in range(sources):
        content = "\n".join(contents[s])
        versions.append((ws, version_ids[s], source_ids[s], 1, content, hashlib.sha256(content.encode()).digest()))
    copy_rows(conn, "source_version", ("workspace_id", "id", "source_id", "version", "content", "sha256"),
              ("uuid", "uuid", "uuid", "int4", "text", "bytea"), versions, sources)
    copy_rows(conn, "fragment", ("workspace_id", "id", "source_version_id", "start_offset", "end_offset", "text"),
              ("uuid", "uuid", "uuid", "int4", "int4", "text"),
              ((ws, fragment_ids[i], version_ids[i // BASE_PER_SOURCE], offsets[i][0], offsets[i][1], texts[i])
               for i in range(n)), n)
    copy_rows(conn, "belief", ("workspace_id", "id", "statement", "subject", "attribute", "value", "confidence",
                               "confidence_kind", "owner", "sha256"),
              ("uuid", "uuid", "text", "text", "text", "text", "float4", "text", "text", "bytea"),
              ((ws, belief_ids[i], texts[i], f"base_{i % 9973}", f"fact_{i}", "holds", 0.5, "extracted", PRINCIPAL,
                belief_sha256(texts[i], f"base_{i % 9973}", f"fact_{i}", "holds"))
               for i in range(n)), n)
    copy_rows(conn, "justification", ("workspace_id", "id", "consequent"), ("uuid", "uuid", "uuid"),
              ((ws, justification_ids[i], belief_ids[i]) for i in range(n)), n)
    copy_rows(conn, "justification_antecedent", ("workspace_id", "justification_id", "antecedent", "edge_kind",
                                                 "consequent"), ("uuid", "uuid", "uuid", "text", "uuid"),
              ((ws, justification_ids[i], fragment_ids[i], "evidence", belief_ids[i]) for i in range(n)), n)
    copy_rows(conn, "evidence", ("workspace_id", "belief_id", "fragment_id", "quote", "justification_id"),
              ("uuid", "uuid", "uuid", "text", "uuid"),
              sorted(((ws, belief_ids[i], fragment_ids[i], texts[i], justification_ids[i]) for i in range(n)),
                     key=lambda r: (r[1], r[2])), n)
    copied = time.perf_counter() - started
    t0 = time.perf_counter()
    row = conn.execute("select beliefdb.rebuild_adjacency(%s)", (ws,)).fetchone()
    log(f"  adjacency: {row[0] if row else 0:,} rows in {time.perf_counter() - t0:.1f} s")
    conn.commit()
    return copied


def server_cpu_seconds(url: str) -> float | None:
    """CPU seconds the database server's processes have used so far (the postmaster's reaped children
    and the live ones), when the server runs on this machine and /proc can be read; else None. On a
    shared machine this says what a run cost the database, whatever the load made its wall time."""
    def stat(pid: int) -> list[str]:
        with open(f"/proc/{pid}/stat", encoding="latin-1") as f:
            return f.read().rsplit(")", 1)[1].split()

    try:
        # (the backend's parent read while it lives: it is gone soon after its connection closes)
        with psycopg.connect(url) as conn:
            row = conn.execute("select pg_backend_pid()").fetchone()
            assert row is not None
            postmaster = int(stat(int(row[0]))[1])
        fields = stat(postmaster)
        ticks = sum(int(x) for x in fields[11:15])  # its own time and its reaped children's
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    child = stat(int(entry))
                except OSError:
                    continue
                if int(child[1]) == postmaster:
                    ticks += int(child[11]) + int(child[12])
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, psycopg.Error):
        return None


def documents(prefix: str, beliefs: int) -> list[tuple[str, str]]:
    """(source name, text) of documents holding about ``beliefs`` new claims, 50 to a document; each
    also restates one claim of the document before with another value and one with the same value."""
    out = []
    for d in range(max(1, beliefs // CLAIMS_PER_DOCUMENT)):
        lines = [f"# {prefix} document {d}"]
        part = f"{prefix.capitalize()} part"
        lines += [f"{part} {d}-{k} price: {(d * 7 + k) % 997} EUR." for k in range(CLAIMS_PER_DOCUMENT)]
        if d > 0:
            lines.append(f"{part} {d - 1}-0 price: {1000 + d} EUR.")
            lines.append(f"{part} {d - 1}-1 price: {((d - 1) * 7 + 1) % 997} EUR.")
        out.append((f"{prefix}-{d}.md", "\n".join(lines) + "\n"))
    return out


def claim_rows(docs: list[tuple[str, str]]) -> Iterator[tuple[Any, ...]]:
    for name, text in docs:
        for c in prepare(text, name).claims:
            yield (c["statement"], c["subject"], c["attribute"], c["value"], c["quote"], c["start"], c["end"])


def measure_copy(url: str, docs: list[tuple[str, str]]) -> tuple[int, float]:
    """Rows and seconds of a plain binary COPY of the claims (extracted beforehand) into a plain table."""
    rows = list(claim_rows(docs))
    with psycopg.connect(url) as conn:
        conn.execute("create temporary table plain_claims (statement text, subject text, attribute text,"
                     " value text, quote text, start_offset int4, end_offset int4)")
        t0 = time.perf_counter()
        with conn.cursor() as cur, cur.copy("copy plain_claims from stdin (format binary)") as copy:
            copy.set_types(["text", "text", "text", "text", "text", "int4", "int4"])
            for row in rows:
                copy.write_row(row)
        conn.commit()
        return len(rows), time.perf_counter() - t0


def measure_embedder(docs: list[tuple[str, str]]) -> tuple[int, float]:
    """Texts and seconds of the default embedder's own ``passages`` on the statements, 64 at a time."""
    statements = [r[0] for r in claim_rows(docs)]
    embedder = get_embedder()
    embedder.passages(statements[:8])  # (the model loaded and warm, as in the bulk run)
    t0 = time.perf_counter()
    for start in range(0, len(statements), EMBED_BATCH):
        embedder.passages(statements[start:start + EMBED_BATCH])
    return len(statements), time.perf_counter() - t0


def create_workspace(url: str) -> tuple[uuid.UUID, str]:
    name = f"bench-ingest-{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("insert into beliefdb.workspace (name) values (%s) returning id", (name,)).fetchone()
    assert row is not None
    return uuid.UUID(str(row[0])), name


def workspace_id(url: str, name: str) -> uuid.UUID:
    with psycopg.connect(url) as conn:
        row = conn.execute("select id from beliefdb.workspace where name = %s", (name,)).fetchone()
    if row is None:
        raise SystemExit(f"no workspace {name}")
    return uuid.UUID(str(row[0]))


def drop_workspace(url: str, ws: uuid.UUID) -> None:
    with psycopg.connect(url) as conn:
        conn.execute("set session_replication_role = replica")  # no per-row audit of the clean-up
        for table in TABLES_BY_DEPENDENCY:
            conn.execute(f"delete from beliefdb.{table} where workspace_id = %s", (ws,))  # type: ignore[arg-type]
        conn.execute("delete from beliefdb.workspace where id = %s", (ws,))


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--beliefs", type=int, default=1_000_000, help="beliefs in the base store")
    parser.add_argument("--measure", type=int, default=20_000, help="new beliefs bulk-ingested and measured")
    parser.add_argument("--batch", type=int, default=200, help="documents per transaction")
    parser.add_argument("--embed-beliefs", type=int, default=1_000, help="new beliefs for the embedding figure")
    parser.add_argument("--keep", action="store_true", help="with --db: keep the benchmark workspace")
    parser.add_argument("--workspace", help="with --db: measure on this workspace a run with --keep loaded (its"
                                            " base is not loaded again; the measured documents are new sources)")
    parser.add_argument("--queue-documents", type=int, default=1000,
                        help="documents through the queue with SIGKILLed workers (bench/queue_kill.py; 0: skip)")
    args = parser.parse_args(argv)
    if args.workspace is not None and args.db is None:
        parser.error("--workspace needs --db")
    # (a workspace measured again gets documents of new sources, named apart from the runs before)
    tag = "" if args.workspace is None else uuid.uuid4().hex[:6]
    docs = documents(f"measured{tag}", args.measure)
    embed_docs = documents(f"embedded{tag}", args.embed_beliefs)
    indexed_copy_s: float | None = None
    with database(args.db) as url:
        ws, name = create_workspace(url) if args.workspace is None else (workspace_id(url, args.workspace),
                                                                         args.workspace)
        try:
            if args.workspace is None:
                t0 = time.perf_counter()
                log(f"loading {args.beliefs:,} base beliefs into workspace {name} with binary COPY")
                with psycopg.connect(url) as conn:
                    indexed_copy_s = load_base(conn, ws, args.beliefs)
                with psycopg.connect(url, autocommit=True) as conn:
                    for table in ("node", "fragment", "belief", "justification", "justification_antecedent",
                                  "evidence", "source", "source_version", "adjacency"):
                        conn.execute(f"vacuum (analyze) beliefdb.{table}")  # type: ignore[arg-type]
                log(f"loaded and analyzed in {time.perf_counter() - t0:.1f} s")
            with beliefdb.connect(url, workspace=name, principal=PRINCIPAL) as db:
                log(f"bulk ingest of {len(docs):,} documents (no embedding)")
                load_before = os.getloadavg()[0]
                server_before = server_cpu_seconds(url)
                client_before = time.process_time()
                bulk = db.bulk_ingest(*docs, batch=args.batch, embed=False)
                client_cpu_s = time.process_time() - client_before
                server_after = server_cpu_seconds(url)
                server_cpu_s = (None if server_before is None or server_after is None
                                else server_after - server_before)
                load_after = os.getloadavg()[0]
                log(f"  {bulk.accepted:,} new beliefs, {bulk.corroborated:,} corroborated in {bulk.seconds:.1f} s"
                    f" (database CPU {server_cpu_s if server_cpu_s is None else round(server_cpu_s, 2)} s,"
                    f" client CPU {client_cpu_s:.2f} s, load {load_before:.1f} -> {load_after:.1f})")
                copied, copy_s = measure_copy(url, docs)
                log(f"  plain binary COPY: {copied:,} rows in {copy_s:.2f} s")
                texts, embedder_s = measure_embedder(embed_docs)
                log(f"  embedder alone: {texts:,} statements in {embedder_s:.1f} s")
                embedded = db.bulk_ingest(*embed_docs, batch=args.batch, embed=True)
                log(f"  bulk ingest with embedding: {embedded.accepted:,} beliefs in {embedded.seconds:.1f} s"
                    + (f" (deferred: {embedded.embedding_deferred})" if embedded.embedding_deferred else ""))
                assert db.audit_verify().ok, "the audit chain does not verify after the bulk ingest"
        finally:
            if args.db is not None and not args.keep and args.workspace is None:
                drop_workspace(args.db, ws)
        queue = None
        if args.queue_documents > 0:
            log(f"queue: {args.queue_documents:,} documents through 2 workers, SIGKILLed mid-job")
            queue = queue_kill.run(url, documents=args.queue_documents, workers=2)
            log(f"  {queue}")
    beliefs_per_s = bulk.accepted / bulk.seconds
    copy_rows_per_s = copied / copy_s
    embedder_per_s = texts / embedder_s
    report = {
        "beliefs": bulk.accepted,
        "beliefs_per_s": round(beliefs_per_s, 1),
        "copy_rows_per_s": round(copy_rows_per_s, 1),
        "copy_ratio": round(copy_rows_per_s / beliefs_per_s, 2),
        "embed_ratio": round((embedded.accepted / embedded.seconds) / embedder_per_s, 3),
        # the base store's binary COPY into beliefdb's tables (their indexes, no trigger, no rule): beliefs
        # per second, each with its node rows, fragment, justification, antecedent and evidence; null
        # with --workspace (not loaded in this run)
        "indexed_copy_beliefs_per_s": (None if indexed_copy_s is None
                                       else round(args.beliefs / indexed_copy_s, 1)),
        # bench/queue_kill.py's figures: {"documents", "kills", "lost", "duplicated"}
        "queue": queue,
        # what the bulk ingest cost, whatever the machine's load did to its wall time: CPU seconds of
        # the database server's processes (null when it is not local) and of this client process,
        # and the 1-minute load average before and after it
        "server_cpu_s": None if server_cpu_s is None else round(server_cpu_s, 2),
        "client_cpu_s": round(client_cpu_s, 2),
        "load": [round(load_before, 2), round(load_after, 2)],
    }
    if args.json:
        print_json(report)
    else:
        print(f"beliefdb bulk ingest benchmark: {args.beliefs:,} beliefs in the store, {bulk.accepted:,} ingested "
              f"in {len(docs):,} documents (batch {args.batch})")
        print(f"machine: {machine()}; load average: {os.getloadavg()}")
        print(f"bulk ingest: {beliefs_per_s:,.0f} beliefs/s; plain binary COPY of the same rows: "
              f"{copy_rows_per_s:,.0f} rows/s (ratio {report['copy_ratio']})")
        if indexed_copy_s is not None:
            print(f"the base store's binary COPY into beliefdb's tables (indexes, no triggers): "
                  f"{report['indexed_copy_beliefs_per_s']:,.0f} beliefs/s")
        print(f"with the default embedder: {embedded.accepted / embedded.seconds:,.1f} beliefs/s; the embedder alone: "
              f"{embedder_per_s:,.1f} texts/s (ratio {report['embed_ratio']})")
        if queue is not None:
            print(f"queue: {queue['documents']:,} documents, {queue['kills']} SIGKILLs, {queue['lost']} lost,"
                  f" {queue['duplicated']} duplicated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
