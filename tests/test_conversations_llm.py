"""The LLM extractor over a conversation's turns (issue 20), against the scripted chat-completions server
of test_extract_llm: one request for the turns (not one a turn), a prompt that names speakers as the
subjects of first-person statements, quotes anchored to their whole turn with the turn's time as the
start of valid time, the same evidence gate; without an endpoint, a clear error and nothing written."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from test_extract_llm import ChatServer, answer, serving_llm

import beliefdb
from beliefdb.errors import InvalidInput
from beliefdb.models import Turn

MOVED = {"statement": "Maya moved to Porto.", "subject": "Maya", "attribute": "lives in", "value": "Porto",
         "quote": "I moved to Porto last week.", "kind": "fact", "scope": []}
PARAPHRASED = {"statement": "Maya lives in Porto.", "subject": "Maya", "attribute": "lives_in", "value": "Porto",
               "quote": "I relocated to Porto.", "kind": "fact", "scope": []}
WHEN = datetime(2024, 6, 18, 14, 3, tzinfo=UTC)


@pytest.fixture
def chat_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


@pytest.mark.slow
def test_llm_over_turns_quotes_the_turn_with_its_time(bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    chat_llm.answers(answer(MOVED, PARAPHRASED))
    turns = [Turn("agent", "Any news?", None), Turn("Maya", "I moved to Porto last week.", WHEN)]
    report = bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    (seen,) = chat_llm.seen  # one request for the whole conversation
    assert "is about that speaker: use the speaker's name as the subject" in seen.user_text
    assert "[2024-06-18T14:03:00+00:00] Maya: I moved to Porto last week." in seen.user_text
    (accepted,) = report.accepted
    assert (accepted.subject, accepted.attribute, accepted.value, accepted.quote) == (
        "maya", "lives_in", "Porto", "I moved to Porto last week.")
    assert [r.quote for r in report.rejected] == ["I relocated to Porto."]  # the gate, as for documents
    (belief,) = bdb.beliefs(subject="maya")
    assert belief.valid_time.lower == WHEN


@pytest.mark.slow
def test_remember_turn_sends_only_the_new_turn(bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    chat_llm.answers(answer(), answer(MOVED))
    bdb.remember_turn("chat", "agent", "Any news from you?", extractor="llm", embed=False)
    report = bdb.remember_turn("chat", "Maya", "I moved to Porto last week.", time=WHEN, extractor="llm", embed=False)
    assert "Any news" not in chat_llm.seen[1].user_text and "Maya: I moved to Porto" in chat_llm.seen[1].user_text
    assert [(a.subject, a.value) for a in report.accepted] == [("maya", "Porto")]


def test_without_an_endpoint_llm_is_refused_before_anything_is_written(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_LLM_URL", raising=False)
    path = tmp_path / "chat.md"
    path.write_text("Maya: I moved to Porto last week.\n", encoding="utf-8")
    line = cli.one_line_error("ingest", path, "--format", "chat", "--extractor", "llm")
    assert "BELIEFDB_LLM_URL" in line
    assert cli.json("beliefs", "--all") == []


def test_remember_turn_with_llm_without_an_endpoint(bdb: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BELIEFDB_LLM_URL", raising=False)
    with pytest.raises(InvalidInput, match="BELIEFDB_LLM_URL"):
        bdb.remember_turn("chat", "Maya", "I moved to Porto.", extractor="llm")


def _said(subject: str, value: str, quote: str, attribute: str = "lives_in") -> dict[str, Any]:
    return {"statement": f"{subject} {attribute} {value}.", "subject": subject, "attribute": attribute,
            "value": value, "quote": quote, "kind": "fact", "scope": []}


@pytest.mark.slow
def test_llm_scopes_a_role_speaker_to_its_conversation_as_the_rules_do(bdb: beliefdb.BeliefDB,
                                                                      chat_llm: ChatServer) -> None:
    # the rule extractor holds one session's "user" apart from another's; the llm extractor's "user" was
    # one person across sessions (Bob's city replaced Alice's), and the assistant's words of itself facts
    chat_llm.answers(
        answer(_said("user", "Berlin", "I live in Berlin."),
               _said("assistant", "OpenAI", "I am an AI assistant and I work at OpenAI.", "works_at")),
        answer(_said("User", "Madrid", "I live in Madrid.")),
        answer(_said("user", "Lisbon", "I moved to Lisbon.")))
    bdb.ingest_conversation([Turn("user", "I live in Berlin.", WHEN),
                             Turn("assistant", "I am an AI assistant and I work at OpenAI.", WHEN)],
                            source="session-alice", extractor="llm", embed=False)
    report = bdb.ingest_conversation([Turn("User", "I live in Madrid.", WHEN)], source="session-bob",
                                     extractor="llm", embed=False)
    assert report.superseded == [] and report.conflicts == []
    bdb.remember_turn("session-alice", "user", "I moved to Lisbon.", time=datetime(2024, 8, 1, tzinfo=UTC),
                      extractor="llm", embed=False)
    assert {(b.subject, b.value, b.status, tuple(b.scope.items())) for b in bdb.beliefs(include_all=True)} == {
        ("user", "Berlin", "superseded", (("conversation", "session-alice"),)),
        ("user", "Lisbon", "current", (("conversation", "session-alice"),)),
        ("user", "Madrid", "current", (("conversation", "session-bob"),))}


def test_a_quote_two_speakers_said_is_anchored_to_the_turn_of_the_speaker_it_is_about(
        bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    """The llm's candidate was anchored to the first turn holding its quote whoever said it: Carol's budget
    rested on Bob's turn, dated by Bob's time, and Carol's own turn was reported a duplicate."""
    bob = {"statement": "Bob's budget is 500 euros.", "subject": "Bob", "attribute": "budget", "value": "500 euros",
           "quote": "My budget is 500 euros.", "kind": "fact", "scope": []}
    carol = {**bob, "statement": "Carol's budget is 500 euros.", "subject": "Carol"}
    chat_llm.answers(answer(bob, carol))
    first, later = datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 5, tzinfo=UTC)
    turns = [Turn("Bob", "My budget is 500 euros.", first), Turn("Carol", "Nice.", first),
             Turn("Carol", "My budget is 500 euros.", later)]
    bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    (belief,) = bdb.beliefs(subject="carol")
    assert belief.valid_time.lower == later
    (evidence,) = bdb.why(belief.id).evidence
    (bobs,) = bdb.why(bdb.beliefs(subject="bob")[0].id).evidence
    assert evidence.start_offset > bobs.start_offset


