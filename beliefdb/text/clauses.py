"""A second clause of what a speaker says of themselves: "I live in Munich and work as a nurse" says
``lives_in`` = Munich (:func:`beliefdb.text.self_statements.self_statement` of the sentence) and ``job`` =
nurse (:func:`also_said`), "my daughter is 5 and my son is 7" both ages.
"""

from __future__ import annotations

import re
from typing import Final

from beliefdb.text.self_statements import FIRST_PERSON_RE, Found, first_person, self_statement

__all__ = ["also_said"]

_AND_RE: Final = re.compile(r"\s*,?\s+and\s+", re.IGNORECASE)


def also_said(sentence: str) -> Found | None:
    """What the speaker says of themselves in the clause after "and", read as a sentence of its own ("I"
    added when it names no one); None unless ``sentence`` is in the first person and no question."""
    body = sentence.strip().rstrip(".!").strip()
    joint = _AND_RE.search(body) if first_person(body) and not body.endswith("?") else None
    if joint is None:
        return None
    rest = body[joint.end():]
    return self_statement(rest if FIRST_PERSON_RE.match(rest) else f"I {rest}")
