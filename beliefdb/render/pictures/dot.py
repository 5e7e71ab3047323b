"""A graph as Graphviz DOT (``dot -Tsvg``): left to right, node shapes by kind, fill by mark, dashed
edges for what no longer counts. Labels are double-quoted strings with backslashes, quotes and line
breaks escaped, so no label ends its string (DOT's own escapes, ``\\l`` and the like, are not
interpreted either: their backslash is doubled)."""

from __future__ import annotations

import unicodedata

from beliefdb.models.graph import Graph, GraphNode
from beliefdb.render.pictures.labels import caption, shorten

SHAPES = {"source": "cylinder", "belief": "box", "decision": "hexagon", "action": "parallelogram",
          "correction": "note", "run": "oval", "step": "box"}

#: fill and border of each mark, the first of a node's marks in this order winning
STYLES = {
    "would_flag": ("#f8d7da", "#b71c1c"), "flagged": ("#f8d7da", "#b71c1c"),
    "would_hold": ("#fff3cd", "#b8860b"), "held": ("#fff3cd", "#b8860b"),
    "stops_holding": ("#fdecea", "#c62828"), "stops_current": ("#eeeeee", "#b8860b"),
    "survives": ("#e8f5e9", "#2e7d32"),
    "becomes_current": ("#e8f5e9", "#2e7d32"), "invalidated": ("#fdecea", "#c62828"),
    "replay": ("#fff8e1", "#f9a825"), "quarantined": ("#f3e5f5", "#7b1fa2"),
    "corrected": ("#e3f2fd", "#1565c0"), "superseded": ("#eeeeee", "#999999"),
    "retracted": ("#eeeeee", "#999999"), "expired": ("#eeeeee", "#999999"),
}


def quote(text: str) -> str:
    """``text`` as a DOT double-quoted string: backslash and quote escaped, a line break as ``\\n``,
    other control characters as a space."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            out.append(" ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _attributes(node: GraphNode) -> str:
    attrs = {"label": quote("\n".join(caption(node))), "shape": SHAPES.get(node.kind, "box")}
    styles = ["filled"] + (["rounded"] if node.kind in ("belief", "step") else [])
    mark = next((m for m in STYLES if m in node.marks), None)
    fill, border = STYLES[mark] if mark else ("#ffffff", "#444444")
    if mark and (mark.startswith("would_") or mark in ("stops_holding", "stops_current", "retracted", "invalidated")):
        styles.append("dashed")
    attrs.update(style=quote(",".join(styles)), fillcolor=quote(fill), color=quote(border))
    if "focus" in node.marks:
        attrs["penwidth"] = "3"
    return ", ".join(f"{k}={v}" for k, v in attrs.items())


def to_dot(graph: Graph) -> str:
    """The graph as a Graphviz digraph."""
    ids = {node.id: f"n{i}" for i, node in enumerate(graph.nodes)}
    lines = ["digraph beliefdb {", '    graph [rankdir=LR, charset="UTF-8", label=' + quote(shorten(graph.title, 200))
             + ", labelloc=t];", '    node [fontname="Helvetica", fontsize=10];',
             '    edge [fontname="Helvetica", fontsize=9];']
    for node in graph.nodes:
        lines.append(f"    {ids[node.id]} [{_attributes(node)}];")
    for edge in graph.edges:
        text = edge.relation + (f": {shorten(edge.label, 60)}" if edge.label else "")
        style = "" if edge.live else ", style=dashed"
        lines.append(f"    {ids[edge.source]} -> {ids[edge.target]} [label={quote(text)}{style}];")
    if graph.truncated:
        lines.append("    // truncated: more nodes than this picture shows")
    lines.append("}")
    return "\n".join(lines) + "\n"
