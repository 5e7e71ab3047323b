"""The reading pages of the product view: the workspace picture, a belief, a decision (an action leads
to its decision) and an impact ("if this were wrong"). Each takes ``as_of`` where it reads history —
what we believed then — and calls :class:`BeliefDB` as the signed-in principal, nothing else."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup, escape

from beliefdb import errors
from beliefdb.graph.workspace import MAX_LIMIT, MAX_OFFSET
from beliefdb.interfaces.web import paging as pager
from beliefdb.interfaces.web import view
from beliefdb.interfaces.web.controls import visible
from beliefdb.interfaces.web.picture import picture
from beliefdb.interfaces.web.session import Reader
from beliefdb.interfaces.web.svg import MARK_WORDS
from beliefdb.models import SourceExcerpt
from beliefdb.models.graph import Graph, Page

router = APIRouter(route_class=view.PageRoute, include_in_schema=False)
#: pages at paths the JSON API serves too: a browser gets the page (view.SharedPageRoute)
shared = APIRouter(route_class=view.SharedPageRoute, include_in_schema=False)

STATUSES = ("current", "conflicting", "superseded", "unsupported", "retracted", "quarantined", "expired")
DEFAULT_LIMIT = 60


def _url(path: str, **params: str | None) -> str:
    return pager.url(path, list(params.items()))


@router.get("/")
def workspace(request: Request, v: Reader, subject: str = "", status: str = "", since: str = "", until: str = "",
              as_of: str = "", limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
              offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0) -> Response:
    moments = {k: view.moment(text, k) for k, text in (("since", since), ("until", until), ("as_of", as_of))}
    graph = v.db.workspace_graph(subject=subject.strip() or None, status=status or None, limit=limit,
                                 offset=offset, since=moments["since"], until=moments["until"],
                                 as_of=moments["as_of"])
    kept = {"subject": subject, "status": status, "since": since, "until": until, "as_of": as_of,
            "limit": str(limit) if limit != DEFAULT_LIMIT else ""}
    context = {"viewer": v, "title": "Workspace", "nav": "workspace",
               "picture": picture(graph, "workspace", moments["as_of"]),
               "filters": {"subject": subject, "status": status, "limit": limit}, "moments": moments,
               "statuses": STATUSES, "mark_words": MARK_WORDS, "paging": paging(graph.page, limit, kept),
               "max_limit": MAX_LIMIT}
    return view.page(request, "workspace.html", context)


def paging(page: Page | None, limit: int, kept: dict[str, str]) -> pager.Paging:
    """What a workspace page says of its page of beliefs ("Showing beliefs 61–120 of 1,234, newest
    first"), with the links to the newer and older pages (the same filters)."""
    if page is None:
        return pager.Paging("")
    return pager.paging("/", [(k, v) for k, v in kept.items() if k != "limit"], offset=page.offset, shown=page.shown,
                        total=page.total, limit=limit, default_limit=DEFAULT_LIMIT, one="belief", many="beliefs",
                        order="newest first", more=page.more, always=True,
                        # what was believed then is worked out belief by belief: counted only a little past the page
                        counted=" (as of a moment, counted no further)" if kept.get("as_of") else "",
                        none="No belief passes these filters.", far="No beliefs this far: {total} pass these filters.")


def highlight(excerpt: SourceExcerpt, spans: list[tuple[int, int]]) -> Markup:
    """The excerpt with each quote of ``spans`` (offsets in the version) in ``<mark>``, escaped."""
    text, base = excerpt.excerpt, excerpt.excerpt_start
    out, at = [], 0
    for start, end in sorted(spans):
        a, b = max(start - base, at), min(end - base, len(text))
        if b <= a:
            continue
        out += [str(escape(visible(text[at:a]))), f"<mark>{escape(visible(text[a:b]))}</mark>"]
        at = b
    out.append(str(escape(visible(text[at:]))))
    before = "…" if base > 0 else ""
    after = "…" if base + len(text) < excerpt.length else ""
    return Markup(before + "".join(out) + after)


#: how many of what rests on a belief its page draws and lists (a hub has thousands)
BUILT_LIMIT = 100


@shared.get("/beliefs/{belief}")
def belief(request: Request, belief: str, v: Reader, as_of: str = "",
           limit: Annotated[int, Query(ge=1, le=pager.MAX_LIMIT)] = BUILT_LIMIT,
           offset: Annotated[int, Query(ge=0, le=pager.MAX_OFFSET)] = 0) -> Response:
    moment = view.moment(as_of, "as_of")
    found = v.db.why(belief, as_of=moment)
    evidence = found.evidence
    shown = v.db.source_excerpts([e.fragment_id for e in evidence])
    # retracted then (as_of): by the retractions recorded and not restored by then
    then = {(r.name, r.version if r.what != "source" else None) for r in found.retractions if r.restored_at is None}
    # each quote of the belief in that version is marked where the excerpt shows it
    excerpts = [(x, highlight(x, [(e.start_offset, e.end_offset) for e in evidence
                                  if (e.source, e.version) == (x.source, x.version)]),
                 next(e for e in evidence if e.fragment_id == x.fragment_id),
                 x.retracted if moment is None else bool({(x.source, None), (x.source, x.version)} & then))
                for x in shown]
    graph = v.db.why_graph(found.belief.id, as_of=moment, limit=limit, offset=offset)
    # (the picture's page counts steps that read it too)
    longest = max(len(found.built_on), len(found.derived), graph.page.total if graph.page else 0)
    pages = pager.paging(f"/beliefs/{found.belief.id}", [("as_of", as_of)], offset=offset,
                         shown=max(min(longest - offset, limit), 0), total=longest, limit=limit,
                         default_limit=BUILT_LIMIT, one="entry", many="entries",
                         order="of each list of what is built on it")
    nodes = {n.id: n for n in graph.nodes}
    premises = [nodes[e.source] for e in graph.edges
                if e.target == found.belief.id and e.source in nodes and nodes[e.source].kind == "belief"
                and e.relation == "is a premise of"]
    # the sources it could still be retracted from (not those retracted and not restored)
    retracted = {r.name for r in found.retractions if r.what == "source" and r.restored_at is None}
    sources = sorted({e.source for e in evidence} - retracted)
    context = {"viewer": v, "title": found.belief.statement, "why": found, "excerpts": excerpts,
               "picture": picture(graph, "why", moment), "premises": premises, "as_of": moment,
               # what is built on it, as it was then: the picture's statuses as of the moment
               "then": {str(n.id): n.status for n in graph.nodes} if moment is not None else {},
               "now_url": f"/beliefs/{found.belief.id}", "sources": sources, "mark_words": MARK_WORDS,
               "writable": not v.read_only and moment is None and found.belief.status in ("current", "conflicting"),
               "built_on": found.built_on[offset:offset + limit], "derived": found.derived[offset:offset + limit],
               "pages": pages, "pages_label": "Pages of what is built on it"}
    return view.page(request, "belief.html", context)


def _why(v: Reader, ref: str, kind: str, as_of: datetime | None) -> Graph:
    """The why picture of what ``ref`` names, for the page of a ``kind``: an id that names nothing is an
    unknown ``kind``, the page's, not "unknown belief or decision or action" (every kind the picture takes)."""
    try:
        graph = v.db.why_graph(ref, as_of=as_of)
    except errors.UnknownBelief:  # (resolving the id is the picture's only search for a belief)
        raise errors.NotFound(f"unknown {kind} {ref}") from None
    except errors.InvalidInput as exc:  # (no id, or too short: said of the page's kind too)
        raise errors.InvalidInput(exc.message.replace("belief or decision or action", kind, 1)) from None
    if graph.review_item is not None:  # (a review item's id names no decision: the page of the queue shows it)
        raise errors.NotFound(f"unknown {kind} {ref}")
    return graph


@router.get("/decisions/{decision}")
def decision(request: Request, decision: str, v: Reader, as_of: str = "") -> Response:
    moment = view.moment(as_of, "as_of")
    graph = _why(v, decision, "decision", moment)
    (focus_id,) = graph.focus
    nodes = {n.id: n for n in graph.nodes}
    focus = nodes[focus_id]
    if focus.kind == "belief":
        return RedirectResponse(_url(f"/beliefs/{focus_id}", as_of=as_of), status_code=303)
    if focus.kind != "decision":
        return RedirectResponse(_url(f"/decisions/{_decision_of(graph, focus_id)}", as_of=as_of), status_code=303)
    reasons = [(nodes[e.source], e) for e in graph.edges
               if e.target == focus_id and e.source in nodes and e.relation == "is a reason for"]
    actions = [nodes[e.target] for e in graph.edges
               if e.source == focus_id and e.target in nodes and nodes[e.target].kind == "action"]
    context = {"viewer": v, "title": focus.label, "decision": focus, "picture": picture(graph, "why", moment),
               "live": [r for r in reasons if r[1].live], "lost": [r for r in reasons if not r[1].live],
               "actions": actions, "as_of": moment, "now_url": f"/decisions/{focus_id}", "mark_words": MARK_WORDS}
    return view.page(request, "decision.html", context)


def _decision_of(graph: Graph, action: UUID) -> UUID:
    for e in graph.edges:
        if e.target == action and e.relation == "is carried out by":
            return e.source
    raise errors.NotFound(f"no decision found for action {action}")


@router.get("/actions/{action}")
def action(request: Request, action: str, v: Reader, as_of: str = "") -> Response:
    graph = _why(v, action, "action", view.moment(as_of, "as_of"))
    (focus_id,) = graph.focus
    kind = next(n.kind for n in graph.nodes if n.id == focus_id)
    if kind != "action":
        raise errors.NotFound(f"{action} is a {kind}, not an action")
    # its decision as of the same moment
    return RedirectResponse(_url(f"/decisions/{_decision_of(graph, focus_id)}", as_of=as_of) + f"#action-{focus_id}",
                            status_code=303)


#: the effects an impact page lists, in order
IMPACT_GROUPS = ("stops_holding", "stops_current", "would_flag", "would_hold", "survives", "becomes_current")


@router.get("/impact")
def impact(request: Request, v: Reader, ref: Annotated[list[str] | None, Query()] = None,
           limit: Annotated[int, Query(ge=1, le=pager.MAX_LIMIT)] = pager.IMPACT_LIMIT,
           offset: Annotated[int, Query(ge=0, le=pager.MAX_OFFSET)] = 0) -> Response:
    refs = [r.strip() for r in ref or [] if r.strip()]
    context: dict[str, object] = {"viewer": v, "title": "Impact", "nav": "impact", "refs": refs, "picture": None,
                                  "mark_words": MARK_WORDS, "groups": [], "sources": [], "pages": None}
    if refs:
        # (a retraction's dry run: it changes every world, so fixture material is drawn too, labelled, as the
        # retract page draws it; the review queue links a proposed retraction of a fixture source here)
        graph = v.db.impact_graph(*refs, limit=limit, offset=offset, include_fixtures=True)
        shown = picture(graph, "impact")
        totals = dict(graph.totals)
        groups = [(mark, MARK_WORDS[mark][1], shown.marked(mark), totals.get(mark, 0)) for mark in IMPACT_GROUPS]
        focus = set(graph.focus)
        page = graph.page
        assert page is not None
        pages = pager.paging("/impact", [("ref", r) for r in refs], offset=page.offset, shown=page.shown,
                              total=page.total, limit=limit, default_limit=pager.IMPACT_LIMIT, one="marked node",
                              many="marked nodes", order="flagged decisions and held actions first")
        context.update(picture=shown, groups=groups, title=f"Impact: {graph.title}", pages=pages,
                       sources=[n for n in graph.nodes if n.kind == "source" and n.id in focus])
    return view.page(request, "impact.html", context)
