"""Install into a database whose owner already has default privileges (``alter default privileges``),
as a team's often has: PostgreSQL applies them to every object the migration creates, which gave the
roles they name usage on schema beliefdb and execute on every function, the internals that append to
the audit chain and read a workspace's audit key included. beliefdb's privileges are its allow-list
(sql/api/80_privileges.sql) whatever the defaults say: a migration revokes every other grant on its
objects and says from whom. And pgvector moved to another schema after the migration: the functions
that search it took the old schema as their path, so ``migrate --check`` says so and a migration
applies them again."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb

pytestmark = [pytest.mark.slow, pytest.mark.robustness]


@pytest.fixture
def team(admin: str) -> Iterator[Callable[[], tuple[str, str, str]]]:
    """A new database and a role of the team's own (a login, not beliefdb's): (database URL, the role,
    the role's URL). Both are dropped at the end (roles are the cluster's: unique names)."""
    made: list[tuple[str, str]] = []

    def make() -> tuple[str, str, str]:
        name, role = f"team_{uuid.uuid4().hex[:12]}", f"shop_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
            conn.execute(sql.SQL("create role {} login password 'team-secret'").format(sql.Identifier(role)))
        made.append((name, role))
        url = make_conninfo(admin, dbname=name)
        return url, role, make_conninfo(url, user=role, password="team-secret")

    yield make
    with psycopg.connect(admin, autocommit=True) as conn:
        for name, role in made:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def rows(url: str, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]


def privileges_of(url: str, role: str) -> list[tuple[Any, ...]]:
    """Every privilege ``role`` holds on schema beliefdb and its objects (beliefdb_ext holds the extensions',
    which a team may use)."""
    return rows(url, """
        select 'function', p.oid::regprocedure::text, a.privilege_type
          from pg_catalog.pg_proc p cross join lateral pg_catalog.aclexplode(p.proacl) a
         where p.pronamespace = 'beliefdb'::regnamespace and a.grantee = %s::regrole
        union all
        select 'table', c.oid::regclass::text, a.privilege_type
          from pg_catalog.pg_class c cross join lateral pg_catalog.aclexplode(c.relacl) a
         where c.relnamespace = 'beliefdb'::regnamespace and a.grantee = %s::regrole
        union all
        select 'type', t.oid::regtype::text, a.privilege_type
          from pg_catalog.pg_type t cross join lateral pg_catalog.aclexplode(t.typacl) a
         where t.typnamespace = 'beliefdb'::regnamespace and a.grantee = %s::regrole
        union all
        select 'schema', n.nspname::text, a.privilege_type
          from pg_catalog.pg_namespace n cross join lateral pg_catalog.aclexplode(n.nspacl) a
         where n.nspname = 'beliefdb' and a.grantee = %s::regrole
        order by 1, 2, 3""", role, role, role, role)


def test_default_privileges_give_the_teams_roles_nothing_of_beliefdbs(team: Callable[[], tuple[str, str, str]]) -> None:
    url, role, role_url = team()
    with psycopg.connect(url, autocommit=True) as conn:
        for kind in ("execute on functions", "usage on schemas", "select on tables", "usage on types"):
            conn.execute(sql.SQL("alter default privileges grant {} to {}").format(
                sql.SQL(kind), sql.Identifier(role)))
        conn.execute(sql.SQL("alter default privileges grant select on tables to public"))

    result = Cli({"BELIEFDB_URL": url})("migrate")
    assert result.exit_code == 0, result.output
    # the migration says what it took back, and from whom
    assert f"revoked privileges not on beliefdb's allow-list from role {role}" in result.output, result.output

    assert privileges_of(url, role) == []
    assert rows(url, "select count(*) from pg_catalog.pg_class c cross join lateral pg_catalog.aclexplode(c.relacl) a"
                     " where c.relnamespace = 'beliefdb'::regnamespace and a.grantee = 0") == [(0,)]
    # beliefdb works for its own roles as before
    Cli({"BELIEFDB_URL": url})("workspace", "create", "team")
    with beliefdb.BeliefDB(url, workspace="team") as db:
        db.ingest_text("# Policy\nThe restocking fee is 10%.\n", source="policy.md")
        answer = db.ask("what is the restocking fee?")
        assert (answer.status, answer.degraded, answer.beliefs[0].belief.value) == ("ok", None, "10%"), answer
    ws = rows(url, "select id from beliefdb.workspace where name = 'team'")[0][0]
    # and the team's role cannot reach beliefdb's internals: no usage on the schema at all
    with psycopg.connect(role_url, autocommit=True) as conn:
        for forbidden in (sql.SQL("select beliefdb._audit_append({}, 'forged.event', '{{}}'::jsonb)"),
                          sql.SQL("select beliefdb._audit_key({})"),
                          sql.SQL("select count(*) from beliefdb.audit_key where workspace_id = {}")):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(forbidden.format(sql.Literal(ws)))
    assert rows(url, "select ok, events from beliefdb.audit_verify(%s)", ws)[0][0] is True

    # migrating again finds nothing to take back, and says nothing
    again = Cli({"BELIEFDB_URL": url})("migrate")
    assert again.exit_code == 0, again.output
    assert "revoked" not in again.output, again.output


def test_a_grant_by_hand_on_beliefdbs_objects_is_taken_back_by_the_next_migration(
        team: Callable[[], tuple[str, str, str]]) -> None:
    """The allow-list is beliefdb's: a role gets beliefdb's API by membership in beliefdb_app."""
    url, role, _ = team()
    Cli({"BELIEFDB_URL": url})("migrate")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("grant usage on schema beliefdb to {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("grant select on beliefdb.current_beliefs to {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("grant select (name) on beliefdb.workspace to {}").format(sql.Identifier(role)))
    assert privileges_of(url, role) != []
    result = Cli({"BELIEFDB_URL": url})("migrate", "--json")
    assert result.exit_code == 0, result.output
    assert privileges_of(url, role) == []
    assert rows(url, "select count(*) from pg_catalog.pg_attribute a"
                     " cross join lateral pg_catalog.aclexplode(a.attacl) x"
                     " where a.attrelid = 'beliefdb.workspace'::regclass and x.grantee = %s::regrole", role) == [(0,)]
    # beliefdb_app keeps what the allow-list gives it, the one column grant included
    assert rows(url, "select has_column_privilege('beliefdb_app', 'beliefdb.workspace', 'name', 'insert'),"
                     " has_function_privilege('beliefdb_app', 'beliefdb.impact(text[])', 'execute'),"
                     " has_function_privilege('beliefdb_app', 'beliefdb._audit_key(uuid)', 'execute')"
                ) == [(True, True, False)]


def test_migrate_check_says_when_pgvector_moved_and_migrate_applies_the_functions_again(
        team: Callable[[], tuple[str, str, str]]) -> None:
    url, _, _ = team()
    cli = Cli({"BELIEFDB_URL": url})
    cli("migrate")
    cli("workspace", "create", "team")
    with beliefdb.BeliefDB(url, workspace="team") as db:
        db.ingest_text("# Policy\nThe restocking fee is 10%.\n", source="policy.md")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create schema moved")
        conn.execute("alter extension vector set schema moved")

    check = cli.fail("migrate", "--check")
    assert check.exit_code == 1, check.output
    assert check.output.strip() == ("error: extension vector is now in schema moved, where beliefdb's functions do"
                                    " not look for it (they were applied before it moved): run beliefdb migrate")
    status = cli.json("migrate", "--check", "--json", expect=1)
    assert status["up_to_date"] is False and status["moved_extensions"] == {"vector": "moved"}

    done = cli("migrate")
    assert "(its functions, views and grants applied again" in done.output, done.output
    assert cli("migrate", "--check").output.strip().endswith("(current)")
    with beliefdb.BeliefDB(url, workspace="team") as db:
        answer = db.ask("what is the restocking fee?")
        assert (answer.status, answer.degraded, answer.beliefs[0].belief.value) == ("ok", None, "10%"), answer


def test_a_teams_usage_of_beliefdb_ext_and_its_own_grants_there_stay(team: Callable[[], tuple[str, str, str]]) -> None:
    """beliefdb_ext holds the extensions beliefdb created, the team's to use: a migration leaves the grants
    there as they are (it took usage away from a role that queried pgvector there), and says nothing."""
    url, role, role_url = team()
    Cli({"BELIEFDB_URL": url})("migrate")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("grant usage on schema beliefdb_ext to {}").format(sql.Identifier(role)))
        conn.execute("create table public.notes (body text, emb beliefdb_ext.vector(3))")
        conn.execute("insert into public.notes values ('a', '[1,0,0]'), ('b', '[0,1,0]')")
        conn.execute(sql.SQL("grant select on public.notes to {}").format(sql.Identifier(role)))
    again = Cli({"BELIEFDB_URL": url})("migrate")
    assert "revoked" not in again.output, again.output
    with psycopg.connect(role_url, autocommit=True) as conn:
        nearest = conn.execute("select body from public.notes order by emb operator(beliefdb_ext.<=>) "
                               "'[1,0,0]'::beliefdb_ext.vector limit 1").fetchone()
    assert nearest == ("a",)


def test_the_app_role_gets_no_sequence_privilege_from_default_privileges(
        team: Callable[[], tuple[str, str, str]]) -> None:
    """A default grant on sequences to beliefdb_app let any agent's login set the job queue's sequence to its
    end, and every workspace's job_submit failed."""
    url, _, _ = team()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("alter default privileges grant all on sequences to beliefdb_app")
    Cli({"BELIEFDB_URL": url})("migrate")
    held = rows(url, "select c.oid::regclass::text, a.privilege_type from pg_catalog.pg_class c"
                     " cross join lateral pg_catalog.aclexplode(c.relacl) a"
                     " where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'S'"
                     " and a.grantee = 'beliefdb_app'::regrole")
    assert held == []
