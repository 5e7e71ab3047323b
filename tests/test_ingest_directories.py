"""A directory given to ingest (plain, queued or bulk) is its .txt, .md and .markdown files, each
source named by its path below the directory; and the ids a bulk run makes can be named by the short
prefix every listing shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

import beliefdb
from beliefdb import errors
from beliefdb.models import IngestReport


def handbook(root: Path) -> Path:
    docs = root / "handbook"
    (docs / "hr").mkdir(parents=True)
    (docs / "hr" / "leave.md").write_text("# Leave\nParental leave: 12 weeks.\n", encoding="utf-8")
    (docs / "returns.txt").write_text("Refund window: 30 days.\n", encoding="utf-8")
    (docs / "notes.csv").write_text("not a document", encoding="utf-8")
    return docs


def test_ingest_takes_a_directory_and_names_each_source_by_its_path_in_it(cli: Cli, tmp_path: Path) -> None:
    docs = handbook(tmp_path)
    reports = [r for r in cli.json("ingest", docs, "--no-embed") if "skipped_file" not in r]  # (notes.csv)
    assert sorted((r["source"], len(r["accepted"])) for r in reports) == [("hr/leave.md", 1), ("returns.txt", 1)]
    again = cli("ingest", docs, "--no-embed").stdout
    assert again.count("unchanged: the same text as version 1") == 2  # the same sources, not new ones
    beliefs = cli.json("beliefs")
    assert sorted(b["value"] for b in beliefs) == ["12 weeks", "30 days"]


def test_ingest_json_is_a_list_for_a_directory_or_several_files_and_an_object_for_one_file(
        cli: Cli, tmp_path: Path) -> None:
    one = tmp_path / "one"
    one.mkdir()
    (one / "returns.txt").write_text("Refund window: 30 days.\n", encoding="utf-8")
    listed = cli.json("ingest", one, "--no-embed")  # a directory holding one document: still a list
    assert isinstance(listed, list) and [r["source"] for r in listed] == ["returns.txt"]
    alone = cli.json("ingest", one / "returns.txt", "--no-embed", "--source", "solo")  # one file: its report
    assert isinstance(alone, dict) and alone["source"] == "solo"
    (one / "bad.md").write_bytes(b"\xff\xfe not UTF-8")
    (one / "returns.txt").unlink()
    failed = cli("ingest", one, "--no-embed", "--json", expect=1)  # a directory's one failure: a list too
    shown = __import__("json").loads(failed.stdout)
    assert isinstance(shown, list) and len(shown) == 1 and shown[0]["error"] == "invalid_input", shown


def test_a_directory_without_documents_or_with_one_source_name_is_refused(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert "no documents to ingest" in cli.one_line_error("ingest", tmp_path / "empty")
    assert "no documents to submit" in cli.error("ingest", tmp_path / "empty", "--queue")["message"]
    docs = handbook(tmp_path)
    assert "--source names one source" in cli.error("ingest", docs, "--source", "x", expect=2)["message"]
    assert "--source names one source" in cli.error("ingest", docs, "--source", "x", "--queue", expect=2)["message"]
    assert cli.json("beliefs") == [] and cli.json("jobs") == []


def test_a_directory_is_queued_document_by_document(cli: Cli, tmp_path: Path) -> None:
    docs = handbook(tmp_path)
    text = cli("ingest", docs, "--queue").stdout
    assert "queued job" in text and "hr/leave.md" in text and "returns.txt" in text
    assert [line for line in text.splitlines() if "notes.csv" in line] == [  # (not queued: skipped, and said so)
        f"  {docs / 'notes.csv'}: not a .txt, .md or .markdown file"]
    assert sorted(j["source"] for j in cli.json("jobs")) == ["hr/leave.md", "returns.txt"]
    assert cli.json("worker", "--until-empty", "--no-embed")["done"] == 2
    assert len(cli.json("beliefs")) == 2


def test_the_library_ingests_and_submits_a_directory(bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    docs = handbook(tmp_path)
    reports = bdb.ingest(docs, embed=False)
    assert sorted(r.source for r in reports if isinstance(r, IngestReport)) == ["hr/leave.md", "returns.txt"]
    assert len(bdb.submit(docs)) == 2
    (tmp_path / "empty").mkdir()
    with pytest.raises(errors.InvalidInput, match="no documents to ingest"):
        bdb.ingest(tmp_path / "empty")
    with pytest.raises(errors.NotFound):
        bdb.submit(tmp_path / "missing")


def test_a_bulk_runs_beliefs_are_named_by_the_prefixes_listings_show(cli: Cli, tmp_path: Path) -> None:
    """A bulk run makes its ids close together (its index inserts land in one part of each index), but
    not so close that the eight characters every listing shows are the same for all of them."""
    docs = tmp_path / "many"
    docs.mkdir()
    for i in range(12):
        (docs / f"item-{i}.md").write_text(f"Warranty of item {i}: {i + 1} months.\n", encoding="utf-8")
    assert cli.json("ingest", docs, "--bulk", "--no-embed")["accepted"] == 12
    listed = cli("beliefs").stdout.splitlines()
    prefixes = [line.split()[0] for line in listed if line and not line.startswith(" ")]
    assert len(prefixes) == 12 and len(set(prefixes)) == 12
    for prefix in prefixes[:3]:
        assert cli.json("why", prefix)["belief"]["id"].startswith(prefix)


def test_a_directory_of_conversations_is_read_as_chat(cli: Cli, tmp_path: Path) -> None:
    chats = tmp_path / "chats"
    (chats / "2024").mkdir(parents=True)
    (chats / "2024" / "anna.jsonl").write_text(
        '{"speaker": "Anna", "time": "2024-03-01T10:00:00Z", "text": "I moved to Berlin."}\n', encoding="utf-8")
    (chats / "ben.jsonl").write_text(
        '{"speaker": "Ben", "time": "2024-03-02T10:00:00Z", "text": "My daughter is 5."}\n', encoding="utf-8")
    reports = cli.json("ingest", chats, "--no-embed")  # (auto: every file of it is .jsonl)
    assert sorted(r["source"] for r in reports) == ["2024/anna.jsonl", "ben.jsonl"]
    assert all(r["accepted"] for r in reports)
    assert "--source names one source" in cli.error("ingest", chats, "--source", "x", "--format", "chat",
                                                    expect=2)["message"]
    only_text = tmp_path / "only-jsonl-as-text"
    only_text.mkdir()
    (only_text / "c.jsonl").write_text((chats / "ben.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    assert "--format chat" in cli.error("ingest", only_text, "--format", "text")["message"]


def test_ingest_of_a_directory_says_which_files_it_skipped_and_why(cli: Cli, tmp_path: Path) -> None:
    """A directory's files ingest does not read were skipped without a word: they are listed, each with
    the reason (text and --json), and the run still exits 0 when something was ingested."""
    docs = handbook(tmp_path)
    (docs / "hr" / "logo.png").write_bytes(b"\x89PNG\x00")
    (docs / "chat.jsonl").write_text('{"speaker": "Ana", "text": "I live in Porto."}\n', encoding="utf-8")
    text = cli("ingest", docs, "--no-embed", "--format", "text").stdout.splitlines()
    at = text.index("3 file(s) skipped (ingest reads .txt, .md and .markdown files):")
    assert text[at + 1:] == [
        f"  {docs / 'chat.jsonl'}: a conversation: ingest it with --format chat",
        f"  {docs / 'hr' / 'logo.png'}: not a .txt, .md or .markdown file",
        f"  {docs / 'notes.csv'}: not a .txt, .md or .markdown file"]
    results = cli.json("ingest", docs, "--no-embed", "--format", "text")
    assert sorted(r["source"] for r in results if "source" in r) == ["hr/leave.md", "returns.txt"]
    assert [r for r in results if "source" not in r] == [
        {"path": str(docs / "chat.jsonl"), "skipped_file": "a conversation: ingest it with --format chat"},
        {"path": str(docs / "hr" / "logo.png"), "skipped_file": "not a .txt, .md or .markdown file"},
        {"path": str(docs / "notes.csv"), "skipped_file": "not a .txt, .md or .markdown file"}]
    queued = cli.json("ingest", docs, "--queue", "--format", "text")
    assert len(queued["jobs"]) == 2 and [s["path"] for s in queued["skipped_files"]] == [
        str(docs / "chat.jsonl"), str(docs / "hr" / "logo.png"), str(docs / "notes.csv")]
    assert "3 file(s) skipped" in cli("ingest", docs, "--queue", "--format", "text").stdout
    bulk = cli.json("ingest", docs, "--bulk", "--no-embed")
    assert bulk["documents"] == 2 and len(bulk["skipped_files"]) == 3
    assert "3 file(s) skipped" in cli("ingest", docs, "--bulk", "--no-embed").stdout
    # a file named by itself is read whatever its name (as before): nothing is skipped
    assert "skipped" not in cli("ingest", docs / "returns.txt", "--no-embed").stdout


@pytest.mark.parametrize("how", [[], ["--bulk"], ["--queue"]])
def test_two_files_of_one_name_in_one_command_are_refused_before_anything_is_written(
        cli: Cli, tmp_path: Path, how: list[str]) -> None:
    for folder, days in (("d1", 10), ("d2", 30)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "p.md").write_text(f"Refund window: {days} days.\n", encoding="utf-8")
    said = cli.one_line_error("ingest", tmp_path / "d1" / "p.md", tmp_path / "d2" / "p.md", "--no-embed"
                              if "--queue" not in how else "--format", *([] if "--queue" not in how else ["text"]),
                              *how)
    assert "would both be the source 'p.md'" in said and "d1/p.md" in said and "d2/p.md" in said, said
    assert cli.json("beliefs") == [] and cli.json("jobs") == []
    # the same file named twice (by itself and in its directory, or spelled two ways) is one document, as before
    assert len(cli.json("ingest", tmp_path / "d1" / "p.md", tmp_path / "d1", "--no-embed")) == 1
    assert len(cli.json("ingest", tmp_path / "d1" / "p.md", tmp_path / "d2" / ".." / "d1" / "p.md", "--no-embed")) == 2
    # and files of one name the command does not read (a directory's conversations, ingesting documents)
    for folder, name in (("a", "x.md"), ("b", "y.md")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text(f"The fee of {folder} is 1 euro.\n", encoding="utf-8")
        (tmp_path / folder / "log.jsonl").write_text('{"speaker": "a", "text": "hi"}\n', encoding="utf-8")
    text = [] if how == ["--bulk"] else ["--format", "text"]
    assert cli.json("ingest", tmp_path / "a", tmp_path / "b", *how, *text,
                    *(["--no-embed"] if how != ["--queue"] else []))
