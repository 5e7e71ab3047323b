"""Many workspaces in one database: does a small workspace's ``recall``, ``recall_fragments`` and
``ask`` slow down with what the other workspaces store?

    python bench/tenants.py [--small N] [--small-beliefs B] [--large N] [--large-beliefs B]
                            [--asked-beliefs B] [--runs R] [--json] [--db URL]

One process, one database. A small workspace (``--asked-beliefs`` beliefs, default 96, and a
document of as many lines, whose fragments no belief quotes) is loaded and its questions are timed
alone; then ``--small`` other workspaces of that size (default 1,000) and ``--large`` workspaces of
``--large-beliefs`` (default 2 of 50,000) are loaded beside it, with the same words ("product",
"customer", "price" ...), the planner statistics gathered again, and the same questions timed
again. Every workspace is written by server-side ``insert ... select`` from ``generate_series`` as a
superuser with ``session_replication_role = replica`` (nodes, beliefs, one source, its version and
its fragments; the ranking statistics counted in one statement), as ``tests/test_retrieval_speed``
writes its filler.

Timed, as the application role bound to the asked workspace, ``--runs`` calls each (default 50):
``beliefdb.recall(question, null, null, 5, null, '{}', 0, false, null)`` (text only),
``beliefdb.recall_fragments(question, 5)`` and ``ask`` (``beliefdb.store.retrieve.ask``, k = 5,
text only: no embedding model is recorded). Reported: p50 alone, p50 with the neighbours, their
ratio, and whether every answer is the same alone and with the neighbours (it must be; ``rows_found``
counts the rows recall and recall_fragments gave alone).

Without ``--db`` a throw-away embedded server is started, and stopped and deleted at the end.
Progress goes to stderr; the report (or, with ``--json``, one JSON object) to stdout.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/: _common

from _common import arguments, database, log, machine, ms_since, print_json

from beliefdb.db.connector import Database
from beliefdb.store import retrieve
from beliefdb.store.workspaces import create_workspace

QUESTIONS = ("which product?", "What does the kettle product cost?", "Which customer lives in Porto?")
RECALL = "select * from beliefdb.recall(%s, null, null, 5, null, '{}', 0, false, null)"
FRAGMENTS = "select * from beliefdb.recall_fragments(%s, 5)"

# n beliefs (and document lines) for each workspace of the temp table ws (id, n): statements with
# words every workspace shares, subjects and values that vary with the row
LOAD = """
create temp table row_ on commit drop as
select w.id as ws, g, pg_catalog.gen_random_uuid() as belief, pg_catalog.gen_random_uuid() as fragment,
       (array['kettle', 'router', 'monitor', 'printer', 'toaster', 'blender', 'drill', 'ladder'])[1 + g % 8]
           as thing,
       (array['Porto', 'Leeds', 'Graz', 'Cork', 'Brno', 'Turin'])[1 + g % 6] as city
  from ws w cross join lateral generate_series(1, w.n) g;

insert into beliefdb.node (workspace_id, id, kind, holds, current)
select r.ws, r.belief, 'belief'::beliefdb.node_kind, true, true from row_ r
union all
select r.ws, r.fragment, 'fragment'::beliefdb.node_kind, true, true from row_ r;

insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, confidence, status, owner,
                             sha256)
select x.ws, x.belief, x.statement, x.subject, x.attribute, x.value, 0.8, 'current', 'bench',
       beliefdb.belief_sha256(x.statement, x.subject, x.attribute, x.value, 'fact', '{}', '(,)', 'production')
  from (select r.ws, r.belief,
               case when r.g % 2 = 0 then 'The ' || r.thing || ' product ' || r.g || ' costs ' || r.g % 300
                                          || ' euros.'
                    else 'Customer ' || r.g || ' of the ' || r.thing || ' product lives in ' || r.city || '.' end
                   as statement,
               case when r.g % 2 = 0 then r.thing || '_' || r.g else 'customer_' || r.g end as subject,
               case when r.g % 2 = 0 then 'price' else 'city' end as attribute,
               case when r.g % 2 = 0 then r.g % 300 || ' euros' else r.city end as value
          from row_ r) x;

create temp table line_ on commit drop as
select r.ws, r.g, r.fragment,
       'Note ' || r.g || ': the ' || r.thing || ' product was shipped to a customer in ' || r.city || '.' as text
  from row_ r;

create temp table doc_ on commit drop as
select l.ws, pg_catalog.gen_random_uuid() as source, pg_catalog.gen_random_uuid() as version,
       string_agg(l.text || E'\\n', '' order by l.g) as content
  from line_ l group by l.ws;

insert into beliefdb.source (workspace_id, id, name, owner)
select d.ws, d.source, 'notes.md', 'bench' from doc_ d;

insert into beliefdb.source_version (workspace_id, id, source_id, version, content, sha256)
select d.ws, d.version, d.source, 1, d.content, sha256(convert_to(d.content, 'UTF8')) from doc_ d;

insert into beliefdb.fragment (workspace_id, id, source_version_id, start_offset, end_offset, text)
select l.ws, l.fragment, d.version, l.stop - length(l.text) - 1, l.stop - 1, l.text
  from (select l.*, sum(length(l.text) + 1) over (partition by l.ws order by l.g) as stop from line_ l) l
  join doc_ d on d.ws = l.ws;

insert into beliefdb.lexeme_frequency (workspace_id, lexeme, beliefs)
select b.workspace_id, l.lexeme, count(*)
  from beliefdb.belief b
  join ws w on w.id = b.workspace_id
 cross join lateral unnest(tsvector_to_array(b.search)) as l (lexeme)
 group by b.workspace_id, l.lexeme
