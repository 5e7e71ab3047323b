"""A graph as a Mermaid flowchart (``flowchart LR``): node shapes by kind, a style class per mark,
dashed edges for what no longer counts. Every label is quoted and every character that could end
a quote, a shape or a statement is written as an entity code (``#34;``), so no label breaks out."""

from __future__ import annotations

import unicodedata

from beliefdb.models.graph import Graph
from beliefdb.render.pictures.labels import caption, shorten

#: the opening and closing of each kind's shape
SHAPES = {"source": ("[(", ")]"), "belief": ("(", ")"), "decision": ("{{", "}}"), "action": ("[/", "/]"),
          "correction": (">", "]"), "run": ("([", "])"), "step": ("[", "]")}

#: the style of each mark (a node with several gets each class; later ones win)
STYLES = {
    "superseded": "fill:#eeeeee,color:#666666,stroke:#999999",
    "retracted": "fill:#eeeeee,color:#666666,stroke:#999999,stroke-dasharray:3 3",
    "expired": "fill:#eeeeee,color:#666666",
    "quarantined": "fill:#f3e5f5,stroke:#7b1fa2",
    "corrected": "fill:#e3f2fd,stroke:#1565c0",
    "invalidated": "fill:#fdecea,stroke:#c62828,stroke-dasharray:3 3",
    "replay": "fill:#fff8e1,stroke:#f9a825",
    "survives": "fill:#e8f5e9,stroke:#2e7d32,stroke-width:2px",
    "becomes_current": "fill:#e8f5e9,stroke:#2e7d32,stroke-dasharray:3 3",
    "stops_current": "fill:#eeeeee,stroke:#b8860b,stroke-width:2px,stroke-dasharray:5 3",
    "stops_holding": "fill:#fdecea,stroke:#c62828,stroke-width:2px",
    "held": "fill:#fff3cd,stroke:#b8860b,stroke-width:2px",
    "would_hold": "fill:#fff3cd,stroke:#b8860b,stroke-width:2px,stroke-dasharray:5 3",
    "flagged": "fill:#f8d7da,stroke:#b71c1c,stroke-width:2px",
    "would_flag": "fill:#f8d7da,stroke:#b71c1c,stroke-width:2px,stroke-dasharray:5 3",
    "focus": "stroke:#000000,stroke-width:3px",
}

# what may stand in a quoted label as itself: letters, digits, spaces and harmless punctuation
_PLAIN = set(" ,.:!?'-_+=*/%@$~^")


def escape(text: str) -> str:
    """``text`` for inside a quoted Mermaid label: a newline is ``<br/>``, anything but a letter, a
    digit, a space or harmless punctuation is an entity code (``#34;`` for a quote), so no
    character can close the quote, the shape or the statement."""
    out = []
    for ch in text:
        if ch == "\n":
            out.append("<br/>")
        elif ch in _PLAIN or (ch.isalnum() and not unicodedata.category(ch).startswith("C")):
            out.append(ch)
        else:
            out.append(f"#{ord(ch)};")
    return "".join(out)


def to_mermaid(graph: Graph) -> str:
    """The graph as Mermaid (paste it into a Markdown ``mermaid`` block)."""
    ids = {node.id: f"n{i}" for i, node in enumerate(graph.nodes)}
    lines = [f"%% {escape(shorten(graph.title, 200))}", "flowchart LR"]
    for node in graph.nodes:
        left, right = SHAPES.get(node.kind, ("[", "]"))
        label = "\n".join(escape(line) for line in caption(node)).replace("\n", "<br/>")
        lines.append(f'    {ids[node.id]}{left}"{label}"{right}')
    for edge in graph.edges:
        arrow = "-->" if edge.live else "-.->"
        text = edge.relation + (f": {shorten(edge.label, 60)}" if edge.label else "")
        lines.append(f'    {ids[edge.source]} {arrow}|"{escape(text)}"| {ids[edge.target]}')
    for mark in [m for m in STYLES if any(m in n.marks for n in graph.nodes)]:
        lines.append(f"    classDef {mark} {STYLES[mark]}")
        lines.append(f"    class {','.join(ids[n.id] for n in graph.nodes if mark in n.marks)} {mark}")
    if graph.truncated:
        lines.append("%% truncated: more nodes than this picture shows")
    return "\n".join(lines) + "\n"
