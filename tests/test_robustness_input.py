"""Bad input never crashes beliefdb or loses work (issue 22): every class of bad input through the
command line, one named case each. Each case asserts a one-line error (no traceback) in text mode,
a ``{"error", "message"}`` object with --json, a non-zero exit, and unchanged row counts in every
table of schema beliefdb (found in the catalog, counted as the owner). The cases change nothing, so
they share one seeded database. What bad input must still let through (a file name that is not
UTF-8, a claim holding U+2028) is at the end; the servers, the library and the fuzz tests are in
test_robustness_inputs_more.py."""

from __future__ import annotations

import inspect
import json
import os
import re
import socket
import stat
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer
from conftest import Cli
from databases import cloned_database
from psycopg import sql
from pytest_postgresql.executors import NoopExecutor

import beliefdb
import beliefdb.cli
from beliefdb.models import IngestReport

pytestmark = pytest.mark.robustness

DOC = "# Return policy\n\nReturns are accepted within 7 days of delivery.\nThe restocking fee is 10%.\n"
CLAIM = {"statement": "Returns are accepted within 7 days.", "subject": "return_policy", "attribute": "window",
         "value": "7 days", "quote": "Returns are accepted within 7 days"}
BAD = "\udcff"  # the byte 0xff, not UTF-8, as os.fsdecode hands an argument or a file name to Python
AMBIGUOUS_BELIEF, AMBIGUOUS_DECISION = "abcdef12", "abcd0000"
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/x"
INJECTION = "x'); drop table beliefdb.belief; --"
WATCHDOG = 30.0  # seconds after which whoever blocks on one of the cases' FIFOs is set free (and the case fails);
# a loaded machine takes several seconds for a command that does not block at all

_TABLES = sql.SQL("select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace"
                  " where n.nspname = 'beliefdb' and c.relkind in ('r', 'p') and not c.relispartition"
                  " order by c.relname")


def row_counts(url: str) -> dict[str, int]:
    """The rows of every table of schema beliefdb, the tables found in the catalog, counted as the owner
    (no row-level security in the way)."""
    with psycopg.connect(url, autocommit=True) as conn:
        names = [str(row[0]) for row in conn.execute(_TABLES)]
        assert "belief" in names and "audit_event" in names, names
        counts = {}
        for name in names:
            row = conn.execute(sql.SQL("select count(*) from {}").format(sql.Identifier("beliefdb", name))).fetchone()
            assert row is not None
            counts[name] = int(row[0])
        return counts


# --- one seeded database for every case, and the files the cases name -------------------------


@dataclass
class Shared:
    url: str
    files: Path
    belief: str = ""
    values: dict[str, str] = field(default_factory=dict)


def _claims(line3: str | bytes) -> bytes:
    """A claims file whose third line is ``line3`` (the second is blank: lines are counted as they stand)."""
    bad = line3 if isinstance(line3, bytes) else line3.encode("utf-8")
    good = json.dumps(CLAIM).encode()
    return good + b"\n\n" + bad + b"\n" + good + b"\n"


