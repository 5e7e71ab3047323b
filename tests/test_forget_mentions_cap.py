"""A person named in many texts (rule 14 of docs/rules.md): forget's report lists the first 100 stored
versions (and the first 100 texts waiting to be stored, places where people typed the name, speakers whose
label names them) that still name them, with how many there are in all, so a preview over 100,000 texts
does not answer 100,000 excerpts; with ``mask_mentions`` the name is masked in every one of them, listed
or not."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

import beliefdb
from beliefdb.models import Turn

MASK = "\u2588"
LISTED = 100
DOCS = LISTED + 5


def named_versions(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("select count(*) from beliefdb.source_version where content ~* '\\mmaya\\M'").fetchone()
    assert row is not None
    return int(row[0])


def many(bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    bdb.bulk_ingest(*[(f"minutes-{i:03}.md", f"# Minutes {i}\nMaya and Bob met; Maya took notes.\n")
                      for i in range(DOCS)], embed=False)


def test_the_listing_of_stored_texts_is_capped_and_says_how_many_in_all(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], cli: Any) -> None:
    many(bdb)
    preview = bdb.forget(subject="maya", preview=True)
    assert len(preview.text_mentions) == LISTED
    assert (preview.text_mentions_total, preview.text_mentions_count) == (DOCS, 2 * DOCS)
    assert [t.source for t in preview.text_mentions] == [f"minutes-{i:03}.md" for i in range(LISTED)]
    shown = cli("forget", "--subject", "maya", "--preview")
    assert f"({2 * DOCS} time(s) in {DOCS} version(s)):" in shown.output, shown.output
    assert f"  and {DOCS - 20} more version(s)" in shown.output
    report = cli.json("forget", "--subject", "maya", "--preview")
    assert len(report["text_mentions"]) == LISTED and report["text_mentions_total"] == DOCS
    assert all(m["kind"] != "more" for m in report["mentions"])
    # masking covers every one, listed or not
    assert named_versions(postgresql) == DOCS + 1  # (and her own words, which go)
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    assert len(done.text_mentions) == LISTED and done.text_mentions_total == DOCS
    assert all(t.masked for t in done.text_mentions)
    assert done.redacted == 1 + 2 * DOCS  # (her own quote, and every name others wrote)
    assert named_versions(postgresql) == 0
    (event,) = postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget'").fetchone() or (None,)
    assert event["mentions_masked"] == 2 * DOCS


def test_the_listing_of_texts_waiting_to_be_stored_is_capped_too(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], tmp_path: Path) -> None:
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    paths = []
    for i in range(DOCS):
        path = tmp_path / f"note-{i:03}.md"
        path.write_text(f"# Note {i}\nMaya called.\n")
        paths.append(path)
    assert len(bdb.submit(*paths)) == DOCS
    preview = bdb.forget(subject="maya", preview=True)
    assert len(preview.pending_mentions) == LISTED
    assert (preview.pending_mentions_total, preview.pending_mentions_count) == (DOCS, DOCS)
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    assert done.jobs == DOCS and done.pending_mentions_total == DOCS
    texts = [r[0] for r in postgresql.execute("select payload ->> 'text' from beliefdb.job")]
    assert not any("Maya" in t for t in texts) and all(f"{MASK * 4} called." in t for t in texts)
    assert "Maya" not in json.dumps(texts)


def test_the_listings_of_typed_text_and_of_speakers_labels_are_capped_too(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], cli: Any) -> None:
    """Where people typed the name (here: sources named after her) and the speakers whose label names her
    are listed the first 100 each too, with how many in all; masking the labels covers every one."""
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="notes.md", text="Maya lives in Lisbon.\n")
    bdb.bulk_ingest(*[(f"maya-{i:03}.md", f"# Minutes {i}\nBob took notes.\n") for i in range(DOCS)], embed=False)
    start = datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
    bdb.ingest_conversation([Turn(f"Maya's guest {i:03}", "Hello everyone.", start + timedelta(minutes=i))
                             for i in range(DOCS)], source="chat-1", embed=False)
    assert named_speakers(postgresql) == DOCS
    postgresql.commit()
    preview = bdb.forget(subject="maya", preview=True)
    assert len(preview.mentions) == LISTED and preview.mentions_total == DOCS
    assert [m.kind for m in preview.mentions] == ["source"] * LISTED
    assert len(preview.speaker_mentions) == LISTED
    assert (preview.speaker_mentions_total, preview.speaker_mentions_count) == (DOCS, DOCS)
    shown = cli("forget", "--subject", "maya", "--preview")
    assert f"typed by people or said of others ({DOCS}):" in shown.output, shown.output
    assert f", and {DOCS - 20} more (--json lists the first {LISTED})" in shown.output
    assert f"their turns left as their words ({DOCS}, in {DOCS} turn(s)):" in shown.output
    assert f"  and {DOCS - 20} more speaker(s) (--json lists the first {LISTED})" in shown.output
    report = cli.json("forget", "--subject", "maya", "--preview")
    assert (report["mentions_total"], report["speaker_mentions_total"]) == (DOCS, DOCS)
    assert len(report["mentions"]) == LISTED and len(report["speaker_mentions"]) == LISTED
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    assert len(done.speaker_mentions) == LISTED and done.speaker_mentions_total == DOCS
    assert all(s.masked for s in done.speaker_mentions)
    assert named_speakers(postgresql) == 0
    (event,) = postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget'").fetchone() or (None,)
    assert event["labels_masked"] == DOCS


def named_speakers(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("select count(distinct speaker) from beliefdb.fragment where speaker ~* '\\mmaya\\M'").fetchone()
    assert row is not None
    return int(row[0])
