"""A claim a document makes more than once is one belief with every quote (rules 8 and 18 of
docs/rules.md): a line repeated through a file corroborates the belief its first occurrence made, also
when rule 8 superseded that belief, one by one and in bulk alike; a conversation's later turn saying
it again is a new belief, which may win where the earlier one lost."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_bulk_ingest import same_as_one_by_one

import beliefdb

LINE = "The warranty period is 12 months."


def quotes_of(conn: psycopg.Connection[Any], belief: object) -> list[int]:
    """The start offsets of the quotes that support a belief, each with a justification of its own."""
    rows = conn.execute("select f.start_offset from beliefdb.evidence e"
                        " join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id"
                        " where e.belief_id = %s and e.role = 'supports' and e.justification_id is not null"
                        " order by f.start_offset", (belief,)).fetchall()
    return [int(r[0]) for r in rows]


def test_a_line_repeated_through_a_document_is_one_belief_with_every_quote(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    text = "".join(f"{LINE}\nThe restocking fee is {n}%.\n" if n == 3 else f"{LINE}\n" for n in range(200))
    report = bdb.ingest_text(text, source="handbook.md")
    starts = [n for n in range(len(text)) if text.startswith(LINE, n)]
    assert len(starts) == 200
    assert [(a.value, a.start) for a in report.accepted] == [("12 months", 0), ("3%", text.index("The restocking"))]
    (belief,) = {c.id for c in report.corroborated}
    assert belief == report.accepted[0].id and len(report.corroborated) == 199
    assert report.superseded == [] and report.conflicts == []
    assert quotes_of(postgresql, belief) == starts
    (current,) = [b for b in bdb.beliefs() if b.attribute == "period"]
    assert current.id == belief and current.evidence_count == 200

    # a newer value of another file supersedes the one belief, not one of two hundred
    newer = bdb.ingest_text("The warranty period is 24 months.\n", source="update.md")
    assert [s.old for s in newer.superseded] == [belief]
    # and the same file again changes nothing (rule 18)
    again = bdb.ingest_text(text, source="handbook.md")
    assert not again.new_version and again.accepted == [] and again.corroborated == []


@pytest.mark.parametrize("bulk", [False, True])
def test_lines_that_lose_to_an_official_source_are_one_superseded_belief(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], tmp_path: Path, bulk: bool) -> None:
    (official,) = bdb.ingest_text("The warranty period is 24 months.\n", source="terms.md",
                                  authority="official").accepted
    path = tmp_path / "notes.md"
    path.write_text(f"{LINE}\n" * 4, encoding="utf-8")
    if bulk:
        (report,) = bdb.bulk_ingest(path, embed=False).reports
    else:
        (report,) = bdb.ingest(path, embed=False)
    assert not isinstance(report, beliefdb.models.IngestFailure), report
    (made,) = report.accepted
    assert [c.id for c in report.corroborated] == [made.id] * 3
    assert [(s.old, s.new) for s in report.superseded] == [(made.id, official.id)]
    statuses = {b.value: b.status for b in bdb.beliefs(include_all=True)}
    assert statuses == {"24 months": "current", "12 months": "superseded"}
    assert quotes_of(postgresql, made.id) == [0, 34, 68, 102]


@pytest.mark.slow
@pytest.mark.parametrize("batch", [1, 3])
def test_bulk_stores_repeated_lines_as_one_by_one(db_url: str, postgresql: psycopg.Connection[Any],
                                                   tmp_path: Path, batch: int) -> None:
    # repeats of a line, of two lines in turn, with a rival between them, one failing the gate by
    # nothing (the same span twice is one fragment), across documents and against another owner's belief
    docs = [("a.md", f"{LINE}\n{LINE}\n{LINE}\nThe shipping fee is 5%.\n"),
            ("b.md", f"{LINE}\nThe warranty period is 24 months.\n{LINE}\n{LINE}\n"),
            ("c.md", "The shipping fee is 5%.\nThe shipping fee is 10%.\nThe shipping fee is 10%.\n"),
            ("d.md", "Refund window: 30 days.\n" * 5)]
    before = [("old.md", "The warranty period is 6 months.\nRefund window: 7 days.\n")]
    same_as_one_by_one(db_url, postgresql, tmp_path, docs, batch)
    same_as_one_by_one(db_url, postgresql, tmp_path, docs, batch, before=before, principal="someone")


def test_a_later_turn_saying_it_again_is_a_new_belief_that_wins(bdb: beliefdb.BeliefDB) -> None:
    # a conversation ranks by its turns (rule 8): the words said again after another value are the newer
    turns = [("I live in Berlin.", 1), ("I live in Paris.", 2), ("I live in Berlin.", 3)]
    for text, day in turns:
        bdb.remember_turn("chat-1", "alice", text, time=datetime(2025, 1, day, tzinfo=UTC))
    believed = sorted((b.value, b.status) for b in bdb.beliefs(include_all=True) if b.subject == "alice")
    assert believed == [("Berlin", "current"), ("Berlin", "superseded"), ("Paris", "superseded")]


def test_turns_stored_as_a_document_still_rank_by_turn(bdb: beliefdb.BeliefDB) -> None:
    # (a text given as turns is ranked turn by turn whatever its origin says: the words said again last win)
    from beliefdb.models import Turn
    from beliefdb.store import ingest
    from beliefdb.text.turns import lay_out

    text, spans = lay_out([Turn("ann", "My colour is red."), Turn("ann", "My colour is blue."),
                           Turn("ann", "My colour is red.")])
    ingest.ingest_text(bdb.database, text, ingest.SourceOptions(name="notes", origin="document"), turns=spans,
                       embed=False)
    assert [b.value for b in bdb.beliefs(subject="ann", attribute="colour")] == ["red"]
