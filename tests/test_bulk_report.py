"""What ``ingest --bulk`` says it did: the totals plain ingest reports per document (superseded,
unsupported, flagged, held, rejected by reason, skipped sentences, warnings), naming the documents;
the same totals at the top of ``--json``; a hint a bulk user can follow; and a progress that covers
the embedding too."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli

import beliefdb


def test_bulk_hint_says_what_a_bulk_user_can_do_in_cli_words(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("What is this?\nBlah blah nothing here at all.\n", encoding="utf-8")
    (report,) = cli.json("ingest", tmp_path, "--bulk", "--no-embed")["reports"]
    assert "ingesting the file alone with --claims FILE (not with --bulk)" in report["hint"], report["hint"]
    assert "claims=" not in report["hint"], report["hint"]
    # (what the reading thread says is worded for its reader too)
    line = cli.one_line_error("ingest", tmp_path, "--bulk", "--no-embed", "--max-bytes", "10")
    assert "raise it with --max-bytes or BELIEFDB_INGEST_MAX_BYTES" in line and "max_bytes=" not in line, line


def test_bulk_hint_of_the_library_names_ingest_with_claims(bdb: beliefdb.BeliefDB) -> None:
    report = bdb.bulk_ingest(("notes.md", "What is this?\nBlah blah nothing here at all.\n"), embed=False)
    hint = report.reports[0].hint
    assert hint is not None and "ingest(PATH, claims=FILE)" in hint and "--claims" not in hint, hint
