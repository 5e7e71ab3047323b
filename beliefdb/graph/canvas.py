"""A picture being put together: nodes and edges collected from what the database answered, then
frozen into a :class:`~beliefdb.models.graph.Graph`. Nothing here decides what holds: a node's
status and state marks are its stored status (``belief.status``, ``decision.status``, ...), and the
liveness of an edge is the database's (``justification.unmet``, a fragment's ``node.holds``).

Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from beliefdb.models.graph import NODE_KINDS, Graph, GraphEdge, GraphNode, Page, ReviewMark
from beliefdb.render.pictures.labels import HOLDS_AGAIN, version_label

#: How each propagating edge kind of the support graph reads, from antecedent to consequent.
EDGE_RELATIONS = {
    "cites": "is a reason for", "supports": "is a reason for", "carries_out": "is carried out by",
    "derives": "is a premise of", "reads": "was read by", "produces": "wrote",
    "initiates": "led to", "updates": "was updated by", "consolidates": "was consolidated by",
}

#: Every relation a picture's edges name, read from source to target.
RELATIONS = ("is evidence for", *dict.fromkeys(EDGE_RELATIONS.values()), "was replaced by", "conflicts with",
             "was corrected by", "ran")

# a stored status that is also a mark: what the node's state is now
#: how the note of a decision whose reasons were forgotten ends
_FORGOTTEN = " what was erased, and nothing of it is shown, as of any moment"
_STATE_MARKS = {
    ("belief", "superseded"): "superseded", ("belief", "retracted"): "retracted",
    ("belief", "expired"): "expired", ("belief", "quarantined"): "quarantined",
    ("decision", "needs_review"): "flagged", ("action", "held"): "held",
    ("correction", "retracted"): "retracted", ("step", "invalidated"): "invalidated",
    ("step", "replay_pending"): "replay",
}


@dataclass
class _Node:
    id: UUID
    kind: str
    label: str
    status: str
    detail: str = ""
    marks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verdict: ReviewMark | None = None


class Canvas:
    """Nodes and edges as they are found; an edge may name a node before the node is read, and
    edges whose ends never arrive are left out of the picture."""

    def __init__(self, *, include_fixtures: bool = True) -> None:
        self.nodes: dict[UUID, _Node] = {}
        #: whether fixture and synthetic beliefs and sources are drawn (labelled) or left out, and the
        #: world of each one left out (rule 15: a production answer shows none of them)
        self.include_fixtures = include_fixtures
        self.hidden: dict[UUID, str] = {}
        self.edges: dict[tuple[UUID, UUID, str], GraphEdge] = {}
        #: nodes to read (beliefs, decisions, actions, corrections, steps) and sources to read
        self.wanted: set[UUID] = set()
        self.sources: set[UUID] = set()
        #: the moment the picture shows (None: now): its sources are read as they were then
        self.as_of: datetime | None = None

    # --- nodes -----------------------------------------------------------------------------------

    def add(self, node_id: UUID, kind: str, label: str, status: str, detail: str = "") -> None:
        if node_id in self.nodes:
            return
        node = _Node(node_id, kind, label, status, detail)
        mark = _STATE_MARKS.get((kind, status))
        if mark:
            node.marks.append(mark)
        self.nodes[node_id] = node

    def _world(self, node_id: UUID, world: str | None, detail: str) -> str | None:
        """The detail of a node of ``world`` as drawn (labelled when not production history), or None
        when it is left out."""
        if world in (None, "production"):
            return detail
        if not self.include_fixtures:
            self.hidden[node_id] = str(world)
            return None
        return f"{detail} ({world}, not production history)"

    def add_rows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Rows of ``graph_nodes``."""
        for r in rows:
            detail = r["detail"] or ""
            if r["outcome"]:
                detail = f"outcome: {r['outcome']}" + (f"; {detail}" if detail else "")
            shown = self._world(r["id"], r.get("world"), detail)
            if shown is None:
                continue
            self.add(r["id"], r["kind"], r["label"], r["status"], shown)
            if r["kind"] == "decision" and r["status"] == "needs_review" and r["holds"] and self.as_of is None:
                self.note(r["id"], HOLDS_AGAIN)  # (flagged, and holding now: rule 4 keeps the flag)
            if r.get("forgotten"):
                n = r["forgotten"]
                self.mark(r["id"], "forgotten", f"{n} reason{' was' if n == 1 else 's were'} forgotten (rule 14):"
                                                f" {'it' if n == 1 else 'they'} cited{_FORGOTTEN}")

    def add_sources(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Rows of ``graph_sources``: a reviewer's correction source is drawn as its correction."""
        for r in rows:
            more = version_label(r["version"], r["label"]) if r["version"] else None
            version = f"v{r['version']}" + (f" {more}" if more else "") if r["version"] else ""
            shown = self._world(r["id"], r.get("world"),
                                ", ".join(x for x in (r["authority"], r["origin_type"], version) if x))
            if shown is None:
                continue
            self.add(r["id"], "source", r["name"], "retracted" if r["retracted"] else "in use", shown)
            if r["retracted"]:
                self.mark(r["id"], "retracted")

    def mark(self, node_id: UUID, mark: str, note: str = "") -> None:
        node = self.nodes.get(node_id)
        if node is None:
            return
        if mark not in node.marks:
            node.marks.append(mark)
        if note and note not in node.notes:
            node.notes.append(note)

    def note(self, node_id: UUID, note: str) -> None:
        """Say something of a node that no mark says."""
        node = self.nodes.get(node_id)
        if node is not None and note not in node.notes:
            node.notes.append(note)

    def restate(self, node_id: UUID, status: str) -> None:
        """The node as it was at another moment: that status, and its state mark (none of today's)."""
        node = self.nodes[node_id]
        node.status = status
        node.marks = [m for m in node.marks if m not in _STATE_MARKS.values()]
        mark = _STATE_MARKS.get((node.kind, status))
        if mark:
            node.marks.append(mark)
        # (reasons forgotten are gone at every moment: that note stays)
        node.notes = [n for n in node.notes if n.endswith(_FORGOTTEN)]

    def verdicts(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Rows of ``graph_verdicts``: the review verdict that set each decision's or action's status."""
        for r in rows:
            if (node := self.nodes.get(r["id"])) is not None:
                node.verdict = ReviewMark(r["item"], r["kind"], r["status"], r["resolved_by"], r["resolved_at"],
                                          r["note"])

    def label(self, node_id: UUID) -> str:
        node = self.nodes.get(node_id)
        if node is None and node_id in self.hidden:
            return f"{self.hidden[node_id]} material, not shown"
        return node.label if node else str(node_id)[:8]

    # --- edges -----------------------------------------------------------------------------------

    def edge(self, source: UUID, target: UUID, relation: str, label: str = "", *, live: bool = True,
             group: UUID | None = None) -> None:
        """One edge per (source, target, relation): folded fragments of one source give one edge,
        live if any of them is, with the quote of the first."""
        key = (source, target, relation)
        seen = self.edges.get(key)
        if seen is None:
            self.edges[key] = GraphEdge(source, target, relation, label, live, group)
        elif live and not seen.live:
            self.edges[key] = GraphEdge(source, target, relation, label or seen.label, True, group or seen.group)

    def support(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Rows of ``graph_out``/``graph_in``: each reason's edge, named for its edge kind, live when
        the reason is (every antecedent current), grouped by the reason it is part of."""
        for r in rows:
            self.edge(r["antecedent"], r["consequent"], EDGE_RELATIONS.get(r["edge_kind"], r["edge_kind"]),
                      live=r["live"], group=r["justification"])
            self.wanted.update((r["antecedent"], r["consequent"]))

    def evidence(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Rows of ``graph_evidence``: fragments fold into their source (a correction's into the
        correction), the quote on the edge."""
        for r in rows:
            if r["correction"] is not None:
                self.edge(r["correction"], r["belief_id"], "is evidence for", r["quote"], live=r["live"])
                self.wanted.add(r["correction"])
            else:
                self.edge(r["source_id"], r["belief_id"], "is evidence for", r["quote"], live=r["live"])
                self.sources.add(r["source_id"])

    def relations(self, rows: Iterable[Mapping[str, Any]], corrections: Iterable[Mapping[str, Any]] = ()) -> None:
        """Rows of ``graph_relations`` and ``graph_corrections``: a correction is drawn as the
        reviewer's node between the belief and its replacement, other supersessions as one edge."""
        corrected = set()
        for c in corrections:
            self.edge(c["belief_id"], c["id"], "was corrected by")
            if c["replacement"] is not None:
                self.edge(c["id"], c["replacement"], "is evidence for", c["new_statement"])
                corrected.add((c["replacement"], c["belief_id"]))
            self.wanted.update(x for x in (c["id"], c["belief_id"], c["replacement"]) if x is not None)
        for r in rows:
            new, old = r["new_belief"], r["old_belief"]
            if r["kind"] == "supersedes":
                if (new, old) not in corrected:
                    self.edge(old, new, "was replaced by", r["reason"])
            else:
                self.edge(new, old, "conflicts with", r["reason"])
            self.wanted.update((new, old))

    def state_notes(self, relations: Iterable[Mapping[str, Any]], corrections: Iterable[Mapping[str, Any]]) -> None:
        """Say on each belief what replaced or corrected it (once the nodes are read): only while that
        holds (rule 3: a belief whose superseder or correction's replacement stopped holding is not
        superseded, though the replacement stays drawn as history)."""
        # a correction replaces by its replacement's supersession: corrected only while that is in effect
        for c in corrections:
            if c["in_effect"]:
                self.mark(c["belief_id"], "corrected", f"corrected by {c['reviewer']}: {c['new_statement']}")
        for r in relations:
            if r["kind"] == "supersedes" and r["in_effect"] and "corrected" not in self._marks(r["old_belief"]):
                self.mark(r["old_belief"], "superseded", f"replaced by: {r['new_statement']}")

    def _marks(self, node_id: UUID) -> list[str]:
        node = self.nodes.get(node_id)
        return node.marks if node else []

    # --- the picture -----------------------------------------------------------------------------

    def graph(self, title: str, focus: Iterable[UUID], *, truncated: bool = False, page: Page | None = None,
              totals: tuple[tuple[str, int], ...] = (), review_item: ReviewMark | None = None) -> Graph:
        focus = tuple(f for f in dict.fromkeys(focus) if f in self.nodes)
        for f in focus:
            self.mark(f, "focus")
        order = {k: i for i, k in enumerate(NODE_KINDS)}
        nodes = sorted(self.nodes.values(), key=lambda n: order.get(n.kind, len(order)))
        edges = tuple(e for e in self.edges.values()
                      if e.source in self.nodes and e.target in self.nodes and e.source != e.target)
        return Graph(title=title, focus=focus, truncated=truncated, page=page, totals=totals, edges=edges,
                     review_item=review_item, nodes=tuple(
                         GraphNode(n.id, n.kind, n.label, n.status, n.detail, tuple(n.marks), "; ".join(n.notes),
                                   n.verdict) for n in nodes))
