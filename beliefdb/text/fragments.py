"""Split a document into fragments: exact, sentence-level character spans.

Offsets are 0-based ``str`` indices, end exclusive, so ``text[start:end]`` is the fragment exactly: no
normalisation, no whitespace folding. A fragment never starts or ends with whitespace, fragments never
overlap and come in text order.

Each non-empty line is split into sentences at ``.``, ``!`` or ``?`` (a run of them, optionally followed
by closing quotes or brackets) that is followed by whitespace or the end of the line, and after the CJK
terminators ``。！？`` (no whitespace needed); the period of a common abbreviation ends none (:func:`abbreviated`:
"We do not ship to P.O. boxes.", "e.g.", "i.e.", "vs.", "approx."; "etc.", "Inc.", "Ltd." before a lowercase
word, "No." before a number). A markdown heading or a ``Key: value`` line is one fragment; a list item is split
into its sentences as a line is (each a ``list_item``: "- Set a session timeout. The default session timeout is
12 hours."), unless it is a ``Key: value`` line; the heading's ``#`` markers (also a closing ``#`` sequence) and
the list marker (``-``, ``*``, ``+``, ``1.``, ``1)``) are not part of it, nor the symbols (emoji) that open a
``Key: value`` line and close it.

Line breaks are those of ``str.splitlines``. Time is linear in the length of the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Final, Literal, NamedTuple

from beliefdb.text.marks import MARKS

__all__ = ["KEY_VALUE_RE", "Fragment", "FragmentKind", "abbreviated", "is_key_value", "iter_fragments",
           "split_fragments", "verbatim_spans", "wrapped"]

FragmentKind = Literal["heading", "list_item", "key_value", "sentence"]


class Fragment(NamedTuple):
    start: int
    end: int
    kind: FragmentKind


#: what ends a line: the same breaks as str.splitlines
LINE_BREAKS: Final = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# A line: a maximal run of characters that are not line breaks.
_LINE_RE: Final = re.compile(f"[^{LINE_BREAKS}]+")

_CLOSERS: Final = "\"'”’)\\]」』）】》"
# Possessive quantifiers and the look-behinds keep this linear on long runs of punctuation.
_TERMINATOR_RE: Final = re.compile(
    rf"(?<![.!?])[.!?]++[{_CLOSERS}]*+(?=\s|$)"
    rf"|(?<![。！？])[。！？]++[{_CLOSERS}]*+"
)
# the abbreviations whose period ends no sentence: always, before a lowercase word, before a number
_ALWAYS_SHORT: Final = re.compile(
    r"(?<![\w.])(?:p\.\s?o|e\.g|i\.e|vs|approx|cf|viz|a\.k\.a)\.$", re.IGNORECASE)
_SHORT_IN_SENTENCE: Final = re.compile(r"(?<![\w.])(?:etc|inc|ltd|co|corp|llc|gmbh|st|jr|sr)\.$", re.IGNORECASE)
_NUMBER_SHORT: Final = re.compile(r"(?<![\w.])(?:no|nos|nr|art|sec|ch|vol|p|pp)\.$", re.IGNORECASE)


def abbreviated(text: str, end: int) -> bool:
    """Whether the ``.`` just before ``end`` is a common abbreviation's that ends no sentence there (see the
    module docstring): the word before it is read back ten characters at most (linear)."""
    low = max(0, end - 10)
    if _ALWAYS_SHORT.search(text, low, end):
        return True
    after = text[end:end + 3].lstrip()
    if not after:
        return False
    return bool((after[0].islower() and _SHORT_IN_SENTENCE.search(text, low, end))
                or (after[0].isdigit() and _NUMBER_SHORT.search(text, low, end)))


_HEADING_RE: Final = re.compile(r"#{1,6}(?:\s+|$)")
_LIST_MARKER_RE: Final = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:\s+|$)")

#: a word of a key: letters and digits of any script with the marks written inside them (``कीमत``, a
#: decomposed ``Größe``)
_KEY_WORD: Final = rf"[^\W_](?:[^\W_]|[{MARKS}])*"
KEY_VALUE_RE: Final = re.compile(
    rf"(?P<bold>\*\*|__)?(?P<key>{_KEY_WORD}(?:-{_KEY_WORD})*(?: +{_KEY_WORD}(?:-{_KEY_WORD})*){{0,4}})"
    r"(?(bold)(?:(?P=bold):|:(?P=bold))\s+|(?::\s+|：\s*))(?P<value>\S.*)"
)
"""A ``Key: value`` line (list marker already removed): a key of 1-5 words of letters, digits (and the
marks written inside them) and hyphens, a colon and whitespace (or a full-width colon ``：``, whitespace
optional, as CJK text writes it), a non-empty value; the key may be in bold, with its colon or without
(``**Key:** value``, ``**Key**: value``, ``__Key:__ value``). Use with ``fullmatch``."""

_URL_SCHEMES: Final = frozenset({"http", "https", "ftp", "ftps", "sftp", "ssh", "git", "file", "mailto",
                                 "tel", "urn", "data", "ws", "wss"})


def is_key_value(text: str, start: int = 0, end: int | None = None) -> re.Match[str] | None:
    """The ``Key: value`` match of ``text[start:end]`` (already stripped), or None."""
    m = KEY_VALUE_RE.fullmatch(text, start, len(text) if end is None else end)
    if m is None or m.group("key").lower() in _URL_SCHEMES:
        return None
    return m


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """The span without leading and trailing whitespace (empty when it is all whitespace)."""
    chunk = text[start:end]
    stripped = chunk.lstrip()
    if not stripped:
        return start, start
    start += len(chunk) - len(stripped)
    return start, start + len(stripped.rstrip())


#: what frames a line (``🎉 Party budget: 500 EUR 🎉``): symbols (emoji among them), their modifiers,
#: variation selectors and joiners
_FRAME: Final = frozenset({"So", "Sk", "Mn", "Me", "Cf"})


def _unframed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of a line that a run of symbols opens, without them and the same run closing it (if any);
    None when no symbol opens it."""
    s, e = start, end
    while s < e and (unicodedata.category(text[s]) in _FRAME or text[s].isspace()):
        s += 1
    if s == start or not any(unicodedata.category(ch) in ("So", "Sk") for ch in text[start:s]):
        return None
    while e > s and (unicodedata.category(text[e - 1]) in _FRAME or text[e - 1].isspace()):
        e -= 1
    return (s, e) if s < e else None


