"""Bad input through the CLI: a clear one-line error (or a JSON error object with --json), a
non-zero exit, and nothing changed in the database. One bad file among many does not lose the
others' work. The cases checked against a database already holding a document (bad files, claims,
belief ids, workspaces) are in tests/test_errors_change_nothing.py, which clones that database."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import make_conninfo
from typer.testing import Result

DOC = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/x"

# every table an ingest, a workspace or an audit event writes to
TABLES = ("workspace", "source", "source_version", "fragment", "node", "belief", "evidence", "justification",
          "justification_antecedent", "relation", "audit_event")


def row_counts(conn: psycopg.Connection[Any]) -> Callable[[], dict[str, int]]:
    """Row counts of every beliefdb table, read on ``conn`` (the superuser: no row-level security)."""

    def counts() -> dict[str, int]:
        out = {}
        for table in TABLES:
            row = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(table))).fetchone()
            assert row is not None
            out[table] = int(row[0])
        conn.rollback()
        return out

    return counts


@pytest.fixture
def snapshot(postgresql: psycopg.Connection[Any]) -> Callable[[], dict[str, int]]:
    """Row counts of every beliefdb table, read as superuser (no row-level security)."""
    return row_counts(postgresql)


def assert_text_error(result: Result, *names: str) -> str:
    """Non-zero exit, nothing on stdout, and exactly one stderr line starting 'error:' naming ``names``."""
    assert result.exit_code != 0, result.output
    assert result.stdout.strip() == "", result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one error line, got:\n{result.stderr}"
    line = lines[0]
    assert line.startswith("error:"), line
    for name in names:
        assert name in line, (name, line)
    assert "Traceback" not in result.output
    return line


def assert_json_error(result: Result, code: str, *names: str) -> dict[str, Any]:
    """Non-zero exit and stdout is one JSON object {"error": code, "message": ...} naming ``names``."""
    assert result.exit_code != 0, result.output
    try:
        obj = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"--json error is not JSON on stdout: {result.stdout!r} (stderr {result.stderr!r})")
    assert isinstance(obj, dict), f"--json error must be an object, got {obj!r}"
    assert {"error", "message"} <= set(obj), obj
    assert obj["error"] == code, obj
    assert isinstance(obj["message"], str) and obj["message"].strip()
    assert "\n" not in obj["message"].strip(), obj["message"]
    for name in names:
        assert name in obj["message"], (name, obj)
    return obj


# --- bad files ----------------------------------------------------------------------------------


def _binary(tmp: Path) -> Path:
    path = tmp / "binary.md"
    path.write_bytes(b"Returns are accepted\x00 within 7 days.\n")
    return path


def test_bad_file_error_names_the_file_once(cli: Cli, tmp_path: Path) -> None:
    """A clear message: the path is said once, not 'x.md: x.md: ...'."""
    path = _binary(tmp_path)
    result = cli.fail("ingest", str(path))
    assert result.stderr.count(str(path)) == 1, result.stderr


# --- ambiguous belief ids ------------------------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_ambiguous_prefix(as_json: bool, cli: Cli, postgresql: psycopg.Connection[Any], snapshot: Any) -> None:
    # two beliefs whose ids share their first 8 characters, inserted as superuser
    ids = ["abcdef12-0000-4000-8000-000000000001", "abcdef12-0000-4000-8000-000000000002"]
    for i, belief_id in enumerate(ids):
        postgresql.execute(
            """insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value)
               select w.id, %s, %s, 'plan', 'fee', %s from beliefdb.workspace w where w.name = 'default'""",
            (belief_id, f"The fee of plan is {i}.", str(i)))
    postgresql.commit()
    before = snapshot()
    if as_json:
        assert_json_error(cli.fail("why", "abcdef12", "--json"), "ambiguous_id", "abcdef12", "ambiguous")
    else:
        assert_text_error(cli.fail("why", "abcdef12"), "abcdef12", "ambiguous")
    assert snapshot() == before
    # the full ids still resolve
    for ref in (ids[1], ids[1].upper()):
        assert cli.json("why", ref)["belief"]["id"] == ids[1]


# --- workspace names -----------------------------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_invalid_workspace_name(as_json: bool, cli: Cli, snapshot: Any) -> None:
    before = snapshot()
    flag = ["--json"] if as_json else []
    result = cli.fail("workspace", "create", "no spaces allowed", *flag)
    if as_json:
        assert_json_error(result, "invalid_input", "no spaces allowed")
    else:
        assert_text_error(result, "no spaces allowed")
    assert snapshot() == before


# --- unreachable or unusable database -----------------------------------------------------------

DB_COMMANDS: dict[str, list[str]] = {
    "ingest": ["ingest", "{doc}"],
    "beliefs": ["beliefs"],
    "why": ["why", "abcdef12"],
    "migrate": ["migrate"],
    "workspace-create": ["workspace", "create", "x"],
    "workspace-list": ["workspace", "list"],
    "audit": ["audit", "verify"],
}


@pytest.mark.parametrize("command", [*DB_COMMANDS, "demo"])
def test_unreachable_db_fails_fast_text(command: str, cli: Cli, snapshot: Any, write_doc: Any) -> None:
    doc = write_doc("policy.md", DOC)
    args = [a.replace("{doc}", str(doc)) for a in DB_COMMANDS.get(command, ["demo"])]
    before = snapshot()
    started = time.monotonic()
    result = cli.fail(*args, "--db", UNREACHABLE)  # --db wins over BELIEFDB_URL (this test's database)
    elapsed = time.monotonic() - started
    line = assert_text_error(result, "connect")
    assert "127.0.0.1" in line
    assert elapsed < 10, f"{command} took {elapsed:.1f}s to give up"
    assert snapshot() == before


@pytest.mark.parametrize("command", list(DB_COMMANDS))
def test_unreachable_db_fails_fast_json(command: str, cli: Cli, write_doc: Any) -> None:
    doc = write_doc("policy.md", DOC)
    args = [a.replace("{doc}", str(doc)) for a in DB_COMMANDS[command]]
    started = time.monotonic()
    result = cli.fail(*args, "--json", env={"BELIEFDB_URL": UNREACHABLE})
    elapsed = time.monotonic() - started
    assert_json_error(result, "database_unavailable", "connect")
    assert elapsed < 10, f"{command} took {elapsed:.1f}s to give up"


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_database_that_does_not_exist(as_json: bool, cli: Cli, db_url: str) -> None:
    url = make_conninfo(db_url, dbname="beliefdb_no_such_database")
    flag = ["--json"] if as_json else []
    result = cli.fail("beliefs", "--db", url, *flag)
    if as_json:
        assert_json_error(result, "database_unavailable", "beliefdb_no_such_database")
    else:
        assert_text_error(result, "beliefdb_no_such_database")


@pytest.fixture
def unmigrated_url(db_url: str) -> Any:
    name = f"bdb_err_empty_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    yield make_conninfo(db_url, dbname=name)
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.mark.parametrize("command", [["beliefs"], ["ingest", "{doc}"], ["why", "abcdef12"], ["audit", "verify"],
                                     ["workspace", "list"], ["workspace", "create", "x"]],
                         ids=lambda c: " ".join(c).replace("{doc}", "doc"))
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_database_without_beliefdb_says_run_migrate(command: list[str], as_json: bool, cli: Cli,
                                                    unmigrated_url: str, write_doc: Any) -> None:
    doc = write_doc("policy.md", DOC)
    args = [a.replace("{doc}", str(doc)) for a in command]
    flag = ["--json"] if as_json else []
    result = cli.fail(*args, "--db", unmigrated_url, *flag)
    if as_json:
        assert_json_error(result, "database_unavailable", "beliefdb migrate")
    else:
        assert_text_error(result, "beliefdb migrate")
    with psycopg.connect(unmigrated_url) as conn:
        row = conn.execute("select count(*) from pg_namespace where nspname = 'beliefdb'").fetchone()
    assert row == (0,)  # nothing was created on the way


# --- typer's own usage errors -------------------------------------------------------------------


@pytest.mark.parametrize(("option", "value"), [("--authority", "bogus"), ("--label", "bogus"),
                                               ("--extractor", "bogus")])
def test_invalid_choice_is_a_usage_error(option: str, value: str, cli: Cli, snapshot: Any,
                                         write_doc: Any) -> None:
    doc = write_doc("policy.md", DOC)
    before = snapshot()
    result = cli("ingest", str(doc), option, value, expect=2)
    assert option in result.stderr and value in result.stderr
    assert result.stdout == ""
    assert snapshot() == before


def test_ingest_without_files_is_a_usage_error(cli: Cli, snapshot: Any) -> None:
    before = snapshot()
    result = cli("ingest", expect=2)
    assert "Missing argument" in result.stderr
    assert snapshot() == before


#: a command line with a usage error, the message it gets, and the command whose help it points at
USAGE_ERRORS = {
    "choice": (["jobs", "--status", "bogus"], "--status: 'bogus' is not one of 'queued', 'running', 'done', 'failed'.",
               "beliefdb jobs"),
    "bound": (["beliefs", "--limit", "0"], "--limit: Input should be greater than or equal to 1", "beliefdb beliefs"),
    "ask-bound": (["ask", "hello", "--k", "0"], "--k: Input should be greater than or equal to 1", "beliefdb ask"),
    "not-a-number": (["beliefs", "--limit", "x"],
                     "--limit: Input should be a valid integer, unable to parse string as an integer",
                     "beliefdb beliefs"),
    "missing-argument": (["decide"], "Missing argument 'title'.", "beliefdb decide"),
    "unknown-option": (["beliefs", "--colour"], "No such option: --colour", "beliefdb beliefs"),
    "in-a-group": (["db", "vector-index", "--dim", "0"], "--dim: Input should be greater than or equal to 1",
                   "beliefdb db vector-index"),
    "unknown-command": (["belief"], "No such command 'belief'. Did you mean 'beliefs'?", "beliefdb"),
}


@pytest.mark.parametrize("name", list(USAGE_ERRORS))
def test_a_usage_error_is_one_line_and_json_with_json(name: str, cli_without_db: Cli) -> None:
    """A usage error of any command is one line as beliefdb's other errors are, not typer's panel:
    ``{"error": "invalid_input", "message"}`` on stdout with --json, else ``error: ...`` on stderr
    pointing at the command's help; exit 2 (click's usage error) both ways."""
    argv, message, command = USAGE_ERRORS[name]
    assert cli_without_db.error(*argv, code="invalid_input", expect=2)["message"] == message
    text = cli_without_db(*argv, expect=2)
    assert text.stdout == ""
    assert text.stderr.splitlines() == [f"error: {message} (see {command} --help)"]


def test_a_group_without_its_command_still_shows_its_help(cli_without_db: Cli) -> None:
    result = cli_without_db("db", expect=None)
    assert "Usage:" in result.output and "vector-index" in result.output


# --- one bad file among many --------------------------------------------------------------------


def _sources(postgresql: psycopg.Connection[Any]) -> dict[str, int]:
    rows = postgresql.execute(
        """select s.name, count(v.*) from beliefdb.source s
             left join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id
            group by s.name""").fetchall()
    postgresql.rollback()
    return {name: int(n) for name, n in rows}


def test_one_bad_file_among_many_text(cli: Cli, write_doc: Any, tmp_path: Path,
                                      postgresql: psycopg.Connection[Any]) -> None:
    good1 = write_doc("good1.md", "The fee of plan1 is 1 euro.\n")
    good2 = write_doc("good2.md", "The fee of plan2 is 2 euros.\n")
    missing = tmp_path / "missing.md"
    result = cli.fail("ingest", str(good1), str(missing), str(good2))
    failures = [line for line in result.stderr.splitlines() if "missing.md" in line]
    assert len(failures) == 1, result.stderr
    assert failures[0].startswith("error:"), failures[0]
    assert "no such file" in failures[0]
    assert "good1.md" not in result.stderr and "good2.md" not in result.stderr
    # both good files were stored and reported
    assert _sources(postgresql) == {"good1.md": 1, "good2.md": 1}
    assert "plan1 / fee = 1 euro" in result.stdout and "plan2 / fee = 2 euros" in result.stdout

    # fixing the bad file and running again ingests it; the others are unchanged no-ops
    missing.write_text("The fee of plan3 is 3 euros.\n", encoding="utf-8")
    reports = cli.json("ingest", str(good1), str(missing), str(good2))
    assert [(r["source"], r["new_version"]) for r in reports] == [
        ("good1.md", False), ("missing.md", True), ("good2.md", False)]
    assert _sources(postgresql) == {"good1.md": 1, "good2.md": 1, "missing.md": 1}


def test_one_bad_file_among_many_json(cli: Cli, write_doc: Any, tmp_path: Path,
                                      postgresql: psycopg.Connection[Any]) -> None:
    good1 = write_doc("good1.md", "The fee of plan1 is 1 euro.\n")
    good2 = write_doc("good2.md", "The fee of plan2 is 2 euros.\n")
    missing = tmp_path / "missing.md"
    result = cli.fail("ingest", str(good1), str(missing), str(good2), "--json")
    out = json.loads(result.stdout)
    assert isinstance(out, list) and len(out) == 3, out
    assert out[0]["source"] == "good1.md" and out[2]["source"] == "good2.md"
    assert out[1]["error"] == "not_found" and "missing.md" in out[1]["message"]
    assert _sources(postgresql) == {"good1.md": 1, "good2.md": 1}


def test_bad_files_among_many_with_progress_bar(cli: Cli, write_doc: Any, tmp_path: Path,
                                                postgresql: psycopg.Connection[Any]) -> None:
    goods = [write_doc(f"good{i}.md", f"The fee of plan{i} is {i} euros.\n") for i in range(3)]
    binary = _binary(tmp_path)
    missing = tmp_path / "missing.md"
    result = cli.fail("ingest", str(goods[0]), str(binary), str(goods[1]), str(missing), str(goods[2]))
    for bad, word in ((binary, "binary"), (missing, "no such file")):
        lines = [line for line in result.stderr.splitlines() if bad.name in line]
        assert len(lines) == 1 and word in lines[0], result.stderr
        assert lines[0].startswith("error:"), lines[0]
    assert _sources(postgresql) == {f"good{i}.md": 1 for i in range(3)}

