"""Truth rule 13: workspaces are kept apart by row-level security in the database, whatever SQL
the application role runs, and workspace ids come from the server."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb import errors
from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer
from beliefdb.store.workspaces import create_workspace

# Every table that holds workspace rows (test_every_workspace_table_has_row_level_security
# keeps this list equal to the catalog's).
WORKSPACE_TABLES = (
    "node", "source", "source_version", "fragment", "belief", "evidence", "relation", "justification",
    "justification_antecedent", "decision", "action", "correction", "run", "step", "review_item", "trace_edge",
    "repair", "embedding_model", "belief_embedding", "outcome", "audit_event",
    "audit_head", "adjacency", "redaction", "job", "job_start", "retraction_period", "authority_change",
)
AUDIT_TABLES = ("audit_event", "audit_head")
# workspace tables the application role may not read at all (the servers' bearer tokens, test_tokens.py;
# the workspace each agent's login is bound to, test_robustness_auth.py; the ranking statistics
# recall reads with its owner's rights, test_ranking_stats.py)
UNGRANTED_TABLES = ("api_token", "agent_login", "lexeme_frequency", "audit_key")
VIEWS = ("current_beliefs", "belief_evidence", "belief_history", "holding", "decision_support", "review_queue",
         "fixture_decisions")


@dataclass(frozen=True)
class Tenant:
    """Ids of one workspace's rows, for statements that aim at them."""

    ws: str
    source: str
    version: str
    fragment: str
    old_belief: str
    new_belief: str
    decision: str
    run: str


@dataclass(frozen=True)
class Tenants:
    url: str
    a: Tenant
    b: Tenant


def _populate(url: str, name: str, value: str) -> Tenant:
    """Two sources whose beliefs supersede one another, plus a decision, action, correction, run
    and step (written as superuser: the library does not create those yet)."""
    ws = str(create_workspace(url, name).id)
    with beliefdb.connect(url, workspace=name) as db:
        old = db.remember(f"{name}: returns within 7 days", "return_policy", "window", "7 days",
                          "Returns are accepted within 7 days.", source="chat",
                          text=f"Hello from {name}. Returns are accepted within 7 days.")
        new = db.remember(f"{name}: returns within {value}", "return_policy", "window", value,
                          f"Returns are accepted within {value}.", source="policy",
                          text=f"Returns are accepted within {value}.", authority="official")
        # a fixture belief, which the decision below cites as a decision recorded before decide refused them
        db.ingest_text("Fixture notes.\n", source="fixtures/returns.md", label="fixture")
        (fixture,) = db.remember(f"{name}: returns within 99 days", "fixture_policy", "window", "99 days",
                                 "Returns are accepted within 99 days.", source="fixtures/returns.md",
                                 text="Fixture notes.\nReturns are accepted within 99 days.\n").accepted
    assert len(old.accepted) == 1 and len(new.accepted) == 1
    assert [(s.old, s.new) for s in new.superseded] == [(old.accepted[0].id, new.accepted[0].id)]
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("""
            select s.id::text, v.id::text, f.id::text
              from beliefdb.source s
              join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
              join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id
             where s.workspace_id = %s and s.name = 'policy'
        """, (ws,)).fetchone()
        assert row is not None
        source, version, fragment = row
        decision = conn.execute("insert into beliefdb.decision (workspace_id, title) values (%s, 'refuse 1042') "
                                "returning id::text", (ws,)).fetchone()
        assert decision is not None
        conn.execute("insert into beliefdb.action (workspace_id, decision_id, description) "
                     "values (%s, %s, 'email the customer')", (ws, decision[0]))
        justification = conn.execute("insert into beliefdb.justification (workspace_id, consequent) "
                                     "values (%s, %s) returning id", (ws, decision[0])).fetchone()
        assert justification is not None
        conn.execute("insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, "
                     "edge_kind) values (%s, %s, %s, 'cites'), (%s, %s, %s, 'cites')",
                     (ws, justification[0], str(new.accepted[0].id), ws, justification[0], str(fixture.id)))
        conn.execute("insert into beliefdb.review_item (workspace_id, kind, node, reason) "
                     "values (%s, 'decision_flagged', %s, 'test')", (ws, decision[0]))
        conn.execute("insert into beliefdb.correction (workspace_id, belief_id, belief_revision, reviewer, "
                     "new_statement) values (%s, %s, 1, 'rita', 'corrected')", (ws, str(new.accepted[0].id)))
        run = conn.execute("insert into beliefdb.run (workspace_id, task) values (%s, 'answer') returning id::text",
                           (ws,)).fetchone()
        assert run is not None
        steps = conn.execute("insert into beliefdb.step (workspace_id, run_id, seq, kind) "
                             "values (%s, %s, 0, 'user_input'), (%s, %s, 1, 'plan') returning id::text",
                             (ws, run[0], ws, run[0])).fetchall()
        conn.execute("insert into beliefdb.trace_edge (workspace_id, from_node, to_node, kind) "
                     "values (%s, %s, %s, 'follows')", (ws, steps[1][0], steps[0][0]))
        conn.execute("insert into beliefdb.repair (workspace_id, faulty, plan) values (%s, %s, '[]')",
                     (ws, [str(old.accepted[0].id)]))
        conn.execute("insert into beliefdb.embedding_model (workspace_id, model, dim) values (%s, 'm', 3) "
                     "on conflict do nothing", (ws,))
        conn.execute("insert into beliefdb.belief_embedding (workspace_id, belief_id, model, embedding) "
                     "values (%s, %s, 'm', '[1,2,3]')", (ws, str(old.accepted[0].id)))
        conn.execute("insert into beliefdb.outcome (workspace_id, node, outcome) values (%s, %s, 'succeeded')",
                     (ws, decision[0]))
        conn.execute("insert into beliefdb.redaction (workspace_id, source_version_id, start_offset, end_offset, "
                     "reason) values (%s, %s, 0, 1, 'test')", (ws, version))
        conn.execute("insert into beliefdb.job (workspace_id, kind, payload, submitted_by) "
                     "values (%s, 'ingest', '{\"source\": \"s\", \"text\": \"t\"}', 'test')", (ws,))
        conn.execute("insert into beliefdb.job_start (workspace_id, job_id, worker) "
                     "select workspace_id, id, 'test' from beliefdb.job where workspace_id = %s", (ws,))
        # a retraction and its undo, as a trigger records them
        conn.execute("insert into beliefdb.retraction_period (workspace_id, node_id, retracted_at, restored_at) "
                     "values (%s, %s, now(), now())", (ws, decision[0]))
        # a change of a source's authority, as a trigger records it
        conn.execute("insert into beliefdb.authority_change (workspace_id, source_id, authority_before, changed_at) "
                     "values (%s, %s, 'user', now())", (ws, source))
    return Tenant(ws=ws, source=source, version=version, fragment=fragment, old_belief=str(old.accepted[0].id),
                  new_belief=str(new.accepted[0].id), decision=decision[0], run=run[0])


