"""Install into the Postgres a team already runs (issue 19): pgvector and pg_trgm are used wherever
they are installed (public, a managed service's ``extensions`` schema), and created in beliefdb's
own schema ``beliefdb_ext`` when absent; a team's extension is never moved, updated or re-granted;
a database migrated up to revision 0014 (the extensions in schema beliefdb) has them moved out; and
an error of the database keeps its hint and a specific code."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from alembic import command
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo
from test_schema import catalog_dump, dump_difference, load_canonical

import beliefdb
from beliefdb import errors
from beliefdb.db import connector, migrate

pytestmark = [pytest.mark.slow, pytest.mark.robustness]

V32 = "# Return policy\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
Q = "how many days for returns?"
EXTENSIONS = ("vector", "pg_trgm")


@pytest.fixture
def new_db(admin: str) -> Iterator[Callable[..., str]]:
    """Empty databases on the session's server (``owner``: a role that owns it), dropped at the end."""
    created: list[str] = []

    def make(owner: str | None = None) -> str:
        name = f"team_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("create database {} owner {}").format(
                sql.Identifier(name), sql.Identifier(owner or str(conn.info.user))))
        created.append(name)
        return make_conninfo(admin, dbname=name)

    yield make
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in created:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def team_database(url: str, schema: str) -> None:
    """What a team already has: both extensions created the usual way in ``schema``, and its own
    table of vectors that its application queries with ``<->``."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("create schema if not exists {}").format(sql.Identifier(schema)))
        for extension in EXTENSIONS:
            conn.execute(sql.SQL("create extension {} with schema {}").format(
                sql.Identifier(extension), sql.Identifier(schema)))
        conn.execute(sql.SQL("create table public.docs (id integer primary key, emb {}.vector(3))").format(
            sql.Identifier(schema)))
        conn.execute("insert into public.docs values (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.2,0]'), "
                     "(4, '[0,0,1]')")


def team_query(url: str, schema: str) -> list[int]:
    """The team application's own query, written as it would be: the extension's schema on its path."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("set search_path = public, {}").format(sql.Identifier(schema)))
        return [r[0] for r in conn.execute("select id from docs order by emb <-> '[1,0,0]' limit 3").fetchall()]


def extensions_state(url: str) -> list[tuple[Any, ...]]:
    """Where each extension is, its version and owner, and the privileges on each of its functions."""
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute("""
            select e.extname, e.extnamespace::regnamespace::text, e.extversion, e.extowner::regrole::text,
                   array(select p.oid::regprocedure::text || ' ' || coalesce(p.proacl::text, 'default')
                           from pg_catalog.pg_depend d
                           join pg_catalog.pg_proc p on p.oid = d.objid
                          where d.classid = 'pg_catalog.pg_proc'::regclass and d.refobjid = e.oid
                            and d.deptype = 'e'
                          order by 1)
              from pg_catalog.pg_extension e
             where e.extname in ('vector', 'pg_trgm')
             order by 1""").fetchall()


def rows(url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]


def extension_functions_in_beliefdb(url: str) -> int:
    """What ``\\df beliefdb.*`` lists that is not beliefdb's: functions of an extension."""
    (count,) = rows(url, """
        select count(*) from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace
           and exists (select from pg_catalog.pg_depend d
                        where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')""")[0]
    return int(count)


def search_paths(url: str) -> set[str]:
    """Every search_path beliefdb's functions set."""
    return {r[0] for r in rows(url, """
        select c from pg_catalog.pg_proc p, unnest(p.proconfig) c
         where p.pronamespace = 'beliefdb'::regnamespace and c like 'search\\_path=%'""")}


def recall_search_path(url: str) -> list[str]:
    return rows(url, "select p.proconfig::text[] from pg_catalog.pg_proc p "
                     "where p.oid = 'beliefdb.recall'::regproc")[0][0]


