"""Which database a command acts on, from ``--db``, ``--home``, ``BELIEFDB_URL`` and ``BELIEFDB_HOME``
(a DBA's trial): ``db restore FILE --home NEW --clean`` with ``BELIEFDB_URL`` exported replaced the
database of BELIEFDB_URL, ``--home`` silently ignored (README: "an option overrides its variable",
"``db restore FILE --home NEW`` restores it on another machine or home"). An option is the user's word
for this command, a variable a standing default: ``--home`` wins over ``BELIEFDB_URL``, for every
command and for the library's ``home=``; ``--db`` with ``--home`` names two databases and is refused;
``BELIEFDB_URL`` still wins over ``BELIEFDB_HOME``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer.main
from conftest import Cli

import beliefdb
import beliefdb.cli
from beliefdb import api
from beliefdb.db.server import EmbeddedServer
from beliefdb.errors import DatabaseUnavailable, InvalidInput

#: a URL of no server: a command that used it would fail to connect, not say what its --home is
NOWHERE = "postgresql://postgres@/beliefdb?host=/nonexistent-beliefdb-socket-dir"


def _commands() -> list[tuple[list[str], Any]]:
    """Every command that takes --home, with its parameters."""
    found: list[tuple[list[str], Any]] = []

    def walk(path: list[str], command: Any) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk([*path, name], sub)
        elif any(p.name == "home" for p in command.params):
            found.append((path, command))

    walk([], typer.main.get_command(beliefdb.cli.app))
    return found


COMMANDS = _commands()
#: a value for each required argument or option that parses, so that the command reaches its database
FILLERS = {"paths": "{doc}", "file": "{dump}", "labels": "{doc}", "result": "succeeded", "sources": "abcd1234",
           "node": "abcd1234", "ref": "abcd1234", "ids": "abcd1234", "belief": "abcd1234",
           "decision": "abcd1234", "item": "1", "faulty": "someone", "principal": "someone"}


#: what a command needs beside its required parameters to reach its database
EXTRA = {"correct": ["--preview"], "retract": ["--belief", "abcd1234", "--reason", "x"],
         "forget": ["--belief", "abcd1234", "--preview"],
         "jobs retry": ["--all-failed"], "jobs cancel": ["--source", "x"], "impact": ["abcd1234"]}


def _required(command: Any, tmp_path: Path) -> list[str]:
    """The command's required arguments and options, each given a value that parses."""
    doc = tmp_path / "doc.md"
    doc.write_text("Returns are accepted within 7 days of delivery.\n", encoding="utf-8")
    dump = tmp_path / "new.dump"  # (db dump writes it; no test here gets that far)
    args: list[str] = []
    for param in command.params:
        if not param.required:
            continue
        value = FILLERS.get(param.name, "x").format(doc=doc, dump=dump)
        args += [value] if param.param_type_name == "argument" else [max(param.opts, key=len), value]
    return args


def _ids(commands: list[tuple[list[str], Any]]) -> list[str]:
    return [" ".join(path) for path, _ in commands]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    """A home that can be no home: a command that takes it says so, before any server or connection."""
    afile = tmp_path / "hostname"
    afile.write_text("box\n", encoding="utf-8")
    return afile


# db restore reads its file before the database (a dump is needed): its own test below
HOME_WINS = [(path, c) for path, c in COMMANDS if path != ["db", "restore"]]


@pytest.mark.parametrize(("path", "command"), HOME_WINS, ids=_ids(HOME_WINS))
def test_home_given_wins_over_beliefdb_url(cli_without_db: Cli, tmp_path: Path, a_file: Path, path: list[str],
                                           command: Any) -> None:
    args = [*path, *_required(command, tmp_path), *EXTRA.get(" ".join(path), []), "--home", a_file]
    result = cli_without_db.fail(*args, env={"BELIEFDB_URL": NOWHERE})
    said = f"the beliefdb home {a_file} is a file, not a directory"
    if path == ["ask"]:  # (an answer that could not be given is said on stdout)
        assert said in result.stdout, result.output
    else:
        assert result.stderr == f"error: {said}\n", result.output