def _line_fragments(text: str, start: int, end: int) -> Iterator[Fragment]:
    start, end = _trim(text, start, end)
    if start >= end:
        return
    heading = _HEADING_RE.match(text, start, end)
    if heading is not None:
        content = text[heading.end():end]
        unclosed = content.rstrip("#")
        if len(unclosed) < len(content) and (not unclosed or unclosed[-1].isspace()):
            content = unclosed.rstrip()  # an optional closing sequence: "## Title ##"
        if content:
            yield Fragment(heading.end(), heading.end() + len(content), "heading")
        return
    marker = _LIST_MARKER_RE.match(text, start, end)
    if marker is not None:
        start = marker.end()
        if start >= end:
            return  # an empty list item
        if is_key_value(text, start, end):
            yield Fragment(start, end, "key_value")
            return
        yield from _sentences(text, start, end, "list_item")
        return
    if is_key_value(text, start, end):
        yield Fragment(start, end, "key_value")
        return
    inner = _unframed(text, start, end)
    if inner is not None and is_key_value(text, *inner):
        yield Fragment(*inner, "key_value")
        return
    yield from _sentences(text, start, end, "sentence")


def _sentences(text: str, start: int, end: int, kind: FragmentKind) -> Iterator[Fragment]:
    pos = start
    for m in _TERMINATOR_RE.finditer(text, start, end):
        if m.end() < end and m.end() - m.start() == 1 and abbreviated(text, m.end()):
            continue
        s, e = _trim(text, pos, m.end())
        if s < e:
            yield Fragment(s, e, kind)
        pos = m.end()
    s, e = _trim(text, pos, end)
    if s < e:
        yield Fragment(s, e, kind)


def iter_fragments(text: str) -> Iterator[Fragment]:
    """The fragments of ``text`` in order, each with what kind of line it came from."""
    for line in _LINE_RE.finditer(text):
        yield from _line_fragments(text, line.start(), line.end())


