"""Stored text on a page: a bidi control is shown as a visible mark, not applied.

Applied, U+202E (right-to-left override) in a belief's value or a source's name reversed what the page
said after it, its own words included (a status, the next belief), to the end of the block or the
picture's label."""

from __future__ import annotations

import html
import unicodedata

from beliefdb.render.terminal import REORDERING

# (U+2028 and U+2029 break a line in a terminal, but are only white space in HTML)
_MARKS = {ord(c): f"[U+{ord(c):04X}]" for c in REORDERING if unicodedata.category(c) == "Cf"}


def visible(text: str) -> str:
    """``text`` with each bidi embedding, override or isolate (U+202A–E, U+2066–9) as ``[U+202E]``."""
    return text.translate(_MARKS)


def escape(text: str) -> str:
    """``text`` for HTML or SVG, its bidi controls visible."""
    return html.escape(visible(text))
