"""``impact`` as a picture: "if this were wrong". Every mark is a row of ``beliefdb.impact`` (the
same dry run ``impact --json`` prints): what would stop holding, stop being current (and still hold:
superseded anew by what the change brings back), be current again, be flagged, be held, and what
survives on other support, with the nodes it survives on. A fragment that would stop counting (or count
again) is folded into its source, which carries the mark and says how many quotes of which version: a
retracted version of a source whose older version comes back into force is not the source stopping to hold.

A large answer is drawn a page at a time (``limit`` marked nodes from ``offset``, in a fixed order:
the sources asked about, then decisions flagged, actions held, what stops holding, what stops being
current, what survives, what is current again), while ``totals`` and ``page.total`` count the whole answer.

Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.graph import read
from beliefdb.graph.canvas import Canvas
from beliefdb.models import ImpactRow
from beliefdb.models.graph import Graph, Page
from beliefdb.render.pictures.labels import IMPACT_TITLE, version_name
from beliefdb.store import retraction

#: the mark each effect of ``beliefdb.impact`` gives
EFFECT_MARKS = {"stops_holding": "stops_holding", "stops_current": "stops_current",
                "becomes_current": "becomes_current", "flag": "would_flag", "hold": "would_hold",
                "survives": "survives"}
#: the order a page takes the marked nodes in: what a person must act on first
_EFFECT_ORDER = {"flag": 1, "hold": 2, "stops_holding": 3, "stops_current": 4, "survives": 5, "becomes_current": 6}
_KIND_ORDER = {"decision": 0, "action": 1, "belief": 2}
#: the most marked nodes one picture draws
MAX_LIMIT = 2000
#: the furthest a page starts (the database's integer range)
MAX_OFFSET = 2**31 - 1


def impact_graph(db: Database, refs: Sequence[str | UUID], *, limit: int | None = None, offset: int = 0,
                 include_fixtures: bool = False, source: str | None = None, version: int | None = None) -> Graph:
    """The picture of what retracting ``refs`` (beliefs, fragments, decisions, sources by name or id; and
    ``source``, or one ``version`` of it by number, as ``retract`` names them) would do, from the rows of
    ``beliefdb.impact``: every marked node, or with ``limit`` at most that many from ``offset`` (``page``
    says which of how many, ``totals`` how many nodes each mark names).
    Production history only (rule 15): the rows of fixture and synthetic beliefs and fragments are left
    out of the marks and the totals, and such a target is refused, unless ``include_fixtures`` (then
    every world is drawn, labelled)."""
    if limit is not None and not 1 <= limit <= MAX_LIMIT:
        raise errors.InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    if not 0 <= offset <= MAX_OFFSET:
        raise errors.InvalidInput(f"offset must be between 0 and {MAX_OFFSET:,}")
    canvas = Canvas(include_fixtures=include_fixtures)
    with db.transaction() as c:
        refs = retraction.impact_refs(db, refs, source, version, c)
        every = retraction.impact(db, refs, c)
        targets = read.resolve(db, [str(r) for r in refs], None, c)
        if not include_fixtures:
            worlds = read.worlds(db, [t["id"] for t in targets] + [r.node for r in every], c)
            for ref, t in zip(refs, targets, strict=True):
                if worlds.get(t["id"], "production") != "production":
                    raise read.not_production(str(ref), worlds[t["id"]])
            every = [r for r in every if worlds.get(r.node, "production") == "production"]
        # the version of each fragment, and of each version asked about
        versions = read.fragment_versions(db, [r.node for r in every if r.kind == "fragment"]
                                          + [t["id"] for t in targets if _is_version(t)], c)
        fragments = {f: v["source_id"] for f, v in versions.items()}
        focus = [t["source_id"] or t["id"] for t in targets]
        marked = _in_order(every, fragments, focus)
        drawn = marked if limit is None else marked[offset:offset + limit]
        shown = set(drawn)
        rows = [r for r in every if _marks(r, fragments) in shown]
        canvas.sources.update(t["source_id"] for t in targets if t["source_id"] is not None)
        canvas.wanted.update(t["id"] for t in targets if t["source_id"] is None)
        canvas.sources.update(s for s in fragments.values() if s in shown)
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
    asked = {t["id"] for t in targets if _is_version(t)}
    _mark(canvas, rows, versions, asked)
    # a version asked about is named as such: the source stays, that version of it is retracted
    names = ", ".join(dict.fromkeys(
        canvas.label(f) + (f" {version_name(versions[t['id']]['version'], versions[t['id']]['label'])}"
                           if _is_version(t) else "") for f, t in zip(focus, targets, strict=True)))
    page = Page(offset, len(drawn), len(marked)) if limit is not None else None
    return canvas.graph(f"{IMPACT_TITLE}: {names}", focus, truncated=len(drawn) < len(marked), page=page,
                        totals=_totals(every, versions, asked))


def _is_version(target: read.Row) -> bool:
    """Whether a resolved reference is a source version (not a node, not the whole source)."""
    return target["kind"] is None and target["source_id"] not in (None, target["id"])


def _marks(row: ImpactRow, fragments: dict[UUID, UUID]) -> UUID:
    """The node that carries a row's mark: a fragment's source, any other node itself."""
    return fragments[row.node] if row.kind == "fragment" else row.node


def _in_order(rows: Sequence[ImpactRow], fragments: dict[UUID, UUID], focus: Sequence[UUID]) -> list[UUID]:
    """Every node the rows mark, once, in the order pages take them: the sources asked about first."""
    first: dict[UUID, tuple[int, int, str]] = {}
    for r in rows:
        node = _marks(r, fragments)
        key = (0 if node in focus else _EFFECT_ORDER.get(r.effect, 9), _KIND_ORDER.get(r.kind, 3), str(node))
        if node not in first or key < first[node]:
            first[node] = key
    return sorted(first, key=first.__getitem__)


def _totals(rows: Sequence[ImpactRow], versions: dict[UUID, read.Row],
            asked: set[UUID]) -> tuple[tuple[str, int], ...]:
    """How many nodes each mark names in the whole answer (a source once for all its quotes, by the mark
    its quotes give it)."""
    named: dict[str, set[UUID]] = {}
    for r in rows:
        if r.kind != "fragment":
            named.setdefault(EFFECT_MARKS.get(r.effect, r.effect), set()).add(r.node)
    for source, (mark, _) in _folded(rows, versions, asked).items():
        if mark is not None:
            named.setdefault(mark, set()).add(source)
    return tuple((mark, len(nodes)) for mark, nodes in named.items())


def _folded(rows: Sequence[ImpactRow], versions: dict[UUID, read.Row],
            asked: set[UUID]) -> dict[UUID, tuple[str | None, list[str]]]:
    """The mark and the notes each source carries for its fragments' rows. Its quotes that would stop
    counting, by the version asked about they are of (``version 2 would be retracted: ...``; others at
    once, as of a whole source or a fragment), then those of an older version that would count again, back
    in force. The source would stop holding when quotes of it stop counting and none comes back; a version
    retracted and another back in force is not marked (the notes say it)."""
    # per source, per version (its id, number and label): how many quotes stop counting, how many come back
    stop: dict[UUID, dict[tuple[UUID, int, str | None], int]] = {}
    back: dict[UUID, dict[tuple[UUID, int, str | None], int]] = {}
    for r in rows:
        if r.kind != "fragment":
            continue
        v = versions[r.node]
        key = (v["version_id"], v["version"], v["label"])
        counts = (back if r.effect == "becomes_current" else stop).setdefault(v["source_id"], {})
        counts[key] = counts.get(key, 0) + 1
    folded: dict[UUID, tuple[str | None, list[str]]] = {}
    for source in dict.fromkeys([*stop, *back]):
        notes: list[str] = []
        others = 0
        for (version_id, number, label), count in sorted(stop.get(source, {}).items(), key=lambda x: -x[0][1]):
            if version_id in asked:
                notes.append(f"{version_name(number, label)} would be retracted: {count} quote(s) of it would stop"
                             " counting")
            else:
                others += count
        if others:
            notes.append(f"{others} quote(s) of it would stop counting")
        notes += [f"{version_name(number, label)} would be back in force: {count} quote(s) of it would count again"
                  for (_, number, label), count in sorted(back.get(source, {}).items(), key=lambda x: -x[0][1])]
        folded[source] = ("stops_holding" if source in stop and source not in back else None, notes)
    return folded


def _survives_on(rows: Sequence[ImpactRow]) -> set[UUID]:
    return {UUID(str(x)) for r in rows if r.effect == "survives" for group in r.detail.get("by", []) for x in group}


def _mark(canvas: Canvas, rows: Sequence[ImpactRow], versions: dict[UUID, read.Row], asked: set[UUID]) -> None:
    for r in rows:
        if r.kind == "fragment":
            continue
        note = ""
        if r.effect == "survives":
            note = "survives on " + "; or ".join(
                " and ".join(f'"{canvas.label(UUID(str(x)))}"' for x in group) for group in r.detail.get("by", []))
        canvas.mark(r.node, EFFECT_MARKS.get(r.effect, r.effect), note)
    for source, (mark, notes) in _folded(rows, versions, asked).items():
        for note in notes:
            if mark is None:
                canvas.note(source, note)
            else:
                canvas.mark(source, mark, note)
