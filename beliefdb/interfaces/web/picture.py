"""A graph ready for a page: its SVG, the legend of the marks it uses, and the same content as a list
(nodes by column, each with its relations in words) for people who do not read the picture."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from markupsafe import Markup

from beliefdb.interfaces.web import svg
from beliefdb.models.graph import Graph, GraphNode


@dataclass(frozen=True)
class Picture:
    graph: Graph
    svg: Markup
    legend: list[tuple[str, str, str, str]]
    #: (heading, nodes) in the picture's column order
    columns: list[tuple[str, list[GraphNode]]]
    #: each node's relations in words: (sentence, live)
    relations: dict[UUID, list[tuple[str, bool]]]
    #: the moment it shows (ISO 8601), which its links keep; "" for now
    as_of: str = ""

    def nodes(self, kind: str) -> list[GraphNode]:
        return [n for n in self.graph.nodes if n.kind == kind]

    def marked(self, mark: str) -> list[GraphNode]:
        return [n for n in self.graph.nodes if mark in n.marks]


def picture(graph: Graph, ident: str = "graph", as_of: datetime | None = None) -> Picture:
    names = {n.id: f"{n.kind} “{textwrap.shorten(n.label, 80, placeholder='…')}”" for n in graph.nodes}
    relations: dict[UUID, list[tuple[str, bool]]] = {}
    for e in graph.edges:
        if e.source not in names or e.target not in names:
            continue
        quote = f" (“{e.label}”)" if e.label else ""
        relations.setdefault(e.source, []).append((f"{e.relation} {names[e.target]}{quote}", e.live))
        relations.setdefault(e.target, []).append((f"{names[e.source]} {e.relation} this{quote}", e.live))
    columns: list[tuple[str, list[GraphNode]]] = []
    for kind in sorted(svg.COLUMN, key=lambda k: (svg.COLUMN[k], k)):
        nodes = sorted((n for n in graph.nodes if n.kind == kind), key=lambda n: (n.label.casefold(), str(n.id)))
        if nodes:
            columns.append((svg.KIND_WORDS[kind], nodes))
    others = [n for n in graph.nodes if n.kind not in svg.COLUMN]
    if others:
        columns.append(("Other", others))
    moment = as_of.isoformat() if as_of is not None else ""
    return Picture(graph, Markup(svg.to_svg(graph, ident=ident, as_of=moment)), svg.legend(graph), columns,
                   relations, moment)
