"""``beliefdb db roles`` as docs/operations.md uses it before a ``pg_restore`` (a DBA's trial): it creates
beliefdb's roles where they are missing and grants ``beliefdb_app`` and ``beliefdb_clock`` to the user it
runs as, the one who restores and migrates; run as a superuser it grants them to no one else. Its --help
said "and nothing else", and run by an owner the roles were not granted to, its hint ended "then beliefdb
migrate again", naming another command."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from beliefdb import api
from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer
from beliefdb.errors import PermissionDenied
from tests.test_team_owner_roles import team_database

pytestmark = [pytest.mark.robustness]

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture
def owner(embedded_server: EmbeddedServer, postgresql_proc: Any) -> Iterator[str]:
    """A database owned by a login with neither createrole nor beliefdb's roles, which the server already
    has (its template was migrated): the trial's owner2. Its URL as that login."""
    admin = embedded_server.status().url
    assert admin is not None
    with team_database(admin, createrole=False) as url:
        yield url


def member(url: str, role: str, of: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute("select pg_has_role(%s, %s, 'member')", (role, of)).fetchone()
    return bool(row and row[0])


def test_db_roles_refused_says_to_run_db_roles_again(owner: str, admin: str) -> None:
    role = str(conninfo_to_dict(owner)["user"])
    refused = Cli({}).error("db", "roles", "--db", owner, code="permission_denied")
    assert refused["message"].endswith(
        f"(hint: a superuser runs \"grant beliefdb_app, beliefdb_clock to {role}\" once, then beliefdb db roles"
        " again)"), refused
    with pytest.raises(PermissionDenied) as caught:
        api.create_roles(owner)
    assert caught.value.message.endswith("once, then beliefdb.api.create_roles() again)"), caught.value.message
    # migrate still names itself
    assert Cli({}).error("migrate", "--db", owner, code="permission_denied")["message"].endswith(
        "once, then beliefdb migrate again)")
    with psycopg.connect(admin, autocommit=True) as conn:  # what the hint says
        conn.execute(f'grant beliefdb_app, beliefdb_clock to "{role}"')
    assert Cli({}).json("db", "roles", "--db", owner) == {"roles": migrate.role_names()}


def test_db_restore_refused_says_to_run_db_restore_again(cli: Cli, owner: str, tmp_path: Path) -> None:
    """db restore creates the roles first, as db roles does: its refusal names db restore."""
    dump = tmp_path / "beliefdb.dump"
    cli.json("db", "dump", dump)
    refused = Cli({}).error("db", "restore", dump, "--db", owner, code="permission_denied")
    assert refused["message"].endswith("once, then beliefdb db restore again)"), refused


def test_db_roles_grants_the_user_it_runs_as_and_no_one_else(owner: str, admin: str) -> None:
    """As a superuser it creates the roles and grants the owner nothing (the docs now say to grant them, or
    to run it as the owner)."""
    role = str(conninfo_to_dict(owner)["user"])
    as_superuser = make_conninfo(owner, user=str(conninfo_to_dict(admin)["user"]), password=None)
    Cli({}).json("db", "roles", "--db", as_superuser)
    assert not member(admin, role, "beliefdb_app") and not member(admin, role, "beliefdb_clock")
    with psycopg.connect(admin, autocommit=True) as conn:  # a createrole owner grants itself
        conn.execute(f'alter role "{role}" createrole')
        conn.execute(f'grant beliefdb_app, beliefdb_clock to "{role}" with admin true, inherit false, set false')
    Cli({}).json("db", "roles", "--db", owner)
    with psycopg.connect(admin) as conn:
        row = conn.execute("select pg_has_role(%s, 'beliefdb_app', 'set')", (role,)).fetchone()
    assert row == (True,)


def test_help_and_docs_say_what_db_roles_grants(cli_without_db: Cli) -> None:
    shown = " ".join(cli_without_db("db", "roles", "--help").stdout.replace("│", " ").split())
    assert "and grant beliefdb_app and beliefdb_clock to the database user it runs as" in shown, shown
    assert "where they are missing, and nothing else" not in shown
    operations = " ".join((DOCS / "operations.md").read_text(encoding="utf-8").split())
    assert "`beliefdb db roles` also grants `beliefdb_app` to that user" not in operations
    assert re.search(r"`beliefdb db roles` creates the roles that are missing and grants `beliefdb_app` and"
                     r" `beliefdb_clock` to the user it runs as", operations)
    assert "grants them to no one" in operations