def _make_files(d: Path, belief: str) -> None:
    (d / "doc.md").write_text(DOC, encoding="utf-8")
    (d / "folder.md").mkdir()
    for fifo in ("pipe.md", "pipe.jsonl", "pipe.csv", "pipe.png"):
        os.mkfifo(d / fifo)
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(d / "sock.md"))
    (d / "device.md").symlink_to("/dev/null")
    (d / "binary.md").write_bytes(b"Returns are accepted\x00 within 7 days.\n")
    (d / "utf16.md").write_bytes(DOC.encode("utf-16"))
    (d / "latin1.md").write_bytes("Le délai de retour est de 7 jours.\n".encode("latin-1"))
    (d / "empty.md").write_bytes(b"")
    (d / "blank.md").write_text(" \n\t\n\u00a0\n", encoding="utf-8")
    (d / "policy.pdf").write_text(DOC, encoding="utf-8")
    claims = {
        "invalid-json": '{"statement": "x", "subject": ',
        "not-an-object": json.dumps([CLAIM]),
        "missing-field": json.dumps({k: v for k, v in CLAIM.items() if k != "attribute"}),
        "mistyped-statement": json.dumps({**CLAIM, "statement": 7}),
        "mistyped-scope": json.dumps({**CLAIM, "scope": {"region": 1}}),
        "mistyped-offset": json.dumps({**CLAIM, "start": "0", "end": 34}),
        "bool-offset": json.dumps({**CLAIM, "start": True, "end": 34}),
        "reversed-offsets": json.dumps({**CLAIM, "start": 40, "end": 6}),
        "empty-offsets": json.dumps({**CLAIM, "start": 6, "end": 6}),
        "bad-kind": json.dumps({**CLAIM, "kind": "rumour"}),
        "valid-from-not-iso": json.dumps({**CLAIM, "valid_from": "next week"}),
        "valid-from-out-of-range": json.dumps({**CLAIM, "valid_from": "0001-01-01T00:00:00+14:00"}),
        "valid-to-year-10000": json.dumps({**CLAIM, "valid_to": "9999-12-31T23:59:59-14:00"}),
        "lone-surrogate": '{"statement": "x\\ud800", "subject": "s", "attribute": "a", "value": "v", "quote": "q"}',
        "nul-escape": json.dumps({**CLAIM, "value": "7\u0000days"}),
        "deep-nesting": "[" * 100_000,
        "huge-number": json.dumps({**CLAIM, "start": 0}).replace('"start": 0', '"start": ' + "9" * 5000),
    }
    for name, line in claims.items():
        (d / f"{name}.jsonl").write_bytes(_claims(line))
    (d / "latin1.jsonl").write_bytes(_claims(json.dumps({**CLAIM, "value": "délai"}, ensure_ascii=False)
                                             .encode("latin-1")))
    (d / "nul-byte.jsonl").write_bytes(_claims(b'{"statement": "x\x00"}'))
    (d / "utf16.jsonl").write_bytes(json.dumps(CLAIM).encode("utf-16"))
    (d / "labels.csv").write_text(f"belief_id,correct\n{belief},true\n", encoding="utf-8")
    (d / "ambiguous.csv").write_text(f"belief_id,correct\n{AMBIGUOUS_BELIEF},true\n", encoding="utf-8")
    (d / "labels-latin1.csv").write_bytes(f"belief_id,correct\n{belief},true\n".encode() + b"caf\xe9,true\n")


@pytest.fixture(scope="module")
def shared(postgresql_proc: NoopExecutor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shared]:
    """A database of its own for this module's read-only cases, cloned from the migrated template and
    seeded: a document's beliefs, a decision, and two beliefs and two decisions whose ids share a prefix."""
    with cloned_database(postgresql_proc, "robust") as url:
        files = tmp_path_factory.mktemp("robust")
        (files / "seed.md").write_text(DOC, encoding="utf-8")
        with beliefdb.connect(url, principal="seeder") as bdb:
            report = bdb.ingest(files / "seed.md", embed=False)[0]
            assert isinstance(report, IngestReport) and report.accepted, report
            belief = str(report.accepted[0].id)
            bdb.decide("Refuse returns after 7 days", because=[belief])
            workspace = bdb.database.workspace_id
        with psycopg.connect(url) as conn:
            for last in "12":
                conn.execute("insert into beliefdb.belief (workspace_id, id, statement, subject, attribute, value)"
                             " values (%s, %s, 'twin', 'plan', 'fee', %s)",
                             (workspace, f"{AMBIGUOUS_BELIEF}-0000-4000-8000-00000000000{last}", last))
                conn.execute("insert into beliefdb.decision (workspace_id, id, title) values (%s, %s, 'twin')",
                             (workspace, f"{AMBIGUOUS_DECISION}-0000-4000-8000-00000000000{last}"))
        _make_files(files, belief)
        yield Shared(url, files, belief)


@contextmanager
def fifo_watchdog(folder: Path) -> Iterator[threading.Event]:
    """Every WATCHDOG seconds, opens the other end of every FIFO in ``folder`` and closes it again, so
    whoever blocks on one gets end of file (or a broken pipe) instead of hanging the suite; the event
    says whether it had to."""
    fired, done = threading.Event(), threading.Event()

    def free() -> None:
        while not done.wait(WATCHDOG):
            fired.set()
            for path in folder.iterdir():
                if stat.S_ISFIFO(path.lstat().st_mode):
                    for flags in (os.O_WRONLY | os.O_NONBLOCK, os.O_RDONLY | os.O_NONBLOCK):
                        with suppress(OSError):  # nobody at the other end
                            os.close(os.open(path, flags))

    watchdog = threading.Thread(target=free, daemon=True)
    watchdog.start()
    try:
        yield fired
    finally:
        done.set()
        watchdog.join()


