"""Test fixtures: one embedded PostgreSQL per session, one migrated template database, and a
fresh database cloned from it for every test (pytest-postgresql's client factory)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, Phase, settings
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from pytest_postgresql import factories
from pytest_postgresql.executors import NoopExecutor
from pytest_postgresql.janitor import DatabaseJanitor

import beliefdb
from beliefdb import migrate
from beliefdb.embedded import EmbeddedServer

TEST_DB = "beliefdb_test"

# The model test's profiles (tests/test_model.py) are registered here, before the hypothesis plugin
# reads --hypothesis-profile. The suite's run does not shrink a failure (minutes of replays); the long
# one, for people, does.
_MODEL = {"deadline": None, "database": None,
          "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]}
settings.register_profile("model-default", max_examples=12, stateful_step_count=25,
                          phases=[Phase.explicit, Phase.generate], **_MODEL)
settings.register_profile("model-long", max_examples=300, stateful_step_count=40, **_MODEL)


@pytest.fixture(scope="session")
def embedded_server() -> Iterator[EmbeddedServer]:
    # not under pytest's basetemp: pytest prunes old basetemps, which would pull the data
    # directory from under a server of a concurrent session
    home = Path(tempfile.mkdtemp(prefix="beliefdb-test-"))
    server = EmbeddedServer(home)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def postgresql_proc(embedded_server: EmbeddedServer) -> Iterator[NoopExecutor]:
    url = embedded_server.status().url
    assert url is not None
    info = conninfo_to_dict(url)
    executor = NoopExecutor(host=str(info["host"]), port=int(info.get("port") or 5432), user=str(info["user"]),
                            options="", dbname=TEST_DB)
    janitor = DatabaseJanitor(user=executor.user, host=executor.host, port=executor.port,
                              dbname=executor.template_dbname, as_template=True)
    janitor.drop()
    janitor.init()
    migrate.upgrade(make_conninfo(url, dbname=executor.template_dbname))
    yield executor
    janitor.drop()


postgresql = factories.postgresql("postgresql_proc")


def url_of(conn: psycopg.Connection[Any]) -> str:
    """A URL for the database ``conn`` is connected to, as the same (super)user."""
    return make_conninfo("", host=conn.info.host, port=conn.info.port, user=conn.info.user,
                         dbname=conn.info.dbname)


def url_at(url: str, moment: str) -> str:
    """``url`` with beliefdb's clock fixed at ``moment`` for every session opened with it."""
    return make_conninfo(url, options=f"-c beliefdb.now={moment.replace(' ', 'T')}")


@pytest.fixture
def db_url(postgresql: psycopg.Connection[Any]) -> str:
    """URL of this test's fresh, migrated database."""
    return url_of(postgresql)


@pytest.fixture
def bdb(db_url: str) -> Iterator[beliefdb.BeliefDB]:
    """The library API on this test's database, bound to the default workspace."""
    with beliefdb.connect(db_url) as db:
        yield db


@pytest.fixture
def write_doc(tmp_path: Path) -> Any:
    """Write a UTF-8 document under a test folder and return its path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


