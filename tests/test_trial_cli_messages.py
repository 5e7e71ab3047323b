"""Messages a user trial of the command line found in someone else's words: each is one line that says
what is wrong in beliefdb's words, and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

from beliefdb import api, errors

DOWN = "postgresql://postgres@127.0.0.1:1/beliefdb"  # (nothing listens on port 1)


def test_a_dump_of_a_database_that_is_down_says_it_cannot_connect(cli_without_db: Cli, tmp_path: Path) -> None:
    """``db dump`` said ``connection failed: …``, psycopg's words, where every other command says
    ``cannot connect to the database: …``."""
    line = cli_without_db.one_line_error("db", "dump", tmp_path / "x.dump", "--db", DOWN)
    assert line.startswith("error: cannot connect to the database: "), line
    err = cli_without_db.error("db", "dump", tmp_path / "x.dump", "--db", DOWN, code="database_unavailable")
    assert err["message"] == line.removeprefix("error: ")
    with pytest.raises(errors.DatabaseUnavailable, match=r"^cannot connect to the database: "):
        api.dump_database(tmp_path / "x.dump", url=DOWN)
    assert list(tmp_path.iterdir()) == []


def test_retracting_an_unknown_fragment_says_unknown_fragment(cli: Cli) -> None:
    """``retract --fragment 0000`` said ``no node, source or source version is named 0000``."""
    for extra in ([], ["--preview"]):
        err = cli.error("retract", "--fragment", "0000", "--reason", "wrong", *extra, code="not_found")
        assert err["message"] == "unknown fragment 0000", err
    assert cli.one_line_error("retract", "--fragment", "0000abcd", "--reason", "wrong") == (
        "error: unknown fragment 0000abcd")
    # too short or ambiguous is said as for every id prefix
    short = cli.error("retract", "--fragment", "000", "--reason", "wrong", code="invalid_input")
    assert "too short" in short["message"], short


@pytest.mark.parametrize("command", [["db", "start"], ["db", "status"], ["db", "url"], ["db", "stop"], ["beliefs"]])
def test_a_home_that_is_a_file_is_said_to_be_one(cli_without_db: Cli, tmp_path: Path, command: list[str]) -> None:
    """``db start --home /etc/hostname`` said ``[Errno 17] File exists``."""
    afile = tmp_path / "hostname"
    afile.write_text("box\n", encoding="utf-8")
    line = cli_without_db.one_line_error(*command, "--home", afile)
    assert line == f"error: the beliefdb home {afile} is a file, not a directory", line
    assert cli_without_db.error(*command, "--home", afile, code="database_unavailable")["message"] == line[7:]
    below = afile / "beliefdb"
    line = cli_without_db.one_line_error(*command, "--home", below)
    assert line == f"error: the beliefdb home {below} cannot be a directory: {afile} is a file", line
    assert afile.read_text(encoding="utf-8") == "box\n" and sorted(tmp_path.iterdir()) == [afile]


def test_the_readme_s_exit_codes_hold_usage_errors_2_what_the_command_refuses_once_running_1(cli: Cli) -> None:
    """README: a usage error, refused by the command line before anything runs, exits 2; bad input the
    command finds once it runs is invalid_input too, with exit 1 (a trial read the first as covering both)."""
    for args in (["beliefs", "--limit", "0"], ["ingest", ""], ["retract"]):
        cli.error(*args, code="invalid_input", expect=2)
    for args in (["decide", ""], ["why", "zzzz"], ["beliefs", "--workspace", ""]):
        cli.error(*args, code="invalid_input", expect=1)
