"""What extraction did not turn into beliefs, and why: the skipped sentences and warnings of an ingest.

Computed where the extractor runs (before the database transaction), from the fragments of the text,
the candidates the gate located and those it rejected. It decides nothing: a located candidate is
still stored or not by the database's rules; this only says which sentences no candidate came from.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Final

from beliefdb.errors import argument, spelled
from beliefdb.models import ExtractionWarning, Skipped
from beliefdb.text.extractor import Candidate
from beliefdb.text.fragments import Fragment, iter_fragments, verbatim_spans, wrapped
from beliefdb.text.gate import Located
from beliefdb.text.numbers import NUMBER_WORD, number_word_value
from beliefdb.text.tables import is_table_rule, table_rows, unnamed_cells
from beliefdb.text.transcripts import SPOKEN, common_words, dialogue_speakers, spoken_by, spoken_turn

__all__ = ["FORGOTTEN", "extraction_report", "forgotten_out", "hint", "left_out"]

_WORD_THEN_NUMERAL: Final = re.compile(rf"\b(?P<word>{NUMBER_WORD})\s*\(\s*(?P<numeral>\d{{1,9}})\s*\)", re.I)
_NUMERAL_THEN_WORD: Final = re.compile(rf"\b(?P<numeral>\d{{1,9}})\s*\(\s*(?P<word>{NUMBER_WORD})\s*\)", re.I)


def _contradictions(text: str, f: Fragment) -> list[ExtractionWarning]:
    found = []
    for pattern in (_WORD_THEN_NUMERAL, _NUMERAL_THEN_WORD):
        for m in pattern.finditer(text, f.start, f.end):
            word, numeral = number_word_value(m["word"]), int(m["numeral"])
            if word == numeral:
                continue
            numbers = [word, numeral] if m.start("word") < m.start("numeral") else [numeral, word]
            found.append((m.start(), ExtractionWarning(
                kind="self_contradictory", quote=text[f.start:f.end], start=f.start, end=f.end, numbers=numbers,
                message=f"\"{m[0]}\" gives one quantity as both {numbers[0]} and {numbers[1]}")))
    return [w for _, w in sorted(found, key=lambda x: x[0])]


def _is_cjk(ch: str) -> bool:
    return "\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def left_out(text: str, f: Fragment) -> bool:
    """Whether a fragment that is the source of no belief goes unlisted.

    Left out: headings (titles of what follows, not statements), a markdown table's header row and the
    row of dashes under it (:func:`~beliefdb.text.tables.is_table_rule`), and labels — list items and lines of
    at most two words, with no digit, of at most 20 characters (at most 5 for CJK text, which has no
    spaces between words): "- Notes", "Thanks!", "Ok.". Everything else, a ``Key: value`` line
    included, is listed, so a statement the extractor cannot read is never silently dropped.
    """
    if f.kind == "heading" or is_table_rule(text, f.start, f.end):
        return True
    if f.kind == "key_value":
        return False
    quote = text[f.start:f.end]
    if len(quote.split()) > 2 or len(quote) > 20 or any(ch.isdigit() for ch in quote):
        return False
    return not any(_is_cjk(ch) for ch in quote) or len(quote) <= 5


def _fold(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


def _aimed_at(text: str, fragments: list[Fragment], rejected: Iterable[tuple[Candidate, str]]) -> dict[int, str]:
    """The gate's reason for each fragment a rejected candidate aimed at: by its offsets when it gave
    them, else by its quote equal to the fragment's text up to whitespace, case and NFKC."""
    by_text: dict[str, list[int]] = {}
    starts = [f.start for f in fragments]
    reasons: dict[int, str] = {}
    for candidate, reason in rejected:
        hits: list[int] = []
        if candidate.start is not None and candidate.end is not None:
            i = max(bisect_left(starts, candidate.start) - 1, 0)
            while i < len(fragments) and fragments[i].start < candidate.end:
                if fragments[i].end > candidate.start:
                    hits.append(i)
                i += 1
        if not hits:
            if not by_text:
                for i, f in enumerate(fragments):
                    by_text.setdefault(_fold(text[f.start:f.end]), []).append(i)
            hits = by_text.get(_fold(candidate.quote), [])
        for i in hits:
            reasons.setdefault(i, reason)
    return reasons


def _sources(fragments: list[Fragment], located: Iterable[Located]) -> list[bool]:
    """For each fragment, whether a located quote overlaps it (one sweep over both, in order)."""
    spans = sorted((loc.start, loc.end) for loc in located)
    out, j, reach = [], 0, -1
    for f in fragments:
        while j < len(spans) and spans[j][0] < f.end:
            reach = max(reach, spans[j][1])
            j += 1
        out.append(reach > f.start)
    return out


