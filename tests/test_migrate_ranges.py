"""Upgrades a DBA can review: ``beliefdb migrate --sql --from REV [--to REV]`` prints the script from
any revision to any later one, and run as psql runs it on a database at that revision it leaves the
canonical schema; the script refuses a database at another revision and changes nothing there.
``beliefdb migrate --check`` tells a deploy pipeline whether migrate has anything to do.

A database "at revision R" is what alembic's online upgrade to R leaves: the tables of the revisions
up to R. The re-applied functions, views and grants are the head's, so an upgrade that stops before
the head (online or --sql --to) leaves them out and the one that reaches the head applies them. One
chain database is migrated a revision at a time and copied as a template at each revision; each test
takes a fresh copy of the template it needs."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from alembic import command
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer, client_program
from tests.conftest import Cli
from tests.test_schema import CATALOG_QUERIES, Dump, catalog_dump, dump_difference, load_canonical

pytestmark = pytest.mark.robustness

REVISIONS = migrate.revisions()
HEAD = REVISIONS[-1]


def _execute(conn: psycopg.Connection[Any], statement: str, *names: str) -> None:
    conn.execute(sql.SQL(statement).format(*(sql.Identifier(n) for n in names)))


@pytest.fixture(scope="module")
def admin_url(embedded_server: EmbeddedServer) -> str:
    url = embedded_server.status().url
    assert url is not None
    return url


@pytest.fixture(scope="module")
def templates(admin_url: str) -> Iterator[dict[str | None, str]]:
    """The name of a template database at each revision (None: an empty database), made by
    migrating one database online with alembic a revision at a time."""
    tag = uuid.uuid4().hex[:8]
    chain = f"chain_{tag}"
    made: dict[str | None, str] = {}
    with psycopg.connect(admin_url, autocommit=True) as admin:
        _execute(admin, "create database {}", chain)
        made[None] = f"at_none_{tag}"
        _execute(admin, "create database {} template {} strategy file_copy", made[None], chain)
        for revision in REVISIONS:
            command.upgrade(migrate._config(make_conninfo(admin_url, dbname=chain)), revision)
            made[revision] = f"at_{revision}_{tag}"
            _execute(admin, "create database {} template {} strategy file_copy", made[revision], chain)
    yield made
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for name in [chain, *made.values()]:
            _execute(admin, "drop database if exists {} with (force)", name)


@pytest.fixture
def database_at(admin_url: str, templates: dict[str | None, str]) -> Iterator[Callable[[str | None], str]]:
    """A fresh copy of the database at a revision (None: empty); the URL. Dropped afterwards. The
    templates take seconds to make, so the tests that use them are marked slow."""
    made: list[str] = []

    def copy(revision: str | None) -> str:
        made.append(f"copy_{uuid.uuid4().hex[:12]}")
        with psycopg.connect(admin_url, autocommit=True) as admin:
            _execute(admin, "create database {} template {} strategy file_copy", made[-1], templates[revision])
        return make_conninfo(admin_url, dbname=made[-1])

    yield copy
    with psycopg.connect(admin_url, autocommit=True) as admin:
        for name in made:
            _execute(admin, "drop database if exists {} with (force)", name)


@pytest.fixture(scope="module")
def canonical(admin_url: str) -> Iterator[Dump]:
    """The catalog of all of sql/ loaded into an empty database: what every upgrade must leave."""
    name = f"canonical_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        _execute(admin, "create database {}", name)
    try:
        url = make_conninfo(admin_url, dbname=name)
        load_canonical(url)
        yield catalog_dump(url)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            _execute(admin, "drop database if exists {} with (force)", name)


@pytest.fixture
def cli() -> Cli:
    """The command line with no default database: every call names one with --db, or needs none."""
    return Cli({})


def run_script(url: str, script: str) -> None:
    """Run a printed script as psql does: its statements as written, its own begin and commit."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(script)  # type: ignore[call-overload]  # a script, not a literal: what a DBA runs


def schema_dump(url: str) -> Dump:
    """catalog_dump of a database at any revision: every section but the seed rows (whose tables the
    early revisions do not have)."""
    with psycopg.connect(url, autocommit=True) as conn:
        return {name: sorted(conn.execute(query).fetchall(), key=repr)  # type: ignore[call-overload]
                for name, query in CATALOG_QUERIES.items() if name != "seed"}