BOTH = [(path, c) for path, c in COMMANDS if any(p.name == "db" for p in c.params)]


@pytest.mark.parametrize(("path", "command"), BOTH, ids=_ids(BOTH))
def test_db_and_home_together_are_refused(cli_without_db: Cli, tmp_path: Path, a_file: Path, path: list[str],
                                          command: Any) -> None:
    args = [*path, *_required(command, tmp_path), "--db", NOWHERE, "--home", a_file]
    result = cli_without_db(*args, expect=2)
    assert result.stderr == (f"error: --db and --home name two databases: give one (see beliefdb {' '.join(path)}"
                             " --help)\n")
    if command.name not in ("serve", "mcp", "demo"):  # (these take no --json)
        err = cli_without_db.error(*args, "--json", code="invalid_input", expect=2)
        assert err["message"] == "--db and --home name two databases: give one"
    assert not (tmp_path / "beliefdb-home").exists()


def test_beliefdb_url_wins_over_beliefdb_home_and_db_over_both(cli: Cli, db_url: str, a_file: Path) -> None:
    """The variables keep their order (README: with neither --db nor BELIEFDB_URL, the embedded server
    of BELIEFDB_HOME), and --db wins over both."""
    assert [w["name"] for w in cli.json("workspace", "list", env={"BELIEFDB_HOME": str(a_file)})] == ["default"]
    both = {"BELIEFDB_HOME": str(a_file), "BELIEFDB_URL": NOWHERE}
    assert [w["name"] for w in cli.json("workspace", "list", "--db", db_url, env=both)] == ["default"]
    assert [b for b in cli.json("beliefs", "--db", db_url, env=both)] == []


@pytest.fixture
def new_home(tmp_path: Path) -> Iterator[Path]:
    home = tmp_path / "new-home"
    yield home
    EmbeddedServer(home).stop()


@pytest.mark.slow
def test_restore_with_home_restores_there_not_into_beliefdb_url(cli: Cli, db_url: str, tmp_path: Path,
                                                                new_home: Path) -> None:
    """The trial: BELIEFDB_URL=victim db restore emb.dump --home /tmp/x --clean said "restored" and
    left victim holding the dump's workspaces only; /tmp/x was never created."""
    cli.json("workspace", "create", "source-ws")
    dump = tmp_path / "emb.dump"
    cli.json("db", "dump", dump)
    cli.json("workspace", "delete", "source-ws")
    cli.json("workspace", "create", "victimws")
    done = cli.json("db", "restore", dump, "--home", new_home, "--clean")
    assert done["ok"]
    assert (new_home / "pgdata" / "PG_VERSION").exists()
    with psycopg.connect(db_url) as conn:  # BELIEFDB_URL's database: untouched
        names = {r[0] for r in conn.execute("select name from beliefdb.workspace")}
    assert names == {"default", "victimws"}
    restored = Cli({"BELIEFDB_HOME": str(new_home)})
    assert {w["name"] for w in restored.json("workspace", "list")} == {"default", "source-ws"}


def test_library_home_wins_over_beliefdb_url(monkeypatch: pytest.MonkeyPatch, a_file: Path) -> None:
    monkeypatch.setenv("BELIEFDB_URL", NOWHERE)
    said = f"the beliefdb home {a_file} is a file, not a directory"
    for call in (lambda: beliefdb.connect(home=a_file), lambda: api.migrate(home=a_file),
                 lambda: api.list_workspaces(home=a_file), lambda: api.create_roles(home=a_file)):
        with pytest.raises(DatabaseUnavailable) as caught:
            call()
        assert caught.value.message == said


def test_library_url_and_home_together_are_refused(a_file: Path) -> None:
    for call in (lambda: beliefdb.connect(NOWHERE, home=a_file), lambda: api.migrate(NOWHERE, home=a_file),
                 lambda: api.list_workspaces(url=NOWHERE, home=a_file)):
        with pytest.raises(InvalidInput) as caught:
            call()
        assert caught.value.message == "url= and home= name two databases: give one"
    assert os.path.isfile(a_file)
