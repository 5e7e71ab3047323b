"""Candidate beliefs from a document: the extractor interface and the offline rule extractor.

An extractor proposes candidates; it decides nothing. Every candidate carries an exact quote, and the
evidence gate accepts it only if the quote is in the source text. The rule extractor works per fragment
(:func:`beliefdb.fragments.iter_fragments`): the quote is the whole fragment, ``start``/``end`` are its
offsets, so ``text[start:end] == quote`` always.

Rules, in order, the first match wins per sentence (a trailing ``.``/``!`` is ignored; questions give
nothing):

a. ``X changed from A to B.``                        -> X's subject/attribute, value B
b. ``X is now B.`` / ``X are now B.``                  -> X's subject/attribute, value B
c. ``<Things> are (now) accepted within <duration>( of <event>).``
                                                      -> ``<things>_policy`` / ``window`` = duration
d. ``The A of B is V.``                               -> subject B, attribute A
e. ``The <noun phrase> is V.``                        -> subject = all words but the last, attribute = the
   last word (``_policy`` appended to the subject when the attribute is a policy term); a one-word noun
   phrase takes its subject from the source name
f. ``Key: value`` lines                               -> like e for the key

so "Returns are accepted within 7 days of delivery." and "The return window is 7 days." both say
``return_policy`` / ``window`` = ``7 days``.
"""

from __future__ import annotations

import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import ClassVar, Final

from beliefdb.fragments import Fragment, is_key_value, iter_fragments
from beliefdb.vocabulary import BELIEF_KINDS

__all__ = [
    "EXTRACTORS",
    "KINDS",
    "POLICY_TERMS",
    "Candidate",
    "Extractor",
    "NoExtractor",
    "RuleExtractor",
    "get_extractor",
    "normalise_name",
]

KINDS: Final = BELIEF_KINDS  # the kinds of belief an extractor may propose
POLICY_TERMS: Final = frozenset({
    "window", "period", "deadline", "limit", "fee", "rate", "threshold", "policy", "price", "cost",
})


def _empty_scope() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Candidate:
    """A proposed belief with its exact quote (offsets when the extractor knows them).

    ``scope`` is stored as a read-only copy and left out of the hash, so candidates stay hashable.
    Nothing is validated here: the evidence gate and the ingest step report what is wrong.
    """

    statement: str
    subject: str
    attribute: str
    value: str
    quote: str
    kind: str = "fact"
    scope: Mapping[str, str] = field(default_factory=_empty_scope, hash=False)
    valid_from: str | None = None
    valid_to: str | None = None
    start: int | None = None
    end: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scope", MappingProxyType(dict(self.scope)))


class Extractor(ABC):
    """Proposes candidate beliefs for a document; deterministic for the same input."""

    name: ClassVar[str]

    @abstractmethod
    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        """Candidates for ``text``; ``source_name`` (e.g. ``return-policy.md``) may name the subject."""


class NoExtractor(Extractor):
    """Proposes nothing (claims come from elsewhere)."""

    name = "none"

    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        return []


# --- names -------------------------------------------------------------------------------------------

# Words ending in "s" that are not plurals (or whose plural is not made by dropping the "s").
_NOT_PLURAL: Final = frozenset({
    "news", "series", "species", "always", "perhaps", "does", "this", "yes", "lens", "canvas", "atlas",
    "alias", "bias", "gas", "physics", "economics", "mathematics", "politics", "ethics", "analytics",
    "logistics", "postgres", "kubernetes", "jenkins", "https", "whereas", "thanks", "diabetes", "mumps",
})
_IES_NOT_Y: Final = frozenset({"cookies", "movies", "zombies", "rookies", "calories", "brownies", "selfies",
                               "hippies", "pies", "ties", "lies", "dies", "freebies", "goalies"})
_ES_PLURAL: Final = ("sses", "xes", "zzes", "shes", "tches", "nches", "rches", "oaches")


def _singular(word: str) -> str:
    if len(word) <= 3 or not word.endswith("s") or not word.isalpha() or word in _NOT_PLURAL:
        return word
    if word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4 and word not in _IES_NOT_Y:
        return word[:-3] + "y"
    if word.endswith(_ES_PLURAL):
        return word[:-2]
    return word[:-1]


def normalise_name(words: str) -> str:
    """A lowercase snake_case identifier (``[a-z0-9_]``) for ``words``, its last word made singular.

    Accents are folded (``café`` -> ``cafe``); other non-ASCII letters are dropped like punctuation, so
    the result may be empty. ``"Returns"`` -> ``return``, ``"policies"`` -> ``policy``; ``status``,
    ``address`` and words of 3 letters or fewer stay as they are.
    """
    folded = unicodedata.normalize("NFKD", words).encode("ascii", "ignore").decode("ascii").lower()
    parts = re.findall(r"[a-z0-9]+", folded)
    if parts:
        parts[-1] = _singular(parts[-1])
    return "_".join(parts)


