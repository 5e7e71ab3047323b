"""A long quote shown by the part a belief states: a conversation's claim quotes its whole turn (its
exact evidence, offsets and all), and a turn may be a pasted page; a prompt's context and the text for
people show the sentence the belief came from, and say how long the quote is. JSON keeps the quote whole.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_SHOWN", "excerpt"]

MAX_SHOWN: Final = 400  # characters of a quote shown whole


def excerpt(quote: str, statement: str, limit: int = MAX_SHOWN) -> str:
    """``quote`` itself when at most ``limit`` characters long; else the sentence the belief's
    ``statement`` says ("Ana: I work at Siemens." says "I work at Siemens."), or the quote's start when
    the statement's words are not in it, "…" where text is left out, and the quote's length."""
    if len(quote) <= limit:
        return quote
    said = statement.split(": ", 1)[1] if ": " in statement else statement
    at = quote.find(said.strip()) if said.strip() else -1
    start, end = (at, at + len(said.strip())) if at >= 0 else (0, 0)
    end = min(max(end, start + limit // 2), start + limit, len(quote))
    shown = quote[start:end].strip()
    return (("… " if start > 0 else "") + shown + (" …" if end < len(quote) else "")
            + f" (an excerpt of a {len(quote):,}-character quote)")