# --- the cases ------------------------------------------------------------------------------------

# id: (arguments, error code, words the message must hold, environment); {files} and {belief} are filled in
ERROR_CASES: dict[str, tuple[list[str], str, list[str], dict[str, str]]] = {}


def case(name: str, args: list[str], code: str, words: list[str], env: dict[str, str] | None = None) -> None:
    assert name not in ERROR_CASES, name
    ERROR_CASES[name] = (args, code, words, env or {})


INGEST = ["ingest", "--no-embed"]
DOC_CLAIMS = [*INGEST, "{files}/doc.md", "--claims"]

# documents that cannot be read (a FIFO, a socket or a device is refused without being opened)
for _name, _file, _code, _words in [
    ("missing", "missing.md", "not_found", ["missing.md", "no such file"]),
    ("directory", "folder.md", "invalid_input", ["folder.md", "directory"]),
    ("fifo", "pipe.md", "invalid_input", ["pipe.md", "FIFO"]),
    ("socket", "sock.md", "invalid_input", ["sock.md", "socket"]),
    ("device", "device.md", "invalid_input", ["device.md", "character device"]),
    ("binary", "binary.md", "invalid_input", ["binary.md", "binary"]),
    ("utf16-with-bom", "utf16.md", "invalid_input", ["utf16.md", "UTF-16"]),
    ("not-utf8", "latin1.md", "invalid_input", ["latin1.md", "UTF-8", "line 1"]),
    ("empty", "empty.md", "invalid_input", ["empty.md", "empty"]),
    ("whitespace-only", "blank.md", "invalid_input", ["blank.md", "empty"]),
    ("unsupported-suffix", "policy.pdf", "invalid_input", [".pdf"]),
    ("missing-with-a-name-not-utf8", f"{BAD}missing.md", "not_found", ["\\xffmissing.md", "no such file"]),
]:
    case(f"document-{_name}", [*INGEST, f"{{files}}/{_file}"], _code, _words)

# claims files (JSON Lines): the bad line is line 3, and every error names it
case("claims-missing", [*DOC_CLAIMS, "{files}/nope.jsonl"], "not_found", ["nope.jsonl"])
case("claims-fifo", [*DOC_CLAIMS, "{files}/pipe.jsonl"], "invalid_input", ["pipe.jsonl", "FIFO"])
case("claims-directory", [*DOC_CLAIMS, "{files}/folder.md"], "invalid_input", ["folder.md", "directory"])
case("claims-utf16-with-bom", [*DOC_CLAIMS, "{files}/utf16.jsonl"], "invalid_input", ["UTF-16", "line 1"])
case("claims-nul-byte", [*DOC_CLAIMS, "{files}/nul-byte.jsonl"], "invalid_input", ["binary", "line 3"])
# an empty principal acted as the database's user, unnoticed (a token's principal may not be empty)
case("as-empty", ["decide", "Refuse", "--as", " "], "invalid_input", ["--as", "is empty"])
case("claims-not-utf8", [*DOC_CLAIMS, "{files}/latin1.jsonl"], "invalid_input", ["UTF-8", "line 3"])
for _name, _words in [
    ("invalid-json", ["invalid JSON"]), ("not-an-object", ["object"]), ("missing-field", ["'attribute'"]),
    ("mistyped-statement", ["'statement'"]), ("mistyped-scope", ["'scope'"]), ("mistyped-offset", ["'start'"]),
    ("bool-offset", ["'start'"]), ("reversed-offsets", ["'end'", "'start'"]), ("empty-offsets", ["'end'"]),
    ("bad-kind", ["'kind'"]), ("valid-from-not-iso", ["valid_from"]),
    ("valid-from-out-of-range", ["valid_from", "0001-01-02"]), ("valid-to-year-10000", ["valid_to", "9999-12-30"]),
    ("lone-surrogate", ["'statement'", "UTF-8"]), ("nul-escape", ["'value'", "NUL"]),
    ("deep-nesting", ["nested"]), ("huge-number", ["digits"]),
]:
    case(f"claims-{_name}", [*DOC_CLAIMS, f"{{files}}/{_name}.jsonl"], "invalid_input", [f"{_name}.jsonl", "line 3",
                                                                                          *_words])