"""


def load(url: str, workspaces: list[tuple[str, int]]) -> None:
    """Write ``n`` beliefs and a document of ``n`` lines into each (workspace id, n)."""
    t0 = time.perf_counter()
    with psycopg.connect(url) as conn:
        conn.execute("set session_replication_role = replica")
        conn.execute("create temp table ws (id uuid, n integer) on commit drop")
        with conn.cursor() as cur, cur.copy("copy ws (id, n) from stdin") as copy:
            for row in workspaces:
                copy.write_row(row)
        for statement in LOAD.split(";\n\n"):
            conn.execute(statement)
        conn.execute("set session_replication_role = origin")
        conn.commit()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("analyze")
    log(f"  {sum(n for _, n in workspaces):,} beliefs and fragments in {len(workspaces):,} workspaces"
        f" in {time.perf_counter() - t0:.1f} s")


def new_workspaces(url: str, prefix: str, count: int) -> list[str]:
    """``count`` new workspaces (as ``beliefdb workspace create`` makes each), their ids."""
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("insert into beliefdb.workspace (name) select %s || g from generate_series(1, %s) g "
                            "returning id", (prefix, count)).fetchall()
    return [str(r[0]) for r in rows]


def measure(url: str, workspace: str, runs: int) -> tuple[dict[str, float], list[Any]]:
    """p50 (ms) of recall, recall_fragments and ask for each question, and every answer."""
    times: dict[str, list[float]] = {"recall": [], "recall_fragments": [], "ask": []}
    answers: list[Any] = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace,))
        conn.execute("set role beliefdb_app")
        for name, query in (("recall", RECALL), ("recall_fragments", FRAGMENTS)):
            for question in QUESTIONS:
                answers.append(conn.execute(query, (question,)).fetchall())  # (warm: plans cached)
                for _ in range(runs):
                    t0 = time.perf_counter()
                    conn.execute(query, (question,)).fetchall()
                    times[name].append(ms_since(t0))
    db = Database(url, "tenant-asked")
    try:
        for question in QUESTIONS:
            result = retrieve.ask(db, question)
            answers.append(([a.belief.id for a in result.beliefs], result.context))
            for _ in range(runs):
                t0 = time.perf_counter()
                retrieve.ask(db, question)
                times["ask"].append(ms_since(t0))
    finally:
        db.close()
    return {name: round(statistics.median(values), 3) for name, values in times.items()}, answers


def main(argv: list[str] | None = None) -> int:
    parser = arguments(__doc__, json_help="print one JSON object: {\"alone_p50_ms\", \"neighbours_p50_ms\", "
                                          "\"ratio\", \"same_answers\", ...}")
    parser.add_argument("--small", type=int, default=1000, help="small neighbour workspaces (default 1,000)")
    parser.add_argument("--small-beliefs", type=int, default=96, help="beliefs of each small workspace (default 96)")
    parser.add_argument("--large", type=int, default=2, help="large neighbour workspaces (default 2)")
    parser.add_argument("--large-beliefs", type=int, default=50_000,
                        help="beliefs of each large workspace (default 50,000)")
    parser.add_argument("--asked-beliefs", type=int, default=96,
                        help="beliefs of the workspace asked (default 96; 50,000: a large one alone, with --small 0"
                             " --large 0)")
    parser.add_argument("--runs", type=int, default=50, help="timed calls per question (default 50)")
    args = parser.parse_args(argv)
    t_start = time.perf_counter()
    with database(args.db, "beliefdb-tenants-") as url:
        asked = str(create_workspace(url, "tenant-asked").id)
        log(f"loading the asked workspace ({args.asked_beliefs:,} beliefs)")
        load(url, [(asked, args.asked_beliefs)])
        log("timing it alone")
        alone, answers_alone = measure(url, asked, args.runs)
        log(f"loading {args.small:,} small and {args.large} large neighbours")
        small = new_workspaces(url, "tenant-small-", args.small)
        large = new_workspaces(url, "tenant-large-", args.large)
        load(url, [(w, args.small_beliefs) for w in small] + [(w, args.large_beliefs) for w in large])
        log("timing it beside them")
        beside, answers_beside = measure(url, asked, args.runs)
        with psycopg.connect(url) as conn:
            totals = conn.execute("select (select count(*) from beliefdb.belief),"
                                  " (select count(*) from beliefdb.fragment)").fetchone() or (0, 0)
    report = {
        "asked_beliefs": args.asked_beliefs, "small": args.small, "small_beliefs": args.small_beliefs,
        "large": args.large, "large_beliefs": args.large_beliefs, "beliefs": totals[0],
        "fragments": totals[1], "runs": args.runs, "questions": list(QUESTIONS),
        "alone_p50_ms": alone, "neighbours_p50_ms": beside,
        "ratio": {name: round(beside[name] / alone[name], 2) for name in alone},
        "same_answers": answers_alone == answers_beside,
        # (rows recall and recall_fragments gave, alone: the answers compared are not empty)
        "rows_found": sum(len(a) for a in answers_alone[:2 * len(QUESTIONS)]),
        "total_s": round(time.perf_counter() - t_start, 1), "machine": machine(),
    }
    if args.json:
        print_json(report)
        return 0
    print(f"{totals[0]:,} beliefs, {totals[1]:,} fragments; the asked workspace has {args.asked_beliefs:,}")
    for name in alone:
        print(f"{name:17} p50 alone {alone[name]:8.3f} ms   beside the others {beside[name]:8.3f} ms"
              f"   x{report['ratio'][name]}")
    print(f"same answers alone and beside the others: {report['same_answers']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
