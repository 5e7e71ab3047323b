"""Backups (issue 19) and roles on a new server (issue 22 defect 13): ``beliefdb db dump`` writes the
database with the wheel's own pg_dump; ``beliefdb db restore`` puts it on a new server, beliefdb's
roles first (roles belong to the cluster, so no dump carries them), and the restored memory answers
as the original did, its audit chains verify and continue; a DBA's own pg_restore works once
``beliefdb db roles`` has run."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from alembic import command
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer, client_program
from beliefdb.errors import BeliefDBError

Q7 = "Returns are accepted within 7 days of delivery."
Q15 = "Returns are accepted within 15 days of delivery."
QUESTION = "how many days for returns?"


@pytest.fixture
def fresh_home(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Homes of new embedded servers (another cluster: none of beliefdb's roles), stopped at the end."""
    made: list[Path] = []

    def make(name: str) -> Path:
        made.append(tmp_path / name)
        return made[-1]

    yield make
    for home in made:
        EmbeddedServer(home).stop()


def at(home: Path) -> Cli:
    """The command line on the embedded server of ``home`` (no BELIEFDB_URL)."""
    return Cli({"BELIEFDB_HOME": str(home)})


def url_of(home: Path) -> str:
    url = EmbeddedServer(home).status().url
    assert url is not None
    return url