def extraction_report(text: str, located: Iterable[Located], rejected: Iterable[tuple[Candidate, str]],
                      fragments: Sequence[Fragment] | None = None, speakers: frozenset[str] = frozenset(),
                      extractor: str = "rules") -> tuple[list[Skipped], list[ExtractionWarning]]:
    """The sentences of ``text`` (or these ``fragments`` of it, in text order: a conversation's turns) that
    are the source of no belief (reason and offsets), and warnings. A ``Name: text`` line that is someone
    speaking (:func:`~beliefdb.text.transcripts.spoken_turn`, or a line of one of the ``speakers`` of a
    transcript or of the text's dialogue, :func:`~beliefdb.text.transcripts.dialogue_speakers`) is said to
    be one. Of a document's table row that gave beliefs by the ``extractor`` ``rules``, each cell under a
    header that names nothing is listed (:func:`~beliefdb.text.tables.unnamed_cells`)."""
    document = fragments is None
    verbatim = verbatim_spans(text) if document else []  # (a document's front matter and code)
    fragments = list(iter_fragments(text)) if fragments is None else list(fragments)
    is_source = _sources(fragments, located)
    aimed = _aimed_at(text, fragments, rejected)
    skipped: list[Skipped] = []
    warnings: list[ExtractionWarning] = []
    seen: dict[str, tuple[int, int, bool]] = {}
    keyed = [text[f.start:f.end] for f in fragments if f.kind == "key_value"]
    common = common_words(text) if keyed else frozenset()
    speakers = speakers | dialogue_speakers(keyed, common)
    rows = table_rows(text) if document and extractor == "rules" and "|" in text else {}
    cut = wrapped(text, fragments) if document and extractor == "rules" else set()
    for i, f in enumerate(fragments):
        quote = text[f.start:f.end]
        warnings += _contradictions(text, f)
        earlier = seen.setdefault(quote, (f.start, f.end, is_source[i]))
        if is_source[i] and (row := rows.get(f.start)) is not None and row.end == f.end:
            skipped += [Skipped(text[a:b], a, b, "no_pattern", f"its column's header {header!r} names no attribute")
                        for a, b, header in unnamed_cells(text, f.start, row)]
        if is_source[i] or left_out(text, f):
            continue
        if i in aimed:
            skipped.append(Skipped(quote, f.start, f.end, "gate", aimed[i]))
        elif earlier[0] != f.start:
            what = "the evidence of a belief" if earlier[2] else "listed there"
            skipped.append(Skipped(quote, f.start, f.end, "duplicate",
                                   f"the same text as [{earlier[0]}, {earlier[1]}), {what}"))
        elif f.kind == "key_value" and (spoken_turn(quote, common) or spoken_by(quote, speakers)):
            skipped.append(Skipped(quote, f.start, f.end, "no_pattern", SPOKEN))
        elif verbatim and (k := bisect_right(verbatim, (f.start, len(text) + 1)) - 1) >= 0 \
                and f.start < verbatim[k][1]:
            skipped.append(Skipped(quote, f.start, f.end, "no_pattern", VERBATIM))
        elif i in cut:
            skipped.append(Skipped(quote, f.start, f.end, "no_pattern", WRAPPED))
        elif quote.rstrip().endswith(("?", "？")):
            skipped.append(Skipped(quote, f.start, f.end, "no_pattern", "a question states no fact"))
        else:
            skipped.append(Skipped(quote, f.start, f.end, "no_pattern", NOTHING_PROPOSED.get(
                extractor, "no rule of the extractor matched")))
    return skipped, warnings


#: why a sentence gave nothing, by the extractor that read it (another: no rule of the extractor matched)
NOTHING_PROPOSED: Final = {"llm": "the model proposed no belief from it"}

#: why a part of a sentence wrapped onto the next line produced no belief (alone it is cut short)
WRAPPED: Final = ("a sentence wrapped onto the next line: the rule extractor reads a line at a time, and either"
                  " part alone is cut short (write the sentence on one line, or give its claim with --claims)")

#: why a line of a document's front matter or code block produced no belief
VERBATIM: Final = "front matter or a code block: not a statement of the document"

#: why a sentence whose words were forgotten before in its source produced no belief
FORGOTTEN: Final = "forgotten before in this source: masked where it is stored and not kept; its words are not shown"


def forgotten_out(skipped: Sequence[Skipped], warnings: Sequence[ExtractionWarning],
                  spans: Sequence[tuple[int, int]]) -> tuple[list[Skipped], list[ExtractionWarning]]:
    """``skipped`` and ``warnings`` without the words of ``spans``, what the database masked of the text as
    forgotten (rule 14 of docs/rules.md; listing them would repeat them): a sentence within them is listed
    as ``forgotten``, its quote empty (not as a sentence skipped and kept); one partly within them has those
    characters masked as they are stored; a warning over them goes."""
    if not spans:
        return list(skipped), list(warnings)

    def masked(start: int, end: int) -> list[tuple[int, int]]:
        return [(max(a, start), min(b, end)) for a, b in spans if a < end and start < b]

    kept: list[Skipped] = []
    for s in skipped:
        over = masked(s.start, s.end)
        if not over:
            kept.append(s)
        elif all(any(a <= i < b for a, b in over) for i in range(s.start, s.end)
                 if not s.quote[i - s.start].isspace()):
            kept.append(Skipped("", s.start, s.end, "forgotten", FORGOTTEN))
        else:
            chars = list(s.quote)
            for a, b in over:
                chars[a - s.start:b - s.start] = "\u2588" * (b - a)
            kept.append(Skipped("".join(chars), s.start, s.end, s.reason, s.detail))
    return kept, [w for w in warnings if not masked(w.start, w.end)]


def hint(skipped: list[Skipped], *, extractor: str, llm_configured: bool, bulk: bool = False) -> str | None:
    """How to get beliefs out of the skipped sentences, or None when nothing was skipped. ``bulk``: the
    document was one of a bulk ingest, which takes no claims: ingesting it alone does."""
    if not skipped:
        return None
    claims = " (JSONL: statement, subject, attribute, value, quote)"
    one = "each with its statement, subject, attribute, value and exact quote"
    library, cli = f"give their claims with claims=FILE{claims}", f"give their claims with --claims FILE{claims}"
    if bulk:
        library = f"give their claims by ingesting the document alone, ingest(PATH, claims=FILE){claims}"
        cli = f"give their claims by ingesting the file alone with --claims FILE (not with --bulk){claims}"
    ways = [spelled(library, cli, http=f"remember them with POST /beliefs, {one}",
                    mcp=f"remember them with `remember`, {one}")]
    if llm_configured and extractor != "llm":
        ways.append(f"or use {argument('extractor', 'llm')} (an endpoint is configured)")
    return " ".join(ways)
