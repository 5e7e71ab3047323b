"""The product view's picture of a workspace: Sources → Beliefs → Decisions → Actions, corrections
and supersessions on the beliefs they changed, flagged decisions and held actions marked.

A neighbourhood, never the whole store: at most ``limit`` beliefs (the newest that pass the
filters), then the sources of their evidence, the decisions citing them and those decisions' actions.
It costs the same handful of set-based statements whatever the size of the workspace."""

from __future__ import annotations

from datetime import UTC, datetime

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.graph import read
from beliefdb.graph.canvas import Canvas
from beliefdb.inputs import check_moment
from beliefdb.models.graph import Graph, Page
from beliefdb.vocabulary import BeliefStatus

#: the most beliefs one picture shows (a page of the product view)
MAX_LIMIT = 2000
#: how far the beliefs that pass the filters are counted ("of more than 10,000" past it): the count of
#: a page costs at most this many rows read, whatever the size of the workspace
COUNT_LIMIT = 10_000
#: as of a moment, a belief passes only if it was believed then (``beliefdb.believed_at``, a walk of its
#: support each): the count goes only this far past the page ("of more than 1,060"), not to COUNT_LIMIT
AS_OF_COUNT_AHEAD = 1_000
#: the furthest a page starts (the database's integer range)
MAX_OFFSET = 2**31 - 1


def workspace_graph(db: Database, *, subject: str | None = None, status: str | None = None,
                    since: datetime | None = None, until: datetime | None = None, as_of: datetime | None = None,
                    limit: int = 200, offset: int = 0) -> Graph:
    """The workspace's newest ``limit`` production beliefs from ``offset`` (of ``subject``, with
    ``status``, recorded in [``since``, ``until``), or as believed at ``as_of``) with their sources,
    the decisions built on them and those decisions' actions; ``truncated`` when more beliefs passed
    the filters after them, ``page`` which of how many (counted up to :data:`COUNT_LIMIT`; as of a moment,
    :data:`AS_OF_COUNT_AHEAD` past the page) they are."""
    if status is not None and status not in BeliefStatus.__members__:
        raise errors.InvalidInput(f"unknown belief status '{status}' (choose from: {', '.join(BeliefStatus)})")
    if not 1 <= limit <= MAX_LIMIT:
        raise errors.InvalidInput(f"limit must be between 1 and {MAX_LIMIT}")
    if not 0 <= offset <= MAX_OFFSET:
        raise errors.InvalidInput(f"offset must be between 0 and {MAX_OFFSET:,}")
    since, until, as_of = (check_moment(moment, where) if moment is not None else None
                           for moment, where in ((since, "since"), (until, "until"), (as_of, "as_of")))
    bound = COUNT_LIMIT if as_of is None else offset + limit + AS_OF_COUNT_AHEAD
    filters = {"subject": subject, "status": status, "since": since, "until": until, "as_of": as_of,
               "limit": limit + 1, "offset": offset, "count_limit": bound + 1}
    canvas = Canvas()
    canvas.as_of = as_of
    with db.transaction() as c:
        query = Q.workspace_beliefs if as_of is None else Q.workspace_beliefs_as_of
        rows = db.fetch_all(dict, query, filters, c)
        found, counted = [r["id"] for r in rows if r["id"] is not None], rows[0]["n"]
        beliefs = found[:limit]
        then = read.believed_at(db, beliefs, as_of, c) if as_of is not None else {}
        canvas.wanted.update(beliefs)
        canvas.evidence(read.evidence(db, beliefs, as_of, c))
        shown = set(beliefs)
        # decisions citing them, and beliefs derived from them that are on the page too
        built = [r for r in read.out_edges(db, beliefs, as_of, c)
                 if r["consequent_kind"] == "decision" or r["consequent"] in shown]
        canvas.support(built)
        decisions = list(dict.fromkeys(r["consequent"] for r in built if r["consequent_kind"] == "decision"))
        canvas.support(r for r in read.out_edges(db, decisions, as_of, c) if r["consequent_kind"] == "action")
        history = [r for r in read.relations(db, beliefs, as_of, c)
                   if r["new_belief"] in shown and r["old_belief"] in shown]
        corrections = [r for r in read.corrections(db, beliefs, as_of, c) if r["belief_id"] in shown]
        canvas.relations(history, corrections)
        # a correction's replacement outside the page stays out: at most limit beliefs
        canvas.wanted -= {r["replacement"] for r in corrections if r["replacement"] not in shown}
        read.fill(db, canvas, c)
        # decisions and actions as they were then: flagged, held, approved or rejected then, not now
        acting = [n.id for n in canvas.nodes.values() if n.kind in ("decision", "action")]
        acted = read.status_then(db, acting, as_of, c) if as_of is not None else {}
    canvas.state_notes(history, corrections)
    for node_id, status in acted.items():
        canvas.restate(node_id, status)
    for belief, was in then.items():
        node = canvas.nodes[belief]
        node.status = was
        node.marks = [m for m in node.marks if m not in ("superseded", "retracted", "expired", "quarantined",
                                                          "corrected")]
        node.notes = []
    title = "Workspace" + "".join(f", {k} {v}" for k, v in (("subject", subject), ("status", status)) if v)
    if as_of is not None:
        title += f", as believed at {as_of.astimezone(UTC).isoformat()}"  # (in UTC, as every moment answered)
    page = Page(offset, len(beliefs), min(counted, bound), more=counted > bound)
    return canvas.graph(title, [], truncated=len(found) > limit, page=page)
