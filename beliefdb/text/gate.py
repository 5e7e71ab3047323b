"""The evidence gate (truth rule 1 of docs/rules.md), Python side: find a candidate's quote in the source text.

A quote is accepted only as an exact substring: no normalisation, no whitespace folding.
When it is not, the reason says how close it came, so an extractor's author can fix it.
The database checks the offsets again and refuses evidence that does not match.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from beliefdb.text.extractor import Candidate


@dataclass(frozen=True)
class Located:
    candidate: Candidate
    start: int
    end: int


def _fold_space(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def rejection_reason(text: str, candidate: Candidate) -> str:
    """Why a quote is not accepted where it stands (only called when it is not)."""
    quote = candidate.quote
    if quote in text:
        return (f"quote is in the source at [{text.index(quote)}, {text.index(quote) + len(quote)}), "
                f"not at the given offsets [{candidate.start}, {candidate.end})")
    if _fold_space(quote) and _fold_space(quote) in _fold_space(text):
        return "quote differs from the source text in whitespace"
    for form in ("NFC", "NFKC"):
        if unicodedata.normalize(form, quote) in unicodedata.normalize(form, text):
            return f"quote differs from the source text in Unicode normalisation ({form})"
    if quote.casefold() in text.casefold():
        return "quote differs from the source text in letter case"
    return "quote is not in the source text"


def locate(text: str, candidate: Candidate) -> Located | str:
    """The quote's exact offsets in ``text``, or the reason it is rejected."""
    quote = candidate.quote
    if not quote.strip():
        return "quote is empty"
    if candidate.start is not None or candidate.end is not None:
        if candidate.start is None or candidate.end is None:
            return "quote offsets need both start and end"
        in_text = 0 <= candidate.start < candidate.end <= len(text)
        if in_text and text[candidate.start:candidate.end] == quote:
            return Located(candidate, candidate.start, candidate.end)
        return rejection_reason(text, candidate)
    start = text.find(quote)
    if start < 0:
        return rejection_reason(text, candidate)
    return Located(candidate, start, start + len(quote))


def gate(text: str, candidates: list[Candidate]) -> tuple[list[Located], list[tuple[Candidate, str]]]:
    """Split candidates into located ones and rejected ones with reasons; none is dropped."""
    located: list[Located] = []
    rejected: list[tuple[Candidate, str]] = []
    for candidate in candidates:
        result = locate(text, candidate)
        if isinstance(result, Located):
            located.append(result)
        else:
            rejected.append((candidate, result))
    return located, rejected