def _source_subject(source_name: str) -> str:
    stem = PurePosixPath(source_name.replace("\\", "/")).stem
    return normalise_name(stem) or "document"


# --- the rule extractor ------------------------------------------------------------------------------

_DETERMINERS: Final = frozenset({"the", "a", "an", "our", "your", "their", "its", "my", "his", "her",
                                 "this", "that", "these", "those"})
_QUANTIFIERS: Final = frozenset({"all", "any", "every", "each"})
# Words that show a phrase is a clause, not a noun phrase; such sentences give nothing.
_NOT_IN_NOUN_PHRASE: Final = frozenset({
    "and", "or", "but", "if", "when", "while", "because", "so", "that", "which", "who", "whom", "whose",
    "what", "where", "why", "how", "it", "they", "we", "you", "he", "she", "i", "me", "us", "them",
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did",
    "will", "would", "should", "can", "could", "may", "might", "must", "shall", "not", "no", "never",
    "for", "in", "on", "at", "with", "from", "by", "to", "into", "onto", "under", "over", "after", "before",
    "during", "since", "until", "about", "as", "than", "then", "there", "here", "now", "also", "changed",
    "accepted",
})
_MAX_NOUN_PHRASE_WORDS: Final = 6
_MAX_RULE_CHARS: Final = 1000  # longer fragments are not single statements; skipping keeps rules linear

_WORD: Final = r"[\w'’*`-]+"  # "*" and "`": markdown emphasis and code around words
_NP: Final = rf"{_WORD}(?:\s+{_WORD}){{0,9}}?"
_IS: Final = r"\s+(?:is|are)\s+"
_FLAGS: Final = re.IGNORECASE
_RULE_CHANGED: Final = re.compile(
    rf"(?P<x>{_NP})\s+(?:(?:has|have|was|were)\s+)?changed\s+from\s+(?P<old>.+?)\s+to\s+(?P<value>.+)",
    _FLAGS)
# "X are now accepted within N days" is left to rule c.
_RULE_NOW: Final = re.compile(rf"(?P<x>{_NP}){_IS}now\s+(?!accepted\s+within\s)(?P<value>.+)", _FLAGS)
_RULE_ACCEPTED: Final = re.compile(
    rf"(?P<x>{_NP}){_IS}(?:now\s+)?accepted\s+within\s+(?P<value>.+?)"
    r"(?:\s+(?:of|after|from|following)\s+(?P<event>.+))?", _FLAGS)
_RULE_OF: Final = re.compile(
    rf"the\s+(?P<attribute>{_NP})\s+of\s+(?P<subject>{_NP}){_IS}(?P<value>.+)", _FLAGS)
_RULE_THE: Final = re.compile(rf"the\s+(?P<x>{_NP}){_IS}(?P<value>.+)", _FLAGS)

_QUESTION_END: Final = re.compile(r"[?？][\"'”’)\]」』）】》]*$")
_TERMINAL: Final = ".!。！"
_INNER_SENTENCE_END: Final = re.compile(r"[.!?][\"'”’)\]]*\s|[。！？]")
_NEGATION: Final = re.compile(r"(?:not|no longer|never)\b", _FLAGS)
_POSSESSIVE: Final = re.compile(r"['’]s?$")


def _noun_words(phrase: str, *, strict: bool = True, drop: frozenset[str] = _DETERMINERS) -> list[str] | None:
    """The words of a noun phrase without leading determiners and possessive endings, or None."""
    words = phrase.split()
    while words and words[0].lower() in drop:
        words = words[1:]
    words = [_POSSESSIVE.sub("", w) for w in words]
    if not words or len(words) > _MAX_NOUN_PHRASE_WORDS or not all(words):
        return None
    if strict and any(w.lower() in _NOT_IN_NOUN_PHRASE for w in words):
        return None
    return words


def _with_policy(subject: str, attribute: str) -> str:
    if attribute in POLICY_TERMS and subject != "policy" and not subject.endswith("_policy"):
        return f"{subject}_policy"
    return subject


def _kind(attribute: str) -> str:
    return "policy" if attribute in POLICY_TERMS else "fact"


def _of_names(attribute_phrase: str, subject_phrase: str, *, strict: bool) -> tuple[str, str, str] | None:
    """``The A of B``: subject B, attribute A."""
    a = _noun_words(attribute_phrase, strict=strict)
    b = _noun_words(subject_phrase, strict=strict)
    if a is None or b is None:
        return None
    subject, attribute = normalise_name(" ".join(b)), normalise_name(" ".join(a))
    if not subject or not attribute:
        return None
    return subject, attribute, _kind(attribute)


