"""Pictures of the store: the builders that read a neighbourhood into a
:class:`~beliefdb.models.graph.Graph` (``why``, ``impact``, a run, the product view's workspace) and
the renderers that draw one (Mermaid, Graphviz DOT, indented text).

The builders take a :class:`~beliefdb.db.connector.Database` and are called through
:class:`~beliefdb.BeliefDB` (``why_graph``, ``impact_graph``, ``run_graph``, ``workspace_graph``). Every
status and mark is what the database answered; the renderers only draw.
"""

from __future__ import annotations

from beliefdb.graph.canvas import EDGE_RELATIONS, RELATIONS
from beliefdb.graph.dot import to_dot
from beliefdb.graph.impact import impact_graph
from beliefdb.graph.mermaid import to_mermaid
from beliefdb.graph.run import run_graph
from beliefdb.graph.text import to_text
from beliefdb.graph.why import why_graph
from beliefdb.graph.workspace import workspace_graph
from beliefdb.models.graph import Graph

#: the formats ``why``, ``impact`` and ``run`` draw in, and what draws each
FORMATS = {"text": to_text, "mermaid": to_mermaid, "dot": to_dot}


def draw(graph: Graph, fmt: str) -> str:
    """``graph`` in format ``fmt`` (one of :data:`FORMATS`), without a trailing line break."""
    return FORMATS[fmt](graph).rstrip("\n")

__all__ = [
    "EDGE_RELATIONS",
    "FORMATS",
    "RELATIONS",
    "draw",
    "impact_graph",
    "run_graph",
    "to_dot",
    "to_mermaid",
    "to_text",
    "why_graph",
    "workspace_graph",
]
