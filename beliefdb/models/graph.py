"""The picture of a workspace, a belief's reasons, an impact or a run: nodes and edges in plain words.

One model feeds the product view in the browser (SVG) and the exports of ``why``, ``impact`` and
``run`` (``--format mermaid|dot|text``). Plumbing is folded away: a belief's evidence is an edge from
its source (the quote on the edge), not a fragment node. Nothing here decides what holds: every
status and mark comes from what the database answered (``why``, ``impact``, previews, traces).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

#: What a node is, in the order the product view lays them out left to right.
NODE_KINDS = ("source", "belief", "decision", "action", "correction", "run", "step")

#: Marks a node can carry. ``focus``: what was asked about. ``flagged``/``held``/``superseded``/
#: ``retracted``/``corrected``/``expired``/``quarantined``: its state now; ``invalidated``/``replay``:
#: what a repair made of a run's step. ``stops_holding``/``stops_current``/``would_flag``/``would_hold``/
#: ``survives``/``becomes_current``: what the change asked about (impact, a preview) would do to it
#: (``stops_current``: it would stop being current and still hold, superseded anew).
MARKS = ("focus", "flagged", "held", "superseded", "retracted", "corrected", "expired", "quarantined",
         "invalidated", "replay",
         "stops_holding", "stops_current", "would_flag", "would_hold", "survives", "becomes_current")

#: The marks an impact picture gives (each from a row of ``beliefdb.impact``), the others being state.
IMPACT_MARKS = ("stops_holding", "stops_current", "would_flag", "would_hold", "survives", "becomes_current")


@dataclass(frozen=True)
class NodeLabel:
    """What names a belief, decision or action to a person: its statement, title or description."""

    id: UUID
    kind: str
    label: str


@dataclass(frozen=True)
class ReviewMark:
    """A review item as a picture names it: the verdict that set a decision's or action's status (the flag or
    hold resolved, or for a cancelled action its decision's rejection), or the item a ``why`` reference named.
    Who resolved it, when and their note once it is resolved (``by``, ``at`` and ``note`` None while open)."""

    id: UUID
    kind: str
    #: open, approved, rejected, or closed (settled by itself: ``note`` says how)
    status: str
    by: str | None = None
    at: datetime | None = None
    note: str | None = None
    #: what it is about: a node (its ``node_kind``), or the source of a proposed version or retraction
    node: UUID | None = None
    node_kind: str | None = None
    source_id: UUID | None = None
    #: why it was opened (the queue's reason); None on a verdict
    reason: str | None = None


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
    #: a decision's or action's in a why picture: the review verdict that set its status (approved, rejected;
    #: released or cancelled), with who gave it, when and their note; None when no verdict set it
    verdict: ReviewMark | None = None


@dataclass(frozen=True)
class GraphEdge:
    """A relation from ``source`` to ``target`` named in plain words, read from source to target:
    "is evidence for", "is a reason for", "is carried out by", "is a premise of", "was replaced by",
    "was corrected by", "was read by", ... (``beliefdb.graph.RELATIONS``). Edges point the way
    support flows, from what something rests on to what rests on it, so a left-to-right drawing
    reads Sources → Beliefs → Decisions → Actions."""

    source: UUID
    target: UUID
    relation: str
    #: the quote an evidence edge rests on
    label: str = ""
    #: false for what no longer counts (a lost reason, evidence of a retracted source): drawn dashed
    live: bool = True
    #: the reason (justification) the edge is part of: edges of one group are needed together
    group: UUID | None = None


@dataclass(frozen=True)
class Page:
    """Which part of a long answer a picture shows: ``shown`` of its items from ``offset`` (0: the
    first), of ``total``; ``more``: more than ``total`` (not counted further). A workspace picture's
    items are the beliefs that passed its filters, newest first, counted up to a bound; an impact
    picture's the nodes the change would mark, all counted."""

    offset: int
    shown: int
    total: int
    more: bool = False


@dataclass(frozen=True)
class Graph:
    """A neighbourhood of the store to draw: never the whole store."""

    title: str
    focus: tuple[UUID, ...]
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    #: true when nodes were left out to keep the picture readable (the page says so)
    truncated: bool = False
    #: a workspace picture's page of beliefs, an impact picture's page of marked nodes (else None)
    page: Page | None = None
    #: an impact picture's (mark, how many nodes it names in the whole answer), drawn or not
    totals: tuple[tuple[str, int], ...] = ()
    #: a why picture asked of a review item's id: the item (its subject is the focus)
    review_item: ReviewMark | None = None
