"""The vector index recall orders by (issue 21): HNSW while a dimension has few vectors, IVFFlat
trained on the stored vectors from 20,000 on (beliefdb.ensure_vector_index), and recall's truth
filter exact over either. Why IVFFlat: docs/benchmarks.md, "Recall of the vector path (issue 21)"."""

from __future__ import annotations

import json
import re
import secrets
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo
from test_retrieval import V33, Q, policy_story

import beliefdb
from beliefdb.embedders import get_embedder
from beliefdb.store import vectors as embeddings

INDEXES = """
    select c.relname, am.amname, c.reloptions
      from pg_catalog.pg_index i
      join pg_catalog.pg_class c on c.oid = i.indexrelid
      join pg_catalog.pg_am am on am.oid = c.relam
     where i.indrelid = 'beliefdb.belief_embedding'::regclass and am.amname in ('hnsw', 'ivfflat')
     order by 1"""

# recall's vector query over an IVFFlat index on halfvec (beliefdb._vector_candidates, its inner
# search before the exact re-rank) with its settings, for EXPLAIN
VECTOR_QUERY = """
    explain (format json)
    select e.belief_id, e.embedding::beliefdb_ext.vector(384) operator(beliefdb_ext.<=>) %(q)s::beliefdb_ext.vector(384)
      from beliefdb.belief_embedding e
      join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
     where e.workspace_id = %(ws)s and e.model = %(model)s and beliefdb_ext.vector_dims(e.embedding) = 384
       and b.confidence >= 0 and beliefdb.recallable(b, null, '{}', false)
     order by e.embedding::beliefdb_ext.halfvec(384) operator(beliefdb_ext.<=>) %(q)s::beliefdb_ext.halfvec(384)
     limit 160"""

# what an IVFFlat index is built over: its operator class
OPCLASS = """
    select oc.opcname from pg_catalog.pg_index i join pg_catalog.pg_opclass oc on oc.oid = i.indclass[0]
     where i.indexrelid = 'beliefdb.belief_embedding_ivf_384'::regclass"""

IDX_SCANS = "select idx_scan from pg_catalog.pg_stat_user_indexes where indexrelname = 'belief_embedding_ivf_384'"


