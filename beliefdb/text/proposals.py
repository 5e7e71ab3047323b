"""What a model's proposal must be beyond an exact quote (rule 1 of docs/rules.md, the evidence gate): checked by
the llm extractor where the model's own quote is known, before a conversation's is widened to its whole turn, and
marked :attr:`~beliefdb.text.extractor.Candidate.refused` for the gate to reject with the reason. A caller's own
claims and the rule extractor's (whole sentences read by fixed rules) are not checked so."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from beliefdb.text.extractor import Candidate
from beliefdb.text.gate import model_quote, shares_a_word
from beliefdb.text.naming import speaker_subject
from beliefdb.text.self_statements import says_i
from beliefdb.text.turns import TurnSpan

__all__ = ["checked", "other_speaker"]


def checked(candidate: Candidate, text: str, turn: TurnSpan | None = None) -> Candidate:
    """``candidate`` refused when its quote cuts a word or does not support its value
    (:func:`beliefdb.text.gate.model_quote`, in its ``turn`` when it lies in one), with the offsets of the
    occurrence it was refused at or, when the first occurrence cuts a word and a later one does not, that one's;
    as it is otherwise (the gate finds its quote, or says how close it came)."""
    found = model_quote(text, candidate.quote, candidate.value, None if turn is None else (turn.start, turn.end))
    if found is None:
        return candidate
    start, end, refused = found
    if refused is None and turn is None and text.find(candidate.quote) == start:
        return candidate
    return replace(candidate, start=start, end=end, refused=refused)


def other_speaker(candidate: Candidate, turn: TurnSpan, speakers: Collection[str]) -> str | None:
    """Why ``candidate``, quoting ``turn`` in the first person (:func:`beliefdb.text.self_statements.says_i`),
    cannot be about another of the conversation's ``speakers`` (their subjects) than its own, unless the
    quote names it (a word of the subject in the quote: "My brother Bob lives in Paris" is about bob); None
    when it may. A subject no one speaks as may be what the speaker says something of ("I heard the store
    closes at 9" is about the store)."""
    own = speaker_subject(turn.speaker)
    if (candidate.subject == own or candidate.subject not in speakers or not says_i(candidate.quote)
            or shares_a_word(candidate.subject.replace("_", " "), candidate.quote)):
        return None
    return (f"quote is in the first person in {turn.speaker}'s turn: what it says is about {own},"
            f" not {candidate.subject}")
