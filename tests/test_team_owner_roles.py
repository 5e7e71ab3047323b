"""A team's own PostgreSQL, migrated by a login that is not a superuser, as docs/dba.md allows.

With ``createrole`` (PostgreSQL 16 or later): the first migration creates beliefdb's roles, and PostgreSQL
grants each role so made to its maker with the admin option alone (``inherit false, set false``,
unless ``createrole_self_grant`` says otherwise). That membership must neither stop the owner from
acting as ``beliefdb_app`` nor make it a ``beliefdb_eraser``. Without it, what the user may not do is
said with what a superuser runs.

The session's server already has the roles (its template was migrated by the superuser), so the
fixture gives the login exactly the memberships PostgreSQL gives the maker of a role."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer

pytestmark = [pytest.mark.robustness]

PASSWORD = "team-owner-password"
ROLES = ("beliefdb_app", "beliefdb_clock", "beliefdb_eraser", "beliefdb_reader")


@contextmanager
def team_database(admin: str, createrole: bool) -> Iterator[str]:
    """A database owned by a new login (not a superuser), pgvector made by a superuser: its URL as that
    login. ``createrole``: the login has createrole and holds beliefdb's roles as the maker of a role
    holds it on PostgreSQL 16+ (admin option alone); else it has neither."""
    role = f"team_owner_{uuid.uuid4().hex[:8]}"
    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login {} password {}").format(
            sql.Identifier(role), sql.SQL("createrole" if createrole else ""), sql.Literal(PASSWORD)))
        for granted in ROLES if createrole else ():
            conn.execute(sql.SQL("grant {} to {} with admin true, inherit false, set false").format(
                sql.Identifier(granted), sql.Identifier(role)))
        conn.execute(sql.SQL("create database {} owner {}").format(sql.Identifier(database), sql.Identifier(role)))
    with psycopg.connect(make_conninfo(admin, dbname=database), autocommit=True) as conn:
        conn.execute("create extension vector")
    try:
        yield make_conninfo(admin, dbname=database, user=role, password=PASSWORD)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(database)))
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


@pytest.fixture
def createrole_owner(embedded_server: EmbeddedServer, postgresql_proc: Any) -> Iterator[str]:
    """A database owned by a createrole login holding beliefdb's roles as the maker of a role holds it on
    PostgreSQL 16+: its URL as that login. (``postgresql_proc``: the session's template is migrated, so
    the roles exist.)"""
    admin = embedded_server.status().url
    assert admin is not None
    with team_database(admin, createrole=True) as url:
        yield url


def test_a_createrole_owner_acts_as_the_application_role(createrole_owner: str, write_doc: Any) -> None:
    """docs/dba.md: the user who migrates is granted beliefdb_app. An admin-only membership is no grant:
    every command failed with 'this database user cannot act as beliefdb_app'."""
    cli = Cli({"BELIEFDB_URL": createrole_owner})
    cli("migrate")
    doc: Path = write_doc("policy.md", "Returns are accepted within 7 days of delivery.\n")
    cli("ingest", doc, "--no-embed")
    assert "7 days" in cli("beliefs").stdout
    with psycopg.connect(createrole_owner, autocommit=True) as conn:
        conn.execute("set role beliefdb_app")


def test_a_createrole_owner_is_no_eraser(createrole_owner: str, write_doc: Any) -> None:
    """Only a login granted beliefdb_eraser forgets what another principal owns (docs/dba.md). The CLI logs
    in as the schema's owner for every principal: while its admin-only membership counted as a grant,
    anyone acting through it forgot anyone's source."""
    cli = Cli({"BELIEFDB_URL": createrole_owner})
    cli("migrate")
    cli("ingest", write_doc("policy.md", "Returns are accepted within 7 days of delivery.\n"), "--no-embed",
        "--as", "alice")
    fingerprint = cli.json("forget", "--source", "policy.md", "--preview", "--as", "alice")["fingerprint"]
    for preview in (["--preview"], ["--expect", fingerprint]):
        refused = cli.error("forget", "--source", "policy.md", *preview, "--as", "mallory", code="not_owner")
        assert refused["message"].startswith("source policy.md is owned by alice"), refused
    assert "7 days" in cli("beliefs").stdout
    with psycopg.connect(createrole_owner, autocommit=True) as conn:
        assert conn.execute("select beliefdb._is_eraser()").fetchone() == (False,)
        # a grant that confers the role still counts
        conn.execute(sql.SQL("grant beliefdb_eraser to {}").format(sql.Identifier(str(conn.info.user))))
        assert conn.execute("select beliefdb._is_eraser()").fetchone() == (True,)


