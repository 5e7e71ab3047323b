"""What else a turn says that the turn extractor reads beside a speaker's statements about themselves
(:mod:`beliefdb.text.self_statements`): a named person's age ("Theo is 6"), an age of "she" or "he", a
value in place of another ("switched from X to Y"), a switch to a thing of no named kind, the family
members named ("my daughter Mila"), and whether a third-person value names something.
"""

from __future__ import annotations

import re
from typing import Final

from beliefdb.text.extractor import normalise_name
from beliefdb.text.said_values import LEAD_DET_RE, POINTER_RE, said_thing
from beliefdb.text.self_statements import (
    _ADVERB,
    _AGE,
    _APOS,
    _NOT_A_VALUE_RE,
    _NUMBER,
    _PEOPLE_AND_PETS,
    _WE,
    Found,
    _without_fillers,
    _years,
)

__all__ = ["bare_switch", "named_age", "plain_value", "pronoun_age", "relations", "replacement"]

_NAMED_AGE_RE: Final = re.compile(
    rf"(?P<name>[A-Z][a-z]+)\s+(?:is|turned|just\s+turned)\s+{_NUMBER}"
    rf"(?:\s+(?:years?\s+old|now|already|(?:last|this)\s+(?:week|month|weekend|year)))?\s*(?:[,;.!]|$)")
_NOT_A_NAME: Final = frozenset({
    "it", "this", "that", "he", "she", "there", "here", "what", "which", "who", "everything", "nothing", "something",
    "one", "mine", "ours", "theirs", "his", "hers", "today", "price"})
_THING: Final = r"(?:(?:the|a|an|my|our|old)\s+)*(?P<{}>[\w' -]+?)"
# a new value in place of an old one: the new one takes the attribute the speaker gave the old one
_REPLACEMENT_RES: Final = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"(?:{_WE}\s+)?{_ADVERB}sold\s+{_THING.format('old')}\s+and\s+(?:bought|got)\s+{_THING.format('new')}$",
    rf"(?:{_WE}(?:{_APOS}ve|\s+have)?\s+)?{_ADVERB}(?:switched|changed|moved)\s+from\s+{_THING.format('old')}\s+to\s+"
    rf"{_THING.format('new')}(?:\s*,.*)?$",
    rf"(?:{_WE}(?:{_APOS}ve|\s+have)?\s+)?{_ADVERB}(?:quit|dropped|stopped|gone\s+off|given\s+up(?:\s+on)?)\s+"
    rf"{_THING.format('old')}\s*,\s*it{_APOS}s\s+{_THING.format('new')}(?:\s+now)?$",
    rf"i\s+{_ADVERB}left\s+{_THING.format('old')}\s*[;,]\s*{_THING.format('new')}\s+made\s+me\s+an\s+offer\b.*$",
))
_RELATION_RE: Final = re.compile(  # case-sensitive: the name is capitalised
    rf"\b(?:[Mm]y|[Oo]ur)\s+(?P<r>{'|'.join(sorted(_PEOPLE_AND_PETS))})\s+(?P<name>[A-Z][a-z]+)\b")
_NOT_PLAIN_RE: Final = re.compile(rf"(?:{_NOT_A_VALUE_RE.pattern}|\w+ed)\b", re.IGNORECASE)


# (the age ends the clause: "She's 6 now, I forgot to say" says it; "she's 6 feet tall", "he is 5 minutes
# away", "he's 1.8 m tall" and "he's 20, 30 minutes late" do not, nor a question; "turned 6 on Sunday" is
# past, "is 7 on Monday" is not yet)
_AGE_ENDS: Final = r"\s*(?:[;!]|\.(?!\d)|,(?!\s*(?:\d|or\b|maybe\b|almost\b))|$)"
_PRONOUN_AGE_RES: Final = (
    re.compile(rf"(?P<who>she|he)(?:{_APOS}s|\s+is)\s+(?:now\s+|already\s+|just\s+)?{_AGE}"
               r"(?:\s+(?:years?|yrs?)(?:\s+old)?)?(?:\s+(?:now|already|today))?" + _AGE_ENDS, re.IGNORECASE),
    re.compile(rf"(?P<who>she|he)\s+(?:has\s+)?(?:just\s+)?turned\s+{_AGE}(?:\s+(?:years?|yrs?)(?:\s+old)?)?"
               r"(?:\s+(?:today|yesterday|(?:last|this)\s+(?:week|weekend|month|year)|on\s+[A-Za-z]+))?" + _AGE_ENDS,
               re.IGNORECASE),
)


def pronoun_age(sentence: str) -> tuple[str, str] | None:
    """``(pronoun, age)`` from a sentence that says an age of "she" or "he" ("She's 6 now.", "he is seven",
    "She just turned 6!", "she's 6 now, I forgot to say"): whose age it is, the turn extractor reads from
    the relations given an age before."""
    body = _without_fillers(sentence).strip()
    if body.endswith("?"):
        return None
    for pattern in _PRONOUN_AGE_RES:
        m = pattern.match(body)
        if m is not None:
            return m.group("who").lower(), _years(m)
    return None


def named_age(sentence: str) -> Found | None:
    """``(name, age)`` from "Theo is 6, so ..." / "Theo turned 7 last week" / "Can you believe Theo is 7
    already?" (a person named, not the speaker)."""
    body = _without_fillers(sentence)
    believe = re.match(r"can\s+you\s+believe\s+(?:that\s+)?", body, re.IGNORECASE)
    if believe is not None:  # a rhetorical question states what it asks
        body = body[believe.end():].rstrip("?")
    m = _NAMED_AGE_RE.match(body)
    if m is None or m.group("name").lower() in _NOT_A_NAME:
        return None
    return normalise_name(m.group("name")), m.group("n")


def replacement(sentence: str) -> tuple[str, str] | None:
    """``(old, new)`` from "sold the X and bought a Y", "switched from X to Y", "I quit X, it's Y now",
    "I left X; Y made me an offer": Y then takes the attribute the speaker gave X before."""
    body = _without_fillers(sentence).rstrip(".!").strip()
    for pattern in _REPLACEMENT_RES:
        m = pattern.match(body)
        if m is not None:
            old, new = said_thing(m.group("old")), said_thing(m.group("new"))
            return (old, new) if old and new else None
    return None


_BARE_SWITCH_RE: Final = re.compile(
    rf"{_WE}\s+{_ADVERB}(?:switched|moved|changed|went\s+over)\s+to\s+(?P<x>[a-z][a-z -]*)", re.IGNORECASE)


def bare_switch(sentence: str) -> bool:
    """Whether ``sentence`` is a switch to a thing it does not name the kind of ("I switched to rooibos",
    lower-case, no article): the turn extractor gives it the speaker's favourite, the habit it changes."""
    m = _BARE_SWITCH_RE.match(_without_fillers(sentence))
    return m is not None and m.group("x")[:1].islower() and LEAD_DET_RE.match(m.group("x")) is None \
        and not re.match(r"(?:my|our|your|their|his|her)\b", m.group("x"))


def relations(sentence: str) -> list[tuple[str, str]]:
    """``(name, relation)`` of "my daughter Mila", "our dog Rex" in ``sentence``."""
    return [(normalise_name(m.group("name")), m.group("r").lower()) for m in _RELATION_RE.finditer(sentence)]


def plain_value(value: str) -> bool:
    """Whether a third-person value names something, not a state or an act ("parked outside, ...")."""
    return _NOT_PLAIN_RE.match(value.strip()) is None and POINTER_RE.match(value.strip()) is None
