"""``why`` as a picture: a belief with its sources, what it replaced, was replaced by or conflicts
with, and what is built on it; a decision (or an action's decision) with its reasons, live and lost,
its actions and its outcome. Production history only unless fixtures are asked for (rule 15).

Rules cited as "rule N" are those of docs/rules.md."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.graph import read
from beliefdb.graph.canvas import Canvas
from beliefdb.inputs import check_moment
from beliefdb.models.graph import Graph, Page, ReviewMark

#: the most nodes resting on a belief one picture draws
MAX_LIMIT = 2000
#: the furthest a page starts (the database's integer range)
MAX_OFFSET = 2**31 - 1


#: the order what rests on a belief is drawn in, a page at a time
_BUILT_ORDER = {"decision": 0, "belief": 1}


def why_graph(db: Database, ref: str | UUID, *, as_of: datetime | None = None, limit: int | None = None,
              offset: int = 0, include_fixtures: bool = False) -> Graph:
    """The picture of why a belief, decision or action (id or unique prefix) is held; ``as_of``: what
    had been recorded by then, beliefs with the status they had then. With ``limit``, a belief's picture
    draws at most that many of the nodes that rest on it from ``offset`` (decisions first): ``page``
    says which of how many. Production history only (rule 15): fixture and synthetic beliefs and
    sources are left out, and a fixture belief is refused, unless ``include_fixtures`` (then labelled).
    A decision or action a reviewer approved or rejected carries that verdict (``GraphNode.verdict``).
    An id (or prefix) that names no belief, decision or action but a review item draws the item's subject
    (its node, or the source of a proposed version or retraction), the item in ``Graph.review_item``."""
    if as_of is not None:
        as_of = check_moment(as_of, "as_of")
    if limit is not None and not 1 <= limit <= MAX_LIMIT:
        raise errors.InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    if not 0 <= offset <= MAX_OFFSET:
        raise errors.InvalidInput(f"offset must be between 0 and {MAX_OFFSET:,}")
    page: Page | None = None
    canvas = Canvas(include_fixtures=include_fixtures)
    canvas.as_of = as_of
    with db.transaction() as c:
        node_id, kind, item = _target(db, str(ref), c)
        world = read.worlds(db, [node_id], c).get(node_id, "production")
        if world != "production" and not include_fixtures:
            raise read.not_production(f"{kind or 'source'} {ref}", world)
        if kind is None:  # (a proposed version or retraction: its source as it is, or was then)
            canvas.add_sources(read.sources(db, [node_id], c, as_of))
            canvas.wanted.add(node_id)
        elif kind == "belief":
            page = _belief(db, canvas, node_id, as_of, c, limit, offset)
        else:
            decision = node_id
            if kind == "action":
                canvas.add_rows(read.nodes(db, [node_id], c))
                decision = next(r["antecedent"] for r in read.in_edges(db, [node_id], None, c)
                                if r["edge_kind"] == "carries_out")
            _decision(db, canvas, decision, as_of, c)
        read.fill(db, canvas, c)
        if as_of is not None:
            _as_of(db, canvas, node_id, as_of, c)
        if kind in ("decision", "action"):
            _hidden_reasons(canvas, decision)
            # (a decision without any reason: why it has none, as its review item said when it was recorded)
            if (unfounded := read.unfounded(db, decision, c)) is not None:
                canvas.note(decision, unfounded)
        # (who approved or rejected each decision and action drawn, when and why: then, as of a moment)
        acting = [n.id for n in canvas.nodes.values() if n.kind in ("decision", "action")]
        if acting:
            canvas.verdicts(read.verdicts(db, acting, as_of, c))
    if node_id not in canvas.nodes:  # (a review item's source as of before it was recorded)
        raise errors.NotFound(f"review item {ref} is about source {node_id}, not recorded yet then")
    focus = canvas.nodes[node_id]
    what = _TITLES[kind if kind is not None else item.kind if item is not None else ""]
    return canvas.graph(f"{what}: {focus.label}", [node_id], page=page, review_item=item,
                        truncated=page is not None and page.offset + page.shown < page.total)


#: a why picture's title, by what it is of: a node's kind, or the kind of review item a source's picture is of
_TITLES = {"belief": "Why we believe", "decision": "Why we decided", "action": "Why we act",
           "version_proposed": "A new version proposed of", "retraction_proposed": "A retraction proposed of",
           "": "Source"}  # ("": no item, which a source's picture always has)


def _target(db: Database, ref: str, c: read.Conn) -> tuple[UUID, str | None, ReviewMark | None]:
    """What a why reference names: a belief, decision or action (its id and kind), else a review item (by
    ``beliefdb.resolve_review_item``), whose subject it explains: its node (and kind), or its source (kind
    None). A node's id wins over a review item's; one that names neither is refused as the node's."""
    try:
        with db.transaction(c) as savepoint:  # (the transaction goes on after an unknown id)
            (target,) = read.resolve(db, [ref], ["belief", "decision", "action"], savepoint)
        return target["id"], target["kind"], None
    except errors.NotFound as unknown:
        item = read.review_item(db, ref, c)
        if item is None:
            raise unknown from None
    if item.node is not None:
        return item.node, item.node_kind, item
    assert item.source_id is not None  # (review_item_subject_check: a node or a source)
    return item.source_id, None, item


