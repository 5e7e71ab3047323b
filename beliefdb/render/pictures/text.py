"""A graph as indented text for people: each node by its statement, title or name with its short id
in brackets, its status and marks in words, then what it rests on and what is built on it."""

from __future__ import annotations

from collections.abc import Iterable
from uuid import UUID

from beliefdb.models.graph import IMPACT_MARKS, Graph, GraphEdge, GraphNode
from beliefdb.render.pictures.labels import (
    IMPACT_TITLE,
    MARK_WORDS,
    mark_words,
    review_item_lines,
    short_id,
    shorten,
    verdict_line,
)

# how the edges out of a node are headed, by relation (in this order)
_OUT = {"is a reason for": "built on it", "is a premise of": "built on it", "was read by": "built on it",
        "is carried out by": "actions", "was replaced by": "replaced by", "was corrected by": "corrected by",
        "conflicts with": "conflicts with", "wrote": "wrote"}
# and the edges into a node
_IN = {"is evidence for": "evidence", "is a reason for": "reasons", "is a premise of": "derived from",
       "was read by": "read", "wrote": "written by", "led to": "after"}


def _name(node: GraphNode) -> str:
    return f"{node.kind} [{short_id(node)}] {shorten(node.label, 100)}"


def _line(node: GraphNode) -> str:
    marks = [mark_words(node, m) for m in node.marks if m not in ("focus", node.status)]  # (as caption says)
    state = f"[{node.status}]" + (f" — {', '.join(dict.fromkeys(marks))}" if marks else "")
    return f"{_name(node)}  {state}"


def _mention(node: GraphNode, edge: GraphEdge) -> str:
    state = "" if node.status in ("current", "active", "in use", "scheduled", "recorded", "applied") else node.status
    flags = [x for x in (state, "" if edge.live else "no longer counts") if x]
    return _name(node) + (f"  ({', '.join(flags)})" if flags else "")


def _section(head: str, items: Iterable[str], *, keep_order: bool = False) -> list[str]:
    listed = list(dict.fromkeys(items))
    if not keep_order:
        listed.sort(key=lambda x: x.split("] ", 1)[-1])  # by what it says, not by id
    return [f"    {head}:", *(f"      {x}" for x in listed)] if listed else []


def _node(node: GraphNode, nodes: dict[UUID, GraphNode], into: list[GraphEdge], out: list[GraphEdge]) -> list[str]:
    lines = [_line(node)]
    # (a note that says what replaced or corrected the node, when a section below names it, is left out)
    said_below = any(_OUT.get(e.relation) in ("replaced by", "corrected by") for e in out)
    # (a note whole, up to a long line: it may name what a decision's run had refused, and why)
    lines += [f"    {line}" for x, width in ((node.detail, 160), ("" if said_below else node.note, 600))
              if (line := shorten(x, width))]
    if node.verdict is not None:  # (who approved or rejected it, when and why)
        lines.append(f"    {verdict_line(node.verdict)}")
    if node.kind == "decision":
        # each reason once: the beliefs needed together on one line, lost ones said to be lost
        groups: dict[object, list[GraphEdge]] = {}
        for e in into:
            if e.relation == "is a reason for":
                groups.setdefault(e.group or e.source, []).append(e)
        # live reasons first, then the lost ones, each by what it says
        ordered = sorted(groups.values(),
                         key=lambda g: (not all(e.live for e in g), [nodes[e.source].label for e in g]))
        reasons = [" and ".join(_name(nodes[e.source]) for e in group)
                   + ("" if all(e.live for e in group) else "  (lost: no longer current)") for group in ordered]
        lines += _section("reasons", reasons, keep_order=True)
    for head in dict.fromkeys(_IN.values()):
        if node.kind == "decision" and head == "reasons":
            continue
        items = [_name(nodes[e.source]) + (f': "{shorten(e.label, 100)}"' if e.label else "")
                 + ("" if e.live else "  (no longer counts)") for e in into if _IN.get(e.relation) == head]
        lines += _section(head, items)
    for head in dict.fromkeys(_OUT.values()):
        lines += _section(head, [_mention(nodes[e.target], e) for e in out if _OUT.get(e.relation) == head])
    return lines


def to_text(graph: Graph) -> str:
    """The graph as indented text: the focus first, then sources, beliefs, decisions, actions, ..."""
    nodes = {n.id: n for n in graph.nodes}
    lines = [shorten(graph.title, 200)]
    if graph.review_item is not None:  # (why of a review item's id: which item, then its subject)
        lines += ["  " + line for line in review_item_lines(graph.review_item)]
    counts = {m: sum(m in n.marks for n in graph.nodes) for m in IMPACT_MARKS}
    if any(counts.values()) or graph.title.startswith(IMPACT_TITLE):
        lines.append("  " + " · ".join(f"{MARK_WORDS[m]}: {c}" for m, c in counts.items()
                                        if c or m in ("stops_holding", "would_flag", "would_hold")))
    if not graph.nodes:
        lines.append("  (nothing)")
    into: dict[UUID, list[GraphEdge]] = {}
    out: dict[UUID, list[GraphEdge]] = {}
    for e in graph.edges:
        into.setdefault(e.target, []).append(e)
        out.setdefault(e.source, []).append(e)
    order = [n for n in graph.nodes if n.id in graph.focus] + [n for n in graph.nodes if n.id not in graph.focus]
    for node in order:
        lines += ["  " + line for line in _node(node, nodes, into.get(node.id, []), out.get(node.id, []))]
    if graph.truncated:
        lines.append("  (more than shown: narrow it with a filter)")
    return "\n".join(lines)
