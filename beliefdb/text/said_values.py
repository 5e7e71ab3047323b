"""Where a value a speaker says of themselves ends (:mod:`beliefdb.text.self_statements`).

A value ends at a clause (", ", " and ", " because ", " not ", ...) and loses trailing time phrases ("last
month", "a couple of weeks ago", "these days", "every Tuesday"), a leading article only at its
start (never letters inside a name), and is no value when it points elsewhere ("their fries"), so
"I moved to Berlin last month" says ``lives_in`` = ``Berlin``.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["CLAUSE_END_RE", "LEAD_DET_RE", "POINTER_RE", "said_name", "said_thing", "said_value"]

CLAUSE_END_RE: Final = re.compile(
    r"\s*(?:[,;:(—]|\s-\s|\b(?:and|but|because|since|so|which|who|where|when|while|though|although|after|"
    r"before|until|as|if|with|for|to be)\b|(?<=\s)not\b).*$", re.IGNORECASE)  # ("Lisbon not Porto": Lisbon)
_TIME_TAIL_RE: Final = re.compile(
    r"\s+(?:(?:last|this|next|past)\s+\w+|\d+\s+\w+\s+ago|a\s+(?:few\s+|couple\s+(?:of\s+)?)?\w+\s+ago|"
    r"(?:a\s+)?(?:couple|few)\s+(?:of\s+)?\w+\s+ago|these days|nowadays|yesterday|today|tonight|"
    r"(?:once|twice|\w+\s+times)\s+a\s+\w+|every\s+(?:single\s+)?\w+|"
    r"recently|now|already|again|too|anymore|any more|as well|lately|(?:in|on|since|around|about|from)\s+"
    r"(?:\d{4}|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|spring|summer|autumn|fall|winter)\b.*)$",
    re.IGNORECASE)
LEAD_DET_RE: Final = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)  # anchored: "Tundra Foods" keeps its "a"
# a value that points at something said elsewhere ("we use their fries") names nothing
POINTER_RE: Final = re.compile(r"(?:their|his|her|its|this|that|these|those|them|it|theirs|one)\b", re.IGNORECASE)
_MAX_VALUE_WORDS: Final = 8


def said_value(raw: str) -> str | None:
    """A value cut at the end of its clause, without trailing time phrases, determiners or stops."""
    value = CLAUSE_END_RE.sub("", raw.strip())
    while True:
        shorter = _TIME_TAIL_RE.sub("", value)
        if shorter == value:
            break
        value = shorter
    value = value.strip(" .!\"'“”‘’*`")
    if not value or len(value.split()) > _MAX_VALUE_WORDS or POINTER_RE.match(value):
        return None
    return value


def said_thing(raw: str) -> str | None:
    """A value without a leading article ("the annual plan" -> "annual plan")."""
    value = said_value(raw)
    return LEAD_DET_RE.sub("", value, count=1) if value is not None else None


_NAME_RE: Final = re.compile(r"[A-Z][\w&.'-]*(?:\s+[A-Z0-9][\w&.'-]*)*")  # case-sensitive: capitalised words


def said_name(raw: str) -> str | None:
    """The capitalised words a value starts with ("Quill Press keeps me busy" -> "Quill Press")."""
    m = _NAME_RE.match(raw.strip())
    return said_thing(m.group(0)) if m is not None else None