def _check_both_present(t: Tenants) -> None:
    """Every table and view holds rows of both workspaces (else "sees only A" proves nothing)."""
    with psycopg.connect(t.url, autocommit=True) as conn:
        for table in (*WORKSPACE_TABLES, *VIEWS):
            for tenant in (t.a, t.b):
                row = conn.execute(sql.SQL("select count(*) from beliefdb.{} where workspace_id = %s")
                                   .format(sql.Identifier(table)), (tenant.ws,)).fetchone()
                assert row is not None and row[0] > 0, (table, tenant.ws)


def _create_database(admin: str, template: str | None = None) -> str:
    name = f"rls_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        if template is None:
            conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        else:
            conn.execute(sql.SQL("create database {} template {}").format(sql.Identifier(name),
                                                                          sql.Identifier(template)))
    return name


def _drop_database(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def populated(embedded_server: EmbeddedServer) -> Iterator[tuple[str, str, Tenants]]:
    """Workspaces A and B with beliefs, built once through the library; tests that only read use it
    as is, tests that write get a copy (create database ... template)."""
    admin = embedded_server.status().url
    assert admin is not None
    name = _create_database(admin)
    url = make_conninfo(admin, dbname=name)
    migrate.upgrade(url)
    built = Tenants(url=url, a=_populate(url, "A", "15 days"), b=_populate(url, "B", "30 days"))
    _check_both_present(built)
    yield admin, name, built
    _drop_database(admin, name)


@pytest.fixture
def shared(populated: tuple[str, str, Tenants]) -> Tenants:
    """The module's populated database, for tests that write nothing."""
    return populated[2]


@pytest.fixture
def tenants(populated: tuple[str, str, Tenants]) -> Iterator[Tenants]:
    """A private copy of the populated database, for tests that write or try to."""
    admin, template, built = populated
    name = _create_database(admin, template)
    copy = Tenants(url=make_conninfo(admin, dbname=name), a=built.a, b=built.b)
    yield copy
    _drop_database(admin, name)


@contextmanager
def app_session(url: str, workspace_id: str | None) -> Iterator[psycopg.Connection[Any]]:
    """A raw connection acting as beliefdb_app, bound to a workspace (or to none)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id or "",))
        conn.execute("set role beliefdb_app")
        assert conn.execute("select current_user").fetchone() == ("beliefdb_app",)
        yield conn


def superuser_count(url: str, table: str, ws: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{} where workspace_id = %s")
                           .format(sql.Identifier(table)), (ws,)).fetchone()
    assert row is not None
    return int(row[0])


def fingerprint(url: str, ws: str) -> dict[str, tuple[int, str]]:
    """Row count and a hash of every row of a workspace, per table, read as superuser."""
    out = {}
    with psycopg.connect(url, autocommit=True) as conn:
        for table in WORKSPACE_TABLES:
            row = conn.execute(sql.SQL(
                "select count(*), coalesce(md5(string_agg(t::text, '|' order by t::text)), '') "
                "from beliefdb.{} t where workspace_id = %s").format(sql.Identifier(table)), (ws,)).fetchone()
            assert row is not None
            out[table] = (int(row[0]), str(row[1]))
    return out


# ---------------------------------------------------------------------------------------------
# the catalog: every workspace table is under row-level security
# ---------------------------------------------------------------------------------------------


def test_every_workspace_table_has_row_level_security(postgresql: psycopg.Connection[Any]) -> None:
    rows = postgresql.execute("""
        select c.relname, c.relrowsecurity,
               exists (select from pg_catalog.pg_policies p
                        where p.schemaname = 'beliefdb' and p.tablename = c.relname
                          and 'beliefdb_app' = any(p.roles) and p.cmd = 'ALL'
                          and p.qual like '%current_workspace_id()%'
                          and p.with_check like '%current_workspace_id()%')
          from pg_catalog.pg_class c
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
           and exists (select from pg_catalog.pg_attribute a
                        where a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped)
    """).fetchall()
    assert sorted(r[0] for r in rows) == sorted(WORKSPACE_TABLES + UNGRANTED_TABLES)
    assert [r for r in rows if not (r[1] and r[2])] == []


def test_views_are_security_invoker(postgresql: psycopg.Connection[Any]) -> None:
    rows = postgresql.execute("""
        select c.relname, coalesce(c.reloptions, '{}')
          from pg_catalog.pg_class c
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('v', 'm')
    """).fetchall()
    assert sorted(r[0] for r in rows) == sorted(VIEWS)
    assert all("security_invoker=true" in r[1] for r in rows), rows


def test_app_role_bypasses_nothing(postgresql: psycopg.Connection[Any]) -> None:
    row = postgresql.execute("select rolsuper, rolbypassrls, rolcanlogin from pg_catalog.pg_roles "
                             "where rolname = 'beliefdb_app'").fetchone()
    assert row == (False, False, False)
    owned = postgresql.execute("select count(*) from pg_catalog.pg_class "
                               "where relowner = 'beliefdb_app'::regrole").fetchone()
    assert owned == (0,)


# ---------------------------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("table", WORKSPACE_TABLES)
def test_bound_session_reads_only_its_workspace(shared: Tenants, table: str) -> None:
    own = superuser_count(shared.url, table, shared.a.ws)
    with app_session(shared.url, shared.a.ws) as conn:
        total = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(table))).fetchone()
        others = conn.execute(sql.SQL("select count(*) from beliefdb.{} where workspace_id <> %s")
                              .format(sql.Identifier(table)), (shared.a.ws,)).fetchone()
        aimed = conn.execute(sql.SQL("select count(*) from beliefdb.{} where workspace_id = %s")
                             .format(sql.Identifier(table)), (shared.b.ws,)).fetchone()
    assert total == (own,)
    assert others == (0,)
    assert aimed == (0,)


@pytest.mark.parametrize("view", VIEWS)
def test_views_show_only_the_bound_workspace(shared: Tenants, view: str) -> None:
    own = superuser_count(shared.url, view, shared.a.ws)
    with app_session(shared.url, shared.a.ws) as conn:
        rows = conn.execute(sql.SQL("select workspace_id::text from beliefdb.{}")
                            .format(sql.Identifier(view))).fetchall()
    assert len(rows) == own
    assert {r[0] for r in rows} == {shared.a.ws}


def test_views_never_name_the_other_workspaces_beliefs(shared: Tenants) -> None:
    with app_session(shared.url, shared.a.ws) as conn:
        statements = conn.execute("select statement from beliefdb.current_beliefs "
                                  "union all select statement from beliefdb.belief_evidence "
                                  "union all select new_statement from beliefdb.belief_history "
                                  "union all select old_statement from beliefdb.belief_history").fetchall()
        ids = conn.execute("select id::text from beliefdb.current_beliefs union all "
                           "select belief_id::text from beliefdb.belief_evidence").fetchall()
    assert statements and all(s[0].startswith("A:") for s in statements), statements
    assert shared.b.new_belief not in {i[0] for i in ids}


def test_library_session_sees_only_its_workspace(shared: Tenants) -> None:
    with beliefdb.connect(shared.url, workspace="A") as db:
        assert db.database.workspace_id == shared.a.ws
        with db.database.transaction() as conn:
            assert conn.execute("select current_user").fetchone() == ("beliefdb_app",)
            seen = conn.execute("select distinct workspace_id::text from beliefdb.belief").fetchall()
            b_rows = conn.execute("select count(*) from beliefdb.belief where id = %s",
                                  (shared.b.new_belief,)).fetchone()
        values = {b.value for b in db.beliefs(include_all=True)}
    assert seen == [(shared.a.ws,)]
    assert b_rows == (0,)
    assert values == {"7 days", "15 days"}


def test_functions_given_another_workspace_id_see_nothing(shared: Tenants) -> None:
    """Functions that take a workspace id run as the caller: an explicit id does not get around
    row-level security; the internals that take one (rule 8's rivals, adding evidence) are not the
    application's to call at all (sql/api/80_privileges.sql grants the API by an allow-list)."""
    with app_session(shared.url, shared.a.ws) as conn:
        assert conn.execute("select beliefdb.in_force(%s, %s)", (shared.b.ws, shared.b.version)).fetchone() == (None,)
        # no source of B's belief shows up in its confidence factors
        assert conn.execute("select count(*) from beliefdb.confidence_factors(%s, %s) where factor = 'authority'",
                            (shared.b.ws, shared.b.new_belief)).fetchone() == (0,)
    for internal, args in (("_rivals", (shared.b.ws, shared.b.new_belief)),
                           ("_add_evidence", (shared.b.ws, shared.b.old_belief, shared.b.fragment))):
        with app_session(shared.url, shared.a.ws) as conn, pytest.raises(
                pg_errors.InsufficientPrivilege, match=f"permission denied for function {internal}"):
            conn.execute(f"select beliefdb.{internal}({', '.join(['%s'] * len(args))})", args)


# ---------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------

# (table, insert statement): %(...)s names a field of the Tenant the row is aimed at.
INSERTS = [
    ("node", "insert into beliefdb.node (workspace_id, kind) values (%(ws)s, 'decision')"),
    ("source", "insert into beliefdb.source (workspace_id, name) values (%(ws)s, 'forged')"),
    ("source_version", "insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256) "
                       "values (%(ws)s, %(source)s, 99, 'forged text', '')"),
    ("fragment", "insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text) "
                 "values (%(ws)s, %(version)s, 0, 7, 'Returns')"),
    ("belief", "insert into beliefdb.belief (workspace_id, statement, subject, attribute, value) "
               "values (%(ws)s, 'forged', 'forged', 'forged', 'forged')"),
    ("evidence", "insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role) "
                 "select %(ws)s, %(old_belief)s, %(fragment)s, f.text, 'mentions' "
                 "from (values (%(fragment)s::uuid)) v(id) "
                 "left join beliefdb.fragment f on f.id = v.id"),
    ("relation", "insert into beliefdb.relation (workspace_id, from_belief, to_belief, kind) "
                 "values (%(ws)s, %(old_belief)s, %(new_belief)s, 'clarifies')"),
    ("justification", "insert into beliefdb.justification (workspace_id, consequent) "
                      "values (%(ws)s, %(decision)s)"),
    ("justification_antecedent",
     "insert into beliefdb.justification_antecedent (workspace_id, justification_id, antecedent, edge_kind) "
     "select %(ws)s, j.id, %(decision)s, 'supports' from beliefdb.justification j "
     "where j.workspace_id = beliefdb.current_workspace_id() limit 1"),
    ("decision", "insert into beliefdb.decision (workspace_id, title) values (%(ws)s, 'forged')"),
    ("action", "insert into beliefdb.action (workspace_id, decision_id, description) "
               "values (%(ws)s, %(decision)s, 'forged')"),
    ("correction", "insert into beliefdb.correction (workspace_id, belief_id, belief_revision, reviewer, "
                   "new_statement) values (%(ws)s, %(new_belief)s, 1, 'mallory', 'forged')"),
    ("run", "insert into beliefdb.run (workspace_id, task) values (%(ws)s, 'forged')"),
    ("step", "insert into beliefdb.step (workspace_id, run_id, seq, kind) values (%(ws)s, %(run)s, 5, 'plan')"),
    ("review_item", "insert into beliefdb.review_item (workspace_id, kind, node, reason) "
                    "values (%(ws)s, 'conflict', %(new_belief)s, 'forged')"),
    ("trace_edge", "insert into beliefdb.trace_edge (workspace_id, from_node, to_node, kind) "
                   "values (%(ws)s, %(decision)s, %(new_belief)s, 'follows')"),
    ("repair", "insert into beliefdb.repair (workspace_id, faulty, plan) values (%(ws)s, array[%(old_belief)s::uuid], "
               "'[]')"),
    ("embedding_model", "insert into beliefdb.embedding_model (workspace_id, model, dim) values (%(ws)s, 'm', 3) "
                        "on conflict (workspace_id) do update set updated_at = excluded.updated_at"),
    ("belief_embedding", "insert into beliefdb.belief_embedding (workspace_id, belief_id, model, embedding) "
                         "values (%(ws)s, %(new_belief)s, 'm', '[1,2,3]')"),
    ("outcome", "insert into beliefdb.outcome (workspace_id, node, outcome) values (%(ws)s, %(decision)s, 'failed')"),
    ("adjacency", "insert into beliefdb.adjacency (workspace_id, node, entry, justification, unmet) "
                  "values (%(ws)s, %(decision)s, 'in', %(decision)s, 0)"),
    ("redaction", "insert into beliefdb.redaction (workspace_id, source_version_id, start_offset, end_offset, reason) "
                  "values (%(ws)s, %(version)s, 0, 1, 'hacked')"),
    ("job", "insert into beliefdb.job (workspace_id, kind, payload) values (%(ws)s, 'ingest', '{}')"),
    ("job_start", "insert into beliefdb.job_start (workspace_id, job_id) values (%(ws)s, 1)"),
    ("retraction_period", "insert into beliefdb.retraction_period (workspace_id, node_id, retracted_at) "
                          "values (%(ws)s, %(decision)s, now())"),
    ("authority_change", "insert into beliefdb.authority_change (workspace_id, source_id, authority_before, "
                         "changed_at) values (%(ws)s, %(source)s, 'official', now())"),
]


# The tables the application role writes itself: none. It changes everything through beliefdb's
# functions (ownership: test_ownership.py), embeddings too (store_embedding, record_embedding_model,
# embedding_target, embedding_switch): a role that may update or delete a table may lock it against
# every workspace (test_tenant_locks.py).
APP_WRITABLE: tuple[str, ...] = ()
APP_WRITES: dict[str, tuple[str, ...]] = {}


def test_inserts_cover_every_writable_table() -> None:
    assert sorted(t for t, _ in INSERTS) == sorted(set(WORKSPACE_TABLES) - set(AUDIT_TABLES))


def test_app_writes_only_embeddings_directly(postgresql: psycopg.Connection[Any]) -> None:
    rows = postgresql.execute("""
        select c.relname, op
          from pg_catalog.pg_class c, unnest(array['INSERT', 'UPDATE', 'DELETE']) op
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
           and has_table_privilege('beliefdb_app', c.oid, op) and c.relname <> 'workspace'
         order by 1, 2""").fetchall()
    assert rows == [(t, op) for t in sorted(APP_WRITABLE) for op in APP_WRITES[t]]
    # nor any column of any other table (column grants survive a table-wide revoke)
    columns = postgresql.execute("""
        select distinct c.relname
          from pg_catalog.pg_class c
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p')
           and (has_column_privilege('beliefdb_app', c.oid, a.attnum, 'UPDATE')
                or has_column_privilege('beliefdb_app', c.oid, a.attnum, 'INSERT'))
         order by 1""").fetchall()
    assert columns == [(t,) for t in sorted([*APP_WRITABLE, "workspace"])]


@pytest.mark.parametrize(("table", "statement"), INSERTS, ids=[t for t, _ in INSERTS])
def test_cannot_insert_into_another_workspace(shared: Tenants, table: str, statement: str) -> None:
    before = fingerprint(shared.url, shared.b.ws)
    with app_session(shared.url, shared.a.ws) as conn:
        if table in APP_WRITABLE:
            # the same statement aimed at the bound workspace works: the refusal below is isolation
            with conn.transaction(force_rollback=True):
                cur = conn.execute(statement, vars(shared.a))
                assert cur.rowcount == 1
        else:
            # not even into its own workspace: the functions write these
            with pytest.raises(pg_errors.InsufficientPrivilege, match="permission denied for table"), \
                    conn.transaction(force_rollback=True):
                conn.execute(statement, vars(shared.a))
        with pytest.raises(pg_errors.InsufficientPrivilege) as refused, conn.transaction(force_rollback=True):
            conn.execute(statement, vars(shared.b))
    message = "new row violates row-level security policy" if table in APP_WRITABLE else "permission denied"
    assert message in str(refused.value)
    assert fingerprint(shared.url, shared.b.ws) == before


def test_cannot_move_a_row_into_another_workspace(shared: Tenants) -> None:
    with app_session(shared.url, shared.a.ws) as conn, pytest.raises(
            pg_errors.InsufficientPrivilege, match="permission denied for table belief_embedding"), \
            conn.transaction(force_rollback=True):
        conn.execute("update beliefdb.belief_embedding set workspace_id = %s where belief_id = %s",
                     (shared.b.ws, shared.a.new_belief))


@pytest.mark.parametrize("table", [t for t in WORKSPACE_TABLES if t not in AUDIT_TABLES])
def test_cannot_update_or_delete_another_workspaces_rows(tenants: Tenants, table: str) -> None:
    before = fingerprint(tenants.url, tenants.b.ws)
    own = superuser_count(tenants.url, table, tenants.a.ws)
    ident = sql.Identifier(table)
    with app_session(tenants.url, tenants.a.ws) as conn:
        if table not in APP_WRITABLE:
            # no direct change at all, even to its own rows: the functions make them
            for statement in (sql.SQL("update beliefdb.{} set workspace_id = workspace_id"),
                              sql.SQL("delete from beliefdb.{}")):
                with pytest.raises(pg_errors.InsufficientPrivilege, match="permission denied"), \
                        conn.transaction(force_rollback=True):
                    conn.execute(statement.format(ident))
            left = own
        else:
            cur = conn.execute(sql.SQL("update beliefdb.{} set workspace_id = workspace_id where workspace_id = %s")
                               .format(ident), (tenants.b.ws,))
            assert cur.rowcount == 0
            # an unfiltered update reaches exactly the bound workspace's rows
            cur = conn.execute(sql.SQL("update beliefdb.{} set workspace_id = workspace_id").format(ident))
            assert cur.rowcount == own
            if "DELETE" not in APP_WRITES[table]:
                # the embedding model: not even its own workspace's (embedding and reembed only record
                # and move it; a model deleted under the vectors left them of no recorded model)
                with pytest.raises(pg_errors.InsufficientPrivilege, match="permission denied"), \
                        conn.transaction(force_rollback=True):
                    conn.execute(sql.SQL("delete from beliefdb.{}").format(ident))
                left = own
            else:
                cur = conn.execute(sql.SQL("delete from beliefdb.{} where workspace_id = %s").format(ident),
                                   (tenants.b.ws,))
                assert cur.rowcount == 0
                # an unfiltered delete removes exactly the bound workspace's rows
                cur = conn.execute(sql.SQL("delete from beliefdb.{}").format(ident))
                assert cur.rowcount == own
                left = 0
    assert superuser_count(tenants.url, table, tenants.a.ws) == left
    assert fingerprint(tenants.url, tenants.b.ws) == before


def test_cannot_update_another_workspaces_belief_by_id(tenants: Tenants) -> None:
    with app_session(tenants.url, tenants.a.ws) as conn:
        for statement in ("update beliefdb.belief set value = 'hacked', status = 'retracted' where id = %s",
                          "delete from beliefdb.source where id = %s"):
            with pytest.raises(pg_errors.InsufficientPrivilege), conn.transaction(force_rollback=True):
                conn.execute(statement, (tenants.b.new_belief,))
        # the functions with owner rights look ids up in the bound workspace only
        with pytest.raises(psycopg.Error, match="unknown fragment"), \
                conn.transaction(force_rollback=True):
            conn.execute("select beliefdb.retract('node', %s::text, 'hacked')", (tenants.b.new_belief,))
        with pytest.raises(psycopg.Error, match="unknown belief"), conn.transaction(force_rollback=True):
            conn.execute("select beliefdb.retract('belief', %s::text, 'hacked')", (tenants.b.new_belief,))
        with pytest.raises(psycopg.Error, match="nothing to retract"), conn.transaction(force_rollback=True):
            conn.execute("select beliefdb.retract('source', %s::text, 'hacked')", (tenants.b.source,))
    with psycopg.connect(tenants.url, autocommit=True) as conn:
        assert conn.execute("select value, status::text from beliefdb.belief where id = %s",
                            (tenants.b.new_belief,)).fetchone() == ("30 days", "current")
        assert conn.execute("select count(*) from beliefdb.source where id = %s",
                            (tenants.b.source,)).fetchone() == (1,)


# ---------------------------------------------------------------------------------------------
# unbound sessions
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("relation", WORKSPACE_TABLES)
def test_unbound_session_sees_nothing(shared: Tenants, relation: str) -> None:
    with app_session(shared.url, None) as conn:
        assert conn.execute("select beliefdb.current_workspace_id()").fetchone() == (None,)
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(relation))).fetchone()
    assert row == (0,)