def split_fragments(text: str) -> list[tuple[int, int]]:
    """Sentence-level ``(start, end)`` spans of ``text``; ``text[start:end]`` is never empty."""
    return [(f.start, f.end) for f in iter_fragments(text)]


#: what ends a sentence that a line may end with (a sentence terminator, a colon or a semicolon, and the
#: closing quotes or brackets after them)
_ENDED: Final = re.compile(rf"[.!?。！？:;：；…][{_CLOSERS}]*$")
#: the words a line ends with that leave its sentence open ("Invoices must be" / "paid within 14 days.")
_OPEN_ENDS: Final = frozenset({
    "a", "an", "the", "and", "or", "but", "nor", "of", "to", "from", "in", "into", "on", "at", "by", "for",
    "with", "within", "without", "per", "than", "as", "is", "are", "was", "were", "be", "been", "being",
    "must", "will", "shall", "can", "may", "should", "would", "could", "not", "no", "each", "every", "its",
    "their", "our", "your", "his", "her", "this", "that", "these", "those", "which", "who", "whose", "whom",
    "between", "over", "under", "after", "before", "until", "via", "plus", "minus"})
#: the words a line starts with that go on with the sentence above it ("… from 10:00" / "to 19:00.")
_GOING_ON: Final = frozenset({
    "and", "or", "but", "nor", "to", "from", "of", "in", "on", "at", "by", "for", "with", "within", "per",
    "than", "as", "which", "who", "whose", "whom", "that", "until", "plus", "minus", "except", "including",
    "excluding"})


def wrapped(text: str, fragments: list[Fragment]) -> set[int]:
    """The indexes of the ``sentence`` fragments that are a part of a sentence wrapped onto the next line:
    one that ends its line without ending its sentence, where the next line goes on in lowercase, and either
    the line ends on a word that leaves it open ("Invoices must be") or a comma, or the next line starts with
    a word that goes on with it ("to 19:00.", "and 220 EUR elsewhere."); and that next one. Read alone,
    either states a cut-short fact ("the store is open from 10:00" of "from 10:00" / "to 19:00")."""
    out: set[int] = set()
    for i in range(len(fragments) - 1):
        f, g = fragments[i], fragments[i + 1]
        if f.kind != "sentence" or g.kind != "sentence" or _ENDED.search(text, f.start, f.end):
            continue
        between = text[f.end:g.start].replace("\r\n", "\n")  # (a blank line between them ends a paragraph)
        if between.strip() or sum(between.count(b) for b in LINE_BREAKS) != 1 or not text[g.start].islower():
            continue
        last = text[f.start:f.end].rsplit(None, 1)[-1]
        first = text[g.start:g.end].split(None, 1)[0].rstrip(",;:")
        if last.endswith((",", "-", "–")) or last.lower() in _OPEN_ENDS or first in _GOING_ON:
            out.update((i, i + 1))
    return out


_FENCE_RE: Final = re.compile(r" {0,3}(`{3,}|~{3,})")
_FRONT_MATTER_END: Final = frozenset({"---", "..."})


def verbatim_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` that are no statements of it: a YAML front matter block that
    opens the text (``---`` to a closing ``---`` or ``...`` line) and markdown code blocks fenced by
    ``````` or ``~~~`` (to a closing fence of the same character, at least as long; a fence never closed
    fences nothing). Linear in the length of the text."""
    spans: list[tuple[int, int]] = []
    lines: list[tuple[int, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        lines.append((pos, pos + len(line)))
        pos += len(line)
    i = 0
    if lines and text[lines[0][0]:lines[0][1]].rstrip() == "---":
        for j in range(1, len(lines)):
            if text[lines[j][0]:lines[j][1]].rstrip() in _FRONT_MATTER_END:
                spans.append((0, lines[j][1]))
                i = j + 1
                break
    while i < len(lines):
        m = _FENCE_RE.match(text, *lines[i])
        if m is None:
            i += 1
            continue
        fence = m.group(1)
        close = next((j for j in range(i + 1, len(lines))
                      if (c := _FENCE_RE.match(text, *lines[j])) is not None and c.group(1)[0] == fence[0]
                      and len(c.group(1)) >= len(fence) and not text[c.end():lines[j][1]].strip()), None)
        if close is None:
            i += 1
            continue
        spans.append((lines[i][0], lines[close][1]))
        i = close + 1
    return spans
