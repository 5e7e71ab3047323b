"""What people say about themselves in a conversation, as (attribute, value) of the speaker.

Rules, per sentence of a turn (leading fillers such as "oh," "actually," "so", "now", "these days",
"I typed it wrong," skipped, and emoji at its end; a change in the perfect tense read as said in the past,
"I've moved to X" as "I moved to X", "I've been living in X" as "I'm living in X"; the first match wins;
questions give nothing):

- ``I moved (from W) to X`` / ``I live in X`` / ``I'm living in X`` / ``I'm based in X``   -> ``lives_in`` = X
- ``I work at/for X`` / ``I started (working) at X`` / ``I joined X`` /
  ``I got a (new) job at X``                                                        -> ``works_at`` = X
- ``I work as a X`` / ``I'm working as a X``                                       -> ``job`` = X
- ``I'm from X`` / ``I was born in X``                                             -> ``from`` / ``birthplace``
- ``I'm N (years old)`` / ``I turned N`` (N in digits or words)                     -> ``age`` = N
- ``my/our favo(u)rite X is Y``                                                    -> ``favorite_x`` = Y (one
  spelling: ``favorite_color`` for "favourite colour" too)
- ``my/our X's Y is V``                                                            -> ``x_y`` = V
- ``my/our X is N (years old)`` / ``my X's N`` / ``my X turned N`` (X a person or pet, N in
  digits or words)                                                                  -> ``x_age`` = N
- ``my/our X is V``                                                                 -> ``x`` = V ("my new /
  current / updated X" is X too, "my e-mail (address)" ``email``; an address keeps its town after a comma)
- ``I'm (now/no longer) allergic to X``                                             -> ``allergic_to_x`` = yes / no
- ``we/I switched/moved/changed/upgraded to the X plan``                            -> ``plan`` = X plan (the
  last word of a ``the ...`` phrase names the attribute; otherwise ``uses``)
- ``I/we (now) use X``                                                              -> ``uses`` = X
- ``I have N things`` / ``I weigh N kg`` / ``I earn N``                             -> ``thing_count``,
  ``weight``, ``income``; ``I have no things (anymore)`` / ``I no longer have things`` -> ``thing_count`` = 0
- ``I'm (a) vegetarian/vegan/...``                                                  -> ``diet``
- ``I no longer live in / work at / use X``, ``I'm no longer (a) vegetarian``       -> that attribute
  (``diet``) = ``not X``;
  ``I no longer V`` otherwise                                                         -> ``v`` = ``no``

- ``I play X every ...``                                                             -> ``plays`` = X
- ``(I'm) still at X`` / ``I switched jobs, I'm at X`` / ``started my new job at X`` /
  ``my job at X``                                                                   -> ``works_at`` = X
- ``I (still) drive a X``                                                           -> ``car`` = X;
  ``replaced the N, it's a X``                                                      -> ``n`` = X;
  ``sold the X and bought a Y``                                                     -> ``owns`` = Y (the
  turn extractor gives Y the attribute the speaker gave X before, so the change supersedes)
- ``we're planning to go to X`` / ``flights to X are booked``                       -> ``trip`` = X
- ``(we) changed the N to the X plan`` / ``signed up for N on the X plan``          -> ``plan``
- ``my go-to X is Y``                                                               -> ``favorite_x`` = Y
- a family member's attribute is named by the relation, with or without the name: ``my daughter
  Finn is 6`` and ``my daughter is 7`` are both ``daughter_age``; ``she's 8``
  (:func:`beliefdb.text.mentions.pronoun_age`) is too when the speaker gave an age to one relation
  she can be before

A value ends where :mod:`beliefdb.text.said_values` says (a clause, a trailing time phrase), so
"I moved to Berlin last month" says ``lives_in`` = ``Berlin``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from beliefdb.text.extractor import normalise_name
from beliefdb.text.numbers import NUMBER_WORD, number_word_value
from beliefdb.text.said_values import (
    CLAUSE_END_RE,
    DATUM_RE,
    LEAD_DET_RE,
    LEAD_FILLER_RE,
    said_name,
    said_thing,
    said_value,
    without_emoji,
)

__all__ = ["FIRST_PERSON_RE", "Found", "first_person", "says_i", "self_statement"]

_APOS: Final = r"['’]"
_I_AM: Final = rf"(?:i{_APOS}m|i am)"
_WE: Final = r"(?:i|we)"
_ADVERB: Final = r"(?:(?:just|recently|finally|now|actually|already|also|even|officially|currently|still)\s+)*"
_FILLER_RE: Final = re.compile(
    r"(?:(?:oh|well|so|yeah|yes|yep|no|nope|actually|btw|by the way|also|and|but|anyway|guess what|fun fact|"
    r"hey|hi|hello|ok|okay|um|uh|haha|lol|honestly|basically|now|nowadays|these days|"
    # (a reply before the statement: "Yes please, I'm 35 now")
    r"please|thanks|thank you|cool|great|wow|sure|nice|awesome|perfect|"
    # (a speaker correcting what they said: "Sorry, that was wrong: I still live in Lisbon")
    r"sorry|oops|my bad|my mistake|correction|to be clear|that was wrong|that's wrong|that is wrong|I was wrong|"
    r"scratch that|(?:i['’]m|i am)\s+(?:so\s+)?sorry(?=\s*[,!:.\-—])|"  # ("I'm sorry to hear ..." says more)
    # ("I typed it wrong, my email is really X": what the speaker says next is the right value)
    r"i\s+(?:typed|spelled|spelt|wrote|got|gave\s+you)\s+(?:it|that|this|the\s+\w+)\s+wrong|"
    r"i\s+(?:mistyped|misspelled|misspelt)(?:\s+(?:it|that))?|(?:i\s+made\s+a\s+|that\s+was\s+a\s+)?typo|"
    r"(?:(?:big|great|good|bad|sad|exciting|some|quick|small|little)\s+)?(?:update|news))\b\s*[,!:.\-—]*\s+)+",
    re.IGNORECASE)
FIRST_PERSON_RE: Final = re.compile(rf"(?:i|i{_APOS}(?:m|ve|d|ll)|me|my|we|we{_APOS}(?:re|ve|d|ll)|our|us)\b",
                                    re.IGNORECASE)
"""A sentence (fillers skipped) that starts in the first person: not for the third-person rules."""

_NUMBER: Final = r"(?P<n>\d+(?:[.,]\d+)?)"
_AGE: Final = rf"(?P<n>\d+|{NUMBER_WORD})"  # an age: "5", "five", "twenty-one"


def _years(m: re.Match[str]) -> str:
    """The age :data:`_AGE` matched, in digits."""
    n = m.group("n")
    return n if n.isdigit() else str(number_word_value(n))

def _word_age(word: str) -> str | None:
    """An age said in words ("thirty-five" -> "35"); "I'm one" or "zero" is no one's age in a chat."""
    n = number_word_value(word)
    return str(n) if n >= 2 else None