def beliefdb_works(url: str) -> None:
    """A newcomer's first steps: ingest (embedded by the app role), ask with vectors, decide, impact."""
    with beliefdb.connect(url) as bdb:
        report = bdb.ingest_text(V32, source="return-policy.md", authority="official")
        (window,) = [b for b in report.accepted if b.value == "7 days"]
        asked = bdb.ask(Q)
        assert asked.status == "ok", asked
        assert asked.beliefs[0].belief.value == "7 days"
        assert "vector" in asked.beliefs[0].matched_by, asked.beliefs[0]
        assert asked.degraded is None
        decision = bdb.decide("refuse a return on day 10", because=[window.id])
        effects = {(r.node, r.effect) for r in bdb.impact(window.id)}
        assert (decision.id, "flag") in effects, effects
    (embedded,) = rows(url, "select count(*) from beliefdb.belief_embedding")[0]
    assert embedded >= 2


# ---------------------------------------------------------------------------------------------
# (1), (2) the team's extensions, where the team put them
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("schema", ["public", "extensions"])
def test_migrate_uses_a_teams_extensions_where_they_are(new_db: Callable[..., str], schema: str) -> None:
    url = new_db()
    team_database(url, schema)
    before_rows, before_state = team_query(url, schema), extensions_state(url)
    assert before_rows == [1, 3, 2]
    assert [(name, where) for name, where, *_ in before_state] == [("pg_trgm", schema), ("vector", schema)]

    Cli({"BELIEFDB_URL": url})("migrate")

    # the team's extensions are untouched: same schema, version, owner and privileges; its table
    # and its query work as before
    assert extensions_state(url) == before_state
    assert team_query(url, schema) == before_rows
    # beliefdb created no extension and no schema of its own for them, and uses the team's type
    assert rows(url, "select nspname from pg_catalog.pg_namespace where nspname = 'beliefdb_ext'") == []
    assert rows(url, "select t.typnamespace::regnamespace::text from pg_catalog.pg_attribute a "
                     "join pg_catalog.pg_type t on t.oid = a.atttypid "
                     "where a.attrelid = 'beliefdb.belief_embedding'::regclass and a.attname = 'embedding'"
                ) == [(schema,)]
    # recall finds the extensions through its own search path; every other function keeps the
    # plain one
    assert recall_search_path(url)[0] == f"search_path=pg_catalog, {schema}, pg_temp"
    assert search_paths(url) == {"search_path=pg_catalog, pg_temp", f"search_path=pg_catalog, {schema}, pg_temp"}
    assert extension_functions_in_beliefdb(url) == 0

    beliefdb_works(url)
    # migrating again changes nothing of the team's either
    Cli({"BELIEFDB_URL": url})("migrate")
    assert extensions_state(url) == before_state
    assert team_query(url, schema) == before_rows


def test_the_app_role_needs_no_usage_on_a_teams_extension_schema(new_db: Callable[..., str]) -> None:
    """A managed service's ``extensions`` schema is not beliefdb's to grant: the application role
    finds pgvector's type by its oid and sends vectors in binary, so it works without usage there."""
    url = new_db()
    team_database(url, "extensions")
    Cli({"BELIEFDB_URL": url})("migrate")
    assert rows(url, "select has_schema_privilege('beliefdb_app', 'extensions', 'usage')") == [(False,)]
    beliefdb_works(url)


# ---------------------------------------------------------------------------------------------
# (3) a fresh database: beliefdb's own extension schema
# ---------------------------------------------------------------------------------------------


def test_a_fresh_database_gets_the_extensions_in_their_own_schema(new_db: Callable[..., str]) -> None:
    url = new_db()
    Cli({"BELIEFDB_URL": url})("migrate")
    assert [(name, where) for name, where, *_ in extensions_state(url)] == [
        ("pg_trgm", "beliefdb_ext"), ("vector", "beliefdb_ext")]
    # \df beliefdb.* lists beliefdb's functions only, and none of the extensions' types live there
    assert extension_functions_in_beliefdb(url) == 0
    assert rows(url, "select count(*) from pg_catalog.pg_type t where t.typnamespace = 'beliefdb'::regnamespace "
                     "and exists (select from pg_catalog.pg_depend d where d.objid = t.oid and d.deptype = 'e')"
                ) == [(0,)]
    (theirs,) = rows(url, "select count(*) from pg_catalog.pg_proc "
                          "where pronamespace = 'beliefdb_ext'::regnamespace")[0]
    assert theirs > 100
    assert recall_search_path(url)[0] == "search_path=pg_catalog, beliefdb_ext, pg_temp"
    # the extensions' functions keep the privileges create extension gave them
    assert all(acl.endswith(" default") for *_, acls in extensions_state(url) for acl in acls)
    beliefdb_works(url)