def revision_of(url: str) -> tuple[str | None, str | None]:
    """(the revision recorded, the fingerprint comment) of a database."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("select (select max(version_num) from beliefdb.alembic_version),"
                           " obj_description('beliefdb.alembic_version'::regclass, 'pg_class')").fetchone()
    assert row is not None
    return row[0], row[1]


# --- from each released revision to the head ------------------------------------------------------


@pytest.fixture
def files_read_once(monkeypatch: pytest.MonkeyPatch) -> str:
    """The revisions and the fingerprint of migrations/ and sql/, read once for a test that runs the command
    line three times at each of the 40-odd revisions: each call read them again (alembic compiles every
    revision file, the fingerprint hashes every file), a quarter of the test's time. They are what the
    package's own functions return, from files nothing changes during the test. Gives the fingerprint."""
    from beliefdb.db import migrate_script

    revisions, fingerprint = list(REVISIONS), migrate.fingerprint()
    monkeypatch.setattr(migrate, "revisions", lambda: list(revisions))
    monkeypatch.setattr(migrate_script, "revisions", lambda: list(revisions))
    monkeypatch.setattr(migrate, "fingerprint", lambda: fingerprint)
    return fingerprint


@pytest.mark.slow
def test_the_script_from_each_revision_upgrades_a_database_at_it_to_the_canonical_schema(
        cli: Cli, database_at: Callable[[str | None], str], canonical: Dump, files_read_once: str) -> None:
    for revision in REVISIONS:
        url = database_at(revision)
        behind = len(REVISIONS) - 1 - REVISIONS.index(revision)
        # the online upgrade that reached the head applied its functions: nothing left to do there
        before = cli.json("migrate", "--check", "--db", url, expect=1 if behind else 0)
        assert before == {"current": revision, "head": HEAD, "behind": behind, "up_to_date": not behind,
                          "moved_extensions": {}}, revision

        script = cli("migrate", "--sql", "--from", revision).stdout
        assert script.lstrip().startswith("BEGIN;") and script.rstrip().endswith("COMMIT;")
        run_script(url, script)

        assert dump_difference(catalog_dump(url), canonical) == {}, revision
        assert revision_of(url) == (HEAD, f"beliefdb schema {files_read_once}")
        assert cli.json("migrate", "--check", "--db", url) == {"current": HEAD, "head": HEAD, "behind": 0,
                                                                "up_to_date": True, "moved_extensions": {}}


@pytest.mark.slow
def test_an_upgrade_in_two_scripts_stops_at_the_revision_asked_then_reaches_the_head(
        cli: Cli, database_at: Callable[[str | None], str], admin_url: str, templates: dict[str | None, str],
        canonical: Dump) -> None:
    """--to below the head changes tables only: the database is then what the online upgrade to that
    revision leaves, and the script --from there finishes the job."""
    url = database_at("0003")
    run_script(url, cli("migrate", "--sql", "--from", "0003", "--to", "0008").stdout)
    assert revision_of(url) == ("0008", None)
    online = schema_dump(make_conninfo(admin_url, dbname=templates["0008"]))
    assert len(online["relations"]) > 20 and dump_difference(schema_dump(url), online) == {}
    assert cli.json("migrate", "--check", "--db", url, expect=1)["behind"] == len(REVISIONS) - 1 - REVISIONS.index(
        "0008")

    run_script(url, cli("migrate", "--sql", "--from", "0008", "--to", "head").stdout)
    assert dump_difference(catalog_dump(url), canonical) == {}
    assert revision_of(url) == (HEAD, f"beliefdb schema {migrate.fingerprint()}")


# --- the script refuses a database it was not printed for --------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("printed_from", "database", "hint"), [
    ("0012", "0010", "beliefdb migrate --sql --from 0010"),
    (None, HEAD, f"beliefdb migrate --sql --from {HEAD}"),
    ("0005", None, "beliefdb migrate --sql"),
])
def test_a_script_refuses_a_database_at_another_revision_and_changes_nothing(
        cli: Cli, database_at: Callable[[str | None], str], printed_from: str | None, database: str | None,
        hint: str) -> None:
    url = database_at(database)
    before = schema_dump(url)
    script = cli("migrate", "--sql", *(["--from", printed_from] if printed_from else [])).stdout
    with pytest.raises(psycopg.errors.RaiseException) as refused:
        run_script(url, script)
    said = refused.value.diag
    nothing = "nothing (no beliefdb schema)"
    assert said.message_primary == (f"this script upgrades beliefdb from {printed_from or nothing},"
                                    f" but this database is at {database or nothing}")
    assert said.message_hint is not None and said.message_hint.endswith(hint)
    assert schema_dump(url) == before