def _names(phrase: str, source_name: str, *, strict: bool = True) -> tuple[str, str, str] | None:
    """(subject, attribute, kind) for a noun phrase, or None when it is not one."""
    words = _noun_words(phrase, strict=False)
    if words is None:
        return None
    lowered = [w.lower() for w in words]
    if "of" in lowered:
        i = lowered.index("of")
        return _of_names(" ".join(words[:i]), " ".join(words[i + 1:]), strict=strict)
    if strict and _noun_words(phrase, strict=True) is None:
        return None
    attribute = normalise_name(words[-1])
    if not attribute:
        return None
    if len(words) == 1:
        return _source_subject(source_name), attribute, _kind(attribute)
    subject = normalise_name(" ".join(words[:-1]))
    if not subject:
        return None
    return _with_policy(subject, attribute), attribute, _kind(attribute)


def _clean_value(raw: str, *, sentence: bool) -> str | None:
    """The value without surrounding whitespace and its trailing ``.``/``!``, or None.

    The whole trailing run of terminators and whitespace goes, so a tail like ``1. ...`` or ``x. . .``
    leaves ``1`` or ``x``, never a value ending in ``.`` (one backward scan: linear).
    """
    value = raw.strip()
    end = len(value)
    while end and (value[end - 1] in _TERMINAL or value[end - 1].isspace()):
        end -= 1
    value = value[:end]
    if not value:
        return None
    if sentence and (_NEGATION.match(value) or _INNER_SENTENCE_END.search(value)):
        return None
    return value


def _rule_x(m: re.Match[str], source_name: str) -> tuple[str, str, str] | None:
    return _names(m["x"], source_name)


def _rule_accepted(m: re.Match[str], source_name: str) -> tuple[str, str, str] | None:
    things = _noun_words(m["x"], drop=_DETERMINERS | _QUANTIFIERS)
    subject = normalise_name(" ".join(things)) if things is not None else ""
    return (_with_policy(subject, "policy"), "window", "policy") if subject else None


def _rule_of(m: re.Match[str], source_name: str) -> tuple[str, str, str] | None:
    return _of_names(m["attribute"], m["subject"], strict=True)


# Rules a-e in order; each gives (subject, attribute, kind) from its match, the value is the "value" group.
_SENTENCE_RULES: Final = (
    (_RULE_CHANGED, _rule_x),
    (_RULE_NOW, _rule_x),
    (_RULE_ACCEPTED, _rule_accepted),
    (_RULE_OF, _rule_of),
    (_RULE_THE, _rule_x),
)


def _sentence_rules(body: str, source_name: str) -> tuple[str, str, str, str] | None:
    """(subject, attribute, value, kind) by rules a-e, or None."""
    for pattern, names_of in _SENTENCE_RULES:
        m = pattern.fullmatch(body)
        if m is None:
            continue
        names, value = names_of(m, source_name), _clean_value(m["value"], sentence=True)
        if names is not None and value is not None:
            return names[0], names[1], value, names[2]
    return None


def _key_value_rule(quote: str, source_name: str) -> tuple[str, str, str, str] | None:
    """(subject, attribute, value, kind) for a ``Key: value`` line (rule f), or None."""
    m = is_key_value(quote)
    if m is None:
        return None
    names, value = _names(m["key"], source_name, strict=False), _clean_value(m["value"], sentence=False)
    if names is None or value is None:
        return None
    return names[0], names[1], value, names[2]


class RuleExtractor(Extractor):
    """Deterministic, offline extraction by the sentence rules a-f (see the module docstring)."""

    name = "rules"

    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        return [c for f in iter_fragments(text) if (c := self._candidate(text, f, source_name)) is not None]

    @staticmethod
    def _candidate(text: str, fragment: Fragment, source_name: str) -> Candidate | None:
        quote = text[fragment.start:fragment.end]
        if _QUESTION_END.search(quote):
            return None
        found = None
        if len(quote) <= _MAX_RULE_CHARS:
            found = _sentence_rules(quote.rstrip(_TERMINAL), source_name)
        if found is None and fragment.kind == "key_value":
            found = _key_value_rule(quote, source_name)
        if found is None:
            return None
        subject, attribute, value, kind = found
        return Candidate(statement=quote, subject=subject, attribute=attribute, value=value, quote=quote,
                         kind=kind, start=fragment.start, end=fragment.end)


def get_extractor(name: str) -> Extractor:
    """A new extractor by its registered name; ValueError names the choices for an unknown one.

    An extractor reads its configuration when it is created (``llm`` refuses with InvalidInput when
    ``BELIEFDB_LLM_URL`` is not set), never when it is imported.
    """
    cls = EXTRACTORS.get(name)
    if cls is None:
        raise ValueError(f"unknown extractor '{name}' (choose from: {', '.join(sorted(EXTRACTORS))})")
    return cls()


# Imported last: the LLM extractor builds on the classes above. (Importing any beliefdb module imports the
# package, which imports this module first, so beliefdb.extract_llm never starts before it.)
from beliefdb.extract_llm import LLMExtractor  # noqa: E402

EXTRACTORS: Final[dict[str, type[Extractor]]] = {
    cls.name: cls for cls in (NoExtractor, RuleExtractor, LLMExtractor)}
