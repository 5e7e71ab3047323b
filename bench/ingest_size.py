"""Ingest time against document size: a synthetic markdown document of each size is ingested as a
file (``BeliefDB.ingest``, what ``beliefdb ingest`` runs) into a new workspace, and the script prints
size, seconds, beliefs, MB/s and the slope of log(time) / log(size) between successive sizes (1.0 is
linear, 2.0 quadratic); also one document that is a single line.

    python bench/ingest_size.py                              # 100 KB, 1 MB, 10 MB, 50 MB; a 2M-character line
    python bench/ingest_size.py --sizes 100K,1M --runs 3 --single-line 0
    python bench/ingest_size.py --json

The document: paragraphs of 3 to 6 sentences on one line each, a heading every 10 paragraphs, some
``- Key: value`` list items; one sentence in 8 states a fact the rule extractor takes (a return window,
a warranty period, a shipping zone's state, a fee), each about a different item so that no two
conflict. "seconds" is the whole call; "extract s" is the part before the database transaction (read,
split, extract, gate: no lock held), the rest holds the workspace's write lock. Embedding is off
(``--embed`` turns it on: the bundled model costs far more than the ingest, and runs after the commit).

Each run ingests into a new database cloned from a migrated one, as a first ``beliefdb ingest`` on a
new machine does: no rows, no planner statistics (the case that was quadratic). With ``--db``, each run
ingests into a new workspace of that database instead (deleted afterwards unless ``--keep``), with
whatever statistics it has. "seconds" is the median of the runs of a size (``--runs``, default 3 up
to 1 MB and 1 above). The machine's load average is printed with each figure: the slope is robust to
load, the seconds are not.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import psycopg
from _common import arguments, database, log, machine, print_json
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import beliefdb
from beliefdb.models import IngestReport
from beliefdb.text.fragments import split_fragments
from beliefdb.text.gate import gate
from beliefdb.text.registry import get_extractor

WORDS = ("order", "customer", "delivery", "parcel", "invoice", "support", "team", "account", "refund",
         "policy", "store", "warehouse", "item", "product", "request", "payment", "service", "email",
         "address", "week", "month", "days", "region", "office", "contract", "price", "label", "carrier",
         "courier", "package", "return", "exchange", "credit", "card", "bank", "transfer", "receipt",
         "manager", "note", "always", "usually", "often", "never", "quickly", "carefully", "every", "some",
         "many", "few", "our", "their", "the", "a", "an")


def _prose(rng: random.Random) -> str:
    # (no "is" or "are" among the words: the rules take no prose sentence for a fact)
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18))).capitalize() + "."


def _fact(rng: random.Random, i: int) -> str:
    kind = i % 4
    if kind == 0:
        return f"The return window of product {i} is {rng.randint(1, 60)} days."
    if kind == 1:
        return f"Warranty claims for item {i} are accepted within {rng.randint(1, 36)} months of delivery."
    if kind == 2:
        return f"Shipping zone {i} is now {rng.choice(['open', 'closed', 'paused'])}."
    return f"The handling fee of order type {i} is {rng.randint(1, 99)} EUR."


def document(size: int, *, seed: int = 1, single_line: bool = False) -> str:
    """A document of exactly ``size`` characters (see the module docstring); ``single_line``: the same
    sentences with no line break at all."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    sentences = facts = paragraphs = 0
    while length < size:
        if not single_line and paragraphs % 10 == 0:
            line = f"## Section {paragraphs // 10 + 1}\n\n"
        elif not single_line and paragraphs % 10 == 5:
            facts += 1
            line = f"- Fee {facts}: {rng.randint(1, 99)} EUR\n- Note {facts}: see the invoice\n\n"
        else:
            said = []
            for _ in range(rng.randint(3, 6)):
                sentences += 1
                if sentences % 8 == 0:
                    facts += 1
                    said.append(_fact(rng, facts))
                else:
                    said.append(_prose(rng))
            line = " ".join(said) + (" " if single_line else "\n\n")
        paragraphs += 1
        parts.append(line)
        length += len(line)
    text = "".join(parts)[:size]
    # end on a whole sentence: a cut one would be a fragment the rules may not take
    return text[:text.rfind(".") + 1].ljust(size, " " if single_line else "\n")


