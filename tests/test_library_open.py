"""``from beliefdb import BeliefDB`` opens memory as ``beliefdb.connect`` does: ``with BeliefDB(url) as db``
(or ``BeliefDB()``: ``BELIEFDB_URL``, else the embedded server) works and leaving the block closes its
pool. ``BeliefDB()`` was a TypeError (it wanted an internal ``Database``), and ``with BeliefDB(url)``
failed with ``AttributeError: 'str' object has no attribute 'close'`` on leaving the block."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

import beliefdb
from beliefdb import BeliefDB, errors
from tests.conftest import Cli

POLICY = "# Returns\nReturns are accepted within 7 days of delivery.\n"


def test_with_beliefdb_opens_and_closes(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with BeliefDB(db_url) as db:
        assert db.workspace == "default"
        db.ingest_text(POLICY, source="policy.md", authority="official")
        assert [b.value for b in db.beliefs()] == ["7 days"]
    with pytest.raises(errors.DatabaseUnavailable, match=r"^this BeliefDB is closed \(its with block ended"):
        db.beliefs()  # closed by the with block
    beliefdb.api.create_workspace("team", url=db_url)
    with BeliefDB(db_url, "team", principal="alice", max_size=2) as team:
        assert team.workspace == "team" and team.beliefs() == []
        assert team.database.principal == "alice"
    monkeypatch.setenv("BELIEFDB_URL", db_url)
    with BeliefDB() as default, beliefdb.connect() as connected:
        assert [b.id for b in default.beliefs()] == [b.id for b in connected.beliefs()]


def test_bad_opening_arguments_are_beliefdb_errors_in_the_library_s_words(db_url: str, cli: Cli) -> None:
    """``BeliefDB(url, max_size=0)`` (and ``connect``) raised psycopg_pool's ValueError ("max_size must be
    greater or equal than min_size"), where ``aconnect`` said InvalidInput; an unknown workspace told a
    library user to run ``beliefdb workspace create``."""
    for opening in (lambda: BeliefDB(db_url, max_size=0), lambda: beliefdb.connect(db_url, max_size=0)):
        with pytest.raises(errors.InvalidInput, match=r"^max_size= must be at least 1, not 0$"):
            opening()
    with pytest.raises(errors.UnknownWorkspace) as unknown:
        BeliefDB(db_url, "nope")
    assert unknown.value.message == "unknown workspace 'nope' (create it with: beliefdb.api.create_workspace('nope'))"
    assert cli.error("beliefs", "-w", "nope", code="unknown_workspace")["message"] == (
        "unknown workspace 'nope' (create it with: beliefdb workspace create nope)")


@pytest.fixture
def empty_db_url(db_url: str) -> Iterator[str]:
    """A never-migrated database on the same server (dropped afterwards)."""
    name = f"bdb_lib_empty_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    yield psycopg.conninfo.make_conninfo(db_url, dbname=name)
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def test_a_database_without_beliefdb_names_what_installs_it(empty_db_url: str, cli: Cli) -> None:
    """The library was told to "run 'beliefdb migrate'" (the same message was written out four times)."""
    for opening in (lambda: BeliefDB(empty_db_url), lambda: beliefdb.api.list_workspaces(url=empty_db_url)):
        with pytest.raises(errors.DatabaseUnavailable) as refused:
            opening()
        assert refused.value.message == "beliefdb is not installed in this database: run beliefdb.api.migrate(url)"
    assert cli.error("beliefs", "--db", empty_db_url)["message"] == (
        "beliefdb is not installed in this database: run 'beliefdb migrate'")
