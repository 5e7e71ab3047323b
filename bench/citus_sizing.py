"""What one belief costs on disk, table by table, measured on a small database loaded through the real
API: the figures docs/scale-out.md sizes a Citus cluster with (rows per belief, bytes per row).

The load, per document: a source of ``--per-doc`` "Product N price: P EUR" lines (the rules extractor
makes one belief of each, with its fragment, evidence and reason), embedded with the bundled model
(in batches at the end, as `beliefdb embed` does).
Then a fifth of the documents get a second version that changes three prices (supersession), every
document gets a decision citing two of its beliefs, every other decision an action, and one document
in twenty a reviewer's correction. Sizes are ``pg_total_relation_size`` (heap, TOAST and indexes)
after ``VACUUM (ANALYZE)``.

    python bench/citus_sizing.py                    # 300 documents of 10 beliefs (3,000 beliefs)
    python bench/citus_sizing.py --docs 30 --json   # {"beliefs": ..., "tables": {name: {...}}, ...}
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import psycopg
from _common import arguments, database, log, machine, print_json
from psycopg import sql

import beliefdb
from beliefdb.store import ingest

SIZES = """
select c.relname as name,
       pg_total_relation_size(c.oid) as total_bytes,
       pg_relation_size(c.oid) as heap_bytes,
       pg_indexes_size(c.oid) as index_bytes
  from pg_class c
 where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r'
 order by c.relname
"""


def load(url: str, docs: int, per_doc: int) -> None:
    with beliefdb.connect(url) as db:
        for d in range(docs):
            lines = [f"Product {d}-{i} price: {(d * 7 + i * 3) % 500} EUR" for i in range(per_doc)]
            # embedded in batches at the end (the same rows; much faster than ten at a time)
            report = ingest.ingest_text(db.database, "\n".join(lines) + "\n",
                                        ingest.SourceOptions(name=f"catalog-{d}"), embed=False)
            ids = [a.id for a in report.accepted]
            if d % 5 == 0:
                changed = [f"Product {d}-{i} price: {(d * 7 + i * 3) % 500 + 1} EUR" if i < 3 else line
                           for i, line in enumerate(lines)]
                ingest.ingest_text(db.database, "\n".join(changed) + "\n",
                                   ingest.SourceOptions(name=f"catalog-{d}"), embed=False)
            decision = db.decide(f"price list {d} is usable", because=ids[3:5])
            if d % 2 == 0:
                db.act(decision.id, f"publish price list {d}")
            if d % 20 == 0:
                db.apply_correction(ids[5], f"Product {d}-5 costs 99 EUR.", reviewer="reviewer", expect_revision=1,
                                    value="99 EUR", reason="checked the shelf")
            if (d + 1) % 50 == 0:
                log(f"{d + 1} documents")
        log("embedding")
        db.embed()


def measure(url: str) -> dict[str, Any]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("vacuum (analyze)")
        tables: dict[str, dict[str, Any]] = {}
        for name, total, heap, index in conn.execute(SIZES).fetchall():
            rows = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(
                sql.Identifier(name))).fetchone()
            assert rows is not None
            tables[name] = {"rows": rows[0], "total_bytes": total, "heap_bytes": heap, "index_bytes": index}
        database_row = conn.execute("select pg_database_size(current_database())").fetchone()
        assert database_row is not None
    beliefs = tables["belief"]["rows"]
    for t in tables.values():
        t["rows_per_belief"] = round(t["rows"] / beliefs, 3)
        t["bytes_per_row"] = round(t["total_bytes"] / t["rows"]) if t["rows"] else None
        t["bytes_per_belief"] = round(t["total_bytes"] / beliefs)
    workspace_bytes = sum(t["total_bytes"] for n, t in tables.items() if n not in _GLOBAL)
    return {"beliefs": beliefs, "tables": tables, "workspace_bytes": workspace_bytes,
            "bytes_per_belief": round(workspace_bytes / beliefs), "database_bytes": database_row[0],
            "machine": machine()}


_GLOBAL = {"workspace", "confidence_policy", "confidence_half_life", "error_code", "alembic_version"}


def main(argv: Sequence[str] | None = None) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--docs", type=int, default=300, help="documents to ingest (default 300)")
    parser.add_argument("--per-doc", type=int, default=10, help="beliefs per document (default 10, at least 6)")
    args = parser.parse_args(argv)
    if args.per_doc < 6 or args.docs < 1:
        parser.error("--docs must be at least 1 and --per-doc at least 6")
    with database(args.db, "beliefdb-sizing-") as url:
        log(f"loading {args.docs} documents of {args.per_doc} beliefs")
        load(url, args.docs, args.per_doc)
        report = measure(url)
    if args.json:
        print_json(report)
        return 0
    print(f"{report['beliefs']} beliefs, {report['bytes_per_belief']} bytes of workspace tables per belief")
    print(f"{'table':<26}{'rows':>9}{'per belief':>12}{'bytes/row':>11}{'bytes/belief':>14}")
    for name, t in sorted(report["tables"].items(), key=lambda kv: -kv[1]["total_bytes"]):
        print(f"{name:<26}{t['rows']:>9}{t['rows_per_belief']:>12}{t['bytes_per_row'] or '-':>11}"
              f"{t['bytes_per_belief']:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
