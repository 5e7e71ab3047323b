"""An empty path names no file. pathlib reads ``""`` as the current directory, so ``beliefdb ingest ""``
stored every document of the directory it ran in, and ``--claims ""`` or ``--labels ""`` were refused as
``.: is a directory``. Every path a caller gives, at the command line (a usage error, exit 2) and to
the library (InvalidInput), is refused when empty, before anything is read or written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors


@pytest.fixture
def cwd_with_a_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The current directory holds a document and a labels CSV: what an empty path used to name."""
    (tmp_path / "gate.md").write_text("Gate code: 1234\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("The office is in Lisbon.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("args", [
    ["ingest", ""], ["ingest", "", "--queue"], ["ingest", "", "--bulk"], ["ingest", "", "--preview"],
    ["ingest", "", "--format", "chat"], ["ingest", "gate.md", ""],
])
def test_ingest_of_an_empty_path_is_refused_and_stores_nothing(cli: Cli, bdb: beliefdb.BeliefDB,
                                                               cwd_with_a_document: Path, args: list[str]) -> None:
    line = cli.one_line_error(*args)
    assert line == "error: PATH...: an empty path names no file (see beliefdb ingest --help)", line
    err = cli.error(*args, code="invalid_input", expect=2)
    assert err["message"] == "PATH...: an empty path names no file", err
    assert bdb.beliefs() == [] and bdb.jobs() == []


@pytest.mark.parametrize(("args", "option"), [
    (["ingest", "gate.md", "--claims", ""], "--claims"),
    (["calibrate", "--labels", ""], "--labels"),
    (["calibrate", "--labels", "labels.csv", "--plot", ""], "--plot"),
    (["db", "dump", ""], "FILE"),
    (["db", "restore", ""], "FILE"),
    (["db", "start", "--home", ""], "--home"),
    (["db", "status", "--home", ""], "--home"),
    (["beliefs", "--home", ""], "--home"),
])
def test_every_path_option_refuses_an_empty_path(cli: Cli, bdb: beliefdb.BeliefDB, cwd_with_a_document: Path,
                                                 args: list[str], option: str) -> None:
    line = cli.one_line_error(*args)
    assert line.startswith(f"error: {option}: an empty path names no file (see beliefdb "), line
    assert "is a directory" not in line
    assert cli.error(*args, code="invalid_input", expect=2)["message"] == f"{option}: an empty path names no file"
    assert bdb.beliefs() == []
    assert sorted(p.name for p in cwd_with_a_document.iterdir()) == ["gate.md", "notes.txt"]  # no server, no dump


def _calls(db: beliefdb.BeliefDB, doc: Path) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("''", lambda: db.ingest("")),
        ("''", lambda: db.ingest(doc, "")),
        ("''", lambda: db.ingest(doc, claims="")),
        ("''", lambda: db.ingest_transcripts("")),
        ("''", lambda: db.submit("")),
        ("''", lambda: db.submit_transcripts("")),
        ("''", lambda: db.bulk_ingest("")),
        ("''", lambda: db.calibrate("")),
        ("''", lambda: db.calibrate(doc, plot="")),
        ("''", lambda: beliefdb.api.count_claims("")),
        ("''", lambda: beliefdb.api.dump_database("")),
        ("''", lambda: beliefdb.api.restore_database("")),
        ("''", lambda: beliefdb.api.server_status(home="")),
        ("''", lambda: beliefdb.connect(home="")),
    ]


def test_the_library_refuses_an_empty_path_before_anything(bdb: beliefdb.BeliefDB, cwd_with_a_document: Path,
                                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Before anything: dump_database("") started the embedded server of BELIEFDB_HOME first (a user's own,
    /var/lib/beliefdb, when the tests ran on their machine) and left it running."""
    home = tmp_path / "home"
    monkeypatch.delenv("BELIEFDB_URL", raising=False)
    monkeypatch.setenv("BELIEFDB_HOME", str(home))
    doc = cwd_with_a_document / "gate.md"
    for _, call in _calls(bdb, doc):
        with pytest.raises(errors.InvalidInput, match=r"^\S+='': an empty path names no file$"):
            call()
    assert bdb.beliefs() == [] and bdb.jobs() == []
    assert sorted(p.name for p in cwd_with_a_document.iterdir()) == ["gate.md", "notes.txt"]
    assert not home.exists()  # no embedded server made or started


def test_a_path_of_the_current_directory_spelled_out_is_still_read(bdb: beliefdb.BeliefDB,
                                                                    cwd_with_a_document: Path) -> None:
    """Only the empty string is refused: ``.`` names the current directory on purpose."""
    reports = bdb.ingest(".")
    assert sorted(getattr(r, "source", None) or "" for r in reports) == ["gate.md", "notes.txt"]


def test_a_dump_to_a_path_it_will_refuse_starts_no_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A folder, a file already there, a missing folder: refused before the database is resolved (each started
    the embedded server of BELIEFDB_HOME first, and left it running)."""
    home = tmp_path / "home"
    monkeypatch.delenv("BELIEFDB_URL", raising=False)
    monkeypatch.setenv("BELIEFDB_HOME", str(home))
    there = tmp_path / "there.dump"
    there.write_bytes(b"x")
    for path, says in ((tmp_path, "is a folder"), (there, "already exists"), (tmp_path / "no" / "x.dump", "no such")):
        with pytest.raises(errors.InvalidInput, match=says):
            beliefdb.api.dump_database(path)
    assert not home.exists()
