"""Number words (zero to ninety-nine, a hundred): the rule extractor reads them as quantities, and the
ingest report compares them with the numerals beside them."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["NUMBER_WORD", "number_word_value"]

_UNITS: Final = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS: Final = {w: 10 * (i + 2) for i, w in enumerate(
    ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"))}
_UNIT_WORDS: Final = "|".join(_UNITS[1:10])
NUMBER_WORD: Final = (rf"(?:(?:{'|'.join(_TENS)})(?:[-\s](?:{_UNIT_WORDS}))?|{'|'.join(reversed(_UNITS))}"
                      r"|(?:one\s+|a\s+)?hundred)")
"""A number word from zero to ninety-nine, or (one) hundred (regex, use case-insensitively)."""


def number_word_value(word: str) -> int:
    """The value of a number word matched by :data:`NUMBER_WORD`."""
    parts = re.split(r"[-\s]+", word.lower())
    if parts[-1] == "hundred":
        return 100
    if parts[0] in _TENS:
        return _TENS[parts[0]] + (_UNITS.index(parts[1]) if len(parts) > 1 else 0)
    return _UNITS.index(parts[0])