def roles(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        return {r[0] for r in conn.execute("select rolname from pg_roles where rolname like 'beliefdb%'")}


def head(url: str) -> tuple[int, bytes]:
    with psycopg.connect(url) as conn:
        row = conn.execute("select h.seq, h.hash from beliefdb.audit_head h join beliefdb.workspace w"
                           " on w.id = h.workspace_id where w.name = 'default'").fetchone()
    assert row is not None
    return int(row[0]), bytes(row[1])


def answers(cli: Cli, ids: dict[str, str]) -> dict[str, Any]:
    """What the memory answers: why of each belief, ask, impact, and every belief with its status."""
    return {"why_old": cli.json("why", ids["old"]), "why_new": cli.json("why", ids["new"]),
            "ask": cli.json("ask", QUESTION), "impact": cli.json("impact", ids["new"]),
            "beliefs": cli.json("beliefs", "--all"), "decisions": cli.json("decisions")}


def story(cli: Cli, write_doc: Any) -> dict[str, str]:
    """The return-policy story: 7 days, a decision on it and its action, then 15 days supersedes it."""
    v1 = cli.json("ingest", write_doc("return-policy.md", Q7 + "\n"), "--authority", "official",
                  "--version-label", "v3.2")
    old = v1["accepted"][0]["id"]
    decision = cli.json("decide", "Refuse the return of order 1042", "--because", old)["id"]
    cli.json("act", decision, "Email the customer a refusal")
    v2 = cli.json("ingest", write_doc("return-policy.md", Q15 + "\n"), "--version-label", "v3.3")
    return {"old": old, "new": v2["accepted"][0]["id"]}


@pytest.mark.robustness
@pytest.mark.slow
def test_dump_and_restore_on_a_new_server(cli: Cli, db_url: str, write_doc: Any, tmp_path: Path,
                                          fresh_home: Callable[[str], Path]) -> None:
    ids = story(cli, write_doc)
    before = answers(cli, ids)
    assert before["ask"]["beliefs"][0]["value"] == "15 days"
    dump = tmp_path / "beliefdb.dump"
    done = cli.json("db", "dump", dump)
    assert done["file"] == str(dump) and done["bytes"] == dump.stat().st_size > 0
    assert done["pg_dump"].startswith("pg_dump (PostgreSQL) 18")
    assert not list(tmp_path.glob("*.partial"))

    home = fresh_home("restored")
    new = at(home)
    restored = new.json("db", "restore", dump)
    url = url_of(home)
    assert roles(url) >= set(migrate.role_names())
    assert restored["ok"] and restored["revision_after"] == migrate.head_revision()
    assert [(c["workspace"], c["ok"]) for c in restored["chains"]] == [("default", True)]
    assert new.json("audit", "verify")["ok"]
    assert answers(new, ids) == before

    # a write after the restore continues the chain where the backup left it
    seq, last = head(url)
    assert seq == restored["chains"][0]["events"]
    new.json("ingest", write_doc("shipping.md", "Orders ship within 2 days.\n"))
    with psycopg.connect(url) as conn:
        first = conn.execute("select seq, prev_hash from beliefdb.audit_event where seq = %s", (seq + 1,)).fetchone()
    assert first is not None and bytes(first[1]) == last
    verified = new.json("audit", "verify")
    assert verified["ok"] and verified["events"] > seq

    # a second restore onto it is refused and changes nothing; --clean replaces what it holds
    err = new.error("db", "restore", dump, code="database_not_empty")
    assert "--clean" in err["message"]
    assert new.one_line_error("db", "restore", dump).startswith("error: this database already holds beliefdb")
    assert head(url)[0] > seq
    again = new.json("db", "restore", dump, "--clean")
    assert again["ok"] and head(url) == (seq, last)
    assert answers(new, ids) == before


def revision_of(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("select max(version_num) from beliefdb.alembic_version").fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.slow
def test_a_dump_never_migrates_and_a_read_that_does_says_so(tmp_path: Path,
                                                            fresh_home: Callable[[str], Path]) -> None:
    """A team upgrades the package, then takes the backup docs/operations.md asks for before an upgrade:
    db dump migrated the embedded database first, so the dump was at the new revision, no way back; and
    any read (beliefs) upgraded it without a word. A dump is of the database as it is, at its revision;
    the command that does migrate says so on stderr, from which revision to which."""
    home = fresh_home("older")
    url = EmbeddedServer(home).start()
    older = migrate.revisions()[-2]
    migrate.create_roles(url)
    command.upgrade(migrate._config(url), older)  # an earlier release's tables
    new = at(home)

    dump = tmp_path / "before-upgrade.dump"
    result = new("db", "dump", dump)
    assert revision_of(url) == older, "db dump migrated the database it backed up"
    assert result.stderr == ""
    assert result.stdout.startswith(f"dumped the database at revision {older} to {dump} (")
    data = subprocess.run([str(client_program("pg_restore")), "--data-only", "--schema=beliefdb",
                           "--table=alembic_version", "--file=-", str(dump)],
                          capture_output=True, text=True, check=True).stdout
    assert data.split("COPY beliefdb.alembic_version (version_num) FROM stdin;\n")[1].split("\n")[0] == older
    assert new.json("db", "dump", tmp_path / "again.dump")["revision"] == older

    read = new("beliefs")
    head = migrate.head_revision()
    assert read.stderr == (f"note: beliefdb migrated the embedded database from revision {older} to {head}, this"
                           " package's schema (there is no downgrade: docs/operations.md, \"Upgrading\")\n")
    assert revision_of(url) == head
    assert new("beliefs").stderr == "", "said once: the next command finds the schema current"


@pytest.mark.robustness
@pytest.mark.slow
def test_a_dbas_pg_restore_needs_the_roles_first(cli: Cli, write_doc: Any, tmp_path: Path,
                                                 fresh_home: Callable[[str], Path]) -> None:
    """docs/operations.md's steps with the server's own tools: without beliefdb's roles a restore in one
    transaction fails on the first grant; after ``beliefdb db roles`` it succeeds, and ``beliefdb
    migrate`` then finds the schema current. A restore that went on without the roles (an error per
    grant and policy) is mended by ``beliefdb migrate``, which creates the roles first."""
    ids = story(cli, write_doc)
    before = answers(cli, ids)
    dump = tmp_path / "beliefdb.dump"
    cli.json("db", "dump", dump)

    home = fresh_home("dba")
    new = at(home)
    url = EmbeddedServer(home).start()  # a new server, not migrated: none of beliefdb's roles
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create database restored")
        conn.execute("create database lossy")
    target, lossy = make_conninfo(url, dbname="restored"), make_conninfo(url, dbname="lossy")
    assert roles(url) == set()
    restore = [str(client_program("pg_restore")), "--no-owner", "--single-transaction", "--exit-on-error",
               "--dbname", target, str(dump)]
    failed = subprocess.run(restore, capture_output=True, text=True, check=False)
    assert failed.returncode != 0 and 'role "beliefdb_app" does not exist' in failed.stderr
    with psycopg.connect(target) as conn:
        assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,)  # one transaction
    went_on = subprocess.run([restore[0], "--no-owner", "--dbname", lossy, str(dump)], capture_output=True,
                             text=True, check=False)
    assert went_on.returncode != 0 and went_on.stderr.count('role "beliefdb_app" does not exist') > 50

    assert new.json("db", "roles", "--db", target) == {"roles": migrate.role_names()}
    assert roles(url) >= set(migrate.role_names())
    with psycopg.connect(target) as conn:
        assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,)  # roles only
    subprocess.run(restore, capture_output=True, text=True, check=True)
    assert new.json("migrate", "--db", target)["before"] == migrate.head_revision()
    on_target = Cli({"BELIEFDB_URL": target})
    assert on_target.json("audit", "verify")["ok"]
    assert answers(on_target, ids) == before

    assert new.json("migrate", "--db", lossy)["after"] == migrate.head_revision()
    mended = Cli({"BELIEFDB_URL": lossy})
    assert mended.json("audit", "verify")["ok"]
    assert answers(mended, ids) == before