def parse_size(value: str) -> int:
    """``100K``, ``1M``, ``2.5M`` or a number of characters (K = 1,000, M = 1,000,000)."""
    value = value.strip().upper()
    scale = {"K": 1_000, "M": 1_000_000}.get(value[-1:], 1)
    return int(float(value[:-1] if scale > 1 else value) * scale)


def _extract_seconds(text: str) -> float:
    """The Python side of an ingest on its own (split, extract, gate), as it runs before the lock."""
    t0 = time.perf_counter()
    candidates = get_extractor("rules").extract(text, source_name="doc.md")
    gate(text, candidates)
    split_fragments(text)
    return time.perf_counter() - t0


# Where a run ingests: a context manager giving (database URL, workspace name).
Target = Callable[[], contextlib.AbstractContextManager[tuple[str, str]]]


def new_workspaces(url: str, keep: bool) -> Target:
    """Each run in a new workspace of the database at ``url``."""
    @contextlib.contextmanager
    def target() -> Iterator[tuple[str, str]]:
        workspace = f"bench-ingest-{uuid.uuid4().hex[:8]}"
        with beliefdb.connect(url) as admin:
            admin.create_workspace(workspace)
        try:
            yield url, workspace
        finally:
            if not keep:
                with beliefdb.connect(url) as admin:
                    admin.delete_workspace(workspace, force=True)
    return target


def new_databases(url: str) -> Target:
    """Each run in a new database cloned from the (migrated, unused) database at ``url``."""
    template = str(conninfo_to_dict(url)["dbname"])
    maintenance = make_conninfo(url, dbname="postgres")
    with psycopg.connect(maintenance, autocommit=True) as conn:
        # (no connection, not even autovacuum's, may hold a template while it is copied)
        conn.execute(sql.SQL("alter database {} with allow_connections false").format(sql.Identifier(template)))

    @contextlib.contextmanager
    def target() -> Iterator[tuple[str, str]]:
        name = f"bench_ingest_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(sql.SQL("create database {} template {}").format(sql.Identifier(name),
                                                                         sql.Identifier(template)))
        try:
            yield make_conninfo(url, dbname=name), "default"
        finally:
            with psycopg.connect(maintenance, autocommit=True) as conn:
                conn.execute(sql.SQL("drop database {} with (force)").format(sql.Identifier(name)))
    return target


def _run(target: Target, path: Path, embed: bool, max_bytes: int) -> tuple[float, IngestReport]:
    with target() as (url, workspace), beliefdb.connect(url, workspace=workspace, max_size=1) as db:
        # (a checkout from before the size limit has no max_bytes: PYTHONPATH=... compares with it)
        limit: dict[str, Any] = (
            {"max_bytes": max_bytes} if "max_bytes" in inspect.signature(db.ingest).parameters else {})
        t0 = time.perf_counter()
        (report,) = db.ingest(path, embed=embed, **limit)
        seconds = time.perf_counter() - t0
    if not isinstance(report, IngestReport):
        raise SystemExit(f"ingest failed: {report.error}: {report.message}")
    return seconds, report


def measure(target: Target, size: int, *, runs: int, single_line: bool, embed: bool, folder: Path,
            seed: int) -> dict[str, Any]:
    text = document(size, seed=seed, single_line=single_line)
    path = folder / f"doc-{size}{'-line' if single_line else ''}.md"
    path.write_text(text, encoding="utf-8")
    nbytes = path.stat().st_size
    times: list[float] = []
    loads: list[float] = []
    report: IngestReport | None = None
    for run in range(runs):
        log(f"{'single line' if single_line else 'document'} of {size:,} characters: run {run + 1} of {runs}")
        seconds, report = _run(target, path, embed, max_bytes=nbytes)
        times.append(seconds)
        loads.append(os.getloadavg()[0])
        log(f"  {seconds:.2f} s, {len(report.accepted):,} beliefs, {report.fragments:,} fragments")
    assert report is not None
    seconds = statistics.median(times)
    return {"size": size, "bytes": nbytes, "lines": text.count("\n") + 1, "single_line": single_line,
            "runs": runs, "seconds": round(seconds, 3), "times": [round(t, 3) for t in times],
            "extract_seconds": round(_extract_seconds(text), 3), "beliefs": len(report.accepted),
            "fragments": report.fragments, "mb_per_s": round(nbytes / 1e6 / seconds, 4),
            "load": round(statistics.median(loads), 2)}