# arguments and environment variables holding bytes that are not UTF-8: named, never a traceback
for _name, _args, _words, _env in [
    ("as", ["decide", "Refuse", "--as", BAD], ["--as"], {}),
    ("principal-env", ["decide", "Refuse"], ["BELIEFDB_PRINCIPAL"], {"BELIEFDB_PRINCIPAL": BAD}),
    ("workspace", ["beliefs", "-w", f"w{BAD}"], ["--workspace"], {}),
    ("workspace-env", ["beliefs"], ["BELIEFDB_WORKSPACE"], {"BELIEFDB_WORKSPACE": BAD}),
    ("ask-question", ["ask", f"how many days{BAD}?"], ["QUESTION"], {}),
    ("decide-title", ["decide", f"Refuse{BAD}"], ["TITLE"], {}),
    ("ingest-source", [*INGEST, "{files}/doc.md", "--source", f"policy{BAD}"], ["--source"], {}),
    ("ingest-version-label", [*INGEST, "{files}/doc.md", "--version-label", BAD], ["--version-label"], {}),
    ("correct-statement", ["correct", "{belief}", f"Fifteen{BAD}", "--reviewer", "rev", "--preview"],
     ["STATEMENT"], {}),
    ("why-belief", ["why", f"{BAD}abc"], ["ID"], {}),
    ("beliefs-subject", ["beliefs", "--subject", BAD], ["--subject"], {}),
    ("db-url", ["beliefs", "--db", f"postgresql://{BAD}"], ["--db"], {}),
    ("home", ["beliefs", "--home", f"/tmp/{BAD}"], ["--home"], {}),
    ("workspace-create", ["workspace", "create", f"w{BAD}"], ["NAME"], {}),
    ("token-create", ["token", "create", "--principal", BAD, "--workspace", "default"], ["--principal"], {}),
]:
    case(f"not-utf8-{_name}", _args, "invalid_input", [*_words, "UTF-8"], _env)

# ids: ambiguous prefixes, unknown ids, SQL in place of a name
for _name, _args, _code, _words in [
    ("why", ["why", AMBIGUOUS_BELIEF], "ambiguous_id", [AMBIGUOUS_BELIEF, "ambiguous"]),
    ("correct", ["correct", AMBIGUOUS_BELIEF, "x", "--reviewer", "rev", "--preview"], "ambiguous_id", ["ambiguous"]),
    ("retract", ["retract", "--belief", AMBIGUOUS_BELIEF, "--reason", "r"], "ambiguous_id", ["ambiguous"]),
    ("impact", ["impact", AMBIGUOUS_BELIEF], "ambiguous_id", ["ambiguous"]),
    ("act", ["act", AMBIGUOUS_DECISION, "Refund"], "ambiguous_id", [AMBIGUOUS_DECISION, "ambiguous"]),
]:
    case(f"ambiguous-prefix-{_name}", _args, _code, _words)
case("unknown-belief", ["why", "0000ffff"], "unknown_belief", ["0000ffff"])
# the whole question is embedded: a question of megabytes held a server thread for many minutes
case("ask-question-too-long", ["ask", "how many days " * 200], "invalid_input", ["2,800 characters", "at most 2,000"])
case("unknown-decision", ["act", "0000ffff", "Refund"], "not_found", ["0000ffff"])
for _name, _args, _code, _words in [
    ("why", ["why", INJECTION], "invalid_input", [INJECTION, "is not an id"]),  # (no id at all: bad input)
    ("workspace", ["beliefs", "-w", INJECTION], "unknown_workspace", [INJECTION]),
    ("workspace-create", ["workspace", "create", INJECTION], "invalid_input", [INJECTION]),
    ("retract-source", ["retract", "--source", INJECTION, "--reason", "r"], "not_found", [INJECTION]),
    ("forget-source", ["forget", "--source", INJECTION, "--preview"], "not_found", [INJECTION]),
    ("review-item", ["review", "approve", INJECTION], "invalid_input", [INJECTION, "is not an id"]),
]:
    case(f"sql-injection-{_name}", _args, _code, _words)