def test_restore_refuses_what_is_not_a_beliefdb_dump(cli: Cli, db_url: str, tmp_path: Path) -> None:
    missing = cli.error("db", "restore", tmp_path / "nothing.dump", code="not_found")
    assert "no such file" in missing["message"]
    junk = tmp_path / "junk.dump"
    junk.write_text("not a dump\n", encoding="utf-8")
    err = cli.error("db", "restore", junk, code="invalid_input")
    assert "is not a dump in pg_dump's custom format" in err["message"]
    assert cli.one_line_error("db", "restore", junk).startswith("error: ")


def test_a_restore_refused_for_its_file_starts_no_server(cli_without_db: Cli, tmp_path: Path) -> None:
    """db restore of a missing or a non-dump file into a new home created the home, initialised and started
    an embedded server there (left running) before it looked at the file: the file is checked first."""
    home = tmp_path / "beliefdb-home"
    cli_without_db.error("db", "restore", tmp_path / "nothing.dump", code="not_found")
    junk = tmp_path / "junk.dump"
    junk.write_text("not a dump\n", encoding="utf-8")
    err = cli_without_db.error("db", "restore", junk, code="invalid_input")
    assert "is not a dump in pg_dump's custom format" in err["message"]
    assert not home.exists()


@pytest.mark.slow
def test_dump_never_overwrites_or_half_writes(cli: Cli, tmp_path: Path) -> None:
    dump = tmp_path / "beliefdb.dump"
    dump.write_bytes(b"yesterday's backup")
    err = cli.error("db", "dump", dump, code="invalid_input")
    assert "already exists" in err["message"] and "--force" in err["message"]
    assert dump.read_bytes() == b"yesterday's backup"
    assert cli.json("db", "dump", dump, "--force")["bytes"] == dump.stat().st_size > 100
    assert cli.error("db", "dump", tmp_path, code="invalid_input")["message"].endswith("give the dump a file name")
    unreachable = cli.error("db", "dump", tmp_path / "x.dump", "--db", "postgresql://nobody@127.0.0.1:1/none")
    assert unreachable["error"] == "database_unavailable"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beliefdb.dump"]