class _AnySeconds:
    """Equal to any duration in seconds (a float at least 0): what a report's ``seconds`` may be."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, float | int) and other >= 0

    def __hash__(self) -> int:
        return 0


ANY_SECONDS = _AnySeconds()


def vector_indexes(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    return conn.execute(INDEXES).fetchall()


def test_a_small_store_keeps_its_hnsw_index(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    assert postgresql.execute("select beliefdb.ensure_vector_index(384)").fetchone() == (False,)
    assert vector_indexes(postgresql) == [("belief_embedding_hnsw_384", "hnsw", None)]


def test_an_invalid_number_of_lists_changes_nothing(postgresql: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.Error, match="invalid number of lists 0") as raised:
        postgresql.execute("select beliefdb._build_vector_index(384, 0)")
    assert raised.value.sqlstate == "BD005"
    postgresql.rollback()
    assert vector_indexes(postgresql) == [("belief_embedding_hnsw_384", "hnsw", None)]


@pytest.mark.slow
def test_recall_orders_by_the_ivfflat_index_and_keeps_the_truth_filter(
        db_url: str, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    policy_story(db_url)  # 7 days (v3.2), superseded by 15 days (v3.3)
    postgresql.execute("select beliefdb._build_vector_index(384, 2)")
    postgresql.commit()
    assert vector_indexes(postgresql) == [("belief_embedding_ivf_384", "ivfflat", ["lists=2"])]
    assert postgresql.execute(OPCLASS).fetchone() == ("halfvec_cosine_ops",)
    model = get_embedder().model
    question = embeddings.literal(get_embedder().query("Returns are accepted within 7 days of delivery."))
    with bdb.database.transaction() as c:
        c.execute("select set_config('enable_sort', 'off', true), set_config('ivfflat.probes', '80', true), "
                  "set_config('ivfflat.iterative_scan', 'relaxed_order', true)")
        row = c.execute(VECTOR_QUERY, {"ws": bdb.database.workspace_id, "model": model, "q": question}).fetchone()
    assert row is not None and "belief_embedding_ivf_384" in json.dumps(row[0])
    before = postgresql.execute(IDX_SCANS).fetchone()
    # the stale belief is the nearest vector to this question, and never comes back
    with bdb.database.transaction() as c:
        # (a workspace this small is searched exactly unless the setting says otherwise)
        c.execute("select set_config('beliefdb.exact_vector_search_max', '0', true)")
        rows = c.execute("select b.value, r.vector_rank from beliefdb.recall(%s, %s::beliefdb_ext.vector, %s, 10) r "
                         "join beliefdb.belief b on b.id = r.belief_id",
                         ("Returns are accepted within 7 days of delivery.", question, model)).fetchall()
        # the halfvec order re-ranked by the full-precision distance: similarities are exact
        sims = c.execute("""
            select r.similarity, 1 - (e.embedding operator(beliefdb_ext.<=>) %s::beliefdb_ext.vector)
              from beliefdb.recall(%s, %s::beliefdb_ext.vector, %s, 10) r
              join beliefdb.belief_embedding e on e.belief_id = r.belief_id
             where r.vector_rank is not null
             order by r.vector_rank""",
                         (question, "Returns are accepted within 7 days of delivery.", question, model)).fetchall()
        c.execute("select pg_catalog.pg_stat_force_next_flush()")
        # 80 lists, and when the truth filter rejects what they hold at most 320: a filter nothing
        # passes does not read the whole store
        probes = c.execute("select current_setting('ivfflat.probes'), current_setting('ivfflat.max_probes'), "
                           "current_setting('ivfflat.iterative_scan')").fetchone()
    assert probes == ("80", "320", "relaxed_order")
    assert ("15 days", 1) in rows and all(value != "7 days" for value, _ in rows)
    assert sims and all(got == exact for got, exact in sims)
    assert [got for got, _ in sims] == sorted((got for got, _ in sims), reverse=True)
    # and recall's own vector search went through the IVFFlat index (statistics flushed when its
    # session went idle)
    for _ in range(50):
        postgresql.execute("select pg_catalog.pg_stat_clear_snapshot()")
        after = postgresql.execute(IDX_SCANS).fetchone()
        if after != before:
            break
        time.sleep(0.1)
    assert before is not None and after is not None and after[0] > before[0]
    answer = bdb.ask(Q)
    assert answer.beliefs[0].belief.value == "15 days" and "vector" in answer.beliefs[0].matched_by


def test_a_small_workspace_is_searched_exactly_in_a_shared_index(
        db_url: str, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    policy_story(db_url)
    postgresql.execute("select beliefdb._build_vector_index(384, 2)")
    postgresql.commit()
    model = get_embedder().model
    question = embeddings.literal(get_embedder().query("Returns are accepted within 7 days of delivery."))
    query = ("select array_agg(c.belief_id order by c.rank), array_agg(c.similarity order by c.rank)"
             " from beliefdb._vector_candidates(%s::beliefdb_ext.vector, %s, %s, 0, null, '{}', false, 10, 0) c")
    exact = postgresql.execute(
        "select array_agg(e.belief_id order by e.embedding operator(beliefdb_ext.<=>) %s::beliefdb_ext.vector),"
        " array_agg(1 - (e.embedding operator(beliefdb_ext.<=>) %s::beliefdb_ext.vector)"
        "           order by e.embedding operator(beliefdb_ext.<=>) %s::beliefdb_ext.vector)"
        " from beliefdb.belief_embedding e join beliefdb.belief b on b.id = e.belief_id"
        " where b.status = 'current'", (question, question, question)).fetchone()
    before = postgresql.execute(IDX_SCANS).fetchone()
    got = postgresql.execute(query, (question, bdb.database.workspace_id, model)).fetchone()
    assert got == exact  # every current belief, nearest first, with its exact similarity
    postgresql.execute("select pg_catalog.pg_stat_force_next_flush()")
    postgresql.commit()
    postgresql.execute("select pg_catalog.pg_stat_clear_snapshot()")
    assert postgresql.execute(IDX_SCANS).fetchone() == before  # (the index was not read)


@pytest.mark.slow
def test_ensure_vector_index_switches_to_ivfflat_from_20000_vectors(postgresql: psycopg.Connection[Any]) -> None:
    # vectors only (their beliefs' foreign key is not checked in replica mode): the index's decision
    # depends on how many vectors a dimension has. Loaded without the HNSW index, as a bulk load is
    # (20,000 graph inserts take minutes on 2 cores)
    postgresql.execute("drop index beliefdb.belief_embedding_hnsw_384")
    postgresql.execute("set session_replication_role = replica")
    postgresql.execute("""
        insert into beliefdb.belief_embedding (workspace_id, belief_id, model, embedding)
        select pg_catalog.gen_random_uuid(), pg_catalog.gen_random_uuid(), 'test/random',
               array(select pg_catalog.random() - 0.5 from pg_catalog.generate_series(1, 384) d
                      where g > 0)::real[]::beliefdb_ext.vector
          from pg_catalog.generate_series(1, 20000) g""")
    postgresql.execute("set session_replication_role = origin")
    assert postgresql.execute("select beliefdb.ensure_vector_index(384)").fetchone() == (True,)
    assert vector_indexes(postgresql) == [("belief_embedding_ivf_384", "ivfflat", ["lists=200"])]
    assert postgresql.execute(OPCLASS).fetchone() == ("halfvec_cosine_ops",)
    # made for this size: kept until the store has grown 4 times
    assert postgresql.execute("select beliefdb.ensure_vector_index(384)").fetchone() == (False,)
    assert vector_indexes(postgresql) == [("belief_embedding_ivf_384", "ivfflat", ["lists=200"])]
    # an IVFFlat index over full vectors (as ensure_vector_index built them before halfvec) is
    # rebuilt over halfvec, whatever its lists
    postgresql.execute("drop index beliefdb.belief_embedding_ivf_384")
    postgresql.execute("""
        create index belief_embedding_ivf_384 on beliefdb.belief_embedding
         using ivfflat ((embedding::beliefdb_ext.vector(384)) beliefdb_ext.vector_cosine_ops) with (lists = 200)
         where beliefdb_ext.vector_dims(embedding) = 384""")
    assert postgresql.execute("select beliefdb._halfvec_lists(384)").fetchone() == (None,)
    assert postgresql.execute("select beliefdb.ensure_vector_index(384)").fetchone() == (True,)
    assert postgresql.execute(OPCLASS).fetchone() == ("halfvec_cosine_ops",)
    assert postgresql.execute("select beliefdb._halfvec_lists(384)").fetchone() == (200,)


def test_ivfflat_searches_read_12_percent_of_the_lists_and_at_least_2_per_candidate(
        postgresql: psycopg.Connection[Any]) -> None:
    rows = postgresql.execute("""
        select l, beliefdb._ivfflat_probes(l, 40) from unnest('{2,200,1000,2000,4000}'::integer[]) l""").fetchall()
    assert rows == [(2, 80), (200, 80), (1000, 120), (2000, 240), (4000, 480)]


def test_an_ivfflat_index_over_a_dimension_too_large_for_halfvec_is_refused(
        postgresql: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.Error, match="invalid embedding dimension 4001") as raised:
        postgresql.execute("select beliefdb._build_vector_index(4001, 10)")
    assert raised.value.sqlstate == "BD005"
    postgresql.rollback()
    assert vector_indexes(postgresql) == [("belief_embedding_hnsw_384", "hnsw", None)]


@pytest.mark.parametrize("dim", [4001, 5000, 16000])
def test_a_dimension_no_index_takes_is_refused_as_dba_md_says(postgresql: psycopg.Connection[Any], dim: int) -> None:
    """docs/dba.md: "halfvec indexes at most 4,000 dimensions: a larger dimension is refused (BD005)".
    ensure_vector_index(5000) returned false (nothing to do) under 20,000 vectors, and failed only from
    then on; it is refused whatever the store holds, saying why."""
    with pytest.raises(psycopg.Error) as raised:
        postgresql.execute("select beliefdb.ensure_vector_index(%s)", (dim,))
    assert raised.value.sqlstate == "BD005"
    assert raised.value.diag.message_primary == (
        f"embedding dimension {dim} has no vector index: pgvector indexes at most 4,000 dimensions"
        " (IVFFlat over halfvec; HNSW at most 2,000)")
    assert "searches stay exact" in (raised.value.diag.message_hint or "")
    postgresql.rollback()
    # 4,000 is indexed (from 20,000 vectors on; under that, no index yet and nothing to do)
    assert postgresql.execute("select beliefdb.ensure_vector_index(4000)").fetchone() == (False,)
    assert vector_indexes(postgresql) == [("belief_embedding_hnsw_384", "hnsw", None)]


@pytest.mark.slow
def test_the_command_line_gives_each_dimension_its_index_as_the_schema_owner(
        cli: Cli, bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    # the index fits the store: nothing done
    assert cli.json("db", "vector-index") == [
        {"dim": 384, "index": "hnsw", "lists": None, "built": False, "seconds": ANY_SECONDS, "error": None}]
    # gone (a DBA dropped it): made again
    postgresql.execute("drop index beliefdb.belief_embedding_hnsw_384")
    postgresql.commit()
    assert vector_indexes(postgresql) == []
    text = cli("db", "vector-index").output
    assert "dimension 384: hnsw (built in" in text
    assert vector_indexes(postgresql) == [("belief_embedding_hnsw_384", "hnsw", None)]
    # an IVFFlat index and its lists (a store this small keeps what it has)
    postgresql.execute("select beliefdb._build_vector_index(384, 2)")
    postgresql.commit()
    assert cli.json("db", "vector-index", "--dim", "384")[0] | {"seconds": 0} == {
        "dim": 384, "index": "ivfflat", "lists": 2, "built": False, "seconds": 0, "error": None}
    # bad input: one line, nothing changed; the memory comes from BELIEFDB_INDEX_MEMORY too, for the
    # command line and the library alike
    # (named as the caller gave it, not in PostgreSQL's words alone: trial24)
    said = "--memory (or BELIEFDB_INDEX_MEMORY) 'lots' is no memory size PostgreSQL takes for maintenance_work_mem"
    assert said in cli.one_line_error("db", "vector-index", "--memory", "lots")
    assert said in cli.one_line_error("db", "vector-index", env={"BELIEFDB_INDEX_MEMORY": "lots"})
    monkeypatch.setenv("BELIEFDB_INDEX_MEMORY", "lots")
    with pytest.raises(beliefdb.errors.InvalidInput, match="maintenance_work_mem"):
        beliefdb.api.ensure_vector_indexes(url=db_url)
    monkeypatch.delenv("BELIEFDB_INDEX_MEMORY")
    cli("db", "vector-index", "--dim", "0", expect=2)
    # a dimension no model uses: refused, no empty index made for it
    assert cli.one_line_error("db", "vector-index", "--dim", "385") == (
        "error: no workspace's embedding model has 385 dimensions, so an index for it would stay empty; in use: 384")
    assert vector_indexes(postgresql) == [("belief_embedding_ivf_384", "ivfflat", ["lists=2"])]


@pytest.mark.slow
def test_a_dimension_that_fails_is_reported_and_the_others_are_done(
        cli: Cli, bdb: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(V33, source="return-policy.md", authority="official")
    cli("workspace", "create", "wide")
    # a workspace whose model has 3,000 dimensions (pgvector's HNSW takes at most 2,000) and one with
    # more than any index takes
    postgresql.execute("""
        insert into beliefdb.embedding_model (workspace_id, model, dim)
        select id, 'wide-model', 3000 from beliefdb.workspace where name = 'wide'""")
    postgresql.execute("update beliefdb.embedding_model set target_model = 'huge', target_dim = 16001"
                       " where model = 'wide-model'")
    postgresql.commit()
    postgresql.execute("drop index beliefdb.belief_embedding_hnsw_384")
    postgresql.commit()
    result = cli("db", "vector-index", expect=1)
    assert "dimension 384: hnsw (built in" in result.stdout
    assert "dimension 3000: no index, exact search" in result.stdout
    assert result.stderr.strip().startswith("error: dimension 16001: invalid embedding dimension 16001")
    assert len(result.stderr.strip().splitlines()) == 1
    assert vector_indexes(postgresql) == [("belief_embedding_hnsw_384", "hnsw", None)]
    by_dim = {v["dim"]: v for v in cli.json("db", "vector-index", expect=1)}
    assert by_dim[384]["error"] is None and by_dim[3000]["index"] is None and by_dim[3000]["error"] is None
    assert "invalid embedding dimension" in by_dim[16001]["error"]


@pytest.mark.slow
def test_the_command_line_refuses_a_user_that_does_not_own_the_schema(cli: Cli, db_url: str) -> None:
    name, password = f"agent_{secrets.token_hex(4)}", secrets.token_hex(12)
    with psycopg.connect(db_url, autocommit=True) as su:
        su.execute(sql.SQL("create role {} login password {} in role beliefdb_app").format(
            sql.Identifier(name), sql.Literal(password)))
    try:
        err = cli.error("db", "vector-index", "--db", make_conninfo(db_url, user=name, password=password),
                        code="permission_denied")
        assert "schema owner" in err["message"]
    finally:
        with psycopg.connect(db_url, autocommit=True) as su:
            su.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))


def test_a_dimension_no_model_uses_exits_as_operations_md_says(cli: Cli) -> None:
    """docs/operations.md names the exit status of ``db vector-index --dim N`` for a dimension no model
    uses; the command exits with it (the page said 2, a usage error's, where the command exits 1)."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "operations.md").read_text(encoding="utf-8")
    said = re.search(r"refused\s+with the dimensions in use \(exit (\d)\)", page)
    assert said is not None
    result = cli("db", "vector-index", "--dim", "385", expect=int(said.group(1)))
    assert "no workspace's embedding model has 385 dimensions" in result.output