# unknown workspaces
for _name, _args in [("beliefs", ["beliefs"]), ("ingest", [*INGEST, "{files}/doc.md"]), ("decide", ["decide", "x"]),
                     ("ask", ["ask", "days?"])]:
    case(f"unknown-workspace-{_name}", [*_args, "-w", "nowhere"], "unknown_workspace", ["nowhere"])

# timestamps: outside 0001-01-02 .. 9999-12-30 UTC (what Python and psycopg read back in every time zone)
for _name, _args, _words in [
    ("beliefs-year-1", ["beliefs", "--as-of", "0001-01-01"], ["--as-of", "0001-01-02"]),
    ("beliefs-bc-in-utc", ["beliefs", "--as-of", "0001-01-01T00:00:00+14:00"], ["--as-of"]),
    ("beliefs-year-10000-in-utc", ["beliefs", "--as-of", "9999-12-31T23:59:59-14:00"], ["--as-of", "9999-12-30"]),
    ("why", ["why", "{belief}", "--as-of", "0001-01-01"], ["--as-of"]),
    ("ask", ["ask", "days?", "--as-of", "0001-01-01T00:00:00Z"], ["--as-of"]),
    ("decay-preview", ["decay", "--preview", "--now", "0001-01-01T00:00:00+14:00"], ["--now"]),
    ("decay", ["decay", "--now", "9999-12-31T23:59:59-14:00"], ["--now"]),
    ("not-iso", ["beliefs", "--as-of", "last tuesday"], ["--as-of", "last tuesday"]),
    ("empty", ["beliefs", "--as-of", ""], ["--as-of"]),
    ("year-five-digits", ["why", "{belief}", "--as-of", "10000-01-01"], ["--as-of"]),
]:
    case(f"timestamp-{_name}", _args, "invalid_input", _words)

# an unreachable database: said at once
for _name, _args in [("beliefs", ["beliefs"]), ("ingest", [*INGEST, "{files}/doc.md"]), ("decide", ["decide", "x"]),
                     ("why", ["why", "{belief}"]), ("audit", ["audit", "verify"]),
                     ("workspace", ["workspace", "list"])]:
    case(f"unreachable-database-{_name}", [*_args, "--db", UNREACHABLE], "database_unavailable", ["127.0.0.1"])

# calibration: its labels file and its plot are files like any other
for _name, _args, _code, _words in [
    ("labels-missing", ["--labels", "{files}/nope.csv"], "not_found", ["nope.csv"]),
    ("labels-directory", ["--labels", "{files}/folder.md"], "invalid_input", ["directory"]),
    ("labels-fifo", ["--labels", "{files}/pipe.csv"], "invalid_input", ["pipe.csv", "FIFO"]),
    ("labels-not-utf8", ["--labels", "{files}/labels-latin1.csv"], "invalid_input", ["UTF-8", "line 3"]),
    ("labels-ambiguous", ["--labels", "{files}/ambiguous.csv"], "ambiguous_id", ["ambiguous"]),
    ("plot-fifo", ["--labels", "{files}/labels.csv", "--plot", "{files}/pipe.png"], "invalid_input",
     ["pipe.png", "FIFO"]),
]:
    case(f"calibrate-{_name}", ["calibrate", *_args], _code, _words)


def _fill(args: list[str], shared: Shared) -> list[str]:
    return [a.replace("{files}", str(shared.files)).replace("{belief}", shared.belief) for a in args]


