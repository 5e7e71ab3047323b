"""What the conversation evaluation counts, defined once for every system (beliefdb and the
baselines over raw turns), and the baselines' text search.

An **item** is one entry of a system's returned context, in rank order: a belief beliefdb's ``ask``
lists (or a turn it falls back to), or a raw turn a baseline returns. Each item has

* ``claim``: the text it presents as true: a belief's statement, ``[subject.attribute = value]``,
  quote and valid time; a raw turn's date, speaker and text. Warnings beliefdb adds ("replaced
  'Lisbon' on ...", "open conflict: another current belief says ...") are not part of the claim:
  they mention values precisely to say they are not current;
* ``text``: everything the item shows (claim and warnings), what a reader of the context sees;
* ``turns``: the ids of the turns that are its evidence (a raw turn: itself).

Per question, over the first 5 items shown (a system that shows more, as ``ask`` can when it adds
unextracted fragments after its beliefs, is read as far as the others), with gold answers A, gold
evidence turns E and, for knowledge updates, old values O:

* ``hit@1`` / ``hit@5``: an item among the first 1 / 5 has a turn of E among its evidence;
* ``answer_in_context``: a string of A appears in the text of one of those items;
* ``stale_as_current`` (knowledge updates): the first item, in rank order, whose claim mentions a
  value of A or of O mentions a value of O and no value of A. An item that states both ("we
  cancelled Vietnam, flights to Norway are booked") is not stale; an old value presented first as a
  conflicting belief is. No item mentioning either is not stale (it is a miss, counted by the others).

Values match case-insensitively as whole words (not inside a longer word or number: "6" does not
match "2023-06" or "16").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache


@dataclass(frozen=True)
class Item:
    claim: str
    text: str
    turns: frozenset[str] = field(default_factory=frozenset)


@cache
def _pattern(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.I)


def mentions(text: str, values: Iterable[str]) -> bool:
    """Whether ``text`` mentions any of ``values`` as a whole word."""
    return any(_pattern(v).search(text) for v in values)


def hit(items: Sequence[Item], gold: Iterable[str], k: int) -> bool:
    gold = set(gold)
    return any(item.turns & gold for item in items[:k])


def answer_in_context(items: Sequence[Item], answers: Sequence[str]) -> bool:
    return any(mentions(item.text, answers) for item in items)


def stale_as_current(items: Sequence[Item], answers: Sequence[str], stale: Sequence[str]) -> bool:
    """The first item that mentions the current or an old value mentions only an old one."""
    for item in items:
        new, old = mentions(item.claim, answers), mentions(item.claim, stale)
        if new or old:
            return old and not new
    return False


# ---------------------------------------------------------------------------------------------
# the baselines' ranking

_STOP = ("a an and are as at be by did do does for from has have he her his how i in is it its me my now of on or "
         "she that the their them they this to was we what when where which who will with you your")
STOPWORDS = frozenset(_STOP.split())


def tokens(text: str) -> list[str]:
    return [t for t in re.findall(r"\w+", text.lower()) if t not in STOPWORDS]


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N - df + 0.5) / (df + 0.5))) over short texts,
    lower-cased word tokens without stop words, no stemming."""

    def __init__(self, texts: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs = [Counter(tokens(t)) for t in texts]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / max(len(self.docs), 1) or 1.0
        df: Counter[str] = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query: str, k: int) -> list[int]:
        """Indexes of the ``k`` best texts (score > 0), best first; ties by position."""
        q = set(tokens(query))
        scores = []
        for i, (d, length) in enumerate(zip(self.docs, self.lengths, strict=True)):
            s = 0.0
            for t in q & d.keys():
                tf = d[t]
                s += self.idf[t] * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * length / self.avg))
            if s > 0:
                scores.append((-s, i))
        return [i for _, i in sorted(scores)[:k]]


def rrf(rankings: Sequence[Sequence[int]], k: int, c: int = 60) -> list[int]:
    """Reciprocal rank fusion: score(d) = sum over rankings of 1 / (c + rank), rank from 1."""
    score: dict[int, float] = {}
    for ranking in rankings:
        for r, d in enumerate(ranking, start=1):
            score[d] = score.get(d, 0.0) + 1.0 / (c + r)
    return [d for d, _ in sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]
