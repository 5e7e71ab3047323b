"""The schema itself: a fresh migrate equals the canonical sql/, migrating is idempotent, nothing
lands in public, keys lead with workspace_id, everything is commented, and traversals use
their indexes."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import migrate, migrate_script
from beliefdb.db.server import EmbeddedServer

Dump = dict[str, list[tuple[Any, ...]]]

# ---------------------------------------------------------------------------------------------
# Catalog dump of schema beliefdb.
#
# beliefdb.alembic_version is left out everywhere: alembic creates it (and its primary key
# alembic_version_pkc) to remember the revision a database is at; it is bookkeeping of the
# migration tool, not part of the canonical schema, and canonical_sql() rightly has no notion
# of a revision. Everything else in the schema must be identical.
# ---------------------------------------------------------------------------------------------

_EXCLUDED = "alembic_version"

CATALOG_QUERIES: dict[str, str] = {
    "schema": """
        select n.nspname, pg_catalog.pg_get_userbyid(n.nspowner)::text,
               pg_catalog.obj_description(n.oid, 'pg_namespace'),
               array(select a.grantee::regrole::text || ':' || a.privilege_type || ':' || a.is_grantable
                       from pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) a
                      where a.grantee <> 0
                      union all
                     select 'PUBLIC:' || a.privilege_type || ':' || a.is_grantable
                       from pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) a
                      where a.grantee = 0
                      order by 1)::text
          from pg_catalog.pg_namespace n
         where n.nspname = 'beliefdb'
    """,
    "relations": """
        select c.relname, c.relkind::text, pg_catalog.pg_get_userbyid(c.relowner)::text,
               c.relpersistence::text, coalesce(c.reloptions::text, ''),
               c.relrowsecurity, c.relforcerowsecurity, c.relhasindex
          from pg_catalog.pg_class c
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'beliefdb' and c.relname not like 'alembic_version%'
    """,
    "columns": """
        -- (a column's place among the live ones, not its attnum: a column dropped and added again by a
        -- migration leaves a gap the canonical schema does not have, in the same order)
        select c.relname, pg_catalog.row_number() over (partition by a.attrelid order by a.attnum), a.attname,
               pg_catalog.format_type(a.atttypid, a.atttypmod),
               a.attnotnull, coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''),
               a.attidentity::text, a.attgenerated::text,
               coalesce((select co.collname from pg_catalog.pg_collation co
                          where co.oid = a.attcollation), '')
          from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
         where n.nspname = 'beliefdb' and c.relname <> 'alembic_version'
           and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')
           and a.attnum > 0 and not a.attisdropped
    """,
    "constraints": """
        select coalesce(c.relname, t.typname), co.conname, co.contype::text,
               pg_catalog.pg_get_constraintdef(co.oid, true), co.condeferrable, co.condeferred,
               co.convalidated
          from pg_catalog.pg_constraint co
          join pg_catalog.pg_namespace n on n.oid = co.connamespace
          left join pg_catalog.pg_class c on c.oid = co.conrelid
          left join pg_catalog.pg_type t on t.oid = co.contypid
         where n.nspname = 'beliefdb' and coalesce(c.relname, '') <> 'alembic_version'
    """,
    "indexes": """
        select i.tablename, i.indexname, i.indexdef
          from pg_catalog.pg_indexes i
         where i.schemaname = 'beliefdb' and i.tablename <> 'alembic_version'
    """,
    "functions": """
        select p.oid::regprocedure::text, p.prokind::text, p.prosecdef, p.provolatile::text,
               p.proisstrict, p.proleakproof, p.proparallel::text,
               coalesce(p.proconfig::text, ''), pg_catalog.pg_get_userbyid(p.proowner)::text,
               case when p.prokind in ('f', 'p', 'w') then pg_catalog.pg_get_functiondef(p.oid) else '' end
          from pg_catalog.pg_proc p
          join pg_catalog.pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'beliefdb'
    """,
    "function_privileges": """
        select p.oid::regprocedure::text,
               case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end,
               a.privilege_type, a.is_grantable
          from pg_catalog.pg_proc p
          join pg_catalog.pg_namespace n on n.oid = p.pronamespace,
               pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
         where n.nspname = 'beliefdb'
    """,
    "views": """
        select c.relname, pg_catalog.pg_get_viewdef(c.oid, true), coalesce(c.reloptions::text, '')
          from pg_catalog.pg_class c
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'beliefdb' and c.relkind in ('v', 'm')
    """,
    "triggers": """
        select c.relname, t.tgname, pg_catalog.pg_get_triggerdef(t.oid, true), t.tgenabled::text
          from pg_catalog.pg_trigger t
          join pg_catalog.pg_class c on c.oid = t.tgrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'beliefdb' and not t.tgisinternal
    """,
    "policies": """
        select p.tablename, p.policyname, p.permissive, p.roles::text, p.cmd,
               coalesce(p.qual, ''), coalesce(p.with_check, '')
          from pg_catalog.pg_policies p
         where p.schemaname = 'beliefdb'
    """,
    # user-defined types only: not the row type of a table or view, not an array type
    "types": """
        select t.typname, t.typtype::text, pg_catalog.pg_get_userbyid(t.typowner)::text,
               array(select e.enumlabel::text from pg_catalog.pg_enum e
                      where e.enumtypid = t.oid order by e.enumsortorder)::text,
               coalesce(pg_catalog.format_type(t.typbasetype, t.typtypmod), ''), t.typnotnull,
               coalesce(t.typdefault, '')
          from pg_catalog.pg_type t
          join pg_catalog.pg_namespace n on n.oid = t.typnamespace
          left join pg_catalog.pg_class c on c.oid = t.typrelid
         where n.nspname = 'beliefdb'
           and (t.typrelid = 0 or c.relkind = 'c')
           and not exists (select from pg_catalog.pg_type el where el.typarray = t.oid)
    """,
    # every comment on anything that lives in schema beliefdb (tables, columns, views, functions,
    # types, constraints, triggers, policies, indexes) and on the schema itself
    "comments": """
        select o.type, o.identity, d.description
          from pg_catalog.pg_description d,
               pg_catalog.pg_identify_object(d.classoid, d.objoid, d.objsubid) o
         where (o.schema = 'beliefdb' or (o.type = 'schema' and o.identity = 'beliefdb')
                or (d.classoid in ('pg_catalog.pg_trigger'::regclass, 'pg_catalog.pg_policy'::regclass,
                                   'pg_catalog.pg_constraint'::regclass)
                    and o.identity like '%beliefdb.%'))
           and o.identity not like 'beliefdb.alembic_version%'
    """,
    "table_privileges": """
        select c.relname, case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end,
               a.privilege_type, a.is_grantable
          from pg_catalog.pg_class c
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace,
               pg_catalog.aclexplode(coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))) a
         where n.nspname = 'beliefdb' and c.relname not like 'alembic_version%'
    """,
    "column_privileges": """
        select c.relname, at.attname,
               case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end,
               a.privilege_type, a.is_grantable
          from pg_catalog.pg_attribute at
          join pg_catalog.pg_class c on c.oid = at.attrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace,
               pg_catalog.aclexplode(at.attacl) a
         where n.nspname = 'beliefdb' and at.attacl is not null and c.relname <> 'alembic_version'
    """,
    "type_privileges": """
        select t.typname, case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end,
               a.privilege_type, a.is_grantable
          from pg_catalog.pg_type t
          join pg_catalog.pg_namespace n on n.oid = t.typnamespace,
               pg_catalog.aclexplode(coalesce(t.typacl, pg_catalog.acldefault('T', t.typowner))) a
         where n.nspname = 'beliefdb' and t.typrelid = 0
           and not exists (select from pg_catalog.pg_type el where el.typarray = t.oid)
    """,
    # where pgvector and pg_trgm live (wherever that is: schema/02_extensions.sql), that schema's
    # owner, comment and privileges, and the privileges on the extensions' functions
    "extensions": """
        select e.extname, n.nspname, pg_catalog.pg_get_userbyid(n.nspowner)::text,
               coalesce(pg_catalog.obj_description(n.oid, 'pg_namespace'), ''),
               array(select case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end
                            || ':' || a.privilege_type || ':' || a.is_grantable
                       from pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) a
                      order by 1)::text
          from pg_catalog.pg_extension e
          join pg_catalog.pg_namespace n on n.oid = e.extnamespace
         where e.extname in ('vector', 'pg_trgm')
    """,
    "extension_function_privileges": """
        select e.extname, p.oid::regprocedure::text,
               case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end,
               a.privilege_type, a.is_grantable
          from pg_catalog.pg_extension e
          join pg_catalog.pg_depend d on d.refclassid = 'pg_catalog.pg_extension'::regclass and d.refobjid = e.oid
                                     and d.classid = 'pg_catalog.pg_proc'::regclass and d.deptype = 'e'
          join pg_catalog.pg_proc p on p.oid = d.objid,
               pg_catalog.aclexplode(coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))) a
         where e.extname in ('vector', 'pg_trgm')
    """,
    # rows every installation starts with (workspace ids are random, so names only)
    "seed": """
        select 'confidence_policy', factor || '/' || key || '=' || weight::text || ' ' || description
          from beliefdb.confidence_policy
        union all
        select 'workspace', name from beliefdb.workspace
        union all
        select 'error_code', code || ' ' || name || ' ' || meaning from beliefdb.error_code
    """,
}


def catalog_dump(url: str) -> Dump:
    """Every catalog fact about schema beliefdb, as a dict of sorted lists of rows."""
    with psycopg.connect(url, autocommit=True) as conn:
        return {name: sorted(conn.execute(query).fetchall(), key=repr) for name, query in CATALOG_QUERIES.items()}


def dump_difference(a: Dump, b: Dump) -> dict[str, dict[str, list[tuple[Any, ...]]]]:
    """Rows only in a / only in b, per section: what a failure shows."""
    diff: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
    for section in sorted(set(a) | set(b)):
        ra, rb = set(a.get(section, [])), set(b.get(section, []))
        if ra != rb:
            diff[section] = {"only_first": sorted(ra - rb, key=repr), "only_second": sorted(rb - ra, key=repr)}
    return diff


def _admin_url(server: EmbeddedServer) -> str:
    url = server.status().url
    assert url is not None
    return url


def _create_database(admin: str) -> str:
    name = f"scratch_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    return name


def _drop_database(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def scratch_db(embedded_server: EmbeddedServer) -> Iterator[Callable[[], str]]:
    """Create empty scratch databases on the session server; all are dropped at the end."""
    admin = _admin_url(embedded_server)
    created: list[str] = []

    def make() -> str:
        created.append(_create_database(admin))
        return make_conninfo(admin, dbname=created[-1])

    yield make
    for name in created:
        _drop_database(admin, name)


def load_canonical(url: str) -> None:
    """All of sql/ in one execute, one transaction."""
    with psycopg.connect(url) as conn:
        assert not conn.autocommit
        conn.execute(migrate.canonical_sql())
        conn.commit()


# ---------------------------------------------------------------------------------------------
# (a) a fresh migrate equals the canonical schema
# ---------------------------------------------------------------------------------------------


def test_fresh_migrate_equals_canonical_sql(scratch_db: Callable[[], str]) -> None:
    migrated, canonical = scratch_db(), scratch_db()
    migrate.upgrade(migrated)
    load_canonical(canonical)

    a, b = catalog_dump(migrated), catalog_dump(canonical)
    # the dump really covers the schema (an empty dump would compare equal too)
    assert len(a["relations"]) > 20 and len(a["functions"]) > 20 and len(a["policies"]) >= 16
    assert len(a["triggers"]) > 30 and len(a["types"]) >= 9 and len(a["comments"]) > 50
    assert a["column_privileges"], "the insert (name) grant on workspace must show up"
    assert dump_difference(a, b) == {}
    assert a == b


def test_offline_upgrade_sql_builds_the_same_schema(scratch_db: Callable[[], str]) -> None:
    """What `migrate --sql` prints, run by psql-like tools, gives the same schema as migrate."""
    migrated, offline = scratch_db(), scratch_db()
    migrate.upgrade(migrated)
    with psycopg.connect(offline, autocommit=True) as conn:
        conn.execute(migrate_script.upgrade_sql())
    assert dump_difference(catalog_dump(migrated), catalog_dump(offline)) == {}
    assert migrate.current_revision(offline) == migrate.head_revision()


@pytest.mark.parametrize(
    ("change", "section", "needle"),
    [
        ("drop function beliefdb._rivals(uuid, uuid)", "functions", "rivals"),
        ("alter table beliefdb.source drop column retraction_reason", "columns", "retraction_reason"),
        ("comment on table beliefdb.relation is 'changed'", "comments", "changed"),
        ("grant delete on beliefdb.belief_embedding to beliefdb_app", "table_privileges", "DELETE"),
        ("alter table beliefdb.run disable row level security", "relations", "run"),
        ("alter type beliefdb.relation_kind add value 'extra'", "types", "extra"),
        ("drop index beliefdb.justification_consequent", "indexes", "justification_consequent"),
        ("drop trigger belief_node on beliefdb.belief", "triggers", "belief_node"),
        ("drop policy workspace_isolation on beliefdb.step", "policies", "step"),
        ("alter table beliefdb.workspace alter column created_at drop default", "columns", "created_at"),
        ("comment on schema beliefdb_ext is 'changed'", "extensions", "changed"),
        ("revoke execute on function beliefdb_ext.vector_dims(beliefdb_ext.vector) from public",
         "extension_function_privileges", "vector_dims"),
    ],
)
def test_catalog_comparison_can_fail(postgresql: psycopg.Connection[Any], change: str, section: str,
                                     needle: str) -> None:
    """The comparison notices a change in every section it claims to cover."""
    from tests.conftest import url_of

    url = url_of(postgresql)
    before = catalog_dump(url)
    postgresql.execute(change)
    postgresql.commit()
    after = catalog_dump(url)
    diff = dump_difference(before, after)
    assert before != after
    assert section in diff
    assert needle in repr(diff[section])


# ---------------------------------------------------------------------------------------------
# (b) migrate is idempotent
# ---------------------------------------------------------------------------------------------


def test_migrate_is_idempotent(scratch_db: Callable[[], str]) -> None:
    url = scratch_db()
    assert migrate.current_revision(url) is None
    before, after = migrate.upgrade(url)
    assert (before, after) == (None, migrate.head_revision())
    first = catalog_dump(url)
    with psycopg.connect(url, autocommit=True) as conn:
        events = conn.execute("select count(*) from beliefdb.audit_event").fetchone()

    again = migrate.upgrade(url)
    assert again == (migrate.head_revision(), migrate.head_revision())
    assert migrate.current_revision(url) == migrate.head_revision()
    second = catalog_dump(url)
    assert dump_difference(first, second) == {}
    assert first == second
    with psycopg.connect(url, autocommit=True) as conn:
        # re-applying the seed neither duplicates rows nor writes to the audit chain
        assert conn.execute("select count(*) from beliefdb.audit_event").fetchone() == events
        assert conn.execute("select count(*) from beliefdb.workspace").fetchone() == (1,)
        assert conn.execute("select version_num from beliefdb.alembic_version").fetchall() == [
            (migrate.head_revision(),)]


def test_migrate_keeps_what_a_dba_changed(db_url: str) -> None:
    """Re-applying the seed never overwrites a weight a DBA tuned."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("update beliefdb.confidence_policy set weight = 0.42 "
                     "where factor = 'authority' and key = 'official'")
    migrate.upgrade(db_url)
    with psycopg.connect(db_url, autocommit=True) as conn:
        row = conn.execute("select weight from beliefdb.confidence_policy "
                           "where factor = 'authority' and key = 'official'").fetchone()
    assert row is not None and row[0] == pytest.approx(0.42)


