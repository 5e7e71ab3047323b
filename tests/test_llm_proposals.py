"""What a model proposes must quote whole words that support its value, and a first-person quote speaks for its
speaker (rule 1 of docs/rules.md, the evidence gate): a hallucinating model had ``company / salary_budget = 10
million`` stored quoting "e", ``dana / role = CFO`` quoting "The C", ``lamp / price = free`` quoting "Lamps cost
5 EUR.", and in a conversation Alice's "I moved to Berlin last month." stored as ``bob / city = Berlin`` and the
assistant's "I am an AI model" as the user's home. Each is rejected with its reason (the ingest report's
rejected and skipped lists); a caller's own claims go through the gate as before. The endpoint is the scripted
chat server of test_extract_llm on 127.0.0.1, the database the real one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_extract_llm import ChatServer, answer, serving_llm

import beliefdb
from beliefdb.models import Turn
from beliefdb.store import ingest
from beliefdb.text.extractor import Candidate

DOC = ("The company salary budget is set every year. The CFO is Dana White.\n\nLamps cost 5 EUR.\n\n"
       "Alice works at Siemens now.\n\nRefunds are paid within sixty days.\n\nNothing here is of any note.\n")
CUTS = "quote cuts a word (a model's quote must begin and end at word boundaries)"
UNQUOTED = "the value shares no word or number with its quote"


def said(subject: str, attribute: str, value: str, quote: str) -> dict[str, Any]:
    return {"statement": f"The {subject} {attribute} is {value}.", "subject": subject, "attribute": attribute,
            "value": value, "quote": quote, "kind": "fact", "scope": []}


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    yield from serving_llm(monkeypatch)


def test_a_quote_that_cuts_a_word_or_does_not_support_its_value_is_rejected(
        llm: ChatServer, bdb: beliefdb.BeliefDB) -> None:
    llm.answers(answer(said("company", "salary_budget", "10 million", "e"), said("dana", "role", "CFO", "The C"),
                       said("lamp", "price", "free", "Lamps cost 5 EUR."),
                       said("assistant", "trait", "helpful", "Alice works at Siemens now."),
                       said("refund", "delay", "60 days", "Refunds are paid within sixty days."),  # shares "days"
                       said("lamp", "cost", "5 EUR", "Lamps cost 5 EUR.")))
    mine = Candidate(statement="Dana is the CFO.", subject="dana", attribute="title", value="chief", quote="The C")
    report = ingest.ingest_text(bdb.database, DOC, ingest.SourceOptions(name="notes.md"), candidates=[mine],
                                extractor="llm", embed=False)
    assert sorted((a.subject, a.attribute, a.value, a.quote) for a in report.accepted) == [
        ("dana", "title", "chief", "The C"),  # a caller's own claim: only an exact quote is asked of it
        ("lamp", "cost", "5 EUR", "Lamps cost 5 EUR."),
        ("refund", "delay", "60 days", "Refunds are paid within sixty days.")]
    assert sorted((r.quote, r.reason) for r in report.rejected) == [
        ("Alice works at Siemens now.", UNQUOTED), ("Lamps cost 5 EUR.", UNQUOTED), ("The C", CUTS), ("e", CUTS)]
    gated = {(s.quote, s.detail) for s in report.skipped if s.reason == "gate"}
    assert ("Alice works at Siemens now.", UNQUOTED) in gated, report.skipped
    # (said of the model, not of rules: "no rule of the extractor matched")
    assert [s.detail for s in report.skipped if s.quote == "Nothing here is of any note."] == [
        "the model proposed no belief from it"]


def test_a_first_person_quote_is_its_speakers_and_a_turn_is_no_cover_for_a_cut_word(
        llm: ChatServer, bdb: beliefdb.BeliefDB) -> None:
    turns = [Turn("Alice", "I moved to Berlin last month.", None), Turn("Bob", "My brother Carl lives in Paris.", None),
             Turn("user", "Where do you live?", None), Turn("assistant", "I am an AI model, I live nowhere.", None),
             Turn("Alice", "I heard it closes at 9.", None)]
    llm.answers(answer(said("Bob", "city", "Berlin", "I moved to Berlin last month."),
                       # (about no one who speaks here: what the speaker says of something else, "it")
                       said("store", "closing_time", "9", "I heard it closes at 9."),
                       said("user", "home", "nowhere", "I am an AI model, I live nowhere."),
                       said("Carl", "city", "Paris", "My brother Carl lives in Paris."),  # names its subject
                       said("Alice", "city", "Berlin", "I moved to Berlin last month."),
                       said("Bob", "mood", "ther", "ther")))  # (its turn would have quoted it whole)
    report = bdb.ingest_conversation(turns, source="chat", extractor="llm", embed=False)
    assert sorted((a.subject, a.value) for a in report.accepted) == [("alice", "Berlin"), ("carl", "Paris"),
                                                                     ("store", "9")]
    assert sorted((r.quote, r.reason) for r in report.rejected) == [
        ("I am an AI model, I live nowhere.", "quote is in the first person in assistant's turn: what it says is"
                                              " about assistant, not user"),
        ("I moved to Berlin last month.", "quote is in the first person in Alice's turn: what it says is about"
                                          " alice, not bob"),
        ("ther", CUTS)]
    assert {(s.quote, s.reason) for s in report.skipped} >= {("I am an AI model, I live nowhere.", "gate")}
