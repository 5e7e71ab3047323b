"""The evidence gate (truth rule 1 of docs/rules.md), Python side: find a candidate's quote in the source text.

A quote is accepted only as an exact substring: no normalisation, no whitespace folding.
When it is not, the reason says how close it came, so an extractor's author can fix it.
The database checks the offsets again and refuses evidence that does not match.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property

from beliefdb.text.extractor import Candidate


@dataclass(frozen=True)
class Located:
    candidate: Candidate
    start: int
    end: int


def _fold_space(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


class SourceForms:
    """The forms of one source text that rejection reasons compare a quote with (whitespace folded,
    NFC, NFKC, case folded), each made once when first needed: made again for every rejected
    candidate, a document with many rejections took time quadratic in its length."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def folded(self) -> str:
        return _fold_space(self.text)

    @cached_property
    def nfc(self) -> str:
        return unicodedata.normalize("NFC", self.text)

    @cached_property
    def nfkc(self) -> str:
        return unicodedata.normalize("NFKC", self.text)

    @cached_property
    def casefolded(self) -> str:
        return self.text.casefold()


def rejection_reason(text: str, candidate: Candidate, forms: SourceForms | None = None) -> str:
    """Why a quote is not accepted where it stands (only called when it is not)."""
    forms = forms if forms is not None and forms.text is text else SourceForms(text)
    quote = candidate.quote
    at = text.find(quote)
    if at >= 0:
        return (f"quote is in the source at [{at}, {at + len(quote)}), "
                f"not at the given offsets [{candidate.start}, {candidate.end})")
    if _fold_space(quote) and _fold_space(quote) in forms.folded:
        return "quote differs from the source text in whitespace"
    if unicodedata.normalize("NFC", quote) in forms.nfc:
        return "quote differs from the source text in Unicode normalisation (NFC)"
    if unicodedata.normalize("NFKC", quote) in forms.nfkc:
        return "quote differs from the source text in Unicode normalisation (NFKC)"
    if quote.casefold() in forms.casefolded:
        return "quote differs from the source text in letter case"
    return "quote is not in the source text"


def locate(text: str, candidate: Candidate, forms: SourceForms | None = None) -> Located | str:
    """The quote's exact offsets in ``text``, or the reason it is rejected.

    With offsets, checking them reads only the quote's span; without, the text is searched once
    (``str.find``: the first occurrence)."""
    quote = candidate.quote
    if not quote.strip():
        return "quote is empty"
    if candidate.start is not None or candidate.end is not None:
        if candidate.start is None or candidate.end is None:
            return "quote offsets need both start and end"
        in_text = 0 <= candidate.start < candidate.end <= len(text)
        if in_text and text[candidate.start:candidate.end] == quote:
            return Located(candidate, candidate.start, candidate.end)
        return rejection_reason(text, candidate, forms)
    start = text.find(quote)
    if start < 0:
        return rejection_reason(text, candidate, forms)
    return Located(candidate, start, start + len(quote))


def gate(text: str, candidates: list[Candidate]) -> tuple[list[Located], list[tuple[Candidate, str]]]:
    """Split candidates into located ones and rejected ones with reasons; none is dropped."""
    forms = SourceForms(text)
    located: list[Located] = []
    rejected: list[tuple[Candidate, str]] = []
    for candidate in candidates:
        result = locate(text, candidate, forms)
        if isinstance(result, Located):
            located.append(result)
        else:
            rejected.append((candidate, result))
    return located, rejected