# ---------------------------------------------------------------------------------------------
# (4) an upgrade from revision 0014: the extensions leave schema beliefdb
# ---------------------------------------------------------------------------------------------


# later revisions whose tables the head's functions and views name, and how to take them away again
# (not the columns of 0020, 0022, 0024 and 0030, which add them only if they are not there: a column dropped and
# added again would not be where a fresh database has it)
STAND_INS = ("0016_agent_logins", "0018_jobs", "0020_turns", "0021_ranking_stats", "0022_supports", "0024_edges",
             "0029_relation_end", "0030_decision_edges", "0036_retraction_periods")
# revision 0043's table, which sql/api/80_privileges.sql puts under row-level security (the whole revision
# would also add a column of decision, which dropped and made again changes its place in the table)
STAND_IN_TABLES = """
    create table beliefdb.audit_key (workspace_id uuid primary key references beliefdb.workspace (id), key bytea);
    alter table beliefdb.review_item add column resolved_seq bigint;  -- revision 0047's, which its trigger names
    -- revision 0048's, which every ingest reads
    alter table beliefdb.redaction add column line_start integer, add column line_length integer,
        add column line_digest bytea;
    alter table beliefdb.redaction add column line_salt bytea;  -- revision 0050's, which every ingest reads too
    create table beliefdb.authority_change (workspace_id uuid, source_id uuid, authority_before beliefdb.authority,
                                            changed_at timestamptz);
"""
UNDO_STAND_INS = """
    drop table beliefdb.agent_login;
    drop table beliefdb.job_start cascade;
    drop table beliefdb.job cascade;  -- (and job_take, which returns its rows: migrate makes it again)
    drop view beliefdb.belief_evidence;
    drop index beliefdb.fragment_search;
    drop table beliefdb.lexeme_frequency;
    drop table beliefdb.retraction_period;
    drop table beliefdb.audit_key;
    alter table beliefdb.review_item drop column resolved_seq cascade;  -- (and its trigger: migrate makes it again)
    alter table beliefdb.redaction drop column line_start, drop column line_length, drop column line_digest;
    alter table beliefdb.redaction drop column line_salt;
    drop table beliefdb.authority_change;
    -- (and the head's row audit, whose events key their digests with audit_key, which the revisions before
    -- 0044 run without: its triggers go, and migrate makes them again)
    do $$
    declare
        v_trigger record;
    begin
        for v_trigger in select t.tgname, t.tgrelid::regclass as tab from pg_catalog.pg_trigger t
                          where t.tgname ~ '_audit_(insert|update|delete)$' loop
            execute pg_catalog.format('drop trigger %I on %s', v_trigger.tgname, v_trigger.tab);
        end loop;
    end
    $$;
"""


