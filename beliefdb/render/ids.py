"""How a text output names a node: the first eight characters of its id."""

from __future__ import annotations

from uuid import UUID


def short(id_: UUID | str) -> str:
    return str(id_)[:8]
