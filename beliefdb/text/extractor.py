"""The extractor interface: what an extractor proposes (a :class:`Candidate` with its exact quote)
and the names it gives subjects and attributes.

An extractor proposes candidates; it decides nothing. The evidence gate (:mod:`beliefdb.text.gate`)
accepts a candidate only if its quote is in the source text. Implementations: the offline rule
extractor (:mod:`beliefdb.text.rules`) and the LLM extractor (:mod:`beliefdb.text.llm`), found by
name in :mod:`beliefdb.text.registry`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import ClassVar, Final

from beliefdb.text.turns import TurnSpan
from beliefdb.vocabulary import BELIEF_KINDS

__all__ = ["KINDS", "Candidate", "Extractor", "NoExtractor", "any_script_name", "name_parts", "normalise_name",
           "on_turn", "turn_of"]

KINDS: Final = BELIEF_KINDS  # the kinds of belief an extractor may propose


def _empty_scope() -> Mapping[str, str]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Candidate:
    """A proposed belief with its exact quote (offsets when the extractor knows them).

    ``scope`` is stored as a read-only copy and left out of the hash, so candidates stay hashable.
    ``unless_given``: a past value inferred, not said ("I moved from W to X": W until the turn), which the
    database stores only when the workspace never gave the subject that value before (``beliefdb._add_claims``).
    ``refused``: why the evidence gate must reject it, found by its extractor where only it can see (a model's
    own quote before it is widened to its turn: :func:`beliefdb.text.gate.model_quote`); None for any other.
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
    unless_given: bool = False
    refused: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "scope", MappingProxyType(dict(self.scope)))


class Extractor(ABC):
    """Proposes candidate beliefs for a document; deterministic for the same input."""

    name: ClassVar[str]

    @abstractmethod
    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        """Candidates for ``text``; ``source_name`` (e.g. ``return-policy.md``) may name the subject."""

    def extract_turns(self, text: str, turns: Sequence[TurnSpan], *, source_name: str,
                      read: Sequence[TurnSpan] | None = None) -> list[Candidate]:
        """Candidates for a conversation ``text`` whose turns lie at ``turns``, from the turns of ``read``
        only when given (a turn appended: the others are what was said before it, for an extractor that
        reads a turn in their light): by default :meth:`extract` of each turn's text alone (so a
        ``Speaker:`` prefix is never read as a ``Key: value`` line), each candidate quoting its whole turn
        (:func:`on_turn`)."""
        return [on_turn(c, text, turn) for turn in (turns if read is None else read)
                for c in self.extract(text[turn.start:turn.end], source_name=source_name)]


def on_turn(candidate: Candidate, text: str, turn: TurnSpan) -> Candidate:
    """``candidate`` with its evidence the exact turn (quote and offsets of the turn's text) and its valid
    time starting at the turn's time (unless the candidate says when it starts)."""
    valid_from = candidate.valid_from
    if valid_from is None and turn.time is not None:
        valid_from = turn.time.isoformat()
    return replace(candidate, quote=text[turn.start:turn.end], start=turn.start, end=turn.end,
                   valid_from=valid_from)


def turn_of(candidate: Candidate, text: str, turns: Sequence[TurnSpan],
            subject_of: Callable[[str], str]) -> TurnSpan | None:
    """The turn whose text holds ``candidate``'s quote (an extractor that saw the whole conversation quotes
    from it without offsets): the first said by the speaker the candidate is about (``subject_of`` a speaker
    is the subject of what they say of themselves), when one of theirs holds it (two people may say the same
    words), else the first; None when none does."""
    quote = candidate.quote
    if not quote.strip():
        return None
    holding = [turn for turn in turns if text.find(quote, turn.start, turn.end) >= 0]
    about = subject_of(candidate.subject)
    return next((turn for turn in holding if subject_of(turn.speaker) == about), holding[0] if holding else None)


class NoExtractor(Extractor):
    """Proposes nothing (claims come from elsewhere)."""

    name = "none"

    def extract(self, text: str, *, source_name: str) -> list[Candidate]:
        return []


# --- names --------------------------------------------------------------------------------------------

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


_NAME_PART_RE: Final = re.compile(r"[a-z0-9]+")


def _folded(ch: str) -> str:
    """A letter of a name as it is kept: a Latin letter with an accent as its ASCII letter (``é`` -> ``e``),
    any other letter of any script as itself."""
    if ch.isascii() or "LATIN" not in unicodedata.name(ch, ""):
        return ch
    return "".join(c for c in unicodedata.normalize("NFKD", ch) if c.isascii()) or ch


def name_parts(words: str) -> list[str]:
    """The words of a name: the runs of letters and digits of ``words`` in any script, lowercase, after NFKC
    (a full-width ``Ａ`` or ``¹`` is the letter or digit it stands for), Latin accents folded
    (:func:`_folded`); a combining mark stays with the letter it follows unless that letter was folded."""
    parts: list[str] = []
    part: list[str] = []
    for ch in unicodedata.normalize("NFKC", words).lower():
        if ch.isalnum():
            part.append(_folded(ch))
        elif unicodedata.category(ch).startswith("M"):
            if part and not part[-1].isascii():  # (a vowel sign of Devanagari, a harakat of Arabic)
                part.append(ch)
        elif part:
            parts.append("".join(part))
            part = []
    if part:
        parts.append("".join(part))
    return parts


@functools.lru_cache(maxsize=4096)  # (a document names the same few subjects and attributes on every line)
def normalise_name(words: str, *, singular: bool = True) -> str:
    """A lowercase snake_case identifier (``[a-z0-9_]``) for ``words``, its last word made singular
    (unless ``singular`` is false: a name, "James").

    Accents are folded (``café`` -> ``cafe``); other non-ASCII letters are dropped like punctuation, so
    the result may be empty (names stored by earlier releases are made so: a document ingested again must
    name its claims as it did; :func:`any_script_name` names what this leaves empty). ``"Returns"`` ->
    ``return``, ``"policies"`` -> ``policy``; ``status``, ``address`` and words of 3 letters or fewer stay.
    """
    folded = unicodedata.normalize("NFKD", words).encode("ascii", "ignore").decode("ascii").lower()
    parts = _NAME_PART_RE.findall(folded)
    if parts and singular:
        parts[-1] = _singular(parts[-1])
    return "_".join(parts)


@functools.lru_cache(maxsize=1024)
def any_script_name(words: str, *, singular: bool = True) -> str:
    """A name in any script, for what :func:`normalise_name` leaves empty (``Гарантия`` -> ``гарантия``,
    ``退货`` -> ``退货``, ``Срок гарантии`` -> ``срок_гарантии``): its words (:func:`name_parts`) joined by
    ``_``, the last made singular as there."""
    parts = name_parts(words)
    if parts and singular:
        parts[-1] = _singular(parts[-1])
    return "_".join(parts)
