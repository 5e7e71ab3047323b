"""The rule extractor's verb shapes (rule k of :mod:`beliefdb.text.rules`): the verbs a document states a
company's facts with, each read as the noun phrase that states the same fact, so that two documents saying it
in different words name one belief (they corroborate it, or the newer supersedes it):

- ``The Pro plan costs $49 per month.`` -> ``pro_plan`` / ``price``, as "The price of the Pro plan is ...";
- ``Shipping takes 3 business days.`` -> ``shipping`` / ``time``, as "The shipping time is ...";
- ``The warranty lasts two years.`` -> ``warranty`` / ``duration``, as "The warranty duration is ...";
- ``Our office is located in Dublin.`` -> ``office`` / ``location``, as "The office location is ...";
- ``Acme was founded in 2009.`` -> ``acme`` / ``founded``, as ``Founded: 2009`` under ``# Acme``;
- ``Refunds are processed within 14 days.`` -> ``refund`` / ``processing_time``, as "The processing time of
  refunds is ..." and "The refund processing time is ...";
- ``The support team is available 24/7.`` -> ``support_team`` / ``availability``;
- ``Backups are retained for 35 days.`` (kept, stored for) -> ``backup`` / ``retention``;
- ``Nonprofits get 30% off any annual plan.`` -> ``nonprofit`` / ``discount`` (a percentage off only: "Business
  workspaces get 300 requests per minute." gives nothing).

``is based in`` / ``is headquartered in`` say ``location`` too, ``was established in`` ``founded``, ``are
shipped`` / ``dispatched`` / ``delivered`` / ``answered`` / ``resolved within`` ``shipping_time`` /
``dispatch_time`` / ``delivery_time`` / ``response_time`` / ``resolution_time``, and ``is open`` with days or
hours ``opening_hour`` (as ``Opening hours: ...`` names it). The subject is the noun phrase before the verb, as
``The A of B`` names B (determiners and ``all``/``each`` dropped, a possessive's ``'s`` too), with a place
after ``to``/``for``/``in``/``from``/``within``/``outside`` kept as written ("Shipping to Canada takes 5
business days." -> ``shipping_to_canada`` / ``time``).

A verb shape gives a value only when it looks like one: a money amount for ``costs``, a duration for ``takes``,
``lasts`` and ``within`` (its event, "within 14 days of receipt", dropped as rule c drops it), capitalised
place words for ``located``, a year or date for ``founded``, days or clock times for ``available`` and
``open``. A sentence with the shape of ``is located/based/headquartered in`` or ``is available`` and no such
value gives nothing (rather than rule e's ``office`` = "located in the city centre"). A negated verb ("does
not cost", "no longer takes"), a past or future one ("lasted", "will cost") and a pronoun subject ("It costs
$5") give nothing. See docs/rules.md for what the stored beliefs then do.
"""

from __future__ import annotations

import re
from typing import Final

from beliefdb.text.extractor import normalise_name
from beliefdb.text.naming import DETERMINERS, QUALIFIERS, QUANTIFIERS, TIME_KINDS, kind_of, names, noun_words
from beliefdb.text.numbers import NUMBER_WORD

__all__ = ["is_money", "verb_fact"]

_F: Final = re.IGNORECASE
_WORD: Final = r"[\w'’*`-]+"
_NP: Final = rf"{_WORD}(?:\s+{_WORD}){{0,9}}?"
_IS: Final = r"\s+(?:is|are)\s+(?:now\s+)?"
_NUM: Final = rf"(?:\d[\d.,]*|{NUMBER_WORD})"

# a money amount: "$49", "€19.99", "19 euros", "49 USD", "USD 49", "nineteen euros"; then a period or
# unit ("per month", "a month", "/month", "per user per month", "monthly"), VAT or a note in brackets
_CURRENCY: Final = r"(?:usd|eur|gbp|chf|cad|aud|jpy|dollars?|euros?|pounds?|cents?|francs?|yen)"
_AMOUNT: Final = (rf"(?:[$€£¥₹]\s?\d[\d.,]*(?:\s?(?:k|m|bn|million|billion)\b)?|(?:usd|eur|gbp|chf)\s?\d[\d.,]*"
                  rf"|{_NUM}\s?(?:[€£$]|{_CURRENCY}\b))")
_EACH: Final = r"(?:per|a|an|each|every)\s+\w+"
_MONEY: Final = (rf"(?:from\s+|up\s+to\s+|about\s+|around\s+|approximately\s+|at\s+least\s+)?{_AMOUNT}"
                 rf"(?:\s+{_EACH}(?:\s+{_EACH})?|\s*/\s*\w+|\s+(?:monthly|yearly|annually|weekly|daily|hourly|"
                 r"one-time|once))?(?:,?\s+billed\s+\w+)?(?:\s+(?:plus|excluding|including|incl\.?|excl\.?)\s+"
                 r"(?:vat|tax(?:es)?))?(?:\s+\([^()]{1,40}\))?")
