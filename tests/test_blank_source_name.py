"""``--source NAME`` names the one source a file becomes (``source=`` in the library). Given blank, it was
taken for no name at all: ``ingest FILE --source ""`` (and ``--queue``, and ``submit``) stored the file
under its own file name, where ``--source "  "`` was refused, and with a directory ``--source ""`` let
every file through under its own name instead of saying that a source name names one file. A blank
name is refused at once, whatever the file, and nothing is stored or queued."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors

POLICY = "Returns are accepted within 30 days.\n"


def test_a_blank_source_name_is_refused_not_ignored(cli: Cli, bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    policy = tmp_path / "policy.md"
    policy.write_text(POLICY)
    (tmp_path / "other.md").write_text("Shipping takes 3 days.\n")
    for blank in ("", "   "):
        for queued in ([], ["--queue"]):
            line = cli.one_line_error("ingest", policy, "--source", blank, *queued)
            assert "--source" in line and "blank" in line, (blank, queued, line)
            cli.one_line_error("ingest", tmp_path, "--source", blank, *queued)  # (two files: one name is refused)
        with pytest.raises(errors.InvalidInput, match="source= is blank"):
            bdb.submit(policy, source=blank)
        with pytest.raises(errors.InvalidInput, match="source= is blank"):
            bdb.ingest(policy, source=blank)
    assert bdb.jobs() == [] and bdb.beliefs(include_all=True) == []
