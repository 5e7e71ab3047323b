"""What a sentence rule's value says of the belief it names (:mod:`beliefdb.text.rules`): the value cleaned
(:func:`clean_value`), a price named as a price whatever the sentence's verb (:func:`priced`: "The Pro plan is
$49 per month." is ``pro_plan`` / ``price``, as "The Pro plan costs $49 per month." and "The price of the Pro
plan is ..." say), and a plan or group it holds for, its scope, not part of the value (:func:`scoped`: "The API
rate limit is 100 requests per minute on Pro." is ``api`` / ``rate_limit`` = ``100 requests per minute`` scoped
``{"plan": "Pro"}``, which a Business plan's limit does not supersede; see docs/rules.md, a belief's key is its
subject, attribute and scope)."""

from __future__ import annotations

import re
from typing import Final

from beliefdb.text.extractor import normalise_name
from beliefdb.text.fragments import abbreviated
from beliefdb.text.naming import DETERMINERS, QUANTIFIERS, kind_of, noun_words, possessor
from beliefdb.text.verbs import is_money

__all__ = ["PRICED", "TERMINAL", "clean_value", "priced", "scoped"]

TERMINAL: Final = ".!。！"
_INNER_SENTENCE_END: Final = re.compile(r"[.!?][\"'”’)\]]*\s|[。！？]")
_NEGATION: Final = re.compile(r"(?:not|no longer|never)\b", re.IGNORECASE)


def clean_value(raw: str, *, sentence: bool) -> str | None:
    """The value without surrounding whitespace and its trailing ``.``/``!``, each run of whitespace inside
    it one space, or None (for a ``sentence``'s value, also when it is negated or holds a second sentence; an
    abbreviation's period, "P.O. Box 12", ends none).

    The whole trailing run of terminators and whitespace goes, so a tail like ``1. ...`` or ``x. . .``
    leaves ``1`` or ``x``, never a value ending in ``.`` (one backward scan: linear). A second space typed
    inside (``2 days  per week``) says the same: the same value, not a new one that supersedes it.
    """
    value = " ".join(raw.split())
    end = len(value)
    while end and (value[end - 1] in TERMINAL or value[end - 1].isspace()):
        end -= 1
    value = value[:end]
    if not value:
        return None
    if sentence and (_NEGATION.match(value) or any(
            not (m[0] == ". " and abbreviated(value, m.start() + 1)) for m in _INNER_SENTENCE_END.finditer(value))):
        return None
    return value


# the things a price is of: "The Pro plan is $49" names the plan's price, where "The late fee is $5" or
# "Dana's salary is $5000" name an amount of their own (named as before)
PRICED: Final = frozenset({"plan", "tier", "subscription", "license", "licence", "seat", "package", "bundle",
                           "edition", "add-on", "addon", "membership", "upgrade"})


def priced(phrase: str, value: str) -> tuple[str, str, str] | None:
    """(subject, ``price``, kind) when ``value`` is a money amount and the noun phrase ``phrase`` names a
    thing of :data:`PRICED` (the whole phrase the subject: "The Pro plan" -> ``pro_plan``) or its price (the
    words before ``price``: "The Pro plan price" -> ``pro_plan``), else None (the phrase is named as any)."""
    words = noun_words(phrase, drop=DETERMINERS | QUANTIFIERS)
    if words is None or not is_money(value) or possessor(phrase) is not None or "of" in map(str.lower, words):
        return None
    last = words[-1].lower()
    if last == "price":
        words = words[:-1]
    elif normalise_name(last) not in PRICED and last not in PRICED:
        return None
    subject = normalise_name(" ".join(words))
    return (subject, "price", kind_of("price")) if subject else None


_NAME: Final = r"(?-i:[A-Z])[\w+-]*"
# "... on Pro", "... on the Business plan"; "... for annual plans", "... for new customers"
_ON: Final = re.compile(rf"(?P<value>.+?)\s+on\s+(?:the\s+)?(?P<name>{_NAME}(?:\s+{_NAME}){{0,2}})"
                        r"(?:\s+(?P<kind>plans?|tiers?|editions?))?", re.IGNORECASE)
_FOR: Final = re.compile(r"(?P<value>.+?)\s+for\s+(?:all\s+|the\s+)?(?P<name>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
                         r"(?P<kind>plans?|customers?|users?|accounts?|tiers?)", re.IGNORECASE)
_NOT_A_PLAN: Final = re.compile(
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekday|weekend|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|"
    r"apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)s?\b",
    re.IGNORECASE)


def scoped(value: str) -> tuple[str, dict[str, str]]:
    """``value`` without a trailing qualifier of the plan or group it holds for, and the scope that qualifier
    says: ``on <Capitalised name>( plan|tier|edition)`` -> ``{"plan": name}`` (``tier``/``edition`` when it
    says so), ``for <words> plans|customers|users|accounts`` -> ``{"plan"|"customer"|...: words}``; only
    after a quantity (a digit in what stays: "5pm on Friday" and "on Monday" are no plans). Else ``value``
    and no scope."""
    for pattern in (_ON, _FOR):
        m = pattern.fullmatch(value)
        if m is None or not any(ch.isdigit() for ch in m["value"]) or _NOT_A_PLAN.match(m["name"]):
            continue
        if pattern is _FOR and noun_words(m["name"]) is None:
            continue
        key = normalise_name(m["kind"] or "plan")
        return m["value"], {key: m["name"]}
    return value, {}