_PEOPLE_AND_PETS: Final = frozenset({
    "son", "daughter", "kid", "child", "baby", "boy", "girl", "brother", "sister", "mom", "mum", "mother", "dad",
    "father", "wife", "husband", "partner", "grandma", "grandmother", "grandpa", "grandfather", "dog", "cat",
    "puppy", "kitten", "niece", "nephew", "cousin", "friend", "boyfriend", "girlfriend", "twin", "aunt", "uncle",
})
_DIETS: Final = frozenset({"vegetarian", "vegan", "pescatarian", "keto", "gluten-free", "lactose intolerant"})
# "I have 4 because ...", "I have 5 of my friends": no thing counted
_FUNCTION_WORDS: Final = frozenset({"because", "of", "in", "at", "to", "for", "and", "or", "but", "so", "more", "less",
                                    "other", "different", "left", "already", "now", "too", "times"})

# What follows "my X is" when it is not X's value: "my point is that ...", "my mom is coming", "my
# plan is to ...", "my son is so happy".
_NOT_A_VALUE_RE: Final = re.compile(
    r"(?:not|no longer|also|still|so|very|really|too|that|to|like|just|kind of|sort of|pretty|quite|a bit|"
    r"always|never|probably|maybe|definitely|here|there|back|over|gonna|going|\w+ing)\b", re.IGNORECASE)

