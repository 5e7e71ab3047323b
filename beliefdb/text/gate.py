"""The evidence gate (truth rule 1 of docs/rules.md), Python side: find a candidate's quote in the source text.

A quote is accepted only as an exact substring: no normalisation, no whitespace folding.
When it is not, the reason says how close it came, so an extractor's author can fix it.
The database checks the offsets again and refuses evidence that does not match.

A model's proposal (the llm extractor's, not a caller's own claims nor the rule extractor's, which read
whole sentences by fixed rules) must also quote whole words and support its value
(:func:`model_quote`): a quote that cuts a word ("e", "The C") or a value that shares no word or number
with its quote ("10 million" quoting "e") is refused. The extractor runs this check where the model's
own quote is known (a conversation's quote is widened to its whole turn afterwards) and marks the
candidate :attr:`~beliefdb.text.extractor.Candidate.refused`; the gate rejects it with that reason.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import Final

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


# scripts written without spaces between words: a quote may begin or end inside a run of their letters
_UNSPACED: Final = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x2E80, 0x9FFF), (0xF900, 0xFAFF),
                    (0x20000, 0x3FFFF))


def _in_word(ch: str) -> bool:
    # (a letter, digit or combining mark: a vowel sign of Devanagari, an accent written apart, is in its word)
    return (ch.isalnum() or unicodedata.category(ch).startswith("M")) and \
        not any(a <= ord(ch) <= b for a, b in _UNSPACED)


def _cut_at(text: str, i: int) -> bool:
    """Whether a cut between ``text[i - 1]`` and ``text[i]`` is inside a word, or inside a number ("$4" of
    "$4.99", "1" of "1,000,000": a decimal or grouping mark between two digits)."""
    if not 0 < i < len(text):
        return False
    if _in_word(text[i - 1]) and _in_word(text[i]):
        return True
    return (text[i - 1] in ".,:'’" and i >= 2 and text[i - 2].isdigit() and text[i].isdigit()) or \
        (text[i] in ".,:'’" and i + 1 < len(text) and text[i - 1].isdigit() and text[i + 1].isdigit())


def cuts_a_word(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` begins or ends inside a word (a letter, digit or mark on both sides of a
    cut) or a number (a decimal or grouping mark between two digits at the cut)."""
    return _cut_at(text, start) or _cut_at(text, end)


def _plain(s: str) -> str:
    """``s`` compared as words are: NFKD without its accents, case folded, whitespace as one space."""
    decomposed = unicodedata.normalize("NFKD", s)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


_NUMBER: Final = re.compile(r"\d+(?:[.,'’]\d+)*")
_LETTERS: Final = re.compile(r"[^\W\d_]{2,}")


def _numbers(s: str) -> set[str]:
    """The numbers ``s`` writes, each as its value: grouping marks dropped, a decimal's trailing zeros too
    ("49.00" and "49", "2.50" and "2.5" are one number, as a model's JSON number gives them)."""
    numbers = set()
    for n in _NUMBER.findall(s):
        n = re.sub(r"[,'’]", "", n)
        numbers.add(n.rstrip("0").rstrip(".") if "." in n else n)
    return numbers


def shares_a_word(value: str, quote: str) -> bool:
    """Whether ``value`` has a word of 2+ letters or a number its quote has too (case, accents and whitespace
    aside; a word as the start of one of the quote's: "refund" in "Refunds"; a number whole: "5" is not in
    "15"), or has neither (nothing to compare). "60 days" for "sixty days" shares "days"."""
    value, quote = _plain(value), _plain(quote)
    words, numbers = _LETTERS.findall(value), _numbers(value)
    if (not words and not numbers) or value in ("true", "false"):  # (a yes or no the quote says in words)
        return True
    if numbers & _numbers(quote):
        return True
    return any(re.search(rf"(?<![^\W\d_]){re.escape(w)}", quote) or (not _in_word(w[0]) and w in quote)
               for w in words)


#: the reasons :func:`model_quote` gives (the ingest report's rejected and skipped lists say them)
CUTS_A_WORD: Final = "quote cuts a word (a model's quote must begin and end at word boundaries)"
VALUE_NOT_QUOTED: Final = "the value shares no word or number with its quote"


def model_quote(text: str, quote: str, value: str, within: tuple[int, int] | None = None
                ) -> tuple[int, int, str | None] | None:
    """Where a model's ``quote`` for ``value`` lies in ``text`` (in ``within``, a span of it, when given): the
    first occurrence that begins and ends on word boundaries, with None, or the first occurrence and why the
    proposal is refused (:data:`CUTS_A_WORD`, :data:`VALUE_NOT_QUOTED`); None when it is not in the text
    verbatim (the gate says how close it came)."""
    lo, hi = within if within is not None else (0, len(text))
    if not quote.strip():
        return None
    first = at = text.find(quote, lo, hi)
    if first < 0:
        return None
    while at >= 0 and cuts_a_word(text, at, at + len(quote)):
        at = text.find(quote, at + 1, hi)
    if at < 0:
        return first, first + len(quote), CUTS_A_WORD
    return at, at + len(quote), None if shares_a_word(value, quote) else VALUE_NOT_QUOTED


def gate(text: str, candidates: list[Candidate]) -> tuple[list[Located], list[tuple[Candidate, str]]]:
    """Split candidates into located ones and rejected ones with reasons; none is dropped."""
    forms = SourceForms(text)
    located: list[Located] = []
    rejected: list[tuple[Candidate, str]] = []
    for candidate in candidates:
        if candidate.refused is not None:  # (a model's proposal its extractor found refused: model_quote)
            rejected.append((candidate, candidate.refused))
            continue
        result = locate(text, candidate, forms)
        if isinstance(result, Located):
            located.append(result)
        else:
            rejected.append((candidate, result))
    return located, rejected