@pytest.mark.parametrize("view", VIEWS)
def test_unbound_session_is_told_no_workspace_is_bound(shared: Tenants, view: str) -> None:
    # a view that returned no rows could not be told from an empty workspace: it says why
    with app_session(shared.url, None) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(view))).fetchone()
    assert refused.value.sqlstate == "BD003", refused.value
    assert refused.value.diag.message_primary == "no workspace is bound to this session"
    assert "beliefdb.use_workspace" in (refused.value.diag.message_hint or "")


@pytest.mark.parametrize("view", VIEWS)
def test_a_setting_that_names_no_workspace_reads_as_an_empty_one(shared: Tenants, view: str) -> None:
    """docs/dba.md: a well-formed beliefdb.workspace_id that no workspace has is bound as an empty workspace:
    the views return no rows (unchecked, as a check would cost every view read a probe of the directory), the
    writes refuse (BD003), and the directory tells the two apart. The page said an empty answer always meant
    an empty workspace."""
    before = fingerprint(shared.url, shared.a.ws)
    with app_session(shared.url, str(uuid.uuid4())) as conn:
        assert conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(view))).fetchone() == (0,)
        assert conn.execute("select count(*) from beliefdb.workspace w"
                            " where w.id = beliefdb.current_workspace_id()").fetchone() == (0,)
        with pytest.raises(psycopg.Error) as refused, conn.transaction(force_rollback=True):
            conn.execute("select beliefdb.decide('orphan', '[[]]')")
        assert refused.value.sqlstate == "BD003", refused.value
    assert fingerprint(shared.url, shared.a.ws) == before