Found = tuple[str, str]  # (attribute, value)


def _named(attribute: str, value: str | None) -> Found | None:
    return (attribute, value) if value else None


def _switched(m: re.Match[str]) -> Found | None:
    raw = m.group("x")
    value = said_thing(raw)
    if value is None:
        return None
    if LEAD_DET_RE.match(raw.strip()) or raw.strip().lower().startswith(("our ", "my ")):
        value = re.sub(r"^(?:our|my)\s+", "", value, flags=re.IGNORECASE)
        last = normalise_name(value.split()[-1])
        if last and len(value.split()) >= 2:
            return last, value
    return "uses", value


# words before a noun that say which of its values is meant, not which attribute: "my new address" is what
# "my address" was, so the one supersedes the other
_FRESH: Final = frozenset({"new", "current", "updated", "correct", "actual", "latest", "present"})


def _attribute(noun: str) -> str:
    """The attribute "my <noun>" names: without the words of :data:`_FRESH` before it, and an email address
    as ``email`` ("my e-mail address" is what "my email" is)."""
    parts = normalise_name(noun).split("_")
    while len(parts) > 1 and parts[0] in _FRESH:
        parts = parts[1:]
    name = re.sub(r"(?<![a-z0-9])e_mail(?![a-z0-9])", "email", "_".join(parts))
    return re.sub(r"(?<![a-z0-9])email_(?:address|id)$", "email", name)


def _my_thing(m: re.Match[str]) -> Found | None:
    noun = m.group("x").strip()
    parts = noun.split()
    if len(parts) == 2 and parts[0].lower() in _PEOPLE_AND_PETS and parts[1][:1].isupper():
        noun = parts[0]  # "my daughter Finn is 6" is what "my daughter is 7" replaces
    words = noun.lower().split()
    if not words or len(words) > 3 or any(w in {"name", "favorite", "favourite"} for w in words[:-1]):
        return None
    if any(w in {"i", "it", "this", "that", "there", "what", "not", "been", "being"} for w in words):
        return None
    raw = m.group("v").strip()
    filler = LEAD_FILLER_RE.match(raw)
    rest = raw[filler.end():] if filler is not None else raw
    # "really" and "still" intensify too ("my son is really happy"): after them only a datum is a value
    intensified = filler is not None and re.search(r"\b(?:really|still)\b", filler.group(0)) is not None
    if _NOT_A_VALUE_RE.match(rest) or (intensified and not DATUM_RE.match(rest)):
        return None
    number = re.fullmatch(rf"{_AGE}(?:\s+(?:years?|yrs?)(?:\s+old)?)?(?:\s+now)?[.!]?",
                          CLAUSE_END_RE.sub("", rest), re.IGNORECASE)
    attribute = _attribute(noun)
    if number is not None and normalise_name(words[-1]) in _PEOPLE_AND_PETS:
        return _named(f"{attribute}_age", _years(number))
    return _named(attribute, said_thing(rest, address=attribute == "address" or attribute.endswith("_address")))


def _one_spelling(words: str) -> str:
    """``words`` (lowercase) spelt one way: "colour" as "color", "flavour" as "flavor", so "my favorite
    color" replaces "my favourite colour"."""
    return re.sub(r"\b(col|flav|hum|neighb)our(s?)\b", r"\1or\2", words)