# ---------------------------------------------------------------------------------------------
# (c) nothing in public
# ---------------------------------------------------------------------------------------------

PUBLIC_QUERIES = {
    "relations": "select c.relname, c.relkind::text from pg_catalog.pg_class c "
                 "where c.relnamespace = 'public'::regnamespace",
    "functions": "select p.oid::regprocedure::text from pg_catalog.pg_proc p "
                 "where p.pronamespace = 'public'::regnamespace",
    "types": "select t.typname from pg_catalog.pg_type t where t.typnamespace = 'public'::regnamespace",
    "operators": "select o.oprname from pg_catalog.pg_operator o where o.oprnamespace = 'public'::regnamespace",
    "extensions": "select e.extname, e.extnamespace::regnamespace::text from pg_catalog.pg_extension e",
    "schemas": "select n.nspname from pg_catalog.pg_namespace n "
               "where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'",
    "public_acl": "select coalesce(n.nspacl::text, '') from pg_catalog.pg_namespace n where n.nspname = 'public'",
}


def public_dump(url: str) -> Dump:
    with psycopg.connect(url, autocommit=True) as conn:
        return {name: sorted(conn.execute(query).fetchall()) for name, query in PUBLIC_QUERIES.items()}


def test_nothing_is_created_in_public(scratch_db: Callable[[], str]) -> None:
    empty, migrated = scratch_db(), scratch_db()
    migrate.upgrade(migrated)
    fresh, after = public_dump(empty), public_dump(migrated)
    # the only new schemas are beliefdb and its extensions' own; public is exactly as a fresh database
    # has it
    assert after["schemas"] == sorted([*fresh["schemas"], ("beliefdb",), ("beliefdb_ext",)])
    del fresh["schemas"], after["schemas"]
    # the extensions beliefdb needs, absent here, are installed into their own schema, not public
    assert after["extensions"] == sorted([*fresh["extensions"], ("pg_trgm", "beliefdb_ext"),
                                          ("vector", "beliefdb_ext")])
    del fresh["extensions"], after["extensions"]
    assert after == fresh
    assert after["relations"] == [] and after["functions"] == []


