"""A file whose ingest outlasts the statement timeout is that file's failure, not the run's: a directory
ingest of ~45 small files and one of 60,000 lines stopped at the large one ("46 of the 50 files before it
are stored: run again to resume") and left the files after it unread, though the database was there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import beliefdb


def test_a_file_that_outlasts_the_statement_timeout_fails_alone(db_url: str, cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a-large.md").write_text("".join(f"Item {i} price: {i % 97 + 1} EUR\n" for i in range(40_000)),
                                       encoding="utf-8")
    (folder / "b-small.md").write_text("# Returns\nReturns are accepted within 30 days.\n", encoding="utf-8")
    result = cli("ingest", folder, "--no-embed", env={"BELIEFDB_STATEMENT_TIMEOUT": "1"}, expect=1)
    errors = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "a-large.md" in errors[0] and "statement timeout" in errors[0], result.stderr
    assert "bulk" in errors[0], errors
    assert "b-small.md" in result.stdout and "Returns are accepted within 30 days." in result.stdout, result.output
    with beliefdb.connect(db_url) as memory:
        assert [b.value for b in memory.beliefs()] == ["30 days"]
