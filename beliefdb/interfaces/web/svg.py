"""A :class:`~beliefdb.models.graph.Graph` drawn as SVG for the product view: a deterministic layered
layout, one column per kind of node (Sources → Beliefs → Decisions → Actions; a run's steps before the
beliefs they read), each column ordered to keep related nodes level with each other. Nothing depends
on colour alone: every mark is a class for the stylesheet and also a visible word with a symbol on the
node; a relation that no longer counts is dashed. The SVG is ``role="img"`` with a ``<title>`` and a
``<desc>``, and each node links to its page. Every text is escaped."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from urllib.parse import quote
from uuid import UUID

from beliefdb.graph.why import NOT_BELIEVED
from beliefdb.interfaces.web.controls import escape
from beliefdb.models.graph import Graph, GraphEdge, GraphNode

#: the column of each kind of node, left to right
COLUMN = {"source": 0, "correction": 0, "run": 0, "step": 1, "belief": 2, "decision": 3, "action": 4}
KIND_WORDS = {"source": "Sources", "correction": "Corrections", "run": "Runs", "step": "Steps",
              "belief": "Beliefs", "decision": "Decisions", "action": "Actions"}

#: each mark as the words (and symbol) drawn on its node and said in the legend
MARK_WORDS = {
    "focus": ("◎", "asked about"),
    "flagged": ("⚑", "flagged"),
    "held": ("‖", "held"),
    "superseded": ("↷", "superseded"),
    "retracted": ("✗", "retracted"),
    "corrected": ("✎", "corrected"),
    "expired": ("⊗", "expired"),
    "quarantined": ("⊘", "quarantined"),
    "invalidated": ("✗", "invalidated"),
    "replay": ("↻", "to replay"),
    "stops_holding": ("✗", "would stop holding"),
    "stops_current": ("↷", "would stop being current (still holds)"),
    "would_flag": ("⚑", "would be flagged"),
    "would_hold": ("‖", "would be held"),
    "survives": ("✓", "survives on other support"),
    "becomes_current": ("↺", "would be current again"),
    "forgotten": ("∅", "reasons forgotten"),
}
MARK_MEANING = {
    "focus": "what was asked about",
    "flagged": "a decision that lost its last support: it needs review",
    "held": "an action held because its decision is flagged",
    "superseded": "replaced by a newer belief, kept as history",
    "retracted": "taken back: it no longer counts as evidence",
    "corrected": "a reviewer replaced it",
    "expired": "its valid time has ended",
    "quarantined": "set aside by a repair: it no longer counts",
    "invalidated": "a step a repair found built on a faulty memory",
    "replay": "a step a repair will run again",
    "stops_holding": "would no longer hold",
    "stops_current": "would still hold, kept as history, but no longer be current: superseded anew",
    "would_flag": "a decision that would lose its last support",
    "would_hold": "an action that would be held",
    "survives": "loses a reason but holds on other support",
    "becomes_current": "superseded now, but current again once what replaced it stops holding",
    "forgotten": "a decision whose reasons cited what was forgotten: they went with it",
}

WIDTH, GAP_X, GAP_Y, PAD, LINE, CHARS, MAX_LINES = 236, 84, 14, 16, 16, 31, 3


@dataclass(frozen=True)
class Box:
    node: GraphNode
    column: int
    x: int
    y: int
    height: int
    lines: tuple[str, ...]


def href(node: GraphNode, as_of: str = "") -> str | None:
    """The page a node links to (None: it has none); ``as_of``: a moment, which the pages of beliefs,
    decisions and actions are then shown as of."""
    pages = {"belief": "/beliefs/", "decision": "/decisions/", "action": "/actions/", "run": "/runs/"}
    if node.kind in pages:
        # (a belief not believed then has no page as of then: its page as it is now)
        moment = f"?as_of={quote(as_of)}" if as_of and node.kind != "run" and node.status != NOT_BELIEVED else ""
        return f"{pages[node.kind]}{node.id}{moment}"
    if node.kind == "source":
        return f"/impact?ref={quote(node.label)}"
    if node.kind == "step":
        return f"#step-{node.id}"
    return None


def mark_text(marks: tuple[str, ...]) -> str:
    return " · ".join(" ".join(MARK_WORDS[m]) for m in marks if m in MARK_WORDS)


def _lines(node: GraphNode) -> tuple[str, ...]:
    head = f"{node.kind.upper()} · {node.status.replace('_', ' ')}" if node.status else node.kind.upper()
    label = textwrap.wrap(node.label, CHARS) or [""]
    if len(label) > MAX_LINES:
        label = [*label[:MAX_LINES - 1], textwrap.shorten(" ".join(label[MAX_LINES - 1:]), CHARS, placeholder="…")]
    extra = [textwrap.shorten(node.detail, CHARS, placeholder="…")] if node.detail else []
    marks = textwrap.wrap(mark_text(node.marks), CHARS)[:2]
    return (head, *label, *extra, *marks)


def _order(graph: Graph, columns: dict[UUID, int]) -> dict[int, list[GraphNode]]:
    """Nodes per column: focus first, then by label, then three barycentre sweeps (left to right,
    right to left, left to right), each ordering a column by the mean place of its nodes' neighbours
    in the other columns, so that a node sits near the nodes it is related to."""
    by_column: dict[int, list[GraphNode]] = {}
    focus = set(graph.focus)
    for node in sorted(graph.nodes, key=lambda n: (n.id not in focus, n.label.casefold(), str(n.id))):
        by_column.setdefault(columns[node.id], []).append(node)
    neighbours: dict[UUID, set[UUID]] = {n.id: set() for n in graph.nodes}
    for edge in graph.edges:
        if edge.source in neighbours and edge.target in neighbours:
            neighbours[edge.source].add(edge.target)
            neighbours[edge.target].add(edge.source)
    cols = sorted(by_column)
    for sweep in (cols[1:], cols[-2::-1], cols[1:]):
        for col in sweep:
            place = {n.id: i for c in cols if c != col for i, n in enumerate(by_column[c])}

            def centre(pair: tuple[int, GraphNode], place: dict[UUID, int] = place) -> tuple[float, int]:
                index, node = pair
                near = [place[m] for m in neighbours[node.id] if m in place]
                return (sum(near) / len(near) if near else float(index), index)

            by_column[col] = [n for _, n in sorted(enumerate(by_column[col]), key=centre)]
    return by_column


def layout(graph: Graph) -> tuple[list[Box], int, int]:
    """Every node's box, and the picture's width and height."""
    kinds = sorted({COLUMN.get(n.kind, len(COLUMN)) for n in graph.nodes})
    index = {k: i for i, k in enumerate(kinds)}
    columns = {n.id: index[COLUMN.get(n.kind, len(COLUMN))] for n in graph.nodes}
    boxes: list[Box] = []
    height = PAD
    for col, nodes in sorted(_order(graph, columns).items()):
        y = PAD + 22  # room for the column heading
        for node in nodes:
            lines = _lines(node)
            h = 10 + LINE * len(lines)
            boxes.append(Box(node, col, PAD + col * (WIDTH + GAP_X), y, h, lines))
            y += h + GAP_Y
        height = max(height, y)
    width = PAD * 2 + len(kinds) * WIDTH + max(len(kinds) - 1, 0) * GAP_X
    return boxes, max(width, 2 * PAD + WIDTH), height + PAD


def _edge(edge: GraphEdge, boxes: dict[UUID, Box], names: dict[UUID, str]) -> str:
    a, b = boxes[edge.source], boxes[edge.target]
    ay, by = a.y + a.height // 2, b.y + b.height // 2
    if b.column > a.column:
        x1, x2 = a.x + WIDTH, b.x
        bend = (x2 - x1) // 2
        path = f"M{x1},{ay} C{x1 + bend},{ay} {x2 - bend},{by} {x2 - 6},{by}"
    elif b.column < a.column:
        x1, x2 = a.x, b.x + WIDTH
        bend = (x1 - x2) // 2
        path = f"M{x1},{ay} C{x1 - bend},{ay} {x2 + bend},{by} {x2 + 6},{by}"
    else:  # within a column: a loop on its right
        x1 = a.x + WIDTH
        path = f"M{x1},{ay} C{x1 + 60},{ay} {x1 + 60},{by} {x1 + 6},{by}"
    said = f"{names[edge.source]} {edge.relation} {names[edge.target]}"
    if edge.label:
        said += f" (“{edge.label}”)"
    if not edge.live:
        said += " — no longer counts"
    kind = "edge live" if edge.live else "edge lost"
    return (f'<path class="{kind}" d="{path}" marker-end="url(#arrow)">'
            f"<title>{escape(said)}</title></path>")


def _node(box: Box, focus: set[UUID], as_of: str) -> str:
    node = box.node
    classes = ["node", f"kind-{node.kind}", f"status-{node.status}", *(f"mark-{m}" for m in node.marks)]
    if node.id in focus and "focus" not in node.marks:
        classes.append("mark-focus")
    said = f"{node.kind} {short(node.id)}: {node.label}"
    if node.status:
        said += f" — {node.status.replace('_', ' ')}"
    if node.marks:
        said += f"; {mark_text(node.marks)}"
    if node.note:
        said += f" ({node.note})"
    texts = []
    for i, line in enumerate(box.lines):
        cls = "head" if i == 0 else ("marks" if node.marks and i >= len(box.lines) - _mark_lines(node) else "label")
        texts.append(f'<text class="{cls}" x="{box.x + 8}" y="{box.y + 18 + i * LINE}">{escape(line)}</text>')
    body = (f"<title>{escape(said)}</title>"
            f'<rect x="{box.x}" y="{box.y}" width="{WIDTH}" height="{box.height}" rx="6"/>' + "".join(texts))
    link = href(node, as_of)
    cls = " ".join(escape(c) for c in classes)
    if link is None:
        return f'<g class="{cls}" data-id="{node.id}">{body}</g>'
    return f'<a class="{cls}" data-id="{node.id}" href="{escape(link)}" aria-label="{escape(said)}">{body}</a>'


def _mark_lines(node: GraphNode) -> int:
    return len(textwrap.wrap(mark_text(node.marks), CHARS)[:2])


def short(value: UUID) -> str:
    return str(value)[:8]


def _count(n: int, plural: str) -> str:
    """``n`` things in words: 1 source, 2 sources (every kind's plural is its singular and an s)."""
    return f"{n} {plural[:-1] if n == 1 else plural}"


def to_svg(graph: Graph, *, ident: str = "graph", as_of: str = "") -> str:
    """The picture of ``graph`` as an inline SVG element (``ident`` names its title and description);
    ``as_of``: the moment it shows, which its nodes' links keep."""
    boxes, width, height = layout(graph)
    by_id = {b.node.id: b for b in boxes}
    names = {b.node.id: f"{b.node.kind} “{textwrap.shorten(b.node.label, 60, placeholder='…')}”" for b in boxes}
    kinds = sorted({COLUMN.get(n.kind, len(COLUMN)) for n in graph.nodes})
    headings = []
    for i, k in enumerate(kinds):
        kind_names = sorted({KIND_WORDS.get(n.kind, n.kind) for n in graph.nodes if COLUMN.get(n.kind) == k})
        headings.append(f'<text class="column" x="{PAD + i * (WIDTH + GAP_X)}" y="{PAD + 8}">'
                        f"{escape(' / '.join(kind_names))}</text>")
    edges = [_edge(e, by_id, names) for e in sorted(graph.edges, key=lambda e: (str(e.source), str(e.target),
                                                                                 e.relation))
             if e.source in by_id and e.target in by_id]
    counts = ", ".join(_count(sum(1 for n in graph.nodes if n.kind == k), KIND_WORDS[k].lower())
                       for k in COLUMN if any(n.kind == k for n in graph.nodes))
    desc = (f"{counts or 'nothing'}; {_count(len(graph.edges), 'relations')}."
            f"{' Only part of it is drawn.' if graph.truncated else ''} The same content follows as a list.")
    focus = set(graph.focus)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" role="img" width="{width}" height="{height}"'
            f' viewBox="0 0 {width} {height}" aria-labelledby="{ident}-title {ident}-desc">'
            f'<title id="{ident}-title">{escape(graph.title)}</title>'
            f'<desc id="{ident}-desc">{escape(desc)}</desc>'
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7"'
            ' orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>'
            + "".join(headings) + '<g class="edges">' + "".join(edges) + "</g>"
            + '<g class="nodes">' + "".join(_node(b, focus, as_of) for b in boxes) + "</g></svg>")


def legend(graph: Graph) -> list[tuple[str, str, str, str]]:
    """The marks the picture uses: (mark, symbol, words, meaning), in the order of :data:`MARK_WORDS`."""
    used = {m for n in graph.nodes for m in n.marks}
    return [(m, MARK_WORDS[m][0], MARK_WORDS[m][1], MARK_MEANING[m]) for m in MARK_WORDS if m in used]
