"""A directory's entries that are no regular file, a broken link, a link to a directory or a pipe, were left
out of ``ingest DIR`` without a word; they are listed as skipped, each with why."""

from __future__ import annotations

import os
from pathlib import Path

from beliefdb.store.documents import documents, skipped_files


def test_a_directorys_broken_links_links_to_directories_and_pipes_are_listed_as_skipped(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.md").write_text("Window: 30 days\n", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "b.md").write_text("Fee: 5 EUR\n", encoding="utf-8")
    (docs / "gone.md").symlink_to(tmp_path / "nothing.md")
    (docs / "linked").symlink_to(tmp_path / "elsewhere")
    (docs / "loop").symlink_to(docs)
    (docs / "alias.md").symlink_to(docs / "a.md")  # a link to a file: read, as before
    os.mkfifo(docs / "sub" / "pipe.md")
    assert [name for name, _ in documents([docs])] == ["a.md", "alias.md"]
    assert [(p.relative_to(docs).as_posix(), why) for p, why in skipped_files([docs])] == [
        ("gone.md", "a broken link"),
        ("linked", "a link to a directory (not followed: give it by itself)"),
        ("loop", "a link to a directory (not followed: give it by itself)"),
        ("sub/pipe.md", "not a regular file")]
