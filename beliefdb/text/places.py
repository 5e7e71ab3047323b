"""Where a fragment stands in a markdown document: the level of the heading it titles, and its line's indent
and whether it is a list item, and the subject a label line gives the items under it (the rule extractor's
sections and list labels, :mod:`beliefdb.text.rules`)."""

from __future__ import annotations

import re
from typing import Final

from beliefdb.text.fragments import LINE_BREAKS
from beliefdb.text.naming import section_subject


def heading_level(text: str, start: int) -> int:
    """The level of the markdown heading whose title starts at ``start`` (its run of ``#`` before it)."""
    end = start
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    begin = end
    while begin > 0 and text[begin - 1] == "#":
        begin -= 1
    return end - begin


_MARKER: Final = re.compile(r"[-*+]|\d{1,9}[.)]")


def line_place(text: str, start: int) -> tuple[int, bool] | None:
    """(indent, whether it is a list item) of the fragment at ``start`` when it begins its line (after a
    list marker, if any), else None (a second sentence of a line)."""
    # back over the whitespace, a list marker (at most 10 characters) and the indent before it: linear in
    # all, each run of whitespace being before one fragment (a line of many sentences is not scanned again)
    at = start
    while at > 0 and text[at - 1].isspace() and text[at - 1] not in LINE_BREAKS:
        at -= 1
    mark = at
    while at > 0 and mark - at < 10 and text[at - 1] in "-*+.)0123456789":
        at -= 1
    marker = text[at:mark]
    if marker and (at == mark or not _MARKER.fullmatch(marker) or (at < mark and start == mark)):
        return None
    indent_end = at
    while at > 0 and text[at - 1].isspace() and text[at - 1] not in LINE_BREAKS:
        at -= 1
    if at > 0 and text[at - 1] not in LINE_BREAKS:
        return None
    return indent_end - at, bool(marker)


def label_subject(line: str) -> str | None:
    """The subject a label line ending in a colon gives the list items under it ("Express shipping:" ->
    ``express_shipping``; three words at most, "Please send the following:" is none), or None."""
    if not line.endswith((":", "：")) or len(line) < 2 or len(line.split()) > 3:
        return None
    return section_subject(line[:-1])
