"""``beliefdb ingest -`` reads one document from standard input (trial24: nothing read a pipe), stored as the
source --source names, as a file of that name would be; what it cannot take is a usage error, and a text
it cannot store a one-line error, nothing written."""

from __future__ import annotations

import io
from typing import Any

import psycopg
import pytest

from beliefdb import api, errors
from tests.conftest import Cli

TEXT = "The return window is 45 days.\n"


def test_a_piped_text_is_the_next_version_of_the_source_it_names(cli: Cli) -> None:
    report = cli.json("ingest", "-", "--source", "piped.md", "--json", input=TEXT)
    assert (report["source"], report["version"], report["new_version"]) == ("piped.md", 1, True)
    assert [(a["subject"], a["value"]) for a in report["accepted"]] == [("return_policy", "45 days")]
    # the same text again is that version, as the same file would be; a changed one the next
    assert cli.json("ingest", "-", "--source", "piped.md", "--json", input=TEXT)["new_version"] is False
    shown = cli("ingest", "-", "--source", "piped.md", input=TEXT.replace("45", "60")).stdout
    assert "piped.md" in shown and "60 days" in shown
    preview = cli.json("ingest", "-", "--source", "piped.md", "--preview", "--json", input=TEXT.replace("45", "90"))
    assert preview["preview"] is True


@pytest.mark.parametrize("args", [
    ("-",), ("-", "--source", "a.md", "--claims", "c.jsonl"), ("-", "--source", "a.md", "--queue"),
    ("-", "--source", "a.md", "--bulk"), ("-", "--source", "a.md", "--format", "chat"),
    ("-", "README.md", "--source", "a.md")])
def test_what_standard_input_cannot_take_is_a_usage_error(cli: Cli, args: tuple[str, ...],
                                                          postgresql: psycopg.Connection[Any]) -> None:
    result = cli.fail("ingest", *args, input=TEXT)
    assert result.exit_code == 2 and result.stderr.startswith("error: "), result.stderr
    assert postgresql.execute("select count(*) from beliefdb.source_version").fetchone() == (0,)


def test_an_empty_or_oversized_text_is_one_line_and_writes_nothing(cli: Cli,
                                                                   postgresql: psycopg.Connection[Any]) -> None:
    assert "standard input: empty text" in cli.fail("ingest", "-", "--source", "a.md", input="  \n").stderr
    over = cli.fail("ingest", "-", "--source", "a.md", "--max-bytes", "10", input=TEXT).stderr
    assert "standard input: over the ingest limit of 10 bytes" in over
    assert postgresql.execute("select count(*) from beliefdb.source_version").fetchone() == (0,)


def test_a_stream_is_read_no_further_than_the_limit_and_must_be_utf8() -> None:
    stream = io.BytesIO(b"x" * 100)
    with pytest.raises(errors.InvalidInput, match="over the ingest limit of 10 bytes"):
        api.read_stream(stream, "standard input", 10)
    assert stream.tell() == 11
    with pytest.raises(errors.InvalidInput, match=r"standard input line 2: not valid UTF-8 \(byte 2 of the line"):
        api.read_stream(io.BytesIO(b"ok\na\xffb\n"), "standard input", 100)
    assert api.read_stream(io.BytesIO("\ufeffBOM first.\n".encode()), "standard input", 100) == "BOM first.\n"