def at_revision_0014(url: str) -> None:
    """A database as releases up to revision 0014 left it: revision 0003 created both extensions in
    schema beliefdb, and sql/api/80_privileges.sql granted their functions to the application role
    after revoking everything in schema beliefdb from public."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create schema beliefdb")
        for extension in EXTENSIONS:
            conn.execute(sql.SQL("create extension {} with schema beliefdb").format(sql.Identifier(extension)))
    command.upgrade(migrate._config(url), "0014")
    # an upgrade that stops short of the head changes tables only: the functions, views and grants
    # a 0014 release re-applied are stood in for by the head's (sql/ minus its tables), which also
    # name later revisions' tables and columns: they stand in until the upgrade makes its own
    # (UNDO_STAND_INS takes them away first)
    with psycopg.connect(url, autocommit=True) as conn:
        for revision in STAND_INS:
            conn.execute((migrate.migrations_dir() / "versions" / f"{revision}.sql")
                         .read_text(encoding="utf-8"))  # type: ignore[arg-type]
        conn.execute(STAND_IN_TABLES)
        for name in migrate.REAPPLIED_FILES:
            conn.execute((migrate.sql_dir() / name).read_text(encoding="utf-8"))  # type: ignore[arg-type]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("""
            do $$
            declare
                v_function regprocedure;
            begin
                for v_function in
                    select p.oid::regprocedure from pg_catalog.pg_proc p
                      join pg_catalog.pg_depend d on d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid
                                                 and d.deptype = 'e'
                     where p.pronamespace = 'beliefdb'::regnamespace
                loop
                    execute pg_catalog.format('revoke execute on function %s from public', v_function);
                    execute pg_catalog.format('grant execute on function %s to beliefdb_app', v_function);
                end loop;
            end
            $$""")


def test_an_upgrade_from_0014_moves_beliefdbs_extensions_out_of_its_schema(new_db: Callable[..., str]) -> None:
    url, canonical = new_db(), new_db()
    at_revision_0014(url)
    assert migrate.current_revision(url) == "0014"
    assert [(name, where) for name, where, *_ in extensions_state(url)] == [
        ("pg_trgm", "beliefdb"), ("vector", "beliefdb")]
    assert extension_functions_in_beliefdb(url) > 100
    with beliefdb.connect(url) as bdb:
        bdb.ingest_text(V32, source="return-policy.md", authority="official")
    versions = [(name, version) for name, _, version, *_ in extensions_state(url)]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(UNDO_STAND_INS)  # revisions 0016 to 0029 make them

    Cli({"BELIEFDB_URL": url})("migrate")

    assert migrate.current_revision(url) == migrate.head_revision()
    after = extensions_state(url)
    assert [(name, where) for name, where, *_ in after] == [("pg_trgm", "beliefdb_ext"), ("vector", "beliefdb_ext")]
    assert [(name, version) for name, _, version, *_ in after] == versions
    assert extension_functions_in_beliefdb(url) == 0
    # the schema is the canonical one (sql/ loaded into an empty database), extensions included
    load_canonical(canonical)
    upgraded, expected = catalog_dump(url), catalog_dump(canonical)
    assert upgraded["extensions"] and upgraded["extension_function_privileges"]
    assert dump_difference(upgraded, expected) == {}
    # what was stored before is found again, by vector too
    (embedded,) = rows(url, "select count(*) from beliefdb.belief_embedding")[0]
    assert embedded >= 2
    with beliefdb.connect(url) as bdb:
        asked = bdb.ask(Q)
    assert asked.status == "ok" and asked.beliefs[0].belief.value == "7 days"
    assert "vector" in asked.beliefs[0].matched_by


# ---------------------------------------------------------------------------------------------
# errors keep their hint, and a specific code
# ---------------------------------------------------------------------------------------------


def test_a_database_errors_hint_is_kept_on_one_line(admin: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn, pytest.raises(psycopg.Error) as raised:
        conn.execute("select pg_catalog.length(1, 2, 3)")
    assert raised.value.diag.message_hint
    error = connector.translate(raised.value)
    assert error.message.startswith("function pg_catalog.length(integer, integer, integer) does not exist (hint: ")
    assert error.message.endswith(f"{raised.value.diag.message_hint})")
    assert "\n" not in error.message


def test_the_cli_prints_the_hint_of_a_refusal(cli: Cli, db_url: str, write_doc: Any) -> None:
    report = cli.json("ingest", write_doc("policy.md", V32), "--as", "alice")
    belief = report["accepted"][0]["id"]
    line = cli.one_line_error("retract", "--belief", belief, "--reason", "wrong", "--as", "bob")
    assert "only its owner can" in line
    assert line.endswith("(hint: propose a correction instead (its owner reviews it), or raise a conflict)"), line
    refused = cli.error("retract", "--belief", belief, "--reason", "wrong", "--as", "bob", code="not_owner")
    assert refused["message"] == line.removeprefix("error: ")


PASSWORD = "team-owner-password"


@pytest.fixture
def login_role(admin: str) -> Iterator[str]:
    """A login role that is not a superuser (as on a managed service), dropped at the end."""
    name = f"team_owner_{uuid.uuid4().hex[:8]}"
    # (beliefdb's roles are the cluster's: made here if no migration of this worker's server made them yet)
    migrate.create_roles(admin)
    with psycopg.connect(admin, autocommit=True) as conn:
        # every login but the owner's needs its password (the embedded server's pg_hba.conf)
        conn.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(name), sql.Literal(PASSWORD)))
        # as docs/dba.md asks of a superuser for a migrating user without createrole
        conn.execute(sql.SQL("grant beliefdb_app, beliefdb_clock to {}").format(sql.Identifier(name)))
    yield name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


def test_migrate_says_who_must_create_an_extension(login_role: str, new_db: Callable[..., str]) -> None:
    """pgvector is not a trusted extension: a user who may not create it gets a one-line error with
    what to do, the code extension_conflict, and nothing half-written."""
    url = make_conninfo(new_db(owner=login_role), user=login_role, password=PASSWORD)
    cli = Cli({"BELIEFDB_URL": url})
    refused = cli.error("migrate", code="extension_conflict")
    assert refused["message"] == (
        f"beliefdb needs the extension vector, and {login_role} may not create it "
        "(hint: a superuser runs \"create extension vector\" once, in any schema (beliefdb uses it where it is), "
        "or ask your provider to enable pgvector; then beliefdb migrate again)")
    line = cli.one_line_error("migrate")
    assert line == f"error: {refused['message']}"
    assert rows(url, "select nspname from pg_catalog.pg_namespace where nspname like 'beliefdb%'") == []
    assert rows(url, "select extname from pg_catalog.pg_extension where extname in ('vector', 'pg_trgm')") == []
    with pytest.raises(errors.ExtensionConflict):
        migrate.upgrade(url)


def test_a_failed_migration_has_its_own_code(new_db: Callable[..., str]) -> None:
    url = new_db()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create schema beliefdb")
        conn.execute("create table beliefdb.workspace (something_else integer)")
    refused = Cli({"BELIEFDB_URL": url}).error("migrate", code="migration_failed")
    assert refused["message"] == 'migration failed: relation "workspace" already exists'
    # nothing of the migration stayed behind
    assert rows(url, "select count(*) from pg_catalog.pg_class where relnamespace = 'beliefdb'::regnamespace") == [(1,)]
    assert rows(url, "select extname from pg_catalog.pg_extension where extname in ('vector', 'pg_trgm')") == []


def test_migrate_says_which_extension_schema_it_may_not_use(postgresql_proc: Any, login_role: str,
                                                            new_db: Callable[..., str]) -> None:
    """A team's pgvector in a schema of its own that the migrating user was never given usage on: the
    migration named the type through a path that skips that schema and stopped with 'type "vector" does
    not exist' (or pg_trgm's 'operator class "gin_trgm_ops" does not exist'), saying nothing of why.
    (``postgresql_proc``: beliefdb's roles exist before ``login_role`` is granted them.)"""
    url = new_db(owner=login_role)  # the superuser's URL of it
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create schema vec")  # a superuser's: nobody else may use it
        conn.execute("create extension vector with schema vec")
    owner = make_conninfo(url, user=login_role, password=PASSWORD)
    cli = Cli({"BELIEFDB_URL": owner})
    refused = cli.error("migrate", code="extension_conflict")
    assert refused["message"] == (
        f"beliefdb uses the extension vector where it is, in schema vec, and {login_role} may not use that schema "
        f"(hint: the schema's owner runs \"grant usage on schema vec to {login_role}\", then beliefdb migrate again)")
    assert rows(owner, "select to_regnamespace('beliefdb')") == [(None,)]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("grant usage on schema vec to {}").format(sql.Identifier(login_role)))
    cli("migrate")
    assert rows(owner, "select extnamespace::regnamespace::text from pg_catalog.pg_extension "
                       "where extname = 'vector'") == [("vec",)]