def _belief(db: Database, canvas: Canvas, belief: UUID, as_of: datetime | None, c: read.Conn,
            limit: int | None, offset: int) -> Page | None:
    canvas.wanted.add(belief)
    canvas.evidence(read.evidence(db, [belief], as_of, c))
    history = read.relations(db, [belief], as_of, c)
    corrections = read.corrections(db, [belief], as_of, c)
    canvas.relations(history, corrections)
    # what rests on it: decisions, derived beliefs, steps that read it, and the actions of its decisions
    # (a hub that thousands rest on: a page of them)
    built = read.out_edges(db, [belief], as_of, c)
    resting = sorted({r["consequent"]: _BUILT_ORDER.get(r["consequent_kind"], 2) for r in built}.items(),
                     key=lambda x: (x[1], str(x[0])))
    kept = {n for n, _ in (resting if limit is None else resting[offset:offset + limit])}
    built = [r for r in built if r["consequent"] in kept]
    canvas.support(built)
    decisions = [r["consequent"] for r in built if r["consequent_kind"] == "decision"]
    if decisions:
        canvas.support(r for r in read.out_edges(db, decisions, as_of, c) if r["consequent_kind"] == "action")
    # what it rests on, when it is derived or written by a step
    canvas.support(read.in_edges(db, [belief], as_of, c))
    read.fill(db, canvas, c)
    canvas.state_notes(history, corrections)
    return Page(offset, len(kept), len(resting)) if limit is not None else None


def _decision(db: Database, canvas: Canvas, decision: UUID, as_of: datetime | None, c: read.Conn) -> None:
    canvas.wanted.add(decision)
    reasons = read.in_edges(db, [decision], as_of, c)
    canvas.support(reasons)
    canvas.support(read.out_edges(db, [decision], as_of, c))
    beliefs = [r["antecedent"] for r in reasons if r["antecedent_kind"] == "belief"]
    if beliefs:
        # where each reason comes from, and what replaced a reason that was lost
        canvas.evidence(read.evidence(db, beliefs, as_of, c))
        history = [r for r in read.relations(db, beliefs, as_of, c) if r["kind"] == "supersedes"]
        corrections = read.corrections(db, beliefs, as_of, c)
        canvas.relations(history, corrections)
        read.fill(db, canvas, c)
        canvas.state_notes(history, corrections)


def _hidden_reasons(canvas: Canvas, decision: UUID) -> None:
    """Say on a decision that cites fixture material (recorded before ``decide`` refused it, rule 15)
    that the picture leaves it out."""
    worlds = sorted({canvas.hidden[s] for (s, t, _) in canvas.edges if t == decision and s in canvas.hidden})
    cited = sum(1 for (s, t, _) in canvas.edges if t == decision and s in canvas.hidden)
    if cited:
        canvas.note(decision, f"cites {cited} {' and '.join(worlds)} belief{'s' if cited > 1 else ''}, not shown:"
                              " not production history")


#: the status, in a picture as of a moment, of a belief other than its focus that was not believed then
#: (superseded by then, or not recorded yet): the web pages link it to its page as it is now
NOT_BELIEVED = "not believed then"


def _as_of(db: Database, canvas: Canvas, focus: UUID, as_of: datetime, c: read.Conn) -> None:
    """Beliefs with the status they had at ``as_of`` (a state mark of today's status would mislead)."""
    beliefs = [n.id for n in canvas.nodes.values() if n.kind == "belief"]
    then = read.believed_at(db, beliefs, as_of, c)
    if canvas.nodes[focus].kind == "belief" and focus not in then:
        # the focus is drawn with the status it had then, believed then or not (as why shows it); only a
        # belief not recorded yet then has no picture as of then
        recorded = read.recorded_at(db, [focus], as_of, c)
        if focus not in recorded:
            raise errors.NotFound(f"belief {focus} was not recorded yet at {as_of.isoformat()}")
        then[focus] = recorded[focus]
    for belief in beliefs:
        node = canvas.nodes[belief]
        node.status = then.get(belief, NOT_BELIEVED)
        node.marks = [m for m in node.marks if m not in ("superseded", "retracted", "expired", "quarantined",
                                                          "corrected")]
        node.notes = []
    # decisions and actions too: flagged, held, approved or rejected then, not now
    acting = [n.id for n in canvas.nodes.values() if n.kind in ("decision", "action")]
    statuses = read.status_then(db, acting, as_of, c)
    if canvas.nodes[focus].kind in ("decision", "action") and focus not in statuses:
        raise errors.NotFound(f"{canvas.nodes[focus].kind} {focus} was not recorded yet at {as_of.isoformat()}")
    for node_id, status in statuses.items():
        canvas.restate(node_id, status)
