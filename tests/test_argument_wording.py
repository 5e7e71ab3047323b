"""A message that names an argument names it as its reader knows it: the library's keyword
(``reason=``) for a program, the option (``--reason``) at the command line; the servers answer with
the library's words. ``db.retract(belief=x)`` without a reason said "a retraction needs --reason"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import beliefdb
from beliefdb import errors
from tests.conftest import Cli

POLICY = "# Returns\nReturns are accepted within 7 days of delivery.\n"


@pytest.fixture
def belief(bdb: beliefdb.BeliefDB) -> str:
    bdb.ingest_text(POLICY, source="policy.md", authority="official")
    return str(bdb.beliefs()[0].id)


def test_the_library_names_its_arguments(bdb: beliefdb.BeliefDB, belief: str, tmp_path: Path) -> None:
    refused: list[tuple[Any, str]] = [
        (lambda: bdb.retract(belief=belief), "a retraction needs reason="),
        (lambda: bdb.retract(reason="x"), "exactly one of belief, fragment or source"),
        (lambda: bdb.retract(fragment=belief, version=2, reason="x"), "version= goes with source="),
        (lambda: bdb.retract(source="policy.md", version=99999999999, reason="x"),
         "version=99999999999 is out of range"),
        (lambda: bdb.apply_correction(belief, "Returns: 9 days.", reviewer=" ", expect_revision=1),
         "a correction needs reviewer="),
        (lambda: bdb.apply_correction(belief, "Returns: 9 days.", reviewer="ops", expect_revision=2 ** 40),
         f"expect_revision={2 ** 40} is out of range"),
        (lambda: bdb.derive("s", "a", "b", "c", []), "a derived belief needs sources= beliefs"),
        (lambda: bdb.ask("returns?", min_confidence=2), "min_confidence= must be between 0 and 1"),
        (lambda: bdb.bulk_ingest(("a.md", POLICY), batch=0), "batch= must be at least 1, not 0"),
        (lambda: bdb.repair_plan([]), "name at least one faulty memory (faulty=[ID, ...])"),
        (lambda: bdb.calibrate(tmp_path / "labels.csv", bins=0), "bins= must be between 1 and 1000, got 0"),
        (lambda: bdb.delete_workspace("default"), "add force=True to delete it with everything in it"),
    ]
    for call, said in refused:
        with pytest.raises(errors.InvalidInput) as caught:
            call()
        assert said in caught.value.message and "--" not in caught.value.message, caught.value.message
        assert str(caught.value) == caught.value.message


def test_the_command_line_names_its_options(cli: Cli, bdb: beliefdb.BeliefDB, belief: str) -> None:
    assert cli.error("retract", "--belief", belief, code="invalid_input", expect=2)["message"] == (
        "a retraction needs --reason")
    assert cli.one_line_error("retract", "--belief", belief) == (
        "error: a retraction needs --reason (see beliefdb retract --help)")
    assert cli.error("retract", "--fragment", belief, "--version", "2", "--reason", "x", expect=2)["message"] == (
        "--version goes with --source")
    assert cli.error("derive", "s", "--subject", "a", "--attribute", "b", "--value", "c", "--from", ",",
                     expect=2)["message"] == "a derived belief needs --from beliefs: give comma-separated belief ids"
    assert cli.error("retract", "--source", "policy.md", "--version", "99999999999", "--reason", "x")["message"] == (
        "--version 99999999999 is out of range")
    assert "add --force to delete it" in cli.error("workspace", "delete", "default")["message"]
    # and the library, called after the command line in the same process, still names its arguments
    with pytest.raises(errors.InvalidInput, match="a retraction needs reason="):
        bdb.retract(belief=belief)


def test_one_message_worded_for_each_reader() -> None:
    assert errors.argument("reason") == "reason="
    assert errors.argument("include_fixtures", True) == "include_fixtures=True"
    with errors.wording("cli"):
        assert errors.argument("reason") == "--reason"
        assert errors.argument("include_fixtures", True) == "--include-fixtures"
        assert errors.argument("sources", option="--from") == "--from"
        assert errors.argument("version", 3) == "--version 3"
        with errors.wording("library"):  # the servers, started by the command line
            assert errors.argument("version", 3) == "version=3"
    assert errors.spelled("a", "b") == "a"


def test_an_ingest_report_s_hints_name_the_library_s_arguments(bdb: beliefdb.BeliefDB,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What produced no belief came with "give their claims with --claims FILE" and "run --extractor llm"
    to a library caller too; a transcript read as a document with "ingest it with --format chat"."""
    text = "The return window is 7 days.\nParagraph one talks about nothing in particular.\n"
    hint = bdb.ingest_text(text, source="notes.md", preview=True).hint
    assert hint is not None and "claims=FILE" in hint and "--" not in hint, hint
    monkeypatch.setenv("BELIEFDB_LLM_URL", "http://127.0.0.1:9/v1")
    hint = bdb.ingest_text(text, source="notes.md", preview=True).hint
    assert hint is not None and "or use extractor='llm' (an endpoint is configured)" in hint, hint
    chat = ("**Alice:** I live in Paris and I love it here.\n**Bob:** That sounds great, tell me more about it.\n"
            "**Alice:** My favourite food is croissants, of course.\n**Bob:** Do you work there too?\n"
            "**Alice:** I work at Acme Corp now.\n")
    hint = bdb.ingest_text(chat, source="chat.md", preview=True).hint
    assert hint is not None and "ingest it with ingest_transcripts" in hint and "--" not in hint, hint