def _none_of(things: str) -> Found | None:
    """``thing_count`` = 0 for a plural noun ("cats": what "I have 3 cats" counted), else None."""
    one = normalise_name(things)
    if not one or one == things.lower() or things.lower() in _FUNCTION_WORDS:
        return None
    return f"{one}_count", "0"


def _no_longer(m: re.Match[str]) -> Found | None:
    rest = m.group("x").strip()
    for pattern, attribute in ((r"live\s+in\s+(.+)", "lives_in"), (r"work\s+(?:at|for)\s+(.+)", "works_at"),
                               (r"use\s+(.+)", "uses")):
        hit = re.fullmatch(pattern, rest, re.IGNORECASE)
        if hit is not None:
            value = said_thing(hit.group(1))
            return _named(attribute, f"not {value}" if value else None)
    had = re.fullmatch(r"(?:have|own)\s+(?:any\s+)?(?P<x>[a-z]+)", rest, re.IGNORECASE)
    if had is not None and (none := _none_of(had.group("x"))) is not None:
        return none
    diet = re.fullmatch(rf"(?:an?\s+)?({'|'.join(sorted(_DIETS))})", rest, re.IGNORECASE)
    if diet is not None:  # "no longer vegetarian": the diet changed (what "I'm vegetarian" said)
        return "diet", f"not {diet.group(1).lower()}"
    allergic = re.fullmatch(r"allergic\s+to\s+(.+)", rest, re.IGNORECASE)
    if allergic is not None:
        what = normalise_name(said_thing(allergic.group(1)) or "")
        return _named(f"allergic_to_{what}", "no" if what else None)
    verb = said_value(rest)
    attribute = normalise_name(verb or "")
    return _named(attribute, "no") if attribute and len(attribute.split("_")) <= 4 else None


