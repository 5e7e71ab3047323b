"""The picture of a workspace, a belief's reasons, an impact or a run: nodes and edges in plain words.

One model feeds the product view in the browser (SVG) and the exports of ``why``, ``impact`` and
``run`` (``--format mermaid|dot|text``). Plumbing is folded away: a belief's evidence is an edge from
its source (the quote on the edge), not a fragment node. Nothing here decides what holds: every
status and mark comes from what the database answered (``why``, ``impact``, previews, traces).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

#: What a node is, in the order the product view lays them out left to right.
NODE_KINDS = ("source", "belief", "decision", "action", "correction", "run", "step")

#: Marks a node can carry. ``focus``: what was asked about. ``flagged``/``held``/``superseded``/
#: ``retracted``/``corrected``: its state now. ``stops_holding``/``would_flag``/``would_hold``/
#: ``survives``: what the change asked about (impact, a preview) would do to it.
MARKS = ("focus", "flagged", "held", "superseded", "retracted", "corrected", "expired",
         "stops_holding", "would_flag", "would_hold", "survives")


@dataclass(frozen=True)
class GraphNode:
    """One thing in the picture: a source, belief, decision, action, correction, run or step."""

    id: UUID
    kind: str
    #: the statement, title or source name, whole (renderers shorten it)
    label: str
    #: its status as stored (a belief's current/superseded/retracted..., a decision's or action's)
    status: str
    #: a second line: confidence, a source's version, a step's kind
    detail: str = ""
    marks: tuple[str, ...] = ()
    #: why it is marked, in words (what it survives on, which correction replaced it)
    note: str = ""


@dataclass(frozen=True)
class GraphEdge:
    """A relation from ``source`` to ``target`` named in plain words ("is evidence for", "is a
    reason for", "carries out", "replaced", "was derived from", "read", ...)."""

    source: UUID
    target: UUID
    relation: str
    #: the quote an evidence edge rests on
    label: str = ""
    #: false for what no longer counts (a lost reason, evidence of a retracted source): drawn dashed
    live: bool = True


@dataclass(frozen=True)
class Graph:
    """A neighbourhood of the store to draw: never the whole store."""

    title: str
    focus: tuple[UUID, ...]
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    #: true when nodes were left out to keep the picture readable (the page says so)
    truncated: bool = False