def test_unbound_session_cannot_write(shared: Tenants) -> None:
    before = fingerprint(shared.url, shared.a.ws)
    with app_session(shared.url, None) as conn:
        # the functions that write find no workspace, the embeddings' too
        for call in ("select beliefdb.decide('orphan', '[[]]')", "select beliefdb.record_embedding_model('m', 3)"):
            with pytest.raises(psycopg.Error) as refused, conn.transaction(force_rollback=True):
                conn.execute(call)
            assert refused.value.sqlstate == "BD003", refused.value  # no workspace bound
    assert fingerprint(shared.url, shared.a.ws) == before


# ---------------------------------------------------------------------------------------------
# privileges of the application role
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("statement", [
    "update beliefdb.audit_event set payload = '{}'",
    "update beliefdb.audit_event set action = 'nothing happened' where seq = 1",
    "delete from beliefdb.audit_event",
    "delete from beliefdb.audit_event where seq = 1",
    "truncate beliefdb.audit_event",
    "update beliefdb.audit_head set seq = 0",
    "delete from beliefdb.audit_head",
])
def test_app_cannot_rewrite_the_audit_chain(shared: Tenants, statement: str) -> None:
    before = fingerprint(shared.url, shared.a.ws)
    with app_session(shared.url, shared.a.ws) as conn:
        # its own chain is readable
        row = conn.execute("select count(*) from beliefdb.audit_event").fetchone()
        assert row is not None and row[0] > 0
        with pytest.raises(pg_errors.InsufficientPrivilege, match="permission denied"), \
                conn.transaction(force_rollback=True):
            conn.execute(statement)
    assert fingerprint(shared.url, shared.a.ws) == before