_MONEY_RE: Final = re.compile(_MONEY, _F)


def is_money(value: str) -> bool:
    """Whether ``value`` is a money amount, as ``costs`` takes one ("$49 per month", "19 euros a month")."""
    return _MONEY_RE.fullmatch(value) is not None


# a duration: "5 business days", "two years", "a year", "3-5 days", "24 hours", "48h"
_UNIT: Final = r"(?:second|sec|minute|min|hour|hr|day|night|week|month|year|yr)s?\b"
_COUNT: Final = rf"(?:{_NUM}(?:\s*(?:-|–|to|or)\s*{_NUM})?|an?|a\s+few|several)"
_DURATION: Final = (r"(?:(?:up\s+to|about|around|approximately|roughly|at\s+least|at\s+most|less\s+than|under|"
                    rf"over|more\s+than)\s+)?(?:{_COUNT}\s+(?:(?:business|working|calendar|full)\s+)?{_UNIT}"
                    r"|\d+\s?(?:h|hrs?|mins?)\b)")
_EVENT: Final = r"(?:\s+(?:on\s+average|in\s+total))?(?:\s+(?:of|after|from|following|once)\s+.+)?"

# a place: capitalised words (or a street number), joined by commas, "and", "of", "upon", ...
_CAP: Final = r"(?-i:[A-Z0-9])[\w.'’&-]*"
_THE: Final = r"(?:(?-i:the)\s+)?"  # (lowercase, as the joiners: "The" and "On" are words of a name, one reading)
_PLACE: Final = (rf"{_THE}{_CAP}(?:(?:,\s*|\s+)(?:(?-i:and|of|upon|on|de|del|la|le|am|sur)\s+)?"
                 rf"{_THE}{_CAP})*")

_MONTH: Final = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
                 r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATE: Final = (rf"(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+"
                rf"\d{{4}}|{_MONTH}\s+\d{{4}}|\d{{4}}(?:-\d\d-\d\d)?)")

# days or hours: "from 9am to 5pm", "on weekdays", "Monday to Friday, 9:00-17:00", "24/7"
_DAY: Final = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays?|weekends?|daily|every\s+day)\b"
_CLOCK: Final = r"(?:\d{1,2}(?:[:.]\d\d)?\s?(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d\d|noon|midnight|24/7|24\s+hours)"
_HOURS: Final = re.compile(rf"{_DAY}|{_CLOCK}", _F)
_HOURS_START: Final = rf"(?:from|between|on|every|daily|weekdays|weekends|around|24|\d|{_DAY})"

# (pattern, attribute, whether the shape alone stops the rules after it); the value is the group "value"
_VERBS: Final = (
    (re.compile(rf"(?P<x>{_NP})\s+(?:now\s+)?costs?\s+(?:only\s+|just\s+)?(?P<value>{_MONEY})", _F), "price", False),
    (re.compile(rf"(?P<x>{_NP})\s+(?:now\s+|usually\s+|normally\s+|typically\s+|generally\s+)?takes?\s+"
                rf"(?P<value>{_DURATION}){_EVENT}", _F), "time", False),
    (re.compile(rf"(?P<x>{_NP})\s+(?:now\s+)?lasts?\s+(?:for\s+)?(?P<value>{_DURATION}){_EVENT}", _F),
     "duration", False),
    (re.compile(rf"(?P<x>{_NP}){_IS}(?:located|based|headquartered)\s+(?:in|at)\s+(?P<value>.+)", _F),
     "location", True),
    (re.compile(rf"(?P<x>{_NP})\s+(?:was|were)\s+(?:founded|established)\s+(?:in|on)\s+(?P<value>{_DATE})"
                r"(?:\s+by\s+.+)?", _F), "founded", False),
    (re.compile(rf"(?P<x>{_NP}){_IS}(?:usually\s+|normally\s+|typically\s+|generally\s+)?(?P<verb>processed|"
                rf"shipped|dispatched|delivered|answered|resolved)\s+within\s+(?P<value>{_DURATION}){_EVENT}", _F),
     "", False),
    (re.compile(rf"(?P<x>{_NP})\s+(?:now\s+)?gets?\s+(?P<value>(?:up\s+to\s+)?\d[\d.,]*\s?%\s+off\b.*)", _F),
     "discount", False),
    (re.compile(rf"(?P<x>{_NP}){_IS}(?:kept|retained|stored)\s+for\s+(?P<value>{_DURATION}){_EVENT}", _F),
     "retention", False),
    (re.compile(rf"(?P<x>{_NP}){_IS}available\s+(?P<value>.+)", _F), "availability", True),
    (re.compile(rf"(?P<x>{_NP}){_IS}open\s+(?P<value>{_HOURS_START}.*)", _F), "opening_hour", False),
)
_WITHIN: Final = {"processed": "processing_time", "shipped": "shipping_time", "dispatched": "dispatch_time",
                  "delivered": "delivery_time", "answered": "response_time", "resolved": "resolution_time"}
