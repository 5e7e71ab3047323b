"""A document shaped like a dialogue: its ``Name: text`` lines are turns, whatever the case or the ending
of the names (``BOB:``, ``Irving:``) or their script (``张伟：``), while a list of ``Key: value`` facts
whose values are sentences (an FAQ, a changelog, a log of ``ERROR:`` lines) stays facts. The line-level
rules (one line alone) are tested in test_extract_report.py."""

from __future__ import annotations

import pytest

from beliefdb.text.fragments import iter_fragments
from beliefdb.text.gate import gate
from beliefdb.text.rules import RuleExtractor
from beliefdb.text.skips import extraction_report
from beliefdb.text.transcripts import SPOKEN


def facts(text: str) -> list[tuple[str, str, str]]:
    return [(c.subject, c.attribute, c.value) for c in RuleExtractor().extract(text, source_name="notes.md")]


def spoken(text: str) -> list[str]:
    """The lines the report lists as spoken turns."""
    located, rejected = gate(text, RuleExtractor().extract(text, source_name="notes.md"))
    return [s.quote for s in extraction_report(text, located, rejected)[0] if s.detail == SPOKEN]


def lines(text: str) -> list[str]:
    return [text[f.start:f.end] for f in iter_fragments(text) if f.kind == "key_value"]


def assert_turns(text: str) -> None:
    """Every ``Name: text`` line of ``text`` is a turn: no fact, listed as spoken."""
    assert facts(text) == []
    assert spoken(text) == lines(text)


# --- 1. names in capitals (a screenplay) ---------------------------------------------------------------

@pytest.mark.parametrize("text", [
    # two names, one of them speaking in the first person: the other name's sentence is a turn too
    "BOB: The deploy failed.\nALICE: I restarted it.\n",
    # a name that speaks again after the other one: a dialogue, though no one says "I"
    "BOB: The deploy failed again.\nALICE: The logs are clean.\nBOB: The disk is full.\n",
    # once the names are speakers, every line of theirs is a turn, a short answer too
    "BOB: The deploy failed.\nALICE: I restarted it.\nBOB: Thanks.\nALICE: Sure.\n",
    "- BOB: Did the deploy fail?\n- ALICE: The logs are clean.\n",
])
def test_a_dialogue_of_names_in_capitals_is_turns(text: str) -> None:
    assert_turns(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("ERROR: The disk is full.", [("note", "error", "The disk is full")]),
    # label words are no speakers, however often they recur and whoever says "I"
    ("ERROR: The disk is full.\nWARNING: I cannot write the cache.\nERROR: The disk is still full.\n",
     [("note", "error", "The disk is full"), ("note", "warning", "I cannot write the cache"),
      ("note", "error", "The disk is still full")]),
    # a changelog's words, in capitals and recurring
    ("FIXED: The crash on start is gone.\nADDED: The export is faster.\nFIXED: The leak is gone.\n",
     [("note", "fixed", "The crash on start is gone"), ("note", "added", "The export is faster"),
      ("note", "fixed", "The leak is gone")]),
    ("Fixed: The crash on start is gone.\nAdded: The export is faster.\nFixed: The leak is gone.\n",
     [("note", "fixed", "The crash on start is gone"), ("note", "added", "The export is faster"),
      ("note", "fixed", "The leak is gone")]),
    # two acronyms, each once, no one speaking: a glossary
    ("API: The figures are in docs.\nCLI: The flags are in the help.\n",
     [("note", "api", "The figures are in docs"), ("note", "cli", "The flags are in the help")]),
    # an FAQ: label keys, sentences for values, "we" a company
    ("Shipping: We ship within 2 days.\nReturns: Returns are accepted within 30 days.\n",
     [("note", "shipping", "We ship within 2 days"), ("note", "return", "Returns are accepted within 30 days")]),
])
def test_label_lists_with_sentences_stay_facts(text: str, expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected
    assert spoken(text) == []


# --- 2. names that end like nouns ("Irving", "Sterling", "Felicity") ------------------------------------

@pytest.mark.parametrize("text", [
    "Irving: The deploy failed.\nAlice: I restarted it.\n",
    "Sterling: The deploy failed again.\nFelicity: The logs are clean.\nSterling: The disk is full.\n",
    "Felicity: Hi Irving, is the build green?\nIrving: The build passed an hour ago.\n",
])
def test_a_dialogue_of_names_that_end_like_nouns_is_turns(text: str) -> None:
    assert_turns(text)


@pytest.mark.parametrize(("text", "expected"), [
    # alone, a name ending like a noun cannot be told from a noun: what the document says of it
    ("Irving: The deploy failed.", [("note", "irving", "The deploy failed")]),
    # two keys, each once, no one speaking: an FAQ
    ("Parking: The garage is open all night.\nHousekeeping: Rooms are cleaned daily.\n",
     [("note", "parking", "The garage is open all night"), ("note", "housekeeping", "Rooms are cleaned daily")]),
    # someone speaking among more keys than a dialogue has: a list of facts with a spoken line in it
    ("Alice: I moved to Berlin.\nParking: The garage is open all night.\nHousekeeping: Rooms are cleaned daily.\n",
     [("note", "parking", "The garage is open all night"), ("note", "housekeeping", "Rooms are cleaned daily")]),
    # a word the document writes in lowercase is a common noun, not a speaker
    ("Sterling: The silver is polished by hand.\nAlice: I asked for sterling silver.\n",
     [("note", "sterling", "The silver is polished by hand")]),
])
def test_keys_that_end_like_nouns_stay_facts_outside_a_dialogue(text: str,
                                                                 expected: list[tuple[str, str, str]]) -> None:
    assert facts(text) == expected
    assert [line for line in lines(text) if line not in spoken(text)] == [
        line for line in lines(text) if line.split(":")[0].lower() in {e[1] for e in expected}]


def test_the_price_of_the_rule_a_topic_after_a_question_reads_as_a_reply() -> None:
    """Pinned trade-off: two keys, one of them asking, read as an exchange, so an FAQ's "Pets:" question
    makes the noun-ending "Parking:" beside it a reply, not a fact (the same shape as "Felicity: Hi Irving,
    is the build green?\\nIrving: The build passed an hour ago.")."""
    assert_turns("Pets: Can I bring my dog?\nParking: The garage is open all night.\n")