@pytest.mark.parametrize("statement", [
    "update beliefdb.source_version set content = 'rewritten'",
    "update beliefdb.source_version set sha256 = '\\x00'",
    "update beliefdb.source_version set label = 'relabelled'",
])
def test_app_cannot_update_source_version_text(shared: Tenants, statement: str) -> None:
    with app_session(shared.url, shared.a.ws) as conn, pytest.raises(
            pg_errors.InsufficientPrivilege, match="permission denied"), conn.transaction(force_rollback=True):
        conn.execute(statement)
    with psycopg.connect(shared.url, autocommit=True) as conn:
        assert conn.execute("select content from beliefdb.source_version where id = %s",
                            (shared.a.version,)).fetchone() == ("Returns are accepted within 15 days.",)


@pytest.mark.parametrize("statement", [
    "insert into beliefdb.workspace (id, name) values ('00000000-0000-4000-8000-000000000001', 'chosen')",
    "insert into beliefdb.workspace (name, created_at) values ('backdated', '2000-01-01')",
    "update beliefdb.workspace set name = 'renamed' where name = 'B'",
    "update beliefdb.workspace set id = '00000000-0000-4000-8000-000000000001' where name = 'B'",
    "delete from beliefdb.workspace where name = 'B'",
])
def test_app_can_create_workspaces_by_name_only(shared: Tenants, statement: str) -> None:
    with app_session(shared.url, shared.a.ws) as conn:
        with pytest.raises(pg_errors.InsufficientPrivilege, match="permission denied"), \
                conn.transaction(force_rollback=True):
            conn.execute(statement)
        # what it may do: name a new workspace and get the server's id back
        with conn.transaction(force_rollback=True):
            row = conn.execute("insert into beliefdb.workspace (name) values ('by-name') returning id").fetchone()
            assert row is not None and isinstance(row[0], uuid.UUID) and str(row[0]) not in (shared.a.ws,
                                                                                            shared.b.ws)
    with psycopg.connect(shared.url, autocommit=True) as conn:
        rows = dict(conn.execute("select name, id::text from beliefdb.workspace").fetchall())
    assert rows.keys() == {"default", "A", "B"}
    assert (rows["A"], rows["B"]) == (shared.a.ws, shared.b.ws)


