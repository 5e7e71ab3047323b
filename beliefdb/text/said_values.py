"""Where a value a speaker says of themselves ends (:mod:`beliefdb.text.self_statements`).

A value ends at a clause (", ", " and ", " because ", " not ", ...) and loses trailing time phrases ("last
month", "a couple of weeks ago", "these days", "every Tuesday"), a leading article only at its
start (never letters inside a name), and is no value when it points elsewhere ("their fries"), so
"I moved to Berlin last month" says ``lives_in`` = ``Berlin``.

A speaker correcting a value says it with words around it that are no part of it: a filler adverb before or
after it ("my email is actually X", "I live in X now"), an emoji or emoticon after it ("X 🙂"). An email
address (or a phone number with its area code in brackets) is taken whole, so no clause word inside it
("jane.and.joe@x.com") cuts it; an address keeps the parts after its commas that name a place ("9 Elm Rd,
Shelbyville"), where any other value ends at the comma.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["CLAUSE_END_RE", "DATUM_RE", "LEAD_DET_RE", "LEAD_FILLER_RE", "POINTER_RE", "said_name", "said_thing",
           "said_value", "without_emoji"]

CLAUSE_END_RE: Final = re.compile(
    r"\s*(?:[,;:(—]|\s-\s|\b(?:and|but|because|since|so|which|who|where|when|while|though|although|after|"
    r"before|until|as|if|with|for|to be)\b|(?<=\s)not\b).*$", re.IGNORECASE)  # ("Lisbon not Porto": Lisbon)
_TIME_TAIL_RE: Final = re.compile(
    r"\s+(?:(?:last|this|next|past)\s+\w+|\d+\s+\w+\s+ago|a\s+(?:few\s+|couple\s+(?:of\s+)?)?\w+\s+ago|"
    r"(?:a\s+)?(?:couple|few)\s+(?:of\s+)?\w+\s+ago|these days|nowadays|yesterday|today|tonight|"
    r"(?:once|twice|\w+\s+times)\s+a\s+\w+|every\s+(?:single\s+)?\w+|"
    r"recently|now|right\s+now|at\s+the\s+moment|already|again|too|anymore|any more|as well|lately|"
    r"(?-i:actually|really|still|currently)|(?:in|on|since|around|about|from)\s+"
    r"(?:\d{4}|january|february|march|april|may|june|july|august|september|october|november|december|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|spring|summer|autumn|fall|winter)\b.*)$",
    re.IGNORECASE)
LEAD_DET_RE: Final = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)  # anchored: "Tundra Foods" keeps its "a"
# a value that points at something said elsewhere ("we use their fries") names nothing
POINTER_RE: Final = re.compile(r"(?:their|his|her|its|this|that|these|those|them|it|theirs|one)\b", re.IGNORECASE)
_MAX_VALUE_WORDS: Final = 8
_MAX_ADDRESS_WORDS: Final = 16  # "Flat 3, 12 Baker Street, London NW1 6XE, United Kingdom"

# lowercase only: a name may start with one of these words ("Now TV", "Still Waters")
LEAD_FILLER_RE: Final = re.compile(r"(?:(?:actually|really|now|still|currently)\s+)+")
"""Filler adverbs before a value ("my email is actually X")."""
DATUM_RE: Final = re.compile(r"[\d+(A-Z]|[^\s@]+@")
"""What starts a value that no adjective starts: a number, a name, an email address ("my email is really X"
says X, where "my son is really happy" gives his no value)."""
_EMAIL_RE: Final = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_BRACKETED_PHONE_RE: Final = re.compile(r"\+?[\d ]*\(\d{1,5}\)[\d .-]*\d")  # "(" would end its clause
# the emoji blocks, flags and skin tones included, with the joiners and selectors that build one emoji of
# several; not "©", "°" or "™", which a value may end with
_EMOJI: Final = ("[\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff\U000e0020-\U000e007f"
                 "\ufe0e\ufe0f\u200d\u20e3]")
_EMOTICON: Final = r"(?:[:;=][-'^o]?[)(\]\[DPpOo3/\\|*>]+|<3+|\^_*\^|[xX]D+)"
_EMOJI_TAIL_RE: Final = re.compile(rf"(?:\s*{_EMOJI}+|\s+{_EMOTICON})[\s.!]*$")
# an address's first part names a street and its number ("9 Elm Rd", "Flat 3"); a part after it a town, a
# postcode, a state or a country, in capitalised words and numbers ("Newcastle upon Tyne" keeps its "upon")
_STREET_RE: Final = re.compile(r"(?=.*\d)(?=.*[^\W\d_]).+")
_PLACE_WORDS_RE: Final = re.compile(
    r"(?:(?-i:[A-Z0-9])[\w.'-]*|upon|on|de|da|do|del|la|le|am|im|sur|of)(?:\s+(?:(?-i:[A-Z0-9])[\w.'-]*|"
    r"upon|on|de|da|do|del|la|le|am|im|sur|of))*", re.IGNORECASE)
_NOT_A_PLACE_RE: Final = re.compile(
    r"(?:i|i['’]m|i['’]ve|we|my|our|it|it['’]s|that|this|they|he|she|you|thanks|thank|cheers|please|sorry|ok|okay|"
    r"yes|no|lol|haha)\b", re.IGNORECASE)


def without_emoji(text: str) -> str:
    """``text`` without the emoji and emoticons at its end ("São Paulo now 🙂" -> "São Paulo now")."""
    while True:
        shorter = _EMOJI_TAIL_RE.sub("", text)
        if shorter == text:
            return text
        text = shorter


def _address(raw: str) -> str | None:
    """The parts of an address up to the first that names no place ("5 Main St, Springfield, which is
    nice" -> "5 Main St, Springfield"), or None when its first part names no street and number."""
    first, *rest = raw.split(",")
    street = CLAUSE_END_RE.sub("", first.strip())
    if not _STREET_RE.fullmatch(street):
        return None
    kept = [street]
    for part in rest if street == first.strip() else []:
        place = CLAUSE_END_RE.sub("", part.strip())
        if not _PLACE_WORDS_RE.fullmatch(place) or _NOT_A_PLACE_RE.match(place):
            break
        kept.append(place)
        if place != part.strip():
            break
    return ", ".join(kept)


def said_value(raw: str, *, address: bool = False) -> str | None:
    """A value cut at the end of its clause (an ``address`` after its place names), without filler adverbs,
    trailing time phrases, emoji, determiners or stops."""
    value = LEAD_FILLER_RE.sub("", without_emoji(raw.strip()), count=1)
    datum = _EMAIL_RE.match(value) or _BRACKETED_PHONE_RE.match(value)
    if datum is not None:
        return datum.group(0)
    value = (_address(value) if address else None) or CLAUSE_END_RE.sub("", value)
    while True:
        shorter = _TIME_TAIL_RE.sub("", without_emoji(value))
        if shorter == value:
            break
        value = shorter
    value = value.strip(" .!\"'“”‘’*`")
    if not value or len(value.split()) > (_MAX_ADDRESS_WORDS if address else _MAX_VALUE_WORDS) \
            or POINTER_RE.match(value):
        return None
    return value


def said_thing(raw: str, *, address: bool = False) -> str | None:
    """A value without a leading article ("the annual plan" -> "annual plan")."""
    value = said_value(raw, address=address)
    return LEAD_DET_RE.sub("", value, count=1) if value is not None else None


_NAME_RE: Final = re.compile(r"[A-Z][\w&.'-]*(?:\s+[A-Z0-9][\w&.'-]*)*")  # case-sensitive: capitalised words


def said_name(raw: str) -> str | None:
    """The capitalised words a value starts with ("Quill Press keeps me busy" -> "Quill Press")."""
    m = _NAME_RE.match(raw.strip())
    return said_thing(m.group(0)) if m is not None else None
