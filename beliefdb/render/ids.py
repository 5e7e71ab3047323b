"""How a text output names a node: the first eight characters of its id."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID


def short(id_: UUID | str) -> str:
    return str(id_)[:8]


#: the ids a list in a text output names before counting the rest (a source's retraction names 100,000s)
IDS_SHOWN = 20


def shorts(ids: Sequence[UUID | str], shown: int = IDS_SHOWN) -> str:
    """The first ``shown`` ids, short, then how many more: --json lists them all."""
    more = len(ids) - shown
    return ", ".join(short(x) for x in ids[:shown]) + (f", and {more:,} more (--json lists them all)" if more > 0
                                                         else "")