def test_workspace_ids_are_server_generated_uuids(db_url: str) -> None:
    made = [create_workspace(db_url, f"w{i}") for i in range(5)]
    ids = [w.id for w in made]
    assert all(isinstance(i, uuid.UUID) and i.version == 4 for i in ids)
    assert len(set(ids)) == len(ids)
    with psycopg.connect(db_url, autocommit=True) as conn:
        stored = dict(conn.execute("select name, id from beliefdb.workspace").fetchall())
        default = conn.execute("""
            select pg_catalog.pg_get_expr(d.adbin, d.adrelid)
              from pg_catalog.pg_attrdef d
              join pg_catalog.pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
             where d.adrelid = 'beliefdb.workspace'::regclass and a.attname = 'id'
        """).fetchone()
        may_choose = conn.execute("select has_column_privilege('beliefdb_app', 'beliefdb.workspace', 'id', 'INSERT'), "
                                  "has_column_privilege('beliefdb_app', 'beliefdb.workspace', 'name', 'INSERT')"
                                  ).fetchone()
    assert {w.name: w.id for w in made}.items() <= stored.items()
    assert default == ("gen_random_uuid()",)
    assert may_choose == (False, True)


def test_unknown_workspace_is_refused(shared: Tenants) -> None:
    with pytest.raises(errors.UnknownWorkspace, match="nowhere"):
        beliefdb.connect(shared.url, workspace="nowhere")
    # names are not ids: a workspace's id is not accepted as its name
    with pytest.raises(errors.UnknownWorkspace):
        beliefdb.connect(shared.url, workspace=shared.b.ws)