def _no_crash(result: Any) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(result.exception)))


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_bad_input_is_one_line_and_changes_nothing(name: str, shared: Shared) -> None:
    template, code, words, env = ERROR_CASES[name]
    args = _fill(template, shared)
    cli = Cli({"BELIEFDB_URL": shared.url})
    before = row_counts(shared.url)
    with fifo_watchdog(shared.files) as fired:
        started = time.monotonic()
        text = cli(*args, env=env, expect=None)
        as_json = cli(*args, "--json", env=env, expect=None)
    assert not fired.is_set(), f"blocked on a FIFO for {time.monotonic() - started:.0f} s"
    _no_crash(text)
    _no_crash(as_json)
    assert text.exit_code != 0 and as_json.exit_code != 0, (text.output, as_json.output)
    lines = text.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), text.stderr
    assert text.stdout == "", text.stdout
    error = json.loads(as_json.stdout)
    assert set(error) == {"error", "message"} and error["error"] == code, error
    said = lines[0].removeprefix("error: ")
    if text.exit_code == 2:  # a usage error's line points at the command's help (cli.common.usage_error)
        said = re.sub(r" \(see beliefdb [a-z -]+ --help\)$", "", said)
    assert "\n" not in error["message"] and said == error["message"], (lines, error)
    for word in words:
        assert word in error["message"], (word, error["message"])
    assert row_counts(shared.url) == before


def _commands(app: typer.Typer, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for command in app.registered_commands:
        yield prefix + (command.name or getattr(command.callback, "__name__", "?")), command.callback
    for group in app.registered_groups:
        assert group.typer_instance is not None and group.name
        yield from _commands(group.typer_instance, f"{prefix}{group.name} ")


def test_every_command_refuses_arguments_that_are_not_text() -> None:
    """The cases above try some commands; every command, a new one too, is wrapped to refuse them
    (beliefdb.cli.common.text_arguments: typer hands the wrapper its context)."""
    unwrapped = [name for name, callback in _commands(beliefdb.cli.app)
                 if "typer_context" not in inspect.signature(callback).parameters]
    assert unwrapped == []


# --- what bad input must still let through -------------------------------------------------------


def _sources(db_url: str) -> dict[str, int]:
    with psycopg.connect(db_url) as conn:
        rows = conn.execute("select s.name, count(v.*) from beliefdb.source s join beliefdb.source_version v"
                            " on v.workspace_id = s.workspace_id and v.source_id = s.id group by s.name").fetchall()
    return {str(name): int(n) for name, n in rows}


def test_a_batch_with_file_names_that_are_not_utf8_loses_no_file(cli: Cli, db_url: str, tmp_path: Path) -> None:
    """A name that is not UTF-8 is ingested under its name with the bad bytes escaped ('\\xff'); one
    that does not exist is one error line; the files after either are stored."""
    first, odd, gone, last = (tmp_path / n for n in ("a.md", f"{BAD}.md", f"{BAD}gone.md", "c.md"))
    first.write_text("The fee of plan1 is 1 euro.\n", encoding="utf-8")
    odd.write_text("The fee of plan2 is 2 euros.\n", encoding="utf-8")
    last.write_text("The fee of plan3 is 3 euros.\n", encoding="utf-8")
    result = cli.fail("ingest", "--no-embed", first, odd, gone, last)
    _no_crash(result)
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if "error" in line]  # the rest is a progress bar
    assert errors == [f"error: {tmp_path}/\\xffgone.md: no such file"], result.stderr
    assert _sources(db_url) == {"a.md": 1, "\\xff.md": 1, "c.md": 1}
    assert "\\xff.md" in result.stdout and "plan3 / fee = 3 euros" in result.stdout
    again = cli.json("ingest", "--no-embed", first, odd, last)  # the escaped name is the same source each time
    assert [(r["source"], r["new_version"], r["path"]) for r in again] == [
        ("a.md", False, str(first)), ("\\xff.md", False, f"{tmp_path}/\\xff.md"), ("c.md", False, str(last))]


def test_a_file_name_that_is_not_utf8_names_the_subject_of_its_unnamed_facts(cli: Cli, tmp_path: Path) -> None:
    """The escape of a byte that is not UTF-8 ('caf\\xe9.md') is part of the name, not a path separator:
    its "Owner: ..." line was a fact about 'xe9'."""
    odd = tmp_path / "caf\udce9.md"
    odd.write_text("Owner: Dana\n", encoding="utf-8")
    report = cli.json("ingest", "--no-embed", odd)
    assert report["source"] == "caf\\xe9.md", report
    assert [(b["subject"], b["value"]) for b in cli.json("beliefs")] == [("caf_xe9", "Dana")]


