"""``impact`` as a picture: "if this were wrong". Every mark is a row of ``beliefdb.impact`` (the
same dry run ``impact --json`` prints): what would stop holding, be current again, be flagged, be
held, and what survives on other support, with the nodes it survives on. A fragment that would stop
counting is folded into its source, which carries the mark."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from beliefdb.db.connector import Database
from beliefdb.graph import read
from beliefdb.graph.canvas import Canvas
from beliefdb.models import ImpactRow
from beliefdb.models.graph import Graph
from beliefdb.render.pictures.labels import IMPACT_TITLE
from beliefdb.store import retraction

#: the mark each effect of ``beliefdb.impact`` gives
EFFECT_MARKS = {"stops_holding": "stops_holding", "becomes_current": "becomes_current", "flag": "would_flag",
                "hold": "would_hold", "survives": "survives"}


def impact_graph(db: Database, refs: Sequence[str | UUID]) -> Graph:
    """The picture of what retracting ``refs`` (beliefs, fragments, decisions, sources by name or id)
    would do, from the rows of ``beliefdb.impact``."""
    canvas = Canvas()
    with db.transaction() as c:
        rows = retraction.impact(db, refs, c)
        targets = read.resolve(db, [str(r) for r in refs], None, c)
        fragments = read.fragment_sources(db, [r.node for r in rows if r.kind == "fragment"], c)
        focus = [t["source_id"] or t["id"] for t in targets]
        canvas.sources.update(t["source_id"] for t in targets if t["source_id"] is not None)
        canvas.wanted.update(t["id"] for t in targets if t["source_id"] is None)
        canvas.sources.update(fragments.values())
        canvas.wanted.update(r.node for r in rows if r.kind != "fragment")
        canvas.wanted.update(_survives_on(rows))
        read.fill(db, canvas, c)
        beliefs = [i for i, n in canvas.nodes.items() if n.kind == "belief"]
        everything = list(canvas.nodes)
        # the edges among them: evidence from the sources drawn, reasons between the nodes drawn
        canvas.evidence(e for e in read.evidence(db, beliefs, None, c)
                        if e["source_id"] in canvas.nodes or e["correction"] in canvas.nodes)
        canvas.support(r for r in read.in_edges(db, everything, None, c) if r["antecedent"] in canvas.nodes)
        history = read.relations(db, beliefs, None, c)
        canvas.relations(r for r in history if r["new_belief"] in canvas.nodes and r["old_belief"] in canvas.nodes)
        canvas.wanted.clear()
        canvas.sources.clear()
    _mark(canvas, rows, fragments)
    names = ", ".join(canvas.label(f) for f in dict.fromkeys(focus))
    return canvas.graph(f"{IMPACT_TITLE}: {names}", focus)


def _survives_on(rows: Sequence[ImpactRow]) -> set[UUID]:
    return {UUID(str(x)) for r in rows if r.effect == "survives" for group in r.detail.get("by", []) for x in group}


def _mark(canvas: Canvas, rows: Sequence[ImpactRow], fragments: dict[UUID, UUID]) -> None:
    folded: dict[UUID, int] = {}
    for r in rows:
        if r.kind == "fragment":
            source = fragments[r.node]
            folded[source] = folded.get(source, 0) + 1
            continue
        note = ""
        if r.effect == "survives":
            note = "survives on " + "; or ".join(
                " and ".join(f'"{canvas.label(UUID(str(x)))}"' for x in group) for group in r.detail.get("by", []))
        canvas.mark(r.node, EFFECT_MARKS.get(r.effect, r.effect), note)
    for source, count in folded.items():
        canvas.mark(source, "stops_holding", f"{count} quote(s) of it would stop counting")