def slopes(rows: Sequence[dict[str, Any]]) -> None:
    """Each row's slope of log(time) / log(size) from the row before it (None for the first)."""
    for before, row in zip([None, *rows], rows, strict=False):
        row["slope"] = None if before is None else round(
            math.log(row["seconds"] / before["seconds"]) / math.log(row["bytes"] / before["bytes"]), 2)


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``name`` set to ``value`` for the block (beliefdb reads its settings at each connection)."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__, db_help="libpq URL of a migrated beliefdb database, as a superuser "
                                        "(default: a throw-away embedded server)")
    parser.add_argument("--sizes", default="100K,1M,10M,50M",
                        help="document sizes in characters, ascending (K = 1,000, M = 1,000,000)")
    parser.add_argument("--runs", type=int, help="runs per size (default: 3 up to 1M characters, 1 above)")
    parser.add_argument("--single-line", default="2M",
                        help="size of the one-line document (0: none; default 2M characters)")
    parser.add_argument("--embed", action="store_true", help="embed the new beliefs too (the bundled model)")
    parser.add_argument("--keep", action="store_true", help="keep the workspaces (with --db)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the document generator")
    parser.add_argument("--statement-timeout", type=float, default=0,
                        help="BELIEFDB_STATEMENT_TIMEOUT for the runs, in seconds (default 0: none, so that a"
                             " large document is measured, not cut off)")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    if sizes != sorted(sizes) or not sizes or sizes[0] < 1000:
        parser.error("--sizes: ascending sizes of at least 1K")
    line = parse_size(args.single_line)
    rows: list[dict[str, Any]] = []
    with _environment("BELIEFDB_STATEMENT_TIMEOUT", f"{args.statement_timeout:g}"), \
            database(args.db, "beliefdb-ingest-") as url, tempfile.TemporaryDirectory() as folder:
        target = new_workspaces(url, args.keep) if args.db is not None else new_databases(url)
        for size in sizes:
            runs = args.runs or (3 if size <= 1_000_000 else 1)
            rows.append(measure(target, size, runs=runs, single_line=False, embed=args.embed,
                                folder=Path(folder), seed=args.seed))
        slopes(rows)
        if line:
            one = measure(target, line, runs=args.runs or (3 if line <= 1_000_000 else 1), single_line=True,
                          embed=args.embed, folder=Path(folder), seed=args.seed)
            one["slope"] = None
            rows.append(one)
    if args.json:
        print_json({"rows": rows, "machine": machine(), "beliefdb": beliefdb.__file__})
        return 0
    print(f"beliefdb ingest by size ({beliefdb.__file__}); {machine()}")
    print(f"{'size':>12} {'bytes':>12} {'seconds':>9} {'extract s':>9} {'beliefs':>8} {'fragments':>9} "
          f"{'MB/s':>7} {'slope':>6} {'load':>5}  runs")
    for row in rows:
        name = f"{row['size']:,}" + (" (1 line)" if row["single_line"] else "")
        slope = "" if row["slope"] is None else f"{row['slope']:.2f}"
        print(f"{name:>12} {row['bytes']:>12,} {row['seconds']:>9.2f} {row['extract_seconds']:>9.2f} "
              f"{row['beliefs']:>8,} {row['fragments']:>9,} {row['mb_per_s']:>7.3f} {slope:>6} "
              f"{row['load']:>5.1f}  {row['times']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
