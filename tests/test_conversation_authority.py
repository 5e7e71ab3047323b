"""What people say in a conversation is a user's word (rule 8 of docs/rules.md): a new conversation is of
``user`` authority however it arrives (a turn appended, a conversation or a chat file ingested, one by one
or in bulk), as ``remember`` makes one, so an agent's later note of the same person's words supersedes an
earlier turn, and a company document still outranks what a customer says later."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.models import Turn


def authority_of(conn: psycopg.Connection[Any], source: str) -> str:
    row = conn.execute("select authority::text from beliefdb.source where name = %s", (source,)).fetchone()
    assert row is not None, source
    return str(row[0])


def test_an_agents_later_note_supersedes_an_earlier_turn(bdb: beliefdb.BeliefDB,
                                                        postgresql: psycopg.Connection[Any]) -> None:
    turn = bdb.remember_turn("chat-kim", "kim", "My email is kim@old.example",
                             time=datetime(2024, 1, 1, tzinfo=UTC))
    (old,) = turn.accepted
    assert authority_of(postgresql, "chat-kim") == "user"
    note = bdb.remember("email of kim: kim@new.example", "kim", "email", "kim@new.example", "use kim@new.example",
                        source="chat-kim/2", text="kim: please use kim@new.example from now on",
                        valid_from="2024-06-01T00:00:00Z")
    (new,) = note.accepted
    assert [(s.old, s.new) for s in note.superseded] == [(old.id, new.id)]
    assert [b.value for b in bdb.beliefs(subject="kim", attribute="email")] == ["kim@new.example"]


def test_a_company_document_outranks_what_a_customer_says_later(bdb: beliefdb.BeliefDB) -> None:
    (policy,) = bdb.ingest_text("Refund window: 30 days.\n", source="policy.md").accepted
    bdb.ingest_conversation([Turn("agent", "How can I help?", datetime(2026, 1, 2, tzinfo=UTC)),
                             Turn("max", "Refund window: 60 days.", datetime(2026, 1, 2, 0, 1, tzinfo=UTC))],
                            source="chat-max")
    current = bdb.beliefs(attribute=policy.attribute)
    assert [b.id for b in current if b.subject == policy.subject] == [policy.id]


def test_a_chat_file_is_a_conversation_of_user_authority_unless_given(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], tmp_path: Path) -> None:
    chat = tmp_path / "support.jsonl"
    chat.write_text('{"speaker": "zoe", "time": "2025-03-01T10:00:00Z", "text": "I live in Braga."}\n',
                    encoding="utf-8")
    given = tmp_path / "given" / "escalation.jsonl"
    given.parent.mkdir()
    given.write_text(chat.read_text(encoding="utf-8"), encoding="utf-8")
    bdb.ingest_transcripts(chat, embed=False)
    bdb.ingest_transcripts(given, embed=False, authority="internal")
    assert authority_of(postgresql, "support.jsonl") == "user"
    assert authority_of(postgresql, "escalation.jsonl") == "internal"
    # a document is of internal authority, as before
    bdb.ingest_text("Refund window: 30 days.\n", source="policy.md")
    assert authority_of(postgresql, "policy.md") == "internal"


@pytest.mark.parametrize("bulk", [False, True])
def test_a_text_said_to_be_a_conversation_is_of_user_authority_one_by_one_and_in_bulk(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], bulk: bool) -> None:
    text = "Refund window: 30 days.\n"
    if bulk:
        result = bdb.bulk_ingest(("notes-zoe", text), origin="conversation", embed=False)
        (belief,) = [a for r in result.reports for a in r.accepted]
    else:
        (belief,) = bdb.ingest_text(text, source="notes-zoe", origin="conversation", embed=False).accepted
    assert authority_of(postgresql, "notes-zoe") == "user"
    (stored,) = [b for b in bdb.beliefs() if b.id == belief.id]
    # the confidence of one user's word (rule 9), stored so in bulk as one by one
    assert stored.confidence == pytest.approx(0.65, abs=1e-6)


def test_a_turns_time_may_be_iso_text_as_a_valid_time_may(bdb: beliefdb.BeliefDB) -> None:
    report = bdb.remember_turn("chat-lu", "lu", "I live in Faro.", time="2024-02-01T00:00:00Z")
    (belief,) = report.accepted
    (stored,) = [b for b in bdb.beliefs() if b.id == belief.id]
    assert stored.valid_time.lower == datetime(2024, 2, 1, tzinfo=UTC)
    with pytest.raises(beliefdb.errors.InvalidInput, match="time"):
        bdb.remember_turn("chat-lu", "lu", "I live in Braga.", time="yesterday")
