"""How ``ask`` orders what it finds (issue 20's order: the beliefs the question's words match, then
unextracted text, then the beliefs found by meaning or by a name alone), on a new user's first try:
a returns policy in markdown. A heading's bare title is never an answer; a word of a document's
subject ("return", of ``return_policy``) is a word like any other, while a person's name (a speaker's
in a conversation, or one the question writes as a name) matches nothing by itself
(test_ask_fragments.py has the unextracted turns' side of that)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import beliefdb
from beliefdb.models import Turn
from beliefdb.models.retrieval import BELIEFS_AFTER_TEXT, ask_parts

POLICY = ("# Returns policy\n\n"
          "Returns are accepted within 30 days of purchase.\n"
          "Refunds are issued to the original payment method.\n"
          "The restocking fee is 10%.\n"
          "Support hours are 9:00 to 17:00 on weekdays.\n")


def texts(result: beliefdb.models.AskResult) -> list[str]:
    return [f.text for f in result.fragments]


def first_item(result: beliefdb.models.AskResult) -> str:
    return result.context.split("\n1. ", 1)[1].splitlines()[0]


def three_facts_and_a_puppy(bdb: beliefdb.BeliefDB, name: str) -> None:
    """Three beliefs a document states about ``name`` (subject its lower case), and the unextracted sentence
    that says what their puppy is called: the beliefs share only the name with the question about it."""
    facts = [("works_at", "Acme", f"{name} works at Acme."), ("lives_in", "Ghent", f"{name} lives in Ghent."),
             ("plan", "annual", f"{name} has the annual plan.")]
    text = "".join(line + "\n" for *_, line in facts)
    for attribute, value, line in facts:
        bdb.remember(line, name.lower(), attribute, value, line, source=f"{name.lower()}.md", text=text)
    bdb.ingest_text(f"{name}'s puppy is called Rex.\n", source="notes.md", extractor="none")


@pytest.mark.slow
def test_a_markdown_heading_is_no_answer(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(POLICY, source="policy.md")
    assert {(b.subject, b.attribute) for b in bdb.beliefs()} >= {("return_policy", "window"), ("support", "hour")}
    result = bdb.ask("how long do I have to return something?")
    assert "Returns policy" not in texts(result) and "Returns policy" not in result.context
    assert first_item(result).startswith("Returns are accepted within 30 days of purchase.")
    # nor when it is all that matches, at any level, its closing '#'s or not; a line that only has a
    # '#' in it, or starts with one not followed by a space, is no heading
    bdb.ingest_text("Intro line.\n   ## Office dogs ##\n###### Office dogs on Fridays\n"
                    "Ticket #42: office dogs.\n#office dogs are welcome.\n", source="dogs.md", extractor="none")
    assert sorted(texts(bdb.ask("office dogs"))) == ["#office dogs are welcome.", "Ticket #42: office dogs."]
    # a heading is still the source's text: quoted, its belief answers
    bdb.remember("Dogs are welcome on Fridays.", "office", "dogs", "Fridays", "Office dogs on Fridays",
                 source="dogs.md")
    assert [a.belief.value for a in bdb.ask("office dogs on Fridays").beliefs] == ["Fridays"]


@pytest.mark.slow
def test_a_heading_that_states_a_value_is_text_like_any_other(bdb: beliefdb.BeliefDB) -> None:
    """A title that carries a value (a ':' before more words, a digit, or a verb) says something: no
    rule extracts a belief from a heading, so when it is the only text that answers it is shown (review
    of f4abecb, which left out every heading's title); a bare title still is not."""
    bdb.ingest_text("# Acme handbook\n\n## Support: 9am to 5pm on weekdays\n\n"
                    "The office is in Berlin.\nParking is free for staff.\n", source="handbook.md")
    assert not any(b.subject == "support" for b in bdb.beliefs())
    result = bdb.ask("when is support available on weekdays?")
    assert "Support: 9am to 5pm on weekdays" in texts(result), result.context
    bdb.ingest_text("## Office lunch\n### Lunch at 12\n## Office dogs are welcome on Fridays\n# Dogs ##\n",
                    source="office.md", extractor="none")
    assert sorted(texts(bdb.ask("office lunch for dogs"))) == ["Lunch at 12", "Office dogs are welcome on Fridays"]


@pytest.mark.slow
def test_a_question_heading_or_a_numbered_one_is_a_bare_title(bdb: beliefdb.BeliefDB) -> None:
    """An FAQ's question heading asks, it answers nothing, modal or not ("## Can I return a sale item?"):
    the paragraph below it is the answer (review of c34497c, which read its "can" as a verb that states
    a value); and a digit carries a value only as a quantity, time, percent or amount ("Lunch at 12",
    "9am", "30 days"), not as a step's or section's number ("## Step 2", "## 1. Introduction")."""
    bdb.ingest_text("# FAQ\n\n## Can I return a sale item?\n\n"
                    "Sale items are final and cannot be returned or exchanged.\n\n"
                    "## Do you ship abroad？\n\nWe ship to 30 countries.\n", source="faq.md", extractor="none")
    shown = [f.text for f in bdb.ask("can I return a sale item?", k=1).fragments]
    assert shown == ["Sale items are final and cannot be returned or exchanged."], shown
    assert "Can I return a sale item?" not in texts(bdb.ask("can I return a sale item?"))
    assert "Do you ship abroad？" not in texts(bdb.ask("do you ship abroad?"))
    bdb.ingest_text("## Step 2\n## 1. Introduction\n## 2.1 Setup steps\n## Setup in 3 steps\n"
                    "## Setup from 9:30\n## Setup costs $40\n## Setup is 50% done\n## Setup until 18\n",
                    source="setup.md", extractor="none")
    assert sorted(texts(bdb.ask("setup step introduction", k=10))) == [
        "Setup costs $40", "Setup from 9:30", "Setup in 3 steps", "Setup is 50% done", "Setup until 18"]


@pytest.mark.slow
def test_a_word_of_a_documents_subject_is_a_word_match(bdb: beliefdb.BeliefDB) -> None:
    # the only word the question shares with the answer is its subject's (return_policy, support);
    # unextracted text that shares a word too comes after it, not before
    bdb.ingest_text(POLICY + "Can support help with returns?\n", source="policy.md")
    result = bdb.ask("how long do I have to return something?")
    assert result.beliefs[0].belief.attribute == "window" and "text" in result.beliefs[0].matched_by
    assert result.fragments_after >= 1
    assert first_item(result).startswith("Returns are accepted within 30 days of purchase.")
    assert result.context.index("Returns are accepted") < result.context.index("Can support help with returns?")
    result = bdb.ask("when can I reach support?")
    assert texts(result) == ["Can support help with returns?"]
    assert result.beliefs[0].belief.subject == "support" and result.fragments_after == 1
    assert first_item(result).startswith("Support hours are 9:00 to 17:00 on weekdays.")
    assert BELIEFS_AFTER_TEXT not in result.context.split("Can support help")[0]


@pytest.mark.slow
def test_a_speakers_name_alone_is_no_word_match_in_a_conversation(bdb: beliefdb.BeliefDB) -> None:
    day = datetime(2024, 1, 5, 10, 0, tzinfo=UTC)
    bdb.ingest_conversation([
        Turn("Maya", "I just moved to Ghent.", day),
        Turn("Maya", "I work as a nurse now.", day),
        Turn("Remy", "Did the puppy get a name yet?", day),
    ], source="chat-maya")
    assert {b.subject for b in bdb.beliefs()} == {"maya"}
    result = bdb.ask("What is the name of Maya's puppy?")
    # the beliefs about Maya share only her name with the question: the turn that answers comes first
    assert texts(result) == ["Did the puppy get a name yet?"] and result.fragments_after == 0
    assert first_item(result).startswith('"Did the puppy get a name yet?"')
    assert len(result.beliefs) >= 1 and result.context.index("puppy") < result.context.index("Ghent")


@pytest.mark.slow
def test_a_speakers_name_stays_a_name_in_a_correction_of_what_she_said(bdb: beliefdb.BeliefDB) -> None:
    """A correction's replacement quotes the reviewer's words, no turn of Maya's; it is still about Maya,
    the speaker of the turns its subject's other beliefs quote: 'maya' is no word match for it either, and it
    does not hold back the unextracted turn that asks about the puppy (review of 10d3c2d)."""
    facts = [("works_at", "Acme"), ("lives_in", "Ghent"), ("plan", "annual plan")]
    said = [f"Fact {i} is {value}." for i, (_, value) in enumerate(facts)]
    bdb.ingest_conversation([Turn("Maya", line) for line in said], source="chat-maya", extractor="none")
    ids = [bdb.remember(f"Maya: {line}", "maya", attribute, value, line, source="chat-maya").accepted[0].id
           for line, (attribute, value) in zip(said, facts, strict=True)]
    bdb.ingest_conversation([Turn("Remy", "Did the puppy get a name yet?")], source="chat-puppy")
    assert bdb.ask("What is the name of Maya's puppy?", k=3).fragments_after == 0
    bdb.apply_correction(ids[1], "Maya: Fact 1 is Porto.", reviewer="ops", value="Porto", expect_revision=1)
    after = bdb.ask("What is the name of Maya's puppy?", k=3)
    assert after.fragments_after == 0, [(a.belief.statement, a.matched_by) for a in after.beliefs]
    assert [f.text for f in after.fragments] == ["Did the puppy get a name yet?"]


@pytest.mark.slow
def test_a_persons_name_alone_is_no_word_match_in_a_document_either(bdb: beliefdb.BeliefDB) -> None:
    """A document names no speakers, yet "Maya" is a person's name there as well: the beliefs maya.md
    states about her share only her name with the question and do not take the places of the
    unextracted sentence that answers it (review of 10d3c2d and 4f915a2, which made a subject's word a
    name only where it names a speaker of a turn)."""
    three_facts_and_a_puppy(bdb, "Maya")
    result = bdb.ask("What is the name of Maya's puppy?", k=3)
    assert texts(result) == ["Maya's puppy is called Rex."], result.context
    assert result.fragments_after == 0 and first_item(result) == '"Maya\'s puppy is called Rex."'
    assert len(result.beliefs) == 3


@pytest.mark.slow
@pytest.mark.parametrize("question", ["when can I reach support?", "When can I reach Support?",
                                      "When Can I Reach Support?", "WHEN CAN I REACH SUPPORT?"])
def test_a_capitalised_word_the_text_writes_in_lower_case_is_no_persons_name(bdb: beliefdb.BeliefDB,
                                                                               question: str) -> None:
    """A department, product or thing a question capitalises ("Support", a Title Case or all-caps
    question) is a word like any other where the workspace's text writes it in lower case ("Can support
    help"): the belief about support answers before the unextracted text, as for the lowercase question
    (review of a80c852, which took every word capitalised after another of its sentence for a name)."""
    bdb.ingest_text(POLICY + "Can support help with returns?\n", source="policy.md")
    result = bdb.ask(question)
    assert result.beliefs[0].belief.subject == "support"
    assert texts(result) == ["Can support help with returns?"]
    assert result.fragments_after == 1, (result.fragments_after, result.context)
    assert first_item(result).startswith("Support hours are 9:00 to 17:00 on weekdays.")
    # a name the text never writes in lower case stays a name, however the question is written
    bdb.remember("Maya works at Acme.", "maya", "works_at", "Acme", "Maya works at Acme.", source="maya.md",
                 text="Maya works at Acme.\n")
    bdb.ingest_text("Maya's puppy is called Rex.\n", source="notes.md", extractor="none")
    for asked in ("What is the name of Maya's puppy?", "WHAT IS THE NAME OF MAYA'S PUPPY?"):
        assert bdb.ask(asked, k=1).fragments_after == 0, asked


@pytest.mark.slow
def test_beliefs_found_by_meaning_alone_are_labelled_when_no_text_sits_between(bdb: beliefdb.BeliefDB,
                                                                                cli: object) -> None:
    """The line that sets the beliefs found by meaning or a name alone apart from those the question's words
    match was printed only when unextracted text sat between them: otherwise "Support hours are 9:00 to 17:00"
    read as the second answer to "how many days for returns?" (a new user's trial)."""
    bdb.ingest_text(POLICY, source="policy.md")
    result = bdb.ask("how many days for returns?")
    assert [a.belief.attribute for a in result.beliefs][:1] == ["window"] and len(result.beliefs) >= 2
    assert result.fragments == [] and result.fragments_after == 1
    context = result.context.splitlines()
    assert context.index(BELIEFS_AFTER_TEXT) == next(i for i, line in enumerate(context) if line.startswith("2. "))-1
    shown = cli("ask", "how many days for returns?").stdout.splitlines()  # type: ignore[operator]
    assert shown.index(BELIEFS_AFTER_TEXT.lower()) == next(i for i, s in enumerate(shown) if s.startswith("2. ")) - 1
    # none when no belief matches by the question's words: nothing to set them apart from
    alone = bdb.ask("how much does it cost to send something back?")
    assert alone.fragments_after == 0 and BELIEFS_AFTER_TEXT not in alone.context


@pytest.mark.slow
@pytest.mark.parametrize(("heading", "question"), [
    ("Support hours 9-5", "support hours"),
    ("Open weekdays 9–17", "when open weekdays"),
    ("Office closed on Dec 25", "when is the office closed"),
    ("Warehouse capacity 200", "warehouse capacity"),
    ("3 Returns accepted per customer", "returns accepted per customer"),
    ("30 Day Return Window", "how many days is the return window"),
    ("2 Year Warranty", "how long is the warranty"),
])
def test_a_heading_whose_number_is_its_value_is_shown(bdb: beliefdb.BeliefDB, heading: str, question: str) -> None:
    """A number in a title is a value unless it numbers a section or a step: hours, a date, a capacity or a
    Title Case quantity ("30 Day Return Window") were read as bare titles and left out (review of the rule
    that counted only a number with a unit, time, amount or preposition)."""
    bdb.ingest_text(f"# Notes\n\n## {heading}\n", source="notes.md", extractor="none")
    assert heading in texts(bdb.ask(question, k=5))


@pytest.mark.slow
def test_a_name_typed_in_lower_case_in_a_chat_stays_a_name(bdb: beliefdb.BeliefDB) -> None:
    """A chat typed on a phone writes names in lower case ("tell maya i said hi", a form the same diff's
    transcripts commit embraces): Maya is still a person, and the beliefs about her still share only her
    name with "What is the name of Maya's puppy?" (a name was dropped as soon as any text wrote it in lower
    case, and the three beliefs took the places of the sentence that answers: review)."""
    three_facts_and_a_puppy(bdb, "Maya")
    assert bdb.ask("What is the name of Maya's puppy?", k=3).fragments_after == 0
    bdb.ingest_conversation([Turn("Remy", "tell maya i said hi")], source="chat-remy")
    result = bdb.ask("What is the name of Maya's puppy?", k=3)
    assert "Maya's puppy is called Rex." in texts(result), result.context
    assert result.fragments_after == 0, result.context


@pytest.mark.slow
def test_a_name_that_is_also_a_word_stays_a_name(bdb: beliefdb.BeliefDB) -> None:
    """"Mark" (or Grace, Will, May, Rose) is a person in "What is the name of Mark's puppy?" though the
    workspace's text writes "mark" as a verb ("mark the box"): the beliefs about Mark share only his name
    with the question and must not take the places of the sentence that answers it."""
    three_facts_and_a_puppy(bdb, "Mark")
    bdb.ingest_text("Please mark the box as returned.\n", source="howto.md", extractor="none")
    result = bdb.ask("What is the name of Mark's puppy?", k=3)
    assert "Mark's puppy is called Rex." in texts(result), result.context
    assert result.fragments_after == 0, result.context


@pytest.mark.parametrize("fragments, after, parts", [
    # nothing matched by the question's words: the line says so first (trial57: "Do you have a HIPAA BAA?"
    # listed five unrelated beliefs as a plain answer, where a question some words matched set them apart)
    (False, 0, ["separator", "a", "b"]),
    (False, 1, ["a", "separator", "b"]),
    (False, 2, ["a", "b"]),  # every belief matched by the words
    (True, 0, ["fragments", "separator", "a", "b"]),
    (True, 1, ["a", "fragments", "separator", "b"]),
    (True, 2, ["a", "b", "fragments"]),
])
def test_the_context_and_the_text_lay_the_answer_out_by_one_rule(fragments: bool, after: int,
                                                                  parts: list[str]) -> None:
    """Where the unextracted text and the line before the beliefs found by meaning or a name alone go was
    decided twice, by the prompt-ready context and by the command line's text, each its own copy of the rule:
    one layout (``ask_parts``) both follow."""
    assert list(ask_parts(["a", "b"], fragments, after)) == parts


def test_beliefs_no_word_of_the_question_matches_are_said_to_be_so(bdb: beliefdb.BeliefDB) -> None:
    """(trial57) "Do you have a HIPAA BAA?" answered five unrelated beliefs, found by meaning alone, as a
    plain answer (status ok, no line), where a question some words matched set such beliefs apart: with
    nothing the words match, the line comes first, and the hint says they may not answer it."""
    line = "Dana works at Acme."
    bdb.remember(line, "dana", "works_at", "Acme", line, source="dana.md", text=line + "\n")
    result = bdb.ask("Does Dana enjoy jazz?", k=3)
    assert [b.belief.value for b in result.beliefs] == ["Acme"] and result.fragments == [], result.context
    assert result.fragments_after == 0
    assert result.hint is not None and "no belief shares a word with the question" in result.hint
    assert BELIEFS_AFTER_TEXT in result.context.splitlines()[:3], result.context