_RULES: Final[tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Found | None]], ...]] = tuple(
    (re.compile(p, re.IGNORECASE), f) for p, f in (
        (rf"(?:{_WE}\s+|{_I_AM}\s+)no longer\s+(?P<x>.+)", _no_longer),
        (rf"(?:{_WE}\s+don{_APOS}t|{_I_AM}\s+not)\s+(?P<x>.+?)\s+any\s?more", _no_longer),
        (rf"{_WE}\s+{_ADVERB}(?:moved|relocated)\s+(?:back\s+)?(?:from\s+[A-Z][^,]*?\s+)?to\s+(?!the\s+\w+\s+plan)"
         r"(?P<x>[A-Z].+)", lambda m: _named("lives_in", said_thing(m.group("x")))),
        (rf"(?:{_WE}\s+{_ADVERB}live|{_I_AM}\s+{_ADVERB}(?:living|based|staying)|we{_APOS}re\s+{_ADVERB}(?:living|based))"
         rf"\s+in\s+(?P<x>.+)", lambda m: _named("lives_in", said_thing(m.group("x")))),
        (rf"{_WE}\s+{_ADVERB}(?:switched|moved|changed|upgraded|downgraded|migrated|went)\s+(?:over\s+|back\s+)?to\s+"
         rf"(?P<x>.+)", _switched),
        # "(we) changed the cloud storage to the annual plan", "signed up for the gym on the family plan"
        (rf"(?:{_WE}\s+)?{_ADVERB}(?:switched|moved|changed|upgraded|downgraded|migrated)\s+(?:the|our|my)\s+[\w ]+?\s+"
         rf"(?:over\s+|back\s+)?to\s+(?P<x>(?:the|our|my)\s+[\w-]+\s+plan\b.*)", _switched),
        (rf"(?:{_WE}\s+)?{_ADVERB}signed\s+up\s+for\s+.+?\s+on\s+(?P<x>(?:the|a|an)\s+[\w-]+\s+plan\b.*)", _switched),
        # what one drives is one's car; a thing replaced is named by its noun ("replaced the car, it's a Golf now")
        (rf"i\s+{_ADVERB}(?:still\s+)?drive\s+(?:a|an|the|my|our)\s+(?:old\s+|new\s+)?(?P<x>[A-Z].+)",
         lambda m: _named("car", said_thing(m.group("x")))),
        (rf"(?:{_WE}\s+)?{_ADVERB}replaced\s+(?:the|our|my)\s+(?P<n>\w+)\s*,\s*it{_APOS}s\s+(?P<x>(?:a|an|the)\s+.+)",
         lambda m: _named(normalise_name(m.group("n")), said_thing(m.group("x")))),
        (rf"(?:{_WE}\s+)?{_ADVERB}sold\s+(?:the|my|our)\s+.+?\s+and\s+(?:bought|got)\s+(?P<x>(?:a|an|the)\s+.+)",
         lambda m: _named("owns", said_thing(m.group("x")))),
        # a trip: where one plans to go, where the flights are booked to
        (rf"(?:we{_APOS}re|we\s+are|{_I_AM})\s+{_ADVERB}(?:planning|going|hoping)\s+to\s+(?:go|travel|fly)\s+to\s+"
         rf"(?P<x>[A-Z].+)", lambda m: _named("trip", said_thing(m.group("x")))),
        # "(change of plans:) we're going to Mexico instead", "(booked nothing yet but) it'll be Japan this summer"
        (rf"(?:we{_APOS}re|we\s+are|{_I_AM})\s+{_ADVERB}going\s+to\s+(?P<x>(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)*)"
         r"(?:\s+(?:instead|this|next|in|for|on|again)\b.*|\s*[,;].*)?$", lambda m: _named("trip", m.group("x"))),
        (rf"(?:.+?\s)?it(?:{_APOS}ll|\s+will)\s+be\s+(?P<x>(?-i:[A-Z])[\w ]*?)\s+(?:this|next)\s+"
         r"(?:summer|winter|spring|autumn|fall|year)\b", lambda m: _named("trip", said_name(m.group("x")))),
        (rf"(?:{_WE}\s+\w+\s+[A-Z]\w*\s*,\s*)?(?:the\s+)?flights\s+to\s+(?P<x>[A-Z][\w ]*?)\s+(?:are|were)\s+booked",
         lambda m: _named("trip", said_thing(m.group("x")))),
        (rf"i\s+{_ADVERB}play\s+(?P<x>[a-z]+(?:\s+[a-z]+)?)\s+(?:every|on|twice|once|with|at|\w+\s+times)\b",
         lambda m: _named("plays", said_thing(m.group("x")))),
        (rf"(?:i{_APOS}ve|i\s+have)\s+been\s+doing\s+(?P<x>[a-z]+)\s+(?:every|twice|once|\w+\s+times)\b",
         lambda m: _named("plays", said_thing(m.group("x")))),
        (r"(?:these\s+days\s+|now\s+)?i\s+do\s+(?P<x>[a-z]+)\s+instead\b",
         lambda m: _named("plays", said_thing(m.group("x")))),
        # "the Golf is parked outside, it's my daily car": the thing is my car
        (rf"the\s+(?P<x>[A-Z][\w -]*?)\s+is\s+[^,]+,\s+it{_APOS}s\s+(?:my|our)\s+(?:\w+\s+)?"
         r"(?P<n>car|bike|phone|laptop)\b",
         lambda m: _named(m.group("n").lower(), said_name(m.group("x")))),
        # "(scrap the old idea,) the summer trip is Iceland now"
        (r"(?:[^,]+,\s+)?(?:the|our|my)\s+(?:\w+\s+)?trip\s+(?:is|will\s+be)\s+(?:to\s+)?(?P<x>[A-Z].*)",
         lambda m: _named("trip", said_name(m.group("x")))),
        (rf"(?:{_WE}\s+{_ADVERB}(?:use|have|are\s+on)|we{_APOS}re\s+on|{_I_AM}\s+on)\s+"
         rf"(?P<x>(?:the|our|my|a|an)\s+.+\s+plan\b.*)", _switched),
        (rf"{_WE}\s+{_ADVERB}use\s+(?P<x>.+)", _switched),
        (rf"(?:i\s+{_ADVERB}work|{_I_AM}\s+{_ADVERB}working)\s+as\s+(?:a|an)\s+(?P<x>.+)",
         lambda m: _named("job", said_value(m.group("x")))),
        (rf"(?:i\s+{_ADVERB}work|{_I_AM}\s+{_ADVERB}working|i\s+{_ADVERB}started\s+(?:working\s+|a\s+(?:new\s+)?job\s+)?)"
         rf"\s*(?:at|for)\s+(?P<x>.+)", lambda m: _named("works_at", said_thing(m.group("x")))),
        (rf"i\s+{_ADVERB}joined\s+(?P<x>[A-Z].+)", lambda m: _named("works_at", said_thing(m.group("x")))),
        (rf"i\s+{_ADVERB}(?:got|landed|took|accepted)\s+(?:a|an|the)\s+(?:new\s+)?(?:\w+\s+)?(?:job|position|role)\s+"
         rf"(?:at|with)\s+(?P<x>[A-Z].+)", lambda m: _named("works_at", said_thing(m.group("x")))),
        (rf"(?:{_I_AM}\s+|i{_APOS}ve\s+been\s+)?still\s+(?:at|with|working\s+(?:at|for))\s+(?P<x>[A-Z].+)",
         lambda m: _named("works_at", said_thing(m.group("x")))),
        (rf"i\s+{_ADVERB}(?:switched|changed)\s+jobs?\s*[,;]?\s*(?:and\s+)?(?:{_I_AM}\s+(?:now\s+)?(?:at|with)|"
         rf"i\s+work\s+(?:at|for))\s+(?P<x>[A-Z].+)", lambda m: _named("works_at", said_thing(m.group("x")))),
        (rf"(?:i\s+)?{_ADVERB}started\s+(?:my|a)\s+(?:new\s+)?job\s+(?:at|with)\s+(?P<x>[A-Z].+)",
         lambda m: _named("works_at", said_thing(m.group("x")))),
        (r"(?:my|our)\s+(?:new\s+)?job\s+(?:at|with)\s+(?P<x>.+)",
         lambda m: _named("works_at", said_name(m.group("x")))),
        (rf"{_I_AM}\s+{_ADVERB}allergic\s+to\s+(?P<x>.+)",
         lambda m: (lambda w: _named(f"allergic_to_{w}", "yes") if w else None)(
             normalise_name(said_thing(m.group("x")) or ""))),
        (rf"{_I_AM}\s+(?:originally\s+)?from\s+(?P<x>.+)", lambda m: _named("from", said_thing(m.group("x")))),
        (r"i\s+was\s+born\s+in\s+(?P<x>[A-Z].+)", lambda m: _named("birthplace", said_thing(m.group("x")))),
        # (the age ends the sentence or its clause: "I'm 34 and live in Oslo" says both)
        (rf"(?:{_I_AM}\s+{_ADVERB}|i\s+{_ADVERB}turned\s+)(?:{_NUMBER}|(?P<w>{NUMBER_WORD}))(?:\s+(?:years?|yrs?)"
         r"(?:\s+old)?)?(?:\s+(?:now|(?:last|this)\s+(?:week|weekend|month|year)))?\s*(?:$|[,;]\s.*|\s+(?:and|but|so)\s.*)",
         lambda m: _named("age", m.group("n") or _word_age(m.group("w")))),
        (rf"{_I_AM}\s+{_ADVERB}(?:a\s+|an\s+)?(?P<x>{'|'.join(sorted(_DIETS))})\b",
         lambda m: _named("diet", m.group("x").lower())),
        (rf"i\s+{_ADVERB}weigh\s+(?P<x>\d+(?:[.,]\d+)?\s*(?:kg|kilos?|lbs?|pounds?))\b",
         lambda m: _named("weight", m.group("x"))),
        (rf"i\s+{_ADVERB}(?:earn|make)\s+(?P<x>[$€£]?\d[\d,.]*\s*(?:k|[$€£]|dollars|euros|pounds)?"
         rf"(?:\s+(?:a|per)\s+(?:year|month|hour))?)", lambda m: _named("income", m.group("x").strip())),
        (rf"{_WE}\s+{_ADVERB}(?:have|own)\s+no\s+(?P<x>[a-z]+)(?:\s+(?:any\s?more|left|now))?$",
         lambda m: _none_of(m.group("x"))),
        (rf"(?:i|we)\s+{_ADVERB}(?:have|own|got)\s+{_NUMBER}\s+(?P<x>[a-z]+)\b",
         lambda m: _named(f"{normalise_name(m.group('x'))}_count", m.group("n"))
         if m.group("x").lower() not in _FUNCTION_WORDS else None),
        # a favourite without its noun ("these days my go-to is X", "nothing beats a X before work", "I'm a X
        # person"): ``favorite``, which the turn extractor names after the speaker's earlier favourite
        (r"(?:(?:these\s+days|nowadays|now)\s*,?\s+)?(?:my|our)\s+(?:favou?rite|go-to)\s+(?:is|are)\s+(?P<v>.+)",
         lambda m: _named("favorite", said_thing(m.group("v")))),
        (r"nothing\s+beats\s+(?P<v>(?:a|an|the|my)\s+[\w -]+?)(?:\s+(?:before|in|after|on|at|first)\b.*)?$",
         lambda m: _named("favorite", said_thing(m.group("v")))),
        (rf"{_I_AM}\s+(?:a|an)\s+(?P<v>[a-z][\w -]*?)\s+person\b",
         lambda m: _named("favorite", said_thing(m.group("v")))),
        (r"(?:my|our)\s+(?:(?:new|current)\s+)?(?P<x>(?:favou?rite|go-to)\s+\w+(?:\s+\w+)?)\s+(?:is|are)\s+(?P<v>.+)",
         lambda m: _named(normalise_name(_one_spelling(re.sub(r"favourite|go-to", "favorite", m.group("x").lower()))),
                          said_thing(m.group("v")))),
        (rf"(?:my|our)\s+(?P<x>\w+)(?:\s+[A-Z]\w*)?\s+.+,\s+(?:she|he){_APOS}s\s+{_AGE}(?:\s+(?:years?\s+)?old)?$",
         lambda m: _named(f"{normalise_name(m.group('x'))}_age", _years(m))
         if normalise_name(m.group("x")) in _PEOPLE_AND_PETS else None),
        # "my daughter's 5": her age ("my daughter's name is Lea" is the rule after)
        (rf"(?:my|our)\s+(?P<x>\w+){_APOS}s\s+{_AGE}(?:\s+(?:years?|yrs?)(?:\s+old)?)?(?:\s+now)?$",
         lambda m: _named(f"{normalise_name(m.group('x'))}_age", _years(m))
         if normalise_name(m.group("x")) in _PEOPLE_AND_PETS else None),
        (rf"(?:my|our)\s+(?P<x>\w+){_APOS}s\s+(?P<y>\w+(?:\s+\w+)?)\s+(?:is|are)\s+(?P<v>.+)",
         lambda m: _named(normalise_name(f"{m.group('x')} {m.group('y')}"), said_value(m.group("v")))),
        (rf"(?:my|our)\s+(?P<x>\w+)\s+(?:just\s+)?turned\s+{_AGE}\b",
         lambda m: _named(f"{normalise_name(m.group('x'))}_age", _years(m))
         if normalise_name(m.group("x")) in _PEOPLE_AND_PETS else None),
        (r"(?:my|our)\s+(?P<x>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:is|are|was changed to|has changed to)\s+(?:now\s+)?"
         r"(?P<v>.+)",
         _my_thing),
    ))