@pytest.mark.slow
def test_the_script_from_nothing_installs_on_an_empty_database(
        cli: Cli, database_at: Callable[[str | None], str], canonical: Dump) -> None:
    url = database_at(None)
    run_script(url, cli("migrate", "--sql").stdout)
    assert dump_difference(catalog_dump(url), canonical) == {}
    assert revision_of(url) == (HEAD, f"beliefdb schema {migrate.fingerprint()}")


def test_the_script_has_no_timeout_whatever_the_role_or_the_database_says(cli: Cli, admin_url: str) -> None:
    """A migration has no statement and no lock timeout (docs/operations.md), the script a DBA runs with psql
    too: under a DBA's ``alter role ... in database ... set statement_timeout`` it was cancelled. (The role's
    0.5 s, and a statement of 0.8 s after the script's own settings, which any of the script's statements
    might be: 15 ms also cancelled the script's first statement, its ``begin``, on a loaded machine.)"""
    name = f"untimed_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        _execute(admin, "create database {}", name)
        user = admin.info.user
        _execute(admin, "alter role {} in database {} set statement_timeout = '500ms'", user, name)
        _execute(admin, "alter database {} set lock_timeout = '1ms'", name)
    url = make_conninfo(admin_url, dbname=name)
    script = cli("migrate", "--sql").stdout
    settings = "set local lock_timeout = 0;\n"
    assert script.count(settings) == 1, script[:400]
    try:
        run_script(url, script.replace(settings, settings + "select pg_sleep(0.8);\n"))
        assert revision_of(url) == (HEAD, f"beliefdb schema {migrate.fingerprint()}")
        with psycopg.connect(url, autocommit=True) as conn:  # (set local: the session's own are as they were)
            assert conn.execute("select current_setting('statement_timeout'), current_setting('lock_timeout')"
                                ).fetchone() == ("500ms", "1ms")
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            _execute(admin, "drop database if exists {} with (force)", name)


# --- bad revisions -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["--from", "0099"], "--from: unknown revision '0099'"),
    (["--to", "latest"], "--to: unknown revision 'latest'"),
    (["--from", "0012", "--to", "0010"], "--from 0012 is later than --to 0010: beliefdb does not downgrade"),
    (["--from", "head", "--to", "0013"], f"--from {HEAD} is later than --to 0013"),
])
def test_bad_revisions_are_a_one_line_usage_error(cli_without_db: Cli, args: list[str], message: str) -> None:
    line = cli_without_db.one_line_error("migrate", "--sql", *args)
    assert line.startswith(f"error: {message}"), line
    # (a value its option refuses: exit 2, as for every usage error; it was 1, trial24)
    err = cli_without_db.error("migrate", "--sql", *args, code="invalid_input", expect=2)
    assert err["message"].startswith(message)


@pytest.mark.parametrize(("args", "message"), [
    (["--from", "0010"], "--from and --to choose the revisions of the script --sql prints"),
    (["--to", "0010"], "--from and --to choose the revisions of the script --sql prints"),
    (["--sql", "--check"], "--sql prints an upgrade and --check checks a database: choose one"),
])
def test_options_that_do_not_go_together_are_a_usage_error(cli_without_db: Cli, args: list[str], message: str,
                                                           tmp_path: Any) -> None:
    err = cli_without_db.error("migrate", *args, code="invalid_input", expect=2)
    assert err["message"].startswith(message)
    line = cli_without_db.one_line_error("migrate", *args)
    assert line.startswith(f"error: {message}")
    assert not (tmp_path / "beliefdb-home").exists(), "nothing was started"


# --- migrate --check -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_check_passes_on_a_current_database(cli: Cli, database_at: Callable[[str | None], str]) -> None:
    url = database_at(HEAD)
    assert cli("migrate", "--check", "--db", url).stdout == f"schema at revision {HEAD} (current)\n"
    assert cli.json("migrate", "--check", "--db", url) == {"current": HEAD, "head": HEAD, "behind": 0,
                                                            "up_to_date": True, "moved_extensions": {}}


@pytest.mark.slow
def test_check_fails_where_beliefdb_is_not_installed(cli: Cli, database_at: Callable[[str | None], str]) -> None:
    url = database_at(None)
    assert cli.one_line_error("migrate", "--check", "--db", url) == (
        f"error: beliefdb is not installed in this database (head is {HEAD}): run beliefdb migrate")
    assert cli.json("migrate", "--check", "--db", url, expect=1) == {
        "current": None, "head": HEAD, "behind": len(REVISIONS), "up_to_date": False, "moved_extensions": {}}
    with psycopg.connect(url) as conn:
        assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,), "check changed nothing"


