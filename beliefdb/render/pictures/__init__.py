"""Pictures of a :class:`~beliefdb.models.graph.Graph` (what ``beliefdb.graph`` builds): Mermaid,
Graphviz DOT and indented text, for ``why``, ``impact`` and ``run --format``. The product view draws
the same graphs as SVG (``beliefdb.interfaces.web.svg``)."""

from __future__ import annotations

from collections.abc import Callable

from beliefdb.models.graph import Graph
from beliefdb.render.pictures.dot import to_dot
from beliefdb.render.pictures.mermaid import to_mermaid
from beliefdb.render.pictures.text import to_text

#: the formats ``why``, ``impact`` and ``run`` draw in, and what draws each
FORMATS: dict[str, Callable[[Graph], str]] = {"text": to_text, "mermaid": to_mermaid, "dot": to_dot}


def draw(graph: Graph, fmt: str) -> str:
    """``graph`` in format ``fmt`` (one of :data:`FORMATS`), without a trailing line break."""
    return FORMATS[fmt](graph).rstrip("\n")


__all__ = ["FORMATS", "draw", "to_dot", "to_mermaid", "to_text"]