def test_dump_writes_through_a_link_and_refuses_what_is_no_regular_file(cli: Cli, tmp_path: Path) -> None:
    """(trial24) --force renamed the dump over whatever the path was: a link to the kept dump became a file of its
    own (the kept one stale), a FIFO or a device node a regular file (as root, /dev/null or /dev/full). A link is
    refused (followed, one planted in a shared folder would have root write where it points)."""
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "real.dump").write_bytes(b"old")
    (tmp_path / "latest.dump").symlink_to(kept / "real.dump")
    said = cli.error("db", "dump", tmp_path / "latest.dump", "--force", code="invalid_input")
    assert said["message"].endswith("is a symbolic link: give the path of the file itself")
    assert (tmp_path / "latest.dump").is_symlink() and (kept / "real.dump").read_bytes() == b"old"
    (tmp_path / "dangling.dump").symlink_to(tmp_path / "nowhere")
    cli.error("db", "dump", tmp_path / "dangling.dump", code="invalid_input")
    (tmp_path / "dangling.dump").unlink()
    os.mkfifo(tmp_path / "pipe.dump")
    said = cli.error("db", "dump", tmp_path / "pipe.dump", "--force", code="invalid_input")
    assert said["message"].endswith("is not a regular file (a FIFO, socket or device): refused")
    assert stat.S_ISFIFO((tmp_path / "pipe.dump").stat().st_mode)
    (tmp_path / "beliefdb.dump.partial").write_bytes(b"mine")  # (a file of that name is never written over)
    cli.json("db", "dump", tmp_path / "beliefdb.dump")
    assert (tmp_path / "beliefdb.dump.partial").read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "beliefdb.dump", "beliefdb.dump.partial", "kept", "latest.dump", "pipe.dump"]


