"""What ``ingest --bulk`` says it did: the totals plain ingest reports per document (superseded,
unsupported, flagged, held, rejected by reason, skipped sentences, warnings), naming the documents;
the same totals at the top of ``--json``; a hint a bulk user can follow; and a progress that covers
the embedding too."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import psycopg
from conftest import Cli
from test_embedder_refused import endpoint  # noqa: F401  (a fixture)
from test_extract_llm import ChatServer, Reply

import beliefdb
from beliefdb.models import IngestReport


def _setup(bdb: beliefdb.BeliefDB, cli: Cli, docs: Path) -> None:
    """A decision resting on a belief of leave.md and an action on it; a forgotten line in badge.md."""
    docs.mkdir()
    (docs / "leave.md").write_text("Parental leave is 12 weeks.\n", encoding="utf-8")
    (docs / "badge.md").write_text("Dana's badge code is 4471.\nShipping is 5 EUR.\n", encoding="utf-8")
    out = cli.json("ingest", docs, "--bulk", "--no-embed")
    (leave,) = [r for r in out["reports"] if r["source"] == "leave.md"]
    decision = bdb.decide("Give 12 weeks", because=[leave["accepted"][0]["id"]])
    bdb.act(decision.id, "Tell the team")
    assert bdb.forget(subject="dana").beliefs == 1
    (docs / "leave.md").write_text("Parental leave is 16 weeks.\n", encoding="utf-8")
    (docs / "badge.md").write_text("Dana's badge code is 4471.\nShipping is 5 EUR.\nThis line says nothing useful.\n",
                                   encoding="utf-8")
    (docs / "notes.md").write_text("The refund window is sixty (90) days.\nWhat is this?\n"
                                   "Blah blah nothing here at all.\n", encoding="utf-8")


def test_bulk_text_output_totals_what_each_document_reported(bdb: beliefdb.BeliefDB, cli: Cli,
                                                             tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _setup(bdb, cli, docs)
    text = cli("ingest", docs, "--bulk", "--no-embed").stdout
    lines = text.splitlines()
    assert lines[0].startswith("3 document(s) in 1 batch(es): 3 new version(s), 2 new belief(s), 0 corroborated,"
                               " 1 rejected"), text
    assert "⇢ 1 belief(s) superseded (leave.md)" in lines, text
    assert "! 1 decision(s) lost their last support: need review, beliefdb review list (leave.md)" in lines, text
    assert "‖ 1 action(s) held: their decision needs review (leave.md)" in lines, text
    assert ("✗ 1 rejected: forgotten: this text of the source was forgotten, and is not stored again"
            " (badge.md)") in lines, text
    assert "⚠ 1 warning(s):" in lines, text
    assert any(line.startswith("  notes.md [0, 37) self_contradictory: \"sixty (90)\"") for line in lines), text
    at = lines.index("3 sentence(s) in 2 document(s) produced no belief:")
    assert lines[at + 1] == ("  · badge.md [46, 76) no_pattern: \"This line says nothing useful.\""
                             " (no rule of the extractor matched)")
    assert lines[at + 2] == "  · notes.md [38, 51) no_pattern: \"What is this?\" (a question states no fact)"
    hint = [line for line in lines if line.startswith("hint: ")]
    assert hint and "--claims FILE" in hint[0] and "alone" in hint[0] and "claims=" not in hint[0], text


def test_bulk_text_output_shows_the_first_five_skipped_sentences(cli: Cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("".join(f"Nothing number {n} here at all.\n" for n in range(7)), encoding="utf-8")
    lines = cli("ingest", docs, "--bulk", "--no-embed").stdout.splitlines()
    at = lines.index("7 sentence(s) in 1 document(s) produced no belief:")
    assert [line.split(")")[0] for line in lines[at + 1:at + 6]] == [
        f"  · a.md [{30 * n}, {30 * n + 29}" for n in range(5)]
    assert lines[at + 6] == "  … and 2 more (--json lists them all)"


def test_bulk_json_has_the_totals_at_its_top(bdb: beliefdb.BeliefDB, cli: Cli, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _setup(bdb, cli, docs)
    out = cli.json("ingest", docs, "--bulk", "--no-embed")
    totals = {k: out[k] for k in ("superseded", "unsupported", "flagged", "held", "conflicts", "skipped",
                                  "warnings", "rejected", "rejected_by_reason")}
    assert totals == {"superseded": 1, "unsupported": 0, "flagged": 1, "held": 1, "conflicts": 0, "skipped": 3,
                      "warnings": 1, "rejected": 1, "rejected_by_reason": {
                          "forgotten: this text of the source was forgotten, and is not stored again": 1}}
    (notes,) = [r for r in out["reports"] if r["source"] == "notes.md"]
    assert "--claims FILE" in notes["hint"] and "claims=FILE" not in notes["hint"], notes["hint"]
    assert "--bulk" in notes["hint"], notes["hint"]


def test_bulk_hint_says_what_a_bulk_user_can_do_in_cli_words(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("What is this?\nBlah blah nothing here at all.\n", encoding="utf-8")
    (report,) = cli.json("ingest", tmp_path, "--bulk", "--no-embed")["reports"]
    assert "ingesting the file alone with --claims FILE (not with --bulk)" in report["hint"], report["hint"]
    assert "claims=" not in report["hint"], report["hint"]
    # (what the reading thread says is worded for its reader too)
    said = cli("ingest", tmp_path, "--bulk", "--no-embed", "--max-bytes", "10", expect=1).stderr
    (line,) = [x for x in said.splitlines() if x.startswith("error:")]
    assert "raise it with --max-bytes or BELIEFDB_INGEST_MAX_BYTES" in line and "max_bytes=" not in line, line


def test_bulk_hint_of_the_library_names_ingest_with_claims(bdb: beliefdb.BeliefDB) -> None:
    report = bdb.bulk_ingest(("notes.md", "What is this?\nBlah blah nothing here at all.\n"), embed=False)
    hint = report.reports[0].hint
    assert hint is not None and "ingest(PATH, claims=FILE)" in hint and "--claims" not in hint, hint


def test_a_sentence_repeated_in_one_document_is_corroborated_in_bulk_as_in_plain_ingest(
        bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    text = "Parental leave is 12 weeks.\nParental leave is 12 weeks.\n"
    (tmp_path / "b.md").write_text(text, encoding="utf-8")
    bulk = bdb.bulk_ingest(("a.md", text), embed=False)
    (plain,) = bdb.ingest(tmp_path / "b.md", embed=False)
    assert isinstance(plain, IngestReport), plain
    # (the second quote is evidence of the belief the first made, in both)
    assert (bulk.accepted, bulk.corroborated) == (1, 1)
    assert (len(plain.accepted), len(plain.corroborated)) == (1, 1)
    assert plain.corroborated[0].id == plain.accepted[0].id


def test_bulk_progress_covers_the_embedding(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    stored: list[tuple[int, int]] = []
    embedded: list[tuple[int, int]] = []
    docs = [(f"d{n}.md", f"Item{n} price: {n} EUR.\nItem{n} weight: {n} kg.\n") for n in range(6)]
    report = bdb.bulk_ingest(*docs, batch=2, progress=lambda d, t: stored.append((d, t)),
                             embed_progress=lambda d, t: embedded.append((d, t)))
    assert stored == [(2, 6), (4, 6), (6, 6)]
    assert embedded and embedded[-1] == (12, 12) and report.accepted == 12
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(embedded)), embedded
    assert postgresql.execute("select count(*) from beliefdb.belief_embedding").fetchone() == (12,)


def test_cli_bulk_shows_an_embedding_phase(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Item price: 5 EUR.\nItem weight: 2 kg.\n", encoding="utf-8")
    result = cli("ingest", tmp_path, "--bulk")
    # (a bar of what is left to embed once the documents are stored; none if the thread embedded them all)
    assert re.search(r"^(embedding 2 belief\(s\)|embedded 2 belief\(s\) beside the writes)", result.stderr, re.M), \
        result.stderr


def test_once_embedding_is_deferred_the_rest_of_the_run_is_not_tried(
        endpoint: ChatServer, bdb: beliefdb.BeliefDB) -> None:  # noqa: F811  (the fixture imported above)
    endpoint.answers(Reply(status=401))
    embedded: list[tuple[int, int]] = []
    docs = [(f"d{n}.md", f"Item{n} price: {n} EUR.\n") for n in range(4)]
    report = bdb.bulk_ingest(*docs, batch=1, embed_progress=lambda d, t: embedded.append((d, t)))
    assert report.accepted == 4 and report.embedding_deferred and "HTTP 401" in report.embedding_deferred
    assert len(endpoint.seen) == 1, endpoint.seen  # (each batch asked it again)
    assert embedded[-1] == (0, 4), embedded