def test_security_definer_functions_the_app_may_call(postgresql: psycopg.Connection[Any]) -> None:
    """These run with the owner's rights on the app's behalf, each confined to the bound workspace
    (test_ownership.py calls them with another workspace's ids): the functions that make every
    change (the application role writes no table itself, embeddings neither), the queue's (each confined
    to the bound workspace's jobs, api/58_jobs.sql), lock_workspace (a lock every writer takes first),
    recall and recall_fragments, refresh_ranking_stats, the bulk path's (its staging tables and
    batches, test_bulk_ingest.py) (the bound workspace's own statistics,
    test_ranking_stats.py); current_workspace_id, workspace_visible and workspace_creatable, which read the
    binding of an agent's login (beliefdb.agent_login) that the application role may not read. The audit
    internals (which
    take any workspace id, redact payloads, or append a summary: beliefdb._audit) are not callable by
    the application role."""
    rows = postgresql.execute("""
        select p.oid::regprocedure::text
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace and p.prosecdef
           and has_function_privilege('beliefdb_app', p.oid, 'execute')
         order by 1
    """).fetchall()
    assert [r[0] for r in rows] == [
        "beliefdb.act(text,text,text)",
        "beliefdb.add_claims_to_source(text,jsonb,jsonb)",
        "beliefdb.append_turn(text,text,jsonb,jsonb,jsonb,text,boolean)",
        "beliefdb.apply_correction(text,text,text,text,text,integer,text)",
        "beliefdb.authenticate(bytea)",
        "beliefdb.bulk_analyze()",
        "beliefdb.bulk_ingest_batch(beliefdb.origin_type,beliefdb.authority,beliefdb.provenance)",
        "beliefdb.bulk_stage()",
        "beliefdb.correction_preview(text,text,text)",
        "beliefdb.current_workspace_id()",
        "beliefdb.decay(timestamp with time zone,text,boolean)",
        "beliefdb.decide(text,jsonb,text)",
        "beliefdb.decide_in_run(uuid,text,jsonb,text)",
        "beliefdb.derive(text,text,text,text,text[],text)",
        "beliefdb.embedding_switch(text)",
        "beliefdb.embedding_target(text,integer)",
        "beliefdb.expire()",
        "beliefdb.forget(text,text,boolean,text[],boolean)",
        "beliefdb.ingest_preview(text,text,beliefdb.origin_type,beliefdb.authority,beliefdb.provenance,text,text,"
        "jsonb,jsonb,jsonb)",
        "beliefdb.ingest_version(text,text,beliefdb.origin_type,beliefdb.authority,beliefdb.provenance,text,text,"
        "jsonb,jsonb,jsonb)",
        "beliefdb.job_cancel(bigint[],text)",
        "beliefdb.job_fail(bigint,text,double precision,boolean)",
        "beliefdb.job_finish(bigint,jsonb)",
        "beliefdb.job_retry(bigint[])",
        "beliefdb.job_start_lost(bigint)",
        "beliefdb.job_started(bigint,text)",
        "beliefdb.job_submit(text,jsonb,integer)",
        "beliefdb.job_take(text)",
        "beliefdb.job_totals(text,bigint)",
        "beliefdb.job_wait(bigint,bigint)",
        "beliefdb.jobs(text,integer,bigint)",
        "beliefdb.lock_workspace()",
        "beliefdb.recall(text,beliefdb_ext.vector,text,integer,timestamp with time zone,jsonb,real,boolean,"
        "double precision,real,integer,text[])",
        "beliefdb.recall_fragments(text,integer,timestamp with time zone,boolean,integer)",
        "beliefdb.record_embedding_model(text,integer)",
        "beliefdb.record_outcome(text,text,text,text)",
        "beliefdb.record_trace(jsonb,jsonb,jsonb,jsonb)",
        "beliefdb.refresh_ranking_stats(boolean)",
        "beliefdb.repair_apply(text[],boolean)",
        "beliefdb.repair_plan(text[],boolean,boolean)",
        "beliefdb.repair_plan_json(text[],boolean)",
        "beliefdb.repair_replayed(uuid)",
        "beliefdb.repair_to_replay(uuid)",
        "beliefdb.resolve_source(text,integer)",
        "beliefdb.retract(text,text,text,integer,boolean)",
        "beliefdb.retract_preview(text,text,integer,boolean)",
        "beliefdb.review_resolve(text,text,text,text)",
        "beliefdb.simulate_retraction(text[])",
        "beliefdb.store_embedding(uuid,text,beliefdb_ext.vector)",
        "beliefdb.workspace_creatable(uuid,text)",
        "beliefdb.workspace_visible(uuid)",
    ]


