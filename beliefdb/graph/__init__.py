"""Pictures of the store: the builders that read a neighbourhood into a
:class:`~beliefdb.models.graph.Graph` (``why``, ``impact``, a run, the product view's workspace) and
the renderers that draw one (Mermaid, Graphviz DOT, indented text: ``beliefdb.render.pictures``,
re-exported here).

The builders take a :class:`~beliefdb.db.connector.Database` and are called through
:class:`~beliefdb.BeliefDB` (``why_graph``, ``impact_graph``, ``run_graph``, ``workspace_graph``). Every
status and mark is what the database answered; the renderers only draw.
"""

from __future__ import annotations

from beliefdb.graph.canvas import EDGE_RELATIONS, RELATIONS
from beliefdb.graph.impact import impact_graph
from beliefdb.graph.run import run_graph
from beliefdb.graph.why import why_graph
from beliefdb.graph.workspace import workspace_graph
from beliefdb.render.pictures import FORMATS, draw, to_dot, to_mermaid, to_text

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