# "Quick update: ...", "PS: ...", "Like I said: ..."
_LABEL_RE: Final = re.compile(r"(?P<label>[^\W\d_]+(?: [^\W\d_]+){0,2})\s*:\s+")
# a label that reports what someone else said ("He said: I live in X", "My mom wrote: ..."): their words,
# not the speaker's (the speaker quoting themselves, "I said:", "Like I said:", is the speaker's)
_REPORTED_RE: Final = re.compile(
    r"(?:(?:like|as)\s+)?(?P<who>.+?)\s+(?:said|says|wrote|writes|told\s+me|tells\s+me)", re.IGNORECASE)


# the perfect tense of a change says the change: "I've moved to X" as "I moved to X", "I've been living in
# X" as "I'm living in X" ("I've gone off X, it's Y now" and "I've been doing X" have rules of their own)
_PERFECT_RE: Final = re.compile(
    rf"(?P<who>i|we)(?:{_APOS}ve|\s+have)\s+(?:(?P<been>been)\s+(?=(?:living|based|staying|working)\b)|"
    rf"(?={_ADVERB}(?:moved|relocated|switched|changed|upgraded|downgraded|migrated|started|joined)\b))",
    re.IGNORECASE)


def _without_fillers(sentence: str) -> str:
    body = sentence.strip()
    label = _LABEL_RE.match(body)
    if label is not None:
        reported = _REPORTED_RE.fullmatch(label.group("label"))
        if reported is not None and reported.group("who").lower() != "i":
            return ""  # (someone else's words: nothing the speaker says of themselves)
        body = body[label.end():]
    m = _FILLER_RE.match(body)
    body = body[m.end():] if m is not None else body
    perfect = _PERFECT_RE.match(body)
    if perfect is not None:
        who = perfect.group("who")
        now = (f"{who} am " if who.lower() == "i" else f"{who}'re ") if perfect.group("been") else f"{who} "
        body = now + body[perfect.end():]
    return body