def test_a_quote_with_its_line_label_is_anchored_to_its_turn(bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    """The model, shown lines as "[time] Speaker: text", may quote the label with the words: such a quote was
    accepted as it stood, the label in its evidence, tied to no turn (no turn time as its valid time)."""
    labelled = {**MOVED, "quote": "Maya: I moved to Porto last week."}
    chat_llm.answers(answer(labelled))
    turns = [Turn("agent", "Any news?", None), Turn("Maya", "I moved to Porto last week.", WHEN)]
    report = bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    (accepted,) = report.accepted
    assert accepted.quote == "I moved to Porto last week."
    (belief,) = bdb.beliefs(subject="maya")
    assert belief.valid_time.lower == WHEN


def test_the_speakers_turn_is_found_for_a_name_ending_in_s_and_a_labelled_quote_keeps_its_turn(
        bdb: beliefdb.BeliefDB, chat_llm: ChatServer) -> None:
    """The model's subject for James is named as every subject is (jame): compared with the speaker named
    another way (james), James's move was anchored to Bob's turn. And a quote labelled with its speaker
    names that speaker's turn even when the candidate is about something else (the office)."""
    first, later = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    moved = {"statement": "James moved to Porto.", "subject": "James", "attribute": "lives_in", "value": "Porto",
             "quote": "I moved to Porto.", "kind": "fact", "scope": []}
    office = {"statement": "The office moved to Porto.", "subject": "office", "attribute": "city",
              "value": "Porto", "quote": "Maya: We moved the office to Porto", "kind": "fact", "scope": []}
    chat_llm.answers(answer(moved, office))
    turns = [Turn("Bob", "I moved to Porto.", first), Turn("Bob", "We moved the office to Porto in 2019.", first),
             Turn("James", "I moved to Porto.", later), Turn("Maya", "We moved the office to Porto", later)]
    bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    for belief in bdb.beliefs():
        assert belief.valid_time.lower == later, belief


def test_a_speaker_is_the_subject_the_rule_extractor_names_them_by(bdb: beliefdb.BeliefDB, chat_llm: ChatServer,
                                                                    tmp_path: Path) -> None:
    """The model's subject "James" was made singular (jame) where the rule extractor names the speaker james,
    so James's move told to the llm and his later move told to the rules were two subjects, both current
    (and Carlos's city replaced Carlo's: both carlo); and a first-person subject ("I") was stored as ``i``."""
    first, later = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    moved = {"statement": "James moved to Porto.", "subject": "James", "attribute": "lives_in", "value": "Porto",
             "quote": "I moved to Porto.", "kind": "fact", "scope": []}
    budget = {"statement": "My budget is 500 euros.", "subject": "I", "attribute": "budget", "value": "500 euros",
              "quote": "My budget is 500 euros.", "kind": "fact", "scope": []}
    carlos = {**moved, "statement": "Carlos moved to Rome.", "subject": "Carlos", "value": "Rome",
              "quote": "I moved to Rome."}
    carlo = {**carlos, "statement": "Carlo moved to Milan.", "subject": "Carlo", "value": "Milan",
             "quote": "I moved to Milan."}
    chat_llm.answers(answer(moved, budget, carlos, carlo))
    turns = [Turn("James", "I moved to Porto.", first), Turn("Doris", "My budget is 500 euros.", first),
             Turn("Carlo", "I moved to Milan.", first), Turn("Carlos", "I moved to Rome.", first)]
    bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    assert {(b.subject, b.attribute, b.value) for b in bdb.beliefs()} == {
        ("james", "lives_in", "Porto"), ("doris", "budget", "500 euros"), ("carlos", "lives_in", "Rome"),
        ("carlo", "lives_in", "Milan")}
    bdb.ingest_conversation([Turn("James", "I moved to Lisbon.", later)], source="chat2", embed=False)
    (current,) = bdb.beliefs(subject="james")
    assert current.value == "Lisbon"


def test_a_labelled_quote_is_the_turn_of_the_speaker_its_label_names(bdb: beliefdb.BeliefDB,
                                                                      chat_llm: ChatServer) -> None:
    """"Bob: I live in Rome." was found first inside Big Bob's line ("Big Bob: I live in Rome."), so Bob's
    city rested on Big Bob's turn and took its time; and a turn remembered again (the same words later) had
    its labelled quote found in the earlier line, accepted with the label in its quote and no turn's time."""
    first, later = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC)
    rome = {"statement": "Bob lives in Rome.", "subject": "Bob", "attribute": "lives_in", "value": "Rome",
            "quote": "Bob: I live in Rome.", "kind": "fact", "scope": []}
    chat_llm.answers(answer(rome))
    turns = [Turn("Big Bob", "I live in Rome.", first), Turn("Bob", "I live in Rome.", later)]
    bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    (belief,) = bdb.beliefs(subject="bob")
    assert belief.valid_time.lower == later
    oslo = {**rome, "statement": "Ann lives in Oslo.", "subject": "Ann", "value": "Oslo",
            "quote": "Ann: I live in Oslo."}
    chat_llm.answers(answer(), answer(oslo))
    bdb.remember_turn("again", "Ann", "I live in Oslo.", time=first, extractor="llm", embed=False)
    report = bdb.remember_turn("again", "Ann", "I live in Oslo.", time=later, extractor="llm", embed=False)
    (accepted,) = report.accepted
    assert accepted.quote == "I live in Oslo."
    (current,) = bdb.beliefs(subject="ann")
    assert current.valid_time.lower == later