@pytest.mark.slow
def test_check_fails_behind_the_head(cli: Cli, database_at: Callable[[str | None], str]) -> None:
    url = database_at("0012")
    assert cli.one_line_error("migrate", "--check", "--db", url) == (
        f"error: the schema is at revision 0012, {len(REVISIONS) - 1 - REVISIONS.index('0012')} behind {HEAD}:"
        " run beliefdb migrate")
    assert revision_of(url)[0] == "0012"


@pytest.mark.slow
def test_check_fails_when_the_functions_are_another_packages(cli: Cli,
                                                            database_at: Callable[[str | None], str]) -> None:
    """At the head revision, but migrated by a beliefdb whose sql/ differed (a release that changed
    functions only): migrate would re-apply them, so the check fails."""
    url = database_at(HEAD)
    with psycopg.connect(url) as conn:
        conn.execute("comment on table beliefdb.alembic_version is 'beliefdb schema older'")
    assert cli.json("migrate", "--check", "--db", url, expect=1) == {
        "current": HEAD, "head": HEAD, "behind": 0, "up_to_date": False, "moved_extensions": {}}
    line = cli.one_line_error("migrate", "--check", "--db", url)
    assert "functions, views or grants are not this beliefdb's: run beliefdb migrate" in line
    cli("migrate", "--db", url)
    assert cli.json("migrate", "--check", "--db", url)["up_to_date"] is True


@pytest.mark.slow
def test_check_fails_on_a_revision_from_a_newer_beliefdb(cli: Cli, database_at: Callable[[str | None], str]) -> None:
    url = database_at(HEAD)
    with psycopg.connect(url) as conn:
        conn.execute("update beliefdb.alembic_version set version_num = '9999'")
    assert cli.json("migrate", "--check", "--db", url, expect=1) == {
        "current": "9999", "head": HEAD, "behind": None, "up_to_date": False, "moved_extensions": {}}
    assert "which this beliefdb (head " in cli.one_line_error("migrate", "--check", "--db", url)


def test_check_of_an_unreachable_database_is_a_one_line_error(cli: Cli) -> None:
    url = "postgresql://nobody@127.0.0.1:9/none?connect_timeout=2"
    assert cli.one_line_error("migrate", "--check", "--db", url).startswith("error: cannot connect to the database")
    assert cli.error("migrate", "--check", "--db", url, code="database_unavailable")


# --- what psql prints while the script runs ----------------------------------------------------------


def test_the_script_says_nothing_but_what_a_dba_must_read(cli: Cli, admin_url: str) -> None:
    """Run with psql, the script printed a NOTICE for each "drop ... if exists" of something absent
    ("... does not exist, skipping"), and the rows of statements that set something (a search_path, the
    lock). It says nothing now, from nothing or from the head; a function of the DBA's that beliefdb keeps
    (an object depends on it) is still said, as a WARNING."""
    name = f"quiet_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        _execute(admin, "create database {}", name)
    url = make_conninfo(admin_url, dbname=name)
    psql = [str(client_program("psql")), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url]
    try:
        installed = subprocess.run(psql, input=cli("migrate", "--sql").stdout, capture_output=True, text=True,
                                   check=True)
        assert "NOTICE" not in installed.stdout + installed.stderr, installed.stderr[:2000]
        # nor a row of its own (psql -q prints no command tags, but every row a statement returns: the
        # search path schema/02_extensions.sql and revision 0015 set, the lock, revision 0047's principal,
        # the version alembic inserts)
        assert installed.stdout == "", installed.stdout[:2000]
        # (from nothing, the functions revision 0001 makes and sql/ makes again in the same transaction were
        # taken for another release's: "beliefdb keeps beliefdb.clock(), which this release does not make")
        assert "WARNING" not in installed.stdout + installed.stderr, installed.stderr[:2000]
        assert revision_of(url) == (HEAD, f"beliefdb schema {migrate.fingerprint()}")
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("create function beliefdb.mine() returns integer language sql as 'select 1'")
            conn.execute("create view public.uses_mine as select beliefdb.mine()")
        upgraded = subprocess.run(psql, input=cli("migrate", "--sql", "--from", HEAD).stdout, capture_output=True,
                                  text=True, check=True)
        assert "NOTICE" not in upgraded.stdout + upgraded.stderr, upgraded.stderr[:2000]
        assert upgraded.stdout == "", upgraded.stdout[:2000]
        assert "WARNING:  beliefdb keeps beliefdb.mine(), which this release does not make" in upgraded.stderr
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute("show client_min_messages").fetchone() == ("notice",)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            _execute(admin, "drop database if exists {} with (force)", name)