def test_every_function_the_package_calls_is_on_the_allow_list(postgresql: psycopg.Connection[Any]) -> None:
    """The Python package calls only the granted API (sql/api/80_privileges.sql), except
    ensure_vector_index, which a migration runs as the schema owner, _audit, which beliefdb agent
    create|drop call as the schema owner to name the change in the workspace's audit chain, and
    _analyze_deleted_tables, which workspace delete calls as the schema owner before it commits
    (beliefdb.connect( and beliefdb.aconnect( in the docstrings are the library's, not SQL)."""
    package = Path(beliefdb.__file__).parent
    text = "\n".join(p.read_text(encoding="utf-8") for p in [*package.rglob("*.py"), package / "db" / "queries.sql"])
    called = set(re.findall(r"beliefdb\.([a-z_]+)\(", text)) - {"connect", "aconnect", "ensure_vector_index", "_audit",
                                                                     "_analyze_deleted_tables"}
    granted = {name for (name,) in postgresql.execute(
        """select p.proname from pg_catalog.pg_proc p
            where p.pronamespace = 'beliefdb'::regnamespace
              and has_function_privilege('beliefdb_app', p.oid, 'execute')""")}
    assert len(called) > 25 and called <= granted, sorted(called - granted)


# Not granted and not internal: what a DBA (the schema owner) runs by hand (docs/dba.md)
DBA_TOOLS = {"ensure_vector_index", "evaluate", "propagate", "rebuild_adjacency", "rebuild_supports",
             "refresh_decision_reasons"}


def test_internals_are_marked_and_not_granted(postgresql: psycopg.Connection[Any]) -> None:
    """beliefdb's own functions are the granted API, the DBA's tools, triggers, or internals named
    with a leading underscore; no internal is granted."""
    rows = postgresql.execute("""
        select p.proname, has_function_privilege('beliefdb_app', p.oid, 'execute'),
               p.prorettype = 'trigger'::regtype
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace
           and not exists (select from pg_catalog.pg_depend d
                            where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
    """).fetchall()
    internals = {name for name, _, _ in rows if name.startswith("_")}
    assert len(internals) > 40
    assert {name for name, granted, _ in rows if granted} & internals == set()
    unmarked = {name for name, granted, trigger in rows if not granted and not trigger and not name.startswith("_")}
    assert unmarked == DBA_TOOLS


def test_the_bound_workspace_check_is_written_once(postgresql: psycopg.Connection[Any]) -> None:
    """"No workspace is bound" is beliefdb._bound_workspace's to say, for every function that runs
    with its owner's rights. Those that run as their caller say it themselves: the application role
    may not call an internal (and workspace_bound's refusal has a hint of its own); decide_in_run
    says it too of a workspace deleted since the session bound it."""
    rows = postgresql.execute("""
        select p.proname, p.prosecdef
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace and p.prosrc like '%no workspace is bound%'
    """).fetchall()
    assert [name for name, definer in rows if definer] == ["decide_in_run"]
    assert {name for name, _ in rows} == {"_bound_workspace", "workspace_bound", "audit_verify", "beliefs_as_of",
                                          "decide_in_run", "impact", "recall_warnings", "resolve_node",
                                          "resolve_target"}