# ---------------------------------------------------------------------------------------------
# (d) offline SQL
# ---------------------------------------------------------------------------------------------


def test_upgrade_sql_contains_tables_version_and_functions() -> None:
    text = migrate_script.upgrade_sql()
    lowered = text.lower()
    for table in ("workspace", "node", "source", "source_version", "fragment", "belief", "evidence",
                  "relation", "justification", "justification_antecedent", "audit_event"):
        assert f"create table beliefdb.{table} (" in lowered, table
    # the first revision inserts the version row, each later one moves it on to the head
    head = migrate.head_revision()
    assert "insert into beliefdb.alembic_version (version_num) values ('0001')" in lowered
    assert head == "0001" or f"update beliefdb.alembic_version set version_num='{head}'" in lowered
    for function in ("beliefdb.ingest_version(", "beliefdb._audit_append(", "beliefdb.audit_verify(",
                     "beliefdb.create_node("):
        assert f"create or replace function {function}" in lowered, function
    assert "create policy workspace_isolation" in lowered
    # one transaction, tables before the functions that use them
    assert lowered.lstrip().startswith("begin;") and lowered.rstrip().endswith("commit;")
    assert lowered.index("create table beliefdb.belief (") < lowered.index(
        "create or replace function beliefdb.ingest_version(")