def test_operations_md_names_the_schema_the_extensions_live_in(postgresql: psycopg.Connection[Any]) -> None:
    """Why a dump of schema beliefdb alone is not enough: docs/operations.md names where pgvector and
    pg_trgm are (it said schema beliefdb, where releases up to revision 0014 put them)."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "operations.md").read_text(encoding="utf-8")
    bullet = page.split("- **Dump the whole database**", 1)[1].split("\n\n", 1)[0]
    where = postgresql.execute("select distinct n.nspname from pg_catalog.pg_extension e"
                               " join pg_catalog.pg_namespace n on n.oid = e.extnamespace"
                               " where e.extname in ('vector', 'pg_trgm')").fetchall()
    assert [f"`{n}`" in bullet for (n,) in where] == [True] * len(where)
    assert "live in\n  schema `beliefdb`," not in bullet


DBA_MD = Path(__file__).resolve().parent.parent / "docs" / "dba.md"


def _documented_block(bullet: str) -> str:
    """The bash block under a bullet of docs/dba.md."""
    text = DBA_MD.read_text(encoding="utf-8")
    start = text.index("```bash", text.index(bullet)) + len("```bash")
    return "\n".join(line.strip() for line in text[start:text.index("```", start)].splitlines() if line.strip())


@pytest.fixture
def owners_empty_database(embedded_server: EmbeddedServer, postgresql_proc: Any) -> Iterator[tuple[str, str, str]]:
    """(role, its empty database as a superuser, the same as the role): a login that is no superuser
    owns a new database without any extension."""
    admin = embedded_server.status().url
    assert admin is not None
    role, database = f"restorer_{uuid.uuid4().hex[:8]}", f"restored_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login password 'restorer-password'").format(sql.Identifier(role)))
        conn.execute(sql.SQL("create database {} owner {}").format(sql.Identifier(database), sql.Identifier(role)))
    try:
        yield (role, make_conninfo(admin, dbname=database),
               make_conninfo(admin, dbname=database, user=role, password="restorer-password"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(database)))
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def test_an_owner_that_is_no_superuser_restores_a_whole_dump_as_dba_md_says(
        cli: Cli, db_url: str, owners_empty_database: tuple[str, str, str], tmp_path: Path) -> None:
    """docs/dba.md: restoring a whole database as a user that is no superuser needs vector created
    first by a superuser; its commands restore the dump, and the chains verify there."""
    role, superuser_url, owner_url = owners_empty_database
    doc = tmp_path / "policy.md"
    doc.write_text(Q7 + "\n", encoding="utf-8")
    cli("ingest", doc, "--no-embed")
    cli("db", "dump", tmp_path / "beliefdb.dump")
    restore = [str(client_program("pg_restore")), "--no-owner", "--single-transaction", "--exit-on-error",
               "-d", owner_url, str(tmp_path / "beliefdb.dump")]
    plain = subprocess.run(restore, capture_output=True, text=True)
    assert plain.returncode != 0
    assert 'permission denied to create extension "vector"' in plain.stderr
    env = {**os.environ, "SUPERUSER_URL": superuser_url, "OWNER": role, "OWNER_URL": owner_url,
           "PATH": f"{client_program('pg_restore').parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", "-euo", "pipefail", "-c", _documented_block("- Restoring a whole database as that user")],
                   cwd=tmp_path, env=env, check=True)
    with psycopg.connect(owner_url) as conn:
        assert conn.execute("select version_num from beliefdb.alembic_version").fetchall() == [
            (migrate.head_revision(),)]
        assert conn.execute("select v.ok, v.events > 1 from beliefdb.workspace w "
                            "cross join lateral beliefdb.audit_verify(w.id) v").fetchall() == [(True, True)]


def test_a_schema_only_dump_is_no_beliefdb_as_dba_md_says(db_url: str, owners_empty_database: tuple[str, str, str],
                                                          tmp_path: Path) -> None:
    """docs/dba.md: a schema-only dump has no alembic_version row (nor the seed rows), so migrate
    stops at the first type it creates."""
    text = DBA_MD.read_text(encoding="utf-8")
    assert "A schema-only dump (`pg_dump --schema-only`) is no beliefdb to restore" in text
    _, superuser_url, _ = owners_empty_database
    dump = tmp_path / "schema.dump"
    subprocess.run([str(client_program("pg_dump")), "-Fc", "--schema-only", "-f", str(dump), "-d", db_url], check=True)
    subprocess.run([str(client_program("pg_restore")), "--no-owner", "--single-transaction", "--exit-on-error",
                    "-d", superuser_url, str(dump)], check=True)
    with psycopg.connect(superuser_url) as conn:
        assert conn.execute("select (select count(*) from beliefdb.alembic_version), "
                            "(select count(*) from beliefdb.error_code), "
                            "(select count(*) from beliefdb.workspace)").fetchone() == (0, 0, 0)
    assert '`type "node_kind" already exists`' in text
    with pytest.raises(BeliefDBError, match='type "node_kind" already exists'):
        migrate.upgrade(superuser_url)


def test_db_restore_by_an_owner_that_is_no_superuser_says_what_to_do_and_restores_once_pgvector_is_there(
        cli: Cli, db_url: str, owners_empty_database: tuple[str, str, str], tmp_path: Path) -> None:
    """``beliefdb db restore`` as a database's owner that is no superuser failed "pg_restore failed: ... permission
    denied to create extension "vector"" (code error); once a superuser had created pgvector as docs/dba.md says,
    "schema "beliefdb_ext" already exists". The first says what to do; the second restores, leaving out the
    entries of the extension that is already there (dba.md's pg_restore -L recipe). A dump of a database holding
    a table that owner may not read says the documented way out."""
    role, superuser_url, owner_url = owners_empty_database
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute(sql.SQL("grant beliefdb_app, beliefdb_clock to {}").format(sql.Identifier(role)))
        schema = conn.execute("select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace"
                              " where e.extname = 'vector'").fetchone()
    doc = tmp_path / "policy.md"
    doc.write_text(Q7 + "\n", encoding="utf-8")
    cli("ingest", doc, "--no-embed")
    dump = tmp_path / "beliefdb.dump"
    cli("db", "dump", dump)
    with psycopg.connect(db_url) as conn:
        where = conn.execute("select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace"
                             " where e.extname = 'vector'").fetchone()
    assert where is not None and schema is None
    refused = cli.error("db", "restore", dump, "--db", owner_url, code="extension_conflict")
    assert refused["message"] == (
        f"the dump creates the extension vector, and {role} may not create it (pgvector is not a trusted extension)"
        f" (hint: a superuser creates it first in this database, in the schema the dump has it in: \"create schema if"
        f" not exists {where[0]} authorization {role}; create extension vector schema {where[0]}\", or ask your"
        " provider to enable pgvector; then restore again: docs/dba.md, \"Backup and restore\")")
    assert cli.one_line_error("db", "restore", dump, "--db", owner_url).startswith("error: the dump creates")
    with psycopg.connect(owner_url) as conn:
        assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,)
    # the hint's statements as given, run by a superuser, where the schema is there already (as public always
    # is: they said "create schema public ...", which failed there, and created no extension)
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create schema {} authorization {}").format(sql.Identifier(where[0]),
                                                                         sql.Identifier(role)))
        hint = refused["message"].split('has it in: "')[1].split('"')[0]
        conn.execute(hint.encode())
    restored = cli.json("db", "restore", dump, "--db", owner_url)
    assert restored["ok"] and [c["events"] > 1 for c in restored["chains"]] == [True]
    assert len(Cli({"BELIEFDB_URL": owner_url}).json("beliefs")) == 1
    # (found by review) replacing it (--clean) dropped pgvector first, which only its owner may
    again = cli.json("db", "restore", dump, "--db", owner_url, "--clean")
    assert again["ok"] and len(Cli({"BELIEFDB_URL": owner_url}).json("beliefs")) == 1
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute("create table public.payroll (salary integer)")
    denied = cli.error("db", "dump", tmp_path / "again.dump", "--db", owner_url, code="permission_denied")
    assert denied["message"] == (
        "pg_dump failed: permission denied for table payroll (hint: dump as a superuser, or a superuser runs"
        f" \"grant pg_read_all_data to {role}\" first: docs/operations.md, \"Backups and restores\")")


@pytest.mark.slow
def test_a_restore_where_the_dump_grants_to_a_role_the_server_lacks_says_to_create_it(
        cli: Cli, db_url: str, write_doc: Any, tmp_path: Path, fresh_home: Callable[[str], Path]) -> None:
    """A team's own grant on beliefdb's tables (a reporting role) is in the dump, its role is not: the
    restore into a new server stopped with pg_restore's bare 'role "reporting" does not exist' and the code
    'error' (trial18). It now says what to do, as migration_failed, and nothing was restored."""
    reporting = f"reporting_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {}").format(sql.Identifier(reporting)))
        conn.execute(sql.SQL("grant select on beliefdb.belief to {}").format(sql.Identifier(reporting)))
    try:
        cli("ingest", write_doc("policy.md", Q7 + "\n"), "--no-embed")
        dump = tmp_path / "beliefdb.dump"
        cli("db", "dump", dump)
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(sql.SQL("drop owned by {}; drop role {}").format(sql.Identifier(reporting),
                                                                           sql.Identifier(reporting)))
    home = fresh_home("restored")
    new = at(home)
    said = new.error("db", "restore", dump, code="migration_failed")
    assert f'role "{reporting}" does not exist' in said["message"]
    assert "create them first" in said["message"] and said["message"].endswith("nothing was restored)")
    with psycopg.connect(url_of(home)) as conn:
        assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,)


def test_a_failed_restore_names_the_statement_that_failed() -> None:
    """pg_restore says which entry failed on the line after its error ("Command was: ..."): kept, on the same
    line, and a long statement (a function's body) cut short."""
    from beliefdb.db.backup import COMMAND_CHARS, failure

    said = failure("pg_restore: error: could not execute query: ERROR:  permission denied to change default"
                   " privileges\nCommand was: ALTER DEFAULT PRIVILEGES FOR ROLE postgres GRANT ALL ON FUNCTIONS TO"
                   " app_rw;\n\n\n")
    assert said == ("could not execute query: ERROR: permission denied to change default privileges; command was:"
                    " ALTER DEFAULT PRIVILEGES FOR ROLE postgres GRANT ALL ON FUNCTIONS TO app_rw;")
    body = "\n".join(f"    select {n};" for n in range(100))
    long = failure(f"pg_restore: while PROCESSING TOC:\npg_restore: error: could not execute query: ERROR:  boom\n"
                   f"Command was: CREATE FUNCTION public.f() RETURNS void\n    LANGUAGE sql\n    AS $$\n{body}\n$$;\n"
                   "pg_restore: warning: errors ignored on restore: 1\n")
    assert long.startswith("could not execute query: ERROR: boom; command was: CREATE FUNCTION public.f() RETURNS"
                           " void LANGUAGE sql AS $$ select 0; select 1;")
    assert long.endswith("...") and len(long.split("; command was: ", 1)[1]) == COMMAND_CHARS
    assert failure("pg_dump: error: connection to server failed\n") == "connection to server failed"
    assert failure("") == ""


def test_db_restore_by_an_owner_that_is_no_superuser_names_the_entry_it_may_not_replay(
        cli: Cli, db_url: str, owners_empty_database: tuple[str, str, str], tmp_path: Path) -> None:
    """A whole database's dump carries its default privileges: an owner that is no superuser restoring it was told
    only "permission denied to change default privileges" (pg_restore's first error line), not which entry. It is
    told the statement, and what to do; the way docs/dba.md gives (pg_restore --no-acl, then migrate) restores."""
    role, superuser_url, owner_url = owners_empty_database
    reader = f"app_rw_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(superuser_url, autocommit=True) as conn:
        conn.execute(sql.SQL("grant beliefdb_app, beliefdb_clock to {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("create schema beliefdb_ext authorization {}").format(sql.Identifier(role)))
        conn.execute("create extension vector schema beliefdb_ext")
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {}").format(sql.Identifier(reader)))
        conn.execute(sql.SQL("alter default privileges for role current_user grant all on functions to {}").format(
            sql.Identifier(reader)))
        (superuser,) = conn.execute("select current_user").fetchone()
    try:
        doc = tmp_path / "policy.md"
        doc.write_text(Q7 + "\n", encoding="utf-8")
        cli("ingest", doc, "--no-embed")
        dump = tmp_path / "beliefdb.dump"
        cli("db", "dump", dump)
        refused = cli.error("db", "restore", dump, "--db", owner_url, code="permission_denied")
        assert refused["message"].startswith(
            "pg_restore failed: could not execute query: ERROR: permission denied to change default privileges;"
            f" command was: ALTER DEFAULT PRIVILEGES FOR ROLE {superuser} GRANT ALL ON FUNCTIONS TO {reader}; (hint:")
        assert "--no-acl" in refused["message"] and refused["message"].endswith("nothing was restored)")
        with psycopg.connect(owner_url) as conn:
            assert conn.execute("select to_regnamespace('beliefdb')").fetchone() == (None,)
        documented = DBA_MD.read_text(encoding="utf-8").split(
            "may not replay some of these,", 1)[1].split("```text\n", 1)[1].split("\n", 1)[0].strip()
        said = (refused["message"].replace(f"ROLE {superuser} ", "ROLE postgres ").replace(reader, "app_rw")
                .replace(f"what {role} does", "what app_owner does"))
        assert documented == f"error: {said}"
        env = {**os.environ, "OWNER_URL": owner_url, "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
               "PATH": f"{client_program('pg_restore').parent}{os.pathsep}{os.environ['PATH']}"}
        env.pop("BELIEFDB_URL", None)
        block = _documented_block("may not replay some of these,").replace("beliefdb migrate",
                                                                           f"{sys.executable} -m beliefdb migrate")
        subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=dump.parent, env=env, check=True)
        assert len(Cli({"BELIEFDB_URL": owner_url}).json("beliefs")) == 1
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(sql.SQL("drop owned by {}; drop role {}").format(sql.Identifier(reader),
                                                                           sql.Identifier(reader)))