_I_RE: Final = re.compile(rf"\b(?:i|i{_APOS}(?:m|ve|d|ll)|me|my|mine|myself)\b", re.IGNORECASE)


def says_i(quote: str) -> bool:
    """Whether ``quote`` speaks in the first person singular anywhere (I, I'm, me, my, mine, myself: English
    only); "we" and "our" may speak for others too."""
    return _I_RE.search(quote) is not None


def first_person(sentence: str) -> bool:
    """Whether ``sentence`` (fillers skipped) starts in the first person ("I", "my", "we", ...)."""
    return FIRST_PERSON_RE.match(_without_fillers(sentence)) is not None


# a label that names a trip ("Summer plan: two weeks in Iceland", "Holiday: ten days to Peru"): where to
_TRIP_LABEL_RE: Final = re.compile(
    r"(?i:(?:\w+\s+)?(?:trip|holiday|vacation|travel|summer\s+plans?)(?:\s+plans?)?)\s*:\s+"
    r"(?i:[^.!?]*?\b(?:in|to)\s+)(?P<x>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)\W*$")


def self_statement(sentence: str) -> Found | None:
    """``(attribute, value)`` the speaker says of themselves in ``sentence``, or None."""
    trip = _TRIP_LABEL_RE.match(sentence.strip())
    if trip is not None:
        return "trip", trip.group("x")
    body = without_emoji(_without_fillers(sentence).strip()).rstrip(".!").strip()
    if not body or body.endswith("?"):
        return None
    for pattern, rule in _RULES:
        m = pattern.match(body)
        if m is not None:
            found = rule(m)
            if found is not None and found[0] and found[1]:
                return found
            return None
    return None