# ---------------------------------------------------------------------------------------------
# (e) keys lead with workspace_id
# ---------------------------------------------------------------------------------------------

# workspace is the tenant itself; confidence_policy is global configuration (no workspace);
# error_code is beliefdb's reference data; alembic_version is the migration tool's bookkeeping.
GLOBAL_TABLES = {"workspace", "confidence_policy", "confidence_half_life", "error_code", "alembic_version"}

KEYS_QUERY = """
    select c.relname, co.conname, co.contype::text,
           (select array_agg(a.attname::text order by k.i)
              from unnest(co.conkey) with ordinality k(attnum, i)
              join pg_catalog.pg_attribute a on a.attrelid = co.conrelid and a.attnum = k.attnum) as cols,
           rc.relname as ref_table,
           (select array_agg(a.attname::text order by k.i)
              from unnest(co.confkey) with ordinality k(attnum, i)
              join pg_catalog.pg_attribute a on a.attrelid = co.confrelid and a.attnum = k.attnum) as ref_cols
      from pg_catalog.pg_constraint co
      join pg_catalog.pg_class c on c.oid = co.conrelid
      left join pg_catalog.pg_class rc on rc.oid = co.confrelid
     where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
       and co.contype in ('p', 'f', 'u')
"""


def keys_not_leading_with_workspace_id(conn: psycopg.Connection[Any]) -> tuple[set[str], list[Any], list[Any]]:
    """(workspace tables, tables without a primary key, keys whose columns do not lead with workspace_id)."""
    rows = conn.execute(KEYS_QUERY).fetchall()
    tables = {r[0] for r in conn.execute(
        "select relname from pg_catalog.pg_class where relnamespace = 'beliefdb'::regnamespace "
        "and relkind in ('r', 'p')").fetchall()}
    workspace_tables = tables - GLOBAL_TABLES
    with_pk = {r[0] for r in rows if r[2] == "p"}
    wrong = []
    for table, name, kind, cols, ref_table, ref_cols in rows:
        if table not in workspace_tables or kind == "u":
            continue
        if cols[0] != "workspace_id":
            wrong.append((table, name, cols))
        # a foreign key also lands on the workspace part of the referenced key
        if kind == "f" and not (ref_cols[0] == "workspace_id" or (ref_table, ref_cols) == ("workspace", ["id"])):
            wrong.append((table, name, ref_table, ref_cols))
    return workspace_tables, sorted(workspace_tables - with_pk), wrong