@pytest.fixture
def plain_owner(embedded_server: EmbeddedServer, postgresql_proc: Any) -> Iterator[str]:
    """A database owned by a login with neither createrole nor beliefdb's roles: its URL as that login."""
    admin = embedded_server.status().url
    assert admin is not None
    with team_database(admin, createrole=False) as url:
        yield url


def test_migrate_says_what_a_superuser_must_grant(plain_owner: str) -> None:
    """The roles exist (another database of the cluster has beliefdb) and the migrating user is no member:
    the refusal says what a superuser runs, instead of PostgreSQL's bare 'permission denied to grant role'."""
    role = str(psycopg.conninfo.conninfo_to_dict(plain_owner)["user"])
    cli = Cli({"BELIEFDB_URL": plain_owner})
    refused = cli.error("migrate", code="permission_denied")
    assert refused["message"] == (
        f"the user who migrates is a member of beliefdb_app and beliefdb_clock, and {role} is not and may not grant "
        f"them (hint: a superuser runs \"grant beliefdb_app, beliefdb_clock to {role}\" once, then beliefdb migrate "
        "again)")
    with psycopg.connect(plain_owner, autocommit=True) as conn:
        assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,)


def test_the_upgrade_script_says_it_too(plain_owner: str) -> None:
    """``migrate --sql`` run with psql by that user stops on the same refusal, before any revision."""
    script = Cli({})("migrate", "--sql").stdout
    with (psycopg.connect(plain_owner, autocommit=True) as conn,
          pytest.raises(psycopg.errors.InsufficientPrivilege) as refused):
        conn.execute(script)
    role = str(psycopg.conninfo.conninfo_to_dict(plain_owner)["user"])
    assert refused.value.diag.message_hint == (
        f"a superuser runs \"grant beliefdb_app, beliefdb_clock to {role}\" once, then beliefdb migrate again")


@pytest.fixture
def granted_owner(plain_owner: str, embedded_server: EmbeddedServer) -> Iterator[str]:
    """``plain_owner`` granted beliefdb's roles by a superuser, as docs/dba.md says, and migrated."""
    admin = embedded_server.status().url
    assert admin is not None
    role = str(psycopg.conninfo.conninfo_to_dict(plain_owner)["user"])
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("grant beliefdb_app, beliefdb_clock to {}").format(sql.Identifier(role)))
    Cli({"BELIEFDB_URL": plain_owner})("migrate")
    yield plain_owner
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("drop role if exists agent_of_a_team")


def test_agent_create_says_which_right_the_owner_lacks(granted_owner: str, embedded_server: EmbeddedServer) -> None:
    """The schema's owner without createrole: 'agent create takes the schema owner' said it was not the
    owner, which it is."""
    role = str(psycopg.conninfo.conninfo_to_dict(granted_owner)["user"])
    cli = Cli({"BELIEFDB_URL": granted_owner})
    refused = cli.error("agent", "create", "agent_of_a_team", "-w", "default", code="permission_denied")
    hint = (f"(hint: run 'beliefdb agent create' as a superuser, or a superuser runs \"alter role {role} createrole\""
            f" and \"grant beliefdb_app to {role} with admin option\" once)")
    assert refused["message"] == (f"creating an agent's login makes a login role in beliefdb_app, and {role} may not: "
                                  f"permission denied to create role {hint}")
    assert cli.json("agent", "list") == []
    admin = embedded_server.status().url
    assert admin is not None
    with psycopg.connect(admin, autocommit=True) as conn:  # what the hint says
        conn.execute(sql.SQL("alter role {} createrole").format(sql.Identifier(role)))
        conn.execute(sql.SQL("grant beliefdb_app to {} with admin option").format(sql.Identifier(role)))
    created = cli.json("agent", "create", "agent_of_a_team", "-w", "default")
    assert created["workspace"] == "default"
    cli("agent", "drop", "agent_of_a_team")


