"""The product view's SVG of a graph (``beliefdb.interfaces.web.svg``): well-formed and escaped whatever
the labels say, the same picture whatever order the nodes come in, one column per kind (Sources →
Beliefs → Decisions → Actions), every mark a class and visible words, a relation that no longer counts
dashed, each node a link to its page, and ``role="img"`` with a title and a description."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from uuid import UUID

from beliefdb.interfaces.web.svg import to_svg
from beliefdb.models.graph import Graph, GraphEdge, GraphNode

NS = {"svg": "http://www.w3.org/2000/svg"}
HOSTILE = 'Refuse </text><script>alert("x")</script> & "quoted" <b>'


def _id(n: int) -> UUID:
    return UUID(int=n)


NODES = (
    GraphNode(_id(1), "source", "return-policy.md", "in use", "official, v2"),
    GraphNode(_id(2), "belief", "Returns are accepted within 7 days of delivery.", "superseded", marks=("superseded",)),
    GraphNode(_id(3), "belief", "Returns are accepted within 15 days of delivery.", "current"),
    GraphNode(_id(4), "decision", HOSTILE, "needs_review", marks=("flagged",)),
    GraphNode(_id(5), "action", "Email the customer a refusal", "held", marks=("held",)),
    GraphNode(_id(6), "correction", "by rita: wrong", "applied"),
)
EDGES = (
    GraphEdge(_id(1), _id(2), "is evidence for", "within 7 days", live=False),
    GraphEdge(_id(1), _id(3), "is evidence for", "within 15 days"),
    GraphEdge(_id(2), _id(3), "was replaced by"),
    GraphEdge(_id(2), _id(4), "is a reason for", live=False),
    GraphEdge(_id(4), _id(5), "is carried out by"),
)


def _svg(nodes: tuple[GraphNode, ...] = NODES) -> ET.Element:
    return ET.fromstring(to_svg(Graph("Why we decided: " + HOSTILE, (_id(4),), nodes, EDGES)))


def _node(root: ET.Element, n: int) -> ET.Element:
    found = [e for e in root.iter() if e.get("data-id") == str(_id(n))]
    assert len(found) == 1
    return found[0]


def test_the_svg_is_well_formed_and_escapes_every_label() -> None:
    text = to_svg(Graph(HOSTILE, (), NODES, EDGES))
    assert "<script" not in text and "<b>" not in text
    root = ET.fromstring(text)  # well-formed: nothing a label says opens or closes an element
    assert root.get("role") == "img"
    title, desc = root.find("svg:title", NS), root.find("svg:desc", NS)
    assert title is not None and title.text == HOSTILE
    assert desc is not None and "The same content follows as a list." in (desc.text or "")
    assert root.get("aria-labelledby") == "graph-title graph-desc"
    said = "".join(_node(root, 4).itertext())
    assert 'Refuse </text><script>alert("x")' in said  # shown as text, whole in its title


def test_the_same_graph_in_any_order_is_the_same_picture() -> None:
    once = to_svg(Graph("t", (_id(4),), NODES, EDGES))
    assert to_svg(Graph("t", (_id(4),), tuple(reversed(NODES)), tuple(reversed(EDGES)))) == once


def test_one_column_per_kind_left_to_right() -> None:
    root = _svg()
    x = {n: float(_node(root, n).find("svg:rect", NS).get("x")) for n in range(1, 7)}  # type: ignore[union-attr]
    assert x[1] == x[6] < x[2] == x[3] < x[4] < x[5]  # corrections beside the sources


def test_marks_are_classes_and_words_and_lost_relations_are_dashed() -> None:
    root = _svg()
    flagged, held = _node(root, 4), _node(root, 5)
    assert "mark-flagged" in (flagged.get("class") or "").split()
    assert "⚑ flagged" in "".join(flagged.itertext())
    assert "mark-held" in (held.get("class") or "").split() and "‖ held" in "".join(held.itertext())
    edges = root.findall(".//svg:path[@class]", NS)
    lost = [e for e in edges if e.get("class") == "edge lost"]
    assert len(edges) == 5 and len(lost) == 2
    assert all("no longer counts" in (e.findtext("svg:title", "", NS)) for e in lost)


def test_each_node_links_to_its_page() -> None:
    root = _svg()
    assert _node(root, 2).get("href") == f"/beliefs/{_id(2)}"
    assert _node(root, 4).get("href") == f"/decisions/{_id(4)}"
    assert _node(root, 5).get("href") == f"/actions/{_id(5)}"
    assert _node(root, 1).get("href") == "/impact?ref=return-policy.md"
    assert _node(root, 6).tag == "{http://www.w3.org/2000/svg}g"  # a correction has no page of its own


def test_the_description_counts_in_words_one_source_two_beliefs() -> None:
    desc = _svg().findtext("svg:desc", "", NS)
    assert desc.startswith("1 source, 1 correction, 2 beliefs, 1 decision, 1 action; 5 relations."), desc
    one = to_svg(Graph("t", (), NODES[:1], ()))
    assert "<desc id=\"graph-desc\">1 source; 0 relations." in one
    two = to_svg(Graph("t", (), NODES[:2], EDGES[:1]))
    assert "1 source, 1 belief; 1 relation." in two