@pytest.mark.slow
def test_bytes_that_are_not_utf8_on_a_real_command_line(db_url: str, tmp_path: Path) -> None:
    """The same through a real process, whose arguments are bytes: os.fsdecode makes them lone surrogates."""
    good = tmp_path / "a.md"
    good.write_text("The fee of plan1 is 1 euro.\n", encoding="utf-8")
    (tmp_path / f"{BAD}.md").write_text("The fee of plan2 is 2 euros.\n", encoding="utf-8")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}, "BELIEFDB_URL": db_url}
    run = [sys.executable, "-m", "beliefdb"]
    stored = subprocess.run([*run, "ingest", "--no-embed", os.fsencode(tmp_path / f"{BAD}.md"), good],
                            env=env, cwd=tmp_path, capture_output=True, timeout=120)
    assert stored.returncode == 0, stored.stderr.decode(errors="replace")
    assert _sources(db_url) == {"\\xff.md": 1, "a.md": 1}
    refused = subprocess.run([*run, "decide", "Refuse", "--as", b"agent-\xff"], env=env, cwd=tmp_path,
                             capture_output=True, timeout=120)
    assert refused.returncode == 2 and refused.stdout == b""
    assert refused.stderr.decode().splitlines() == [
        "error: --as: not valid UTF-8 (an undecodable byte or a lone surrogate at character 6): 'agent-\\xff'"]


def test_a_claims_line_holding_unicode_line_separators_is_one_claim(cli: Cli, write_doc: Any) -> None:
    """JSON Lines are split on newlines only: U+2028, U+2029 and U+0085 stay inside their string."""
    doc = write_doc("policy.md", DOC)
    statement = "Returns are accepted\u2028within 7 days\u2029of delivery\u0085(EU)."
    lines = [json.dumps({**CLAIM, "statement": statement}, ensure_ascii=False),
             json.dumps({**CLAIM, "attribute": "fee", "value": "10%", "quote": "The restocking fee is 10%."})]
    claims = write_doc("claims.jsonl", "\r\n".join(lines) + "\r\n")
    report = cli.json("ingest", "--no-embed", "--extractor", "none", doc, "--claims", claims)
    assert [a["statement"] for a in report["accepted"]] == [statement, CLAIM["statement"]], report
    assert {b["statement"] for b in cli.json("beliefs")} == {statement, CLAIM["statement"]}
    # and a bad line after such a line is named by its own number
    broken = write_doc("broken.jsonl", lines[0] + "\n" + lines[1] + "\n{\n")
    message = cli.error("ingest", "--no-embed", doc, "--claims", broken, code="invalid_input")["message"]
    assert message.startswith(f"{broken} line 3: invalid JSON"), message


def test_names_that_look_like_sql_are_stored_as_given(cli: Cli, db_url: str, write_doc: Any) -> None:
    """SQL in a source name, a principal, a subject, an attribute, a value, a version label and a
    decision title is data: stored and read back verbatim, every table still there."""
    tables = set(row_counts(db_url))
    doc = write_doc("policy.md", DOC)
    claim = {**CLAIM, "subject": INJECTION, "attribute": f"{INJECTION}:attr", "value": f"{INJECTION}:value"}
    claims = write_doc("claims.jsonl", json.dumps(claim) + "\n")
    report = cli.json("ingest", "--no-embed", "--extractor", "none", doc, "--claims", claims, "--source",
                      f"{INJECTION}:source", "--version-label", f"{INJECTION}:label", "--as", f"{INJECTION}:who")
    belief = report["accepted"][0]
    assert (report["source"], belief["subject"], belief["attribute"], belief["value"]) == (
        f"{INJECTION}:source", INJECTION, f"{INJECTION}:attr", f"{INJECTION}:value")
    why = cli.json("why", belief["id"])
    assert why["belief"]["owner"] == f"{INJECTION}:who" and why["evidence"][0]["source"] == f"{INJECTION}:source"
    assert [b["id"] for b in cli.json("beliefs", "--subject", INJECTION)] == [belief["id"]]
    decided = cli.json("decide", f"{INJECTION}:title", "--because", belief["id"], "--as", f"{INJECTION}:who")
    assert [d["title"] for d in cli.json("decisions") if d["id"] == decided["id"]] == [f"{INJECTION}:title"]
    assert set(row_counts(db_url)) == tables