@pytest.mark.parametrize("has", ["createrole", "admin option"])
def test_agent_create_says_only_the_right_the_owner_lacks(granted_owner: str, embedded_server: EmbeddedServer,
                                                          has: str) -> None:
    """An owner with createrole but beliefdb_app granted without the admin option (as a superuser grants it,
    docs/dba.md) was told to have a superuser run "alter role X createrole" too, which it has; and the other
    way round. The hint names what is missing only."""
    role = str(psycopg.conninfo.conninfo_to_dict(granted_owner)["user"])
    admin = embedded_server.status().url
    assert admin is not None
    with psycopg.connect(admin, autocommit=True) as conn:
        if has == "createrole":
            conn.execute(sql.SQL("alter role {} createrole").format(sql.Identifier(role)))
        else:
            conn.execute(sql.SQL("grant beliefdb_app to {} with admin option").format(sql.Identifier(role)))
    cli = Cli({"BELIEFDB_URL": granted_owner})
    refused = cli.error("agent", "create", "agent_of_a_team", "-w", "default", code="permission_denied")
    runs = (f"\"grant beliefdb_app to {role} with admin option\"" if has == "createrole"
            else f"\"alter role {role} createrole\"")
    assert refused["message"].startswith(
        f"creating an agent's login makes a login role in beliefdb_app, and {role} may not: "), refused["message"]
    assert refused["message"].endswith(
        f" (hint: run 'beliefdb agent create' as a superuser, or a superuser runs {runs} once)"), refused["message"]
    assert cli.json("agent", "list") == []


@pytest.fixture
def app_login(db_url: str) -> Iterator[str]:
    """The application's own login, as docs/dba.md advises (a member of beliefdb_app and nothing else)."""
    role = f"app_login_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login password {} in role beliefdb_app").format(
            sql.Identifier(role), sql.Literal(PASSWORD)))
    yield make_conninfo(db_url, user=role, password=PASSWORD)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


@pytest.mark.parametrize("check", [[], ["--check"]])
def test_migrate_by_another_user_says_who_migrates(app_login: str, check: list[str]) -> None:
    """migrate run with the application's URL: it was 'database_unavailable', 'cannot read the schema version:
    (psycopg.errors.InsufficientPrivilege) permission denied for table alembic_version'."""
    refused = Cli({"BELIEFDB_URL": app_login}).error("migrate", *check, code="permission_denied")
    assert refused["message"] == (
        "cannot read the schema version: permission denied for table alembic_version (hint: migrate, or check, as "
        "the schema's owner: the user that ran the first beliefdb migrate)")


def test_migrate_says_who_grants_create_on_the_database(embedded_server: EmbeddedServer, postgresql_proc: Any) -> None:
    """The team's database is owned by another role: the migrating user got 'permission denied for database X'."""
    admin = embedded_server.status().url
    assert admin is not None
    role = f"team_owner_{uuid.uuid4().hex[:8]}"
    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login password {} in role beliefdb_app, beliefdb_clock").format(
            sql.Identifier(role), sql.Literal(PASSWORD)))
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(database)))
    url = make_conninfo(admin, dbname=database)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("create extension vector")
        cli = Cli({"BELIEFDB_URL": make_conninfo(url, user=role, password=PASSWORD)})
        refused = cli.error("migrate", code="permission_denied")
        assert refused["message"] == (
            f"beliefdb creates its schema beliefdb, and {role} may not create a schema in database {database} "
            f"(hint: the database's owner runs \"grant create on database {database} to {role}\", then beliefdb "
            "migrate again)")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(sql.SQL("grant create on database {} to {}").format(sql.Identifier(database),
                                                                            sql.Identifier(role)))
        cli("migrate")
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(database)))
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def test_agent_drop_by_a_createrole_owner_ends_the_agents_sessions(createrole_owner: str) -> None:
    """docs/dba.md: agent drop ends the sessions the agent still has open. The owner holds the agent's role
    it made with the admin option alone, which may not signal its backends: they stayed open."""
    cli = Cli({"BELIEFDB_URL": createrole_owner})
    cli("migrate")
    name = f"agent_{uuid.uuid4().hex[:8]}"
    made = cli.json("agent", "create", name, "-w", "default")
    session = psycopg.connect(made["url"], autocommit=True)
    try:
        assert session.execute("select beliefdb.current_principal()").fetchone() == (name,)
        cli("agent", "drop", name)
        with pytest.raises(psycopg.OperationalError):
            session.execute("select 1")
    finally:
        session.close()
    with psycopg.connect(createrole_owner, autocommit=True) as conn:
        assert conn.execute("select count(*) from pg_catalog.pg_roles where rolname = %s", (name,)).fetchone() == (0,)
        assert conn.execute("select action from beliefdb.audit_event where action like 'agent.%' order by seq"
                            ).fetchall() == [("agent.create",), ("agent.drop",)]