def test_every_primary_and_foreign_key_leads_with_workspace_id(postgresql: psycopg.Connection[Any]) -> None:
    workspace_tables, without_pk, wrong = keys_not_leading_with_workspace_id(postgresql)
    assert {"belief", "justification_antecedent", "audit_event", "node", "run", "step"} <= workspace_tables
    assert without_pk == []
    assert wrong == []
    fks = postgresql.execute("select count(*) from pg_catalog.pg_constraint where contype = 'f' "
                             "and connamespace = 'beliefdb'::regnamespace").fetchone()
    assert fks is not None and fks[0] > 20


def test_key_check_notices_a_key_without_workspace_id(postgresql: psycopg.Connection[Any]) -> None:
    postgresql.execute("create table beliefdb.note (id uuid primary key, workspace_id uuid not null, "
                       "belief_id uuid, foreign key (workspace_id, belief_id) references beliefdb.belief)")
    postgresql.execute("create table beliefdb.tag (workspace_id uuid not null, name text)")
    _, without_pk, wrong = keys_not_leading_with_workspace_id(postgresql)
    assert without_pk == ["tag"]
    assert [w[:2] for w in wrong] == [("note", "note_pkey")]


def foreign_keys_without_index(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    """(table, constraint) of each foreign key of the schema that no index of its table reads by: a
    delete of a referenced row (a cascade, a set null, or the check that nothing refers to it) then
    reads every row of the workspace for it. An index reads by the key when its leading columns are
    key columns and one of them is more than workspace_id (the key is workspace_id alone: it leads);
    an index led by another column, such as kind, is read by the key only by a skip scan, which
    PostgreSQL 15-17 lack."""
    keys = conn.execute("""
        select c.conrelid::regclass::text, c.conname, c.conrelid,
               array(select a.attname from pg_catalog.pg_attribute a
                      where a.attrelid = c.conrelid and a.attnum = any (c.conkey))
          from pg_catalog.pg_constraint c
         where c.contype = 'f' and c.connamespace = 'beliefdb'::regnamespace order by 1, 2""").fetchall()
    indexes: dict[int, list[list[str]]] = {}
    for rel, cols in conn.execute("""
            select i.indrelid::int, array(select a.attname from unnest(i.indkey::int2[]) with ordinality k(n, o)
                                            join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n
                                           order by k.o)
              from pg_catalog.pg_index i join pg_catalog.pg_class c on c.oid = i.indrelid
             where c.relnamespace = 'beliefdb'::regnamespace""").fetchall():
        indexes.setdefault(rel, []).append(list(cols))

    def reads_by(index: list[str], key: list[str]) -> bool:
        lead: list[str] = []
        for col in index:
            if col not in key:
                break
            lead.append(col)
        return any(c != "workspace_id" for c in lead) or (key == ["workspace_id"] and lead == key)

    return [(table, name) for table, name, rel, key in keys
            if not any(reads_by(index, list(key)) for index in indexes.get(int(rel), []))]


def test_every_foreign_key_is_read_by_an_index(postgresql: psycopg.Connection[Any]) -> None:
    assert foreign_keys_without_index(postgresql) == []


def test_index_check_notices_a_foreign_key_without_one(postgresql: psycopg.Connection[Any]) -> None:
    postgresql.execute("drop index beliefdb.review_item_other_node")
    assert foreign_keys_without_index(postgresql) == [
        ("beliefdb.review_item", "review_item_workspace_id_other_node_fkey")]


def test_every_unique_constraint_includes_workspace_id(postgresql: psycopg.Connection[Any]) -> None:
    """Citus can only enforce a unique key that contains the distribution column."""
    rows = postgresql.execute(KEYS_QUERY).fetchall()
    uniques = [(table, name, cols) for table, name, kind, cols, _, _ in rows
               if kind == "u" and table not in GLOBAL_TABLES]
    assert uniques, "the schema has unique constraints (e.g. source name per workspace)"
    assert [u for u in uniques if u[2][0] != "workspace_id"] == []
    unique_indexes = postgresql.execute("""
        select i.indexrelid::regclass::text, pg_catalog.pg_get_indexdef(i.indexrelid)
          from pg_catalog.pg_index i
          join pg_catalog.pg_class c on c.oid = i.indrelid
         where c.relnamespace = 'beliefdb'::regnamespace and i.indisunique
           and c.relname not in ('workspace', 'confidence_policy', 'confidence_half_life', 'error_code',
                                 'alembic_version')
           and not exists (select from pg_catalog.pg_attribute a
                            where a.attrelid = i.indrelid and a.attnum = i.indkey[0]
                              and a.attname = 'workspace_id')
    """).fetchall()
    assert unique_indexes == []


# ---------------------------------------------------------------------------------------------
# (f) everything is commented
# ---------------------------------------------------------------------------------------------


def test_every_object_has_a_comment(postgresql: psycopg.Connection[Any]) -> None:
    # alembic_version is created by alembic, not by beliefdb (see the catalog dump above)
    uncommented = postgresql.execute("""
        select 'relation', c.relname::text, c.relkind::text
          from pg_catalog.pg_class c
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
           and c.relname <> 'alembic_version'
           and pg_catalog.obj_description(c.oid, 'pg_class') is null
        union all
        select 'function', p.oid::regprocedure::text, p.prokind::text
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace
           and pg_catalog.obj_description(p.oid, 'pg_proc') is null
           -- objects of the extensions installed into schema beliefdb (pgvector, pg_trgm) are theirs
           and not exists (select from pg_catalog.pg_depend d where d.objid = p.oid and d.deptype = 'e')
        union all
        select 'type', t.typname::text, t.typtype::text
          from pg_catalog.pg_type t
          left join pg_catalog.pg_class c on c.oid = t.typrelid
         where t.typnamespace = 'beliefdb'::regnamespace
           and (t.typrelid = 0 or c.relkind = 'c')
           and not exists (select from pg_catalog.pg_type el where el.typarray = t.oid)
           and pg_catalog.obj_description(t.oid, 'pg_type') is null
           and not exists (select from pg_catalog.pg_depend d where d.objid = t.oid and d.deptype = 'e')
        union all
        select 'schema', n.nspname::text, ''
          from pg_catalog.pg_namespace n
         where n.nspname = 'beliefdb' and pg_catalog.obj_description(n.oid, 'pg_namespace') is null
    """).fetchall()
    assert uncommented == []
    counted = postgresql.execute("""
        select (select count(*) from pg_catalog.pg_class c
                 where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'v')),
               (select count(*) from pg_catalog.pg_proc p where p.pronamespace = 'beliefdb'::regnamespace),
               (select count(*) from pg_catalog.pg_type t
                 where t.typnamespace = 'beliefdb'::regnamespace and t.typtype = 'e')
    """).fetchone()
    assert counted is not None and counted[0] > 15 and counted[1] > 20 and counted[2] >= 9


def test_uncommented_object_is_noticed(postgresql: psycopg.Connection[Any]) -> None:
    """The comment check is not vacuous: a new bare function is reported."""
    postgresql.execute("create function beliefdb.bare() returns int language sql as 'select 1'")
    missing = postgresql.execute("""
        select p.oid::regprocedure::text from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace and pg_catalog.obj_description(p.oid, 'pg_proc') is null
           and not exists (select from pg_catalog.pg_depend d where d.objid = p.oid and d.deptype = 'e')
    """).fetchall()
    assert missing == [("beliefdb.bare()",)]


# ---------------------------------------------------------------------------------------------
# (g) traversals use their indexes
# ---------------------------------------------------------------------------------------------

WORKSPACES = 4
NODES_PER_WORKSPACE = 3000
ANTECEDENTS_PER_JUSTIFICATION = 3


def _plan_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _plan_nodes(child)


def _explain(conn: psycopg.Connection[Any], query: sql.Composable, *, generic: bool = False) -> list[dict[str, Any]]:
    """The plan's nodes; ``generic``: the plan a prepared statement reuses ($n parameters unknown)."""
    explain = "explain (format json, generic_plan) " if generic else "explain (format json) "
    row = conn.execute(sql.SQL(explain) + query).fetchone()
    assert row is not None
    doc = row[0] if not isinstance(row[0], str) else json.loads(row[0])
    return list(_plan_nodes(doc[0]["Plan"]))


@pytest.fixture(scope="module")
def big_graph(embedded_server: EmbeddedServer) -> Iterator[tuple[str, list[str]]]:
    """A migrated database whose workspaces each hold thousands of nodes, justifications and
    antecedents (built once for the EXPLAIN tests, which only read it)."""
    admin = _admin_url(embedded_server)
    name = _create_database(admin)
    url = make_conninfo(admin, dbname=name)
    migrate.upgrade(url)
    ids = []
    with psycopg.connect(url) as conn:
        for w in range(WORKSPACES):
            row = conn.execute("insert into beliefdb.workspace (name) values (%s) returning id::text",
                               (f"graph{w}",)).fetchone()
            assert row is not None
            ids.append(row[0])
        n = NODES_PER_WORKSPACE
        conn.execute("""
            insert into beliefdb.node (workspace_id, id, kind)
            select w.id, md5(w.id::text || '/n/' || i)::uuid, 'belief'
              from beliefdb.workspace w, generate_series(0, %(n)s - 1) i
             where w.id = any(%(ids)s::uuid[])
        """, {"n": n, "ids": ids})
        conn.execute("""
            insert into beliefdb.justification (workspace_id, id, consequent)
            select w.id, md5(w.id::text || '/j/' || i)::uuid, md5(w.id::text || '/n/' || i)::uuid
              from beliefdb.workspace w, generate_series(0, %(n)s - 1) i
             where w.id = any(%(ids)s::uuid[])
        """, {"n": n, "ids": ids})
        conn.execute("""
            insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind)
            select w.id, md5(w.id::text || '/j/' || i)::uuid,
                   md5(w.id::text || '/n/' || ((i + 1 + k * 7) %% %(n)s))::uuid, 'supports'
              from beliefdb.workspace w, generate_series(0, %(n)s - 1) i, generate_series(0, %(k)s - 1) k
             where w.id = any(%(ids)s::uuid[])
        """, {"n": n, "k": ANTECEDENTS_PER_JUSTIFICATION, "ids": ids})
        conn.commit()
        conn.execute("analyze beliefdb.node, beliefdb.justification, beliefdb.justification_antecedent")
        conn.commit()
    yield url, ids
    _drop_database(admin, name)


@pytest.fixture
def graph_conn(big_graph: tuple[str, list[str]]) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(big_graph[0], autocommit=True) as conn:
        yield conn


@pytest.mark.slow
def test_antecedent_lookup_uses_its_index(graph_conn: psycopg.Connection[Any],
                                         big_graph: tuple[str, list[str]]) -> None:
    conn = graph_conn
    total = conn.execute("select count(*) from beliefdb.justification_antecedent").fetchone()
    assert total is not None and total[0] >= WORKSPACES * NODES_PER_WORKSPACE * ANTECEDENTS_PER_JUSTIFICATION
    assert conn.execute("show enable_seqscan").fetchone() == ("on",)

    ws = big_graph[1][1]
    antecedent = conn.execute("select md5(%s::text || '/n/' || 42)::uuid", (ws,)).fetchone()
    assert antecedent is not None
    query = sql.SQL("select justification_id from beliefdb.justification_antecedent "
                    "where workspace_id = {} and antecedent = {}").format(sql.Literal(ws), sql.Literal(antecedent[0]))
    nodes = _explain(conn, query)
    assert {n.get("Index Name") for n in nodes} & {"justification_antecedent_antecedent"}, nodes
    assert not [n for n in nodes if n["Node Type"] == "Seq Scan"], nodes
    # the lookup finds exactly the justifications that need this node
    found = conn.execute(query).fetchall()
    assert len(found) == ANTECEDENTS_PER_JUSTIFICATION


def test_consequent_lookup_uses_its_index(graph_conn: psycopg.Connection[Any],
                                        big_graph: tuple[str, list[str]]) -> None:
    conn = graph_conn
    ws = big_graph[1][2]
    consequent = conn.execute("select md5(%s::text || '/n/' || 7)::uuid", (ws,)).fetchone()
    assert consequent is not None
    query = sql.SQL("select id from beliefdb.justification "
                    "where workspace_id = {} and consequent = {}").format(sql.Literal(ws), sql.Literal(consequent[0]))
    nodes = _explain(conn, query)
    assert {n.get("Index Name") for n in nodes} & {"justification_consequent"}, nodes
    assert not [n for n in nodes if n["Node Type"] == "Seq Scan"], nodes
    assert len(conn.execute(query).fetchall()) == 1


def test_generic_plan_of_antecedent_lookup_uses_its_index(graph_conn: psycopg.Connection[Any]) -> None:
    """The plan a prepared traversal reuses ($1, $2 unknown) uses the index too."""
    nodes = _explain(graph_conn, sql.SQL("select justification_id from beliefdb.justification_antecedent "
                                         "where workspace_id = $1 and antecedent = $2"), generic=True)
    assert {n.get("Index Name") for n in nodes} & {"justification_antecedent_antecedent"}, nodes


def test_generic_plan_of_a_closure_level_reads_the_adjacency_index_only(graph_conn: psycopg.Connection[Any]) -> None:
    """Each level of evaluate_closure reads everything about its nodes (standing, edges out,
    justifications) with one index-only scan of beliefdb.adjacency over the level's ids."""
    graph_conn.execute("vacuum beliefdb.adjacency")  # index-only scans need the visibility map
    nodes = _explain(graph_conn, sql.SQL("select node, entry, justification, consequent, unmet, kind, holds, current, "
                                         "retracted from beliefdb.adjacency "
                                         "where workspace_id = $1 and node = any($2::uuid[])"), generic=True)
    assert [(n["Node Type"], n.get("Index Name")) for n in nodes] == [("Index Only Scan", "adjacency_pkey")], nodes


def test_sql_files_are_listed_once_in_the_order_they_apply() -> None:
    """migrate.SQL_FILES is the one list of sql/: every file under it and nothing else, each in one of
    the three sections (schema/, internal/, api/), numbered across them in the order they apply, so
    the file names sort in this order and a reader of sql/ follows the numbers."""
    root = migrate.sql_dir()
    on_disk = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.sql"))
    assert sorted(migrate.SQL_FILES) == on_disk
    parts = [name.split("/") for name in migrate.SQL_FILES]
    assert all(len(p) == 2 and p[0] in ("schema", "internal", "api") for p in parts), parts
    files = [file for _, file in parts]
    assert all(re.fullmatch(r"\d\d_[a-z0-9_]+\.sql", file) for file in files), files
    assert files == sorted(files) and len({file[:2] for file in files}) == len(files), "one number each, in order"
    # schema/, then internal/, then api/, but for what needs another section's objects first: the
    # session functions the tables' defaults call, the API's confidence_factors that the language sql
    # bodies of stored confidence call, and the seed rows (the workspace they add starts its audit
    # chain by trigger)
    ahead_or_behind = {"api/05_session.sql", "api/48_confidence.sql", "schema/90_seed.sql"}
    sections = [name.split("/")[0] for name in migrate.SQL_FILES if name not in ahead_or_behind]
    assert sections == sorted(sections, key=["schema", "internal", "api"].index)
    assert migrate.TABLES_FILE in migrate.SQL_FILES
    reapplied = tuple(n for n in migrate.SQL_FILES if n != migrate.TABLES_FILE)
    assert reapplied == migrate.REAPPLIED_FILES


_FUNCTION = re.compile(r"^create or replace function beliefdb\.(\w+)\(", re.MULTILINE)
_TRIGGER_FUNCTION = re.compile(r"^create or replace function beliefdb\.(\w+)\(\)\s+returns trigger\b", re.MULTILINE)
_GRANTED = re.compile(r"^grant execute on function beliefdb\.(\w+)\(.*\) to beliefdb_app;$", re.MULTILINE)
_GRANTED_TO_READER = re.compile(r"^grant execute on function beliefdb\.(\w+)\(.*\) to beliefdb_reader;$", re.MULTILINE)
PRIVILEGES_FILE = "api/80_privileges.sql"
DBA_TOOLS_FILE = "api/70_dba_tools.sql"


def _created(section: str, pattern: re.Pattern[str] = _FUNCTION) -> dict[str, list[str]]:
    """The functions each file of a section of sql/ creates (as the text says, before any catalog)."""
    return {name: pattern.findall((migrate.sql_dir() / name).read_text(encoding="utf-8"))
            for name in migrate.SQL_FILES if name.startswith(f"{section}/")}


def test_internals_and_the_api_are_filed_apart() -> None:
    """sql/internal/ creates the functions the application never calls: named with a leading
    underscore, or trigger functions; sql/api/ creates no such function, and sql/schema/ none at all.
    The allow-list of the privileges file grants functions of sql/api/ only: all of them but the
    DBA's tools; the reader's, some of those."""
    internal, api = _created("internal"), _created("api")
    internal_names = {f for names in internal.values() for f in names}
    api_names = {f for names in api.values() for f in names}
    triggers = {f for names in _created("internal", _TRIGGER_FUNCTION).values() for f in names}
    assert len(internal_names) > 60 and len(api_names) > 45 and len(triggers) > 15
    assert {f for f in internal_names if not f.startswith("_")} == triggers, "internal/: _name or trigger function"
    assert {f for f in api_names if f.startswith("_")} == set(), "api/: no internal"
    assert {f for names in _created("api", _TRIGGER_FUNCTION).values() for f in names} == set()
    assert _created("schema") == {name: [] for name in migrate.SQL_FILES if name.startswith("schema/")}
    # each function is created in one place
    everywhere = [f for section in ("internal", "api") for names in _created(section).values() for f in names]
    assert len(everywhere) == len(set(everywhere))
    privileges = (migrate.sql_dir() / PRIVILEGES_FILE).read_text(encoding="utf-8")
    granted = _GRANTED.findall(privileges)
    assert len(granted) == len(set(granted)), "one line per function"
    # the reader's allow-list: one line per function too, each one the application role may call
    read = _GRANTED_TO_READER.findall(privileges)
    assert len(read) > 50 and len(read) == len(set(read))
    assert set(read) <= set(granted), sorted(set(read) - set(granted))
    assert len(granted) + len(read) == len(re.findall(r"^grant execute on function ", privileges, re.MULTILINE))
    assert set(granted) <= api_names, sorted(set(granted) - api_names)
    callable_by_the_app = api_names - set(api[DBA_TOOLS_FILE])
    assert set(granted) == callable_by_the_app, sorted(set(granted) ^ callable_by_the_app)
