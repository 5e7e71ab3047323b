"""A small workspace's ``recall`` and ``recall_fragments`` read its own rows, not what other workspaces
store with the question's words: the text and name indexes hold every workspace's rows, and a bitmap
scan of them handed over all of the neighbours' matches to be dropped by the workspace test (a user
trial: 91,577 rows read to keep 25 of a workspace of 96, 1 ms alone, 160-300 ms beside two of 50,000;
the fallback scanned the whole fragment table). Checked on the rows the plans read (auto_explain),
not on time, and on the answers, the same alone and beside the neighbours."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from plans import capture_plans, rows_read

import beliefdb
from beliefdb.store import workspaces

NEIGHBOUR = 3000  # beliefs and fragments of the other workspace, every one with the question's words


def add_neighbour(db_url: str, n: int = NEIGHBOUR) -> None:
    """A workspace "neighbour" of n current beliefs about products, each with a line of a document
    no belief quotes that says the same; written as a superuser with the triggers off, as the
    benchmark's filler, its ranking statistics counted after."""
    workspace_id = workspaces.create_workspace(db_url, "neighbour").id
    with psycopg.connect(db_url) as conn:
        conn.execute("set session_replication_role = replica")
        conn.execute("""
            create temp table filler on commit drop as
            select pg_catalog.gen_random_uuid() as id, pg_catalog.gen_random_uuid() as fragment, g,
                   'Note ' || g || ': the kettle product ' || g || ' shipped to a customer in Porto.' as line
              from generate_series(1, %(n)s) g""", {"n": n})
        conn.execute("""
            insert into beliefdb.node (workspace_id, id, kind, holds, current)
            select %(ws)s, f.id, 'belief'::beliefdb.node_kind, true, true from filler f
            union all
            select %(ws)s, f.fragment, 'fragment'::beliefdb.node_kind, true, true from filler f""",
                     {"ws": workspace_id})
        conn.execute("""
            insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value, confidence, status,
                                         owner, sha256)
            select %(ws)s, x.id, x.statement, x.subject, 'price', x.value, 0.8, 'current', 'test',
                   beliefdb.belief_sha256(x.statement, x.subject, 'price', x.value, 'fact', '{}', '(,)', 'production')
              from (select f.id, 'The kettle product ' || f.g || ' costs ' || f.g || ' euros.' as statement,
                           'kettle_product_' || f.g as subject, f.g || ' euros' as value
                      from filler f) x""", {"ws": workspace_id})
        conn.execute("""
            with doc as (select pg_catalog.gen_random_uuid() as source, pg_catalog.gen_random_uuid() as version,
                                string_agg(f.line || E'\\n', '' order by f.g) as content from filler f),
                 s as (insert into beliefdb.source (workspace_id, id, name, owner)
                       select %(ws)s, d.source, 'notes.md', 'test' from doc d),
                 v as (insert into beliefdb.source_version (workspace_id, id, source_id, version, content, sha256)
                       select %(ws)s, d.version, d.source, 1, d.content, sha256(convert_to(d.content, 'UTF8'))
                         from doc d)
            insert into beliefdb.fragment (workspace_id, id, source_version_id, start_offset, end_offset, text)
            select %(ws)s, f.fragment, d.version, f.stop - length(f.line) - 1, f.stop - 1, f.line
              from (select f.*, sum(length(f.line) + 1) over (order by f.g) as stop from filler f) f
             cross join doc d""", {"ws": workspace_id})
        conn.execute("set session_replication_role = origin")
        conn.commit()
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select beliefdb._refresh_ranking_stats(%s)", (workspace_id,))
        conn.execute("analyze beliefdb.belief, beliefdb.fragment")


def searched(db_url: str, workspace_id: str, question: str,
             plans: list[dict[str, Any]]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """recall (text only) and recall_fragments as the application role, the plans of the statements
    they run, with the rows each node read, appended to ``plans``."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        capture_plans(conn, plans, seqscan=True, analyze=True)
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("set role beliefdb_app")
        beliefs = conn.execute("select * from beliefdb.recall(%s, null, null, 5)", (question,)).fetchall()
        fragments = conn.execute("select * from beliefdb.recall_fragments(%s, 5)", (question,)).fetchall()
    return [tuple(r) for r in beliefs], [tuple(r) for r in fragments]


@pytest.mark.slow
def test_a_small_workspace_reads_its_own_rows_beside_a_large_one(db_url: str, bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("The kettle product costs 40 euros.", "kettle_product", "price", "40 euros",
                 "The kettle product costs 40 euros.", source="catalogue.md",
                 text="The kettle product costs 40 euros.\n", authority="official")
    bdb.remember("Customer Ines Moreau bought the kettle product.", "customer_ines_moreau", "bought",
                 "kettle product", "Customer Ines Moreau bought the kettle product.", source="crm-notes",
                 text="Customer Ines Moreau bought the kettle product.\n", authority="user")
    bdb.ingest_text("The kettle product ships from Porto on Mondays.\n", source="shipping.md", extractor="none")
    question = "Which kettle product does customer Ines Moreau have?"
    alone = searched(db_url, bdb.database.workspace_id, question, [])
    assert {r[0] for r in alone[0]} and len(alone[1]) == 1  # both beliefs; the shipping line

    add_neighbour(db_url)
    plans: list[dict[str, Any]] = []
    assert searched(db_url, bdb.database.workspace_id, question, plans) == alone
    [recall] = [p["Plan"] for p in plans if "text_found as" in p["Query Text"]]
    [fragments] = [p["Plan"] for p in plans if "f0.search @@" in p["Query Text"]
                   and "recall_fragments" not in p["Query Text"]]
    # the workspace's 2 beliefs and 3 fragments (each read once more by its key), not the neighbour's
    # 3,000 of each, every one with "kettle" and "product" (read, then dropped by the workspace test)
    read = rows_read(recall, "belief", filtered=True), rows_read(fragments, "fragment", filtered=True)
    assert read[0] <= 20 and read[1] <= 20, read