_PLACE_RE: Final = re.compile(_PLACE, _F)
_LETTER_CAP: Final = re.compile(r"(?-i:[A-Z])")

# the last words of a noun phrase that names what the verb says already
_LENGTHS: Final = frozenset({"period", "window", "duration", "term", "length", "time"})
_ALREADY: Final = {"price": frozenset({"price", "cost", "fee", "rate", "charge"}), "time": _LENGTHS,
                   "duration": _LENGTHS}
_PREPOSITIONS: Final = frozenset({"to", "for", "in", "from", "within", "outside"})
# words that name no thing a fact is about ("Everything costs $5", "It's based in ...")
_NO_SUBJECT: Final = frozenset({"everything", "something", "nothing", "anything", "everyone", "someone",
                                "anyone", "nobody", "one", "ones", "which", "what", "who"})
_NEGATED: Final = re.compile(r".*n['’]t", _F)


def _subject(phrase: str) -> str | None:
    """The subject a verb's noun phrase names, as ``The A of B`` names B (``noun_words``), with a place after
    one preposition kept as written ("Shipping to the UK" -> ``shipping_to_uk``), or None."""
    words = phrase.split()
    if any(_NEGATED.fullmatch(w) or w.lower() in _NO_SUBJECT for w in words):
        return None
    at = next((i for i, w in enumerate(words) if w.lower() in _PREPOSITIONS), None)
    head = noun_words(" ".join(words[:at]), drop=DETERMINERS | QUANTIFIERS)
    if head is None:
        return None
    subject = normalise_name(" ".join(head))
    if not any(ch.isalpha() for ch in subject):  # ("-5 costs 99 EUR.": a list's line, no name)
        return None
    if at is None:
        return subject or None
    place = [w for w in words[at + 1:] if w.lower() not in DETERMINERS]
    if not place or len(place) > 4 or noun_words(" ".join(place)) is None:
        return None
    tail = normalise_name(" ".join(place), singular=False)
    return f"{subject}_{words[at].lower()}_{tail}" if tail else None


def _value(attribute: str, value: str) -> str | None:
    """``value`` when it looks like the value ``attribute`` takes (the verbs' own patterns check the others)."""
    if attribute == "location":
        return value if _PLACE_RE.fullmatch(value) and _LETTER_CAP.search(value) else None
    if attribute == "availability" or attribute == "opening_hour":
        starts = re.match(_HOURS_START, value, _F)
        return value if starts and _HOURS.search(value) else None
    return value


def verb_fact(body: str, source_name: str, unnamed: str | None = None
              ) -> tuple[bool, tuple[str, str, str, str] | None]:
    """(whether ``body`` has a verb shape that stops the rules after it, (subject, attribute, value, kind) or
    None) of a sentence without its final stop: see the module docstring. The value is the raw one (the
    caller cleans it: no negation, no second sentence). A noun phrase that names a length or a price
    already ("The trial period lasts 14 days.", "The shipping fee costs 5 EUR.") is named as ``is`` would
    name it (:func:`~beliefdb.text.naming.names`: ``trial_policy`` / ``period``, as "The trial period is 14
    days." says; ``unnamed``, the section's subject, for a phrase that names none)."""
    for pattern, attribute, stops in _VERBS:
        m = pattern.fullmatch(body)
        if m is None:
            continue
        attribute, phrase = attribute or _WITHIN[m["verb"].lower()], m["x"]
        *rest, last = phrase.split()
        value = _value(attribute, m["value"].rstrip(" ,;"))
        if last.lower() in _ALREADY.get(attribute, ()):
            named = names(phrase, source_name, unnamed=unnamed) if value else None
            return True, (named[0], named[1], value, named[2]) if named and value else None
        if attribute == "time" and last.lower() in TIME_KINDS and noun_words(" ".join(rest)) and \
                rest[-1].lower() not in QUALIFIERS:
            attribute, phrase = f"{last.lower()}_time", " ".join(rest)  # "Refund processing takes": refund
        subject = _subject(phrase)
        if subject and value:
            return True, (subject, attribute, value, kind_of(attribute))
        if stops:
            return True, None
    return False, None