def test_agent_drop_of_a_superusers_agent_says_the_owner_lacks_the_admin_option(
        createrole_owner: str, embedded_server: EmbeddedServer) -> None:
    """An agent a superuser made (``agent create --db <superuser url>``), dropped by the schema's owner: it said
    "dropping an agent's login takes the schema owner (who runs 'beliefdb migrate'): permission denied to alter
    role" to the schema's owner. What it lacks is the admin option on the role (from PostgreSQL 16 a createrole
    login has it on the roles it made only), and the refusal says the two ways out."""
    cli = Cli({"BELIEFDB_URL": createrole_owner})
    cli("migrate")
    admin = embedded_server.status().url
    assert admin is not None
    owner = str(psycopg.conninfo.conninfo_to_dict(createrole_owner)["user"])
    superuser = make_conninfo(admin, dbname=str(psycopg.conninfo.conninfo_to_dict(createrole_owner)["dbname"]))
    name = f"agent_{uuid.uuid4().hex[:8]}"
    try:
        cli("agent", "create", name, "-w", "default", "--db", superuser)
        refused = cli.error("agent", "drop", name, code="permission_denied")
        assert refused["message"] == (
            f"dropping an agent's login drops its role {name}, and {owner}, the schema's owner, may not: permission"
            f" denied to alter role ({owner} has no admin option on role {name}: it did not create it) (hint: run"
            f" 'beliefdb agent drop' as a superuser, or a superuser runs \"grant {name} to {owner} with admin"
            " option\" once)")
        assert [agent["name"] for agent in cli.json("agent", "list")] == [name]
        with psycopg.connect(admin, autocommit=True) as conn:  # what the hint says
            conn.execute(sql.SQL("grant {} to {} with admin option").format(sql.Identifier(name),
                                                                            sql.Identifier(owner)))
        cli("agent", "drop", name)
        assert cli.json("agent", "list") == []
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))


def _uninstall_block(n: int) -> str:
    """The n-th sql block of docs/dba.md's "Uninstalling"."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "dba.md").read_text(encoding="utf-8")
    section = text.split("### Uninstalling", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, flags=re.S)[n]


def test_uninstalling_as_dba_md_says_leaves_nothing_of_beliefdb(
        createrole_owner: str, embedded_server: EmbeddedServer, write_doc: Any) -> None:
    """docs/dba.md, "Uninstalling": the agents' logins, then both schemas in one transaction (the query run before
    names a team's object that uses an extension of beliefdb_ext, which the drop's NOTICE may not), leave the
    database nothing of beliefdb's and nothing that holds its roles; an extension the team made elsewhere stays.
    (The roles' own block is checked against what migrate creates: they are the whole test cluster's.)"""
    cli = Cli({"BELIEFDB_URL": createrole_owner})
    cli("migrate")
    cli("ingest", write_doc("policy.md", "Returns are accepted within 7 days of delivery.\n"), "--no-embed")
    name = f"agent_{uuid.uuid4().hex[:8]}"
    cli("agent", "create", name, "-w", "default")
    for agent in cli.json("agent", "list"):  # step 1
        cli("agent", "drop", agent["name"])
    yours, schemas = _uninstall_block(0), _uninstall_block(1)
    with psycopg.connect(createrole_owner, autocommit=True) as conn:
        assert conn.execute(yours).fetchall() == []
        conn.execute("create table public.team_notes (body text)")
        conn.execute("create index team_notes_trgm on public.team_notes using gin (body beliefdb_ext.gin_trgm_ops)")
        assert [row[0] for row in conn.execute(yours)] == ["index public.team_notes_trgm"]
        conn.execute("drop table public.team_notes")
        conn.execute(schemas)
        assert conn.execute("select nspname from pg_catalog.pg_namespace"
                            " where nspname like 'beliefdb%'").fetchall() == []
        assert conn.execute("select extname, extnamespace::regnamespace::text from pg_catalog.pg_extension"
                            " where extname <> 'plpgsql' order by 1").fetchall() == [("vector", "public")]
        # nothing of this database holds beliefdb's roles: step 3 is refused for other databases only
        assert conn.execute("""
            select count(*) from pg_catalog.pg_shdepend d
             where d.dbid = (select oid from pg_catalog.pg_database where datname = pg_catalog.current_database())
               and d.refclassid = 'pg_catalog.pg_authid'::regclass
               and d.refobjid in (select oid from pg_catalog.pg_roles where rolname = any(%s))""",
                            (list(ROLES),)).fetchone() == (0,)
        assert conn.execute("select count(*) from pg_catalog.pg_roles where rolname = %s", (name,)).fetchone() == (0,)
    assert _uninstall_block(2).strip() == f"drop role if exists {', '.join(migrate.role_names())};"
