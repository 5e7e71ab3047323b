"""Bad input through the CLI on a database that already holds a document: a clear one-line error (or a
JSON error object with --json), a non-zero exit, and nothing changed: not a row of any table, so
'nothing changed' is checked against a non-empty database (the bad files, claims, belief ids and
workspaces of tests/test_errors.py)."""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import SEEDS, Cli, seeded_proc
from pytest_postgresql import factories
from test_errors import DOC, _binary, assert_json_error, assert_text_error, row_counts


def _ingest_the_seed(url: str) -> str:
    """seed-policy.md ingested; the id of one of its beliefs, as the ingest reported it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seed-policy.md"
        path.write_text(DOC, encoding="utf-8")
        report = Cli({"BELIEFDB_URL": url}).json("ingest", path)
    assert report["accepted"], report
    return str(report["accepted"][0]["id"])


# every test of this module starts from the seed document: each clones it from a template that holds it
seed_policy_proc = seeded_proc(_ingest_the_seed)
postgresql = factories.postgresql("seed_policy_proc")


@pytest.fixture
def snapshot(postgresql: psycopg.Connection[Any]) -> Callable[[], dict[str, int]]:
    """Row counts of every beliefdb table, read as superuser (no row-level security)."""
    return row_counts(postgresql)


@pytest.fixture
def seeded(postgresql: psycopg.Connection[Any]) -> str:
    """One document already ingested, so 'nothing changed' is checked against a non-empty database.
    Returns the id of one of its beliefs."""
    return str(SEEDS[postgresql.info.dbname])


# --- bad files ----------------------------------------------------------------------------------


def _missing(tmp: Path) -> Path:
    return tmp / "missing.md"


def _directory(tmp: Path) -> Path:
    path = tmp / "folder.md"
    path.mkdir()
    return path


def _latin1(tmp: Path) -> Path:
    path = tmp / "latin1.txt"
    path.write_bytes("Le délai de retour est de 7 jours.\n".encode("latin-1"))
    return path


def _empty(tmp: Path) -> Path:
    path = tmp / "empty.md"
    path.write_bytes(b"")
    return path


def _blank(tmp: Path) -> Path:
    path = tmp / "blank.txt"
    path.write_text("  \n\t\n   \n", encoding="utf-8")
    return path


def _pdf(tmp: Path) -> Path:
    path = tmp / "policy.pdf"
    path.write_text("Returns are accepted within 7 days of delivery.\n", encoding="utf-8")
    return path


BAD_FILES = {
    "missing": (_missing, "not_found", ["no such file"]),
    "directory": (_directory, "invalid_input", ["directory"]),
    "binary": (_binary, "invalid_input", ["binary"]),
    "non-utf8": (_latin1, "invalid_input", ["UTF-8"]),
    "empty": (_empty, "invalid_input", ["empty"]),
    "whitespace-only": (_blank, "invalid_input", ["empty"]),
    "unsupported-suffix": (_pdf, "invalid_input", [".pdf"]),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_text_mode(case: str, cli: Cli, seeded: str, snapshot: Any, tmp_path: Path) -> None:
    make, _code, words = BAD_FILES[case]
    path = make(tmp_path)
    before = snapshot()
    result = cli.fail("ingest", str(path))
    assert_text_error(result, path.name, *words)
    assert snapshot() == before


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_json_mode(case: str, cli: Cli, seeded: str, snapshot: Any, tmp_path: Path) -> None:
    make, code, words = BAD_FILES[case]
    path = make(tmp_path)
    before = snapshot()
    result = cli.fail("ingest", str(path), "--json")
    assert_json_error(result, code, path.name, *words)
    assert snapshot() == before

# --- bad claims (JSONL) -------------------------------------------------------------------------

GOOD_CLAIM = {"statement": "Returns are accepted within 7 days.", "subject": "return_policy",
              "attribute": "window", "value": "7 days", "quote": "Returns are accepted within 7 days"}

# line 3 is the bad one; line 2 is blank so the count must be of physical lines
BAD_CLAIMS = {
    "invalid-json": ('{"statement": "x", "subject": ', "invalid JSON"),
    "missing-field": (json.dumps({k: v for k, v in GOOD_CLAIM.items() if k != "attribute"}), "'attribute'"),
    "not-an-object": (json.dumps([GOOD_CLAIM]), "object"),
    "bad-kind": (json.dumps({**GOOD_CLAIM, "kind": "rumour"}), "'kind'"),
    "negative-offset": (json.dumps({**GOOD_CLAIM, "start": -1, "end": 5}), "'start'"),
    "bad-valid-from": (json.dumps({**GOOD_CLAIM, "valid_from": "next week"}), "valid_from"),
}


def _claims_file(tmp: Path, bad_line: str) -> Path:
    path = tmp / "claims.jsonl"
    path.write_text(json.dumps(GOOD_CLAIM) + "\n\n" + bad_line + "\n" + json.dumps(GOOD_CLAIM) + "\n",
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("case", list(BAD_CLAIMS))
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_malformed_claims_line_names_the_line(case: str, as_json: bool, cli: Cli, seeded: str,
                                              snapshot: Any, tmp_path: Path, write_doc: Any) -> None:
    bad_line, words = BAD_CLAIMS[case]
    doc = write_doc("policy.md", DOC)
    claims = _claims_file(tmp_path, bad_line)
    before = snapshot()
    result = cli.fail("ingest", str(doc), "--claims", str(claims), *(["--json"] if as_json else []))
    if as_json:
        assert_json_error(result, "invalid_input", "claims.jsonl", "line 3", words)
    else:
        assert_text_error(result, "claims.jsonl", "line 3", words)
    assert snapshot() == before  # not even the (good) document was stored


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_claims_file_missing_or_not_utf8(as_json: bool, cli: Cli, seeded: str, snapshot: Any,
                                         tmp_path: Path, write_doc: Any) -> None:
    doc = write_doc("policy.md", DOC)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(json.dumps({**GOOD_CLAIM, "statement": "délai"}, ensure_ascii=False).encode("latin-1")
                      + b"\n")
    before = snapshot()
    flag = ["--json"] if as_json else []
    missing = cli.fail("ingest", str(doc), "--claims", str(tmp_path / "nope.jsonl"), *flag)
    not_utf8 = cli.fail("ingest", str(doc), "--claims", str(latin), *flag)
    if as_json:
        assert_json_error(missing, "not_found", "nope.jsonl")
        assert_json_error(not_utf8, "invalid_input", "latin.jsonl", "UTF-8")
    else:
        assert_text_error(missing, "nope.jsonl")
        assert_text_error(not_utf8, "latin.jsonl", "UTF-8")
    assert snapshot() == before


@pytest.mark.parametrize("content", ["", " \n\n"], ids=["empty", "blank-lines"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_claims_file_without_claims_is_refused(content: str, as_json: bool, cli: Cli, seeded: str,
                                                 snapshot: Any, tmp_path: Path, write_doc: Any) -> None:
    """ingest policy.md --claims empty.jsonl stored the document and exited 0, as if the claims had been
    read (README: an empty file gets a one-line error): bad input, exit 1, nothing stored."""
    doc = write_doc("policy.md", DOC)
    empty = tmp_path / "empty.jsonl"
    empty.write_text(content, encoding="utf-8")
    before = snapshot()
    result = cli("ingest", str(doc), "--claims", str(empty), *(["--json"] if as_json else []), expect=1)
    if as_json:
        assert_json_error(result, "invalid_input", "empty.jsonl", "empty file")
    else:
        assert_text_error(result, "empty.jsonl", "empty file")
    assert snapshot() == before  # not even the document was stored


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_options_that_need_one_file_refuse_many(as_json: bool, cli: Cli, seeded: str, snapshot: Any,
                                                write_doc: Any) -> None:
    a, b = write_doc("a.md", DOC), write_doc("b.md", DOC.replace("7", "9"))
    claims = write_doc("claims.jsonl", json.dumps(GOOD_CLAIM) + "\n")
    before = snapshot()
    flag = ["--json"] if as_json else []
    for extra, word in ((["--source", "one"], "--source"), (["--claims", str(claims)], "--claims")):
        result = cli.fail("ingest", str(a), str(b), *extra, *flag)
        if as_json:
            assert_json_error(result, "invalid_input", word)
        else:
            assert_text_error(result, word)
    assert snapshot() == before


# --- unknown belief ids --------------------------------------------------------------------------


def _unknown_prefix(known: str) -> str:
    first = "0" if known[0] != "0" else "1"
    return first + known[1:8]


@pytest.mark.parametrize("kind", ["full-uuid", "prefix", "garbage"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_unknown_belief_id(kind: str, as_json: bool, cli: Cli, seeded: str, snapshot: Any) -> None:
    ref = {"full-uuid": str(uuid.uuid4()), "prefix": _unknown_prefix(seeded), "garbage": "not-a-belief"}[kind]
    before = snapshot()
    if kind == "garbage":  # (no id at all: bad input, not an unknown one)
        said = cli.fail("why", ref, "--json") if as_json else cli.fail("why", ref)
        assert_json_error(said, "invalid_input", ref) if as_json else assert_text_error(said, "is not an id", ref)
    elif as_json:
        assert_json_error(cli.fail("why", ref, "--json"), "unknown_belief", ref)
    else:
        assert_text_error(cli.fail("why", ref), "unknown belief", ref)
    assert snapshot() == before


# --- unknown workspace --------------------------------------------------------------------------

WORKSPACE_COMMANDS: dict[str, Callable[[Path, str], list[str]]] = {
    "ingest": lambda doc, _id: ["ingest", str(doc)],
    "beliefs": lambda _doc, _id: ["beliefs"],
    "why": lambda _doc, belief_id: ["why", belief_id],
    "audit": lambda _doc, _id: ["audit", "verify"],
}


@pytest.mark.parametrize("via", ["option", "env"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_unknown_workspace(via: str, as_json: bool, cli: Cli, seeded: str, snapshot: Any,
                           write_doc: Any) -> None:
    doc = write_doc("other.md", DOC.replace("7", "8"))
    flag = ["--json"] if as_json else []
    before = snapshot()
    for command, make_args in WORKSPACE_COMMANDS.items():
        args = make_args(doc, seeded)
        if via == "option":
            result = cli.fail(*args, "--workspace", "nowhere", *flag)
        else:
            result = cli.fail(*args, *flag, env={"BELIEFDB_WORKSPACE": "nowhere"})
        try:
            if as_json:
                assert_json_error(result, "unknown_workspace", "nowhere")
            else:
                assert_text_error(result, "unknown workspace", "nowhere")
        except AssertionError as exc:
            raise AssertionError(f"beliefdb {command}: {exc}") from exc
    assert snapshot() == before
