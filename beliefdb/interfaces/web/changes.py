"""The pages that change memory, each a preview first: a correction (preview → apply at the previewed
revision; a stale preview shows the conflict and the fresh preview, 409, of correcting what replaced the
belief when it was superseded since), a source's retraction (preview
→ apply), and the review queue (approve / reject). Every change is one call of :class:`BeliefDB` as the
signed-in principal; a read-only token gets 403 before anything is read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import Response

from beliefdb import errors
from beliefdb.interfaces.web import describe, session, view
from beliefdb.interfaces.web.paging import IMPACT_LIMIT, MAX_LIMIT, MAX_OFFSET, paging, url
from beliefdb.interfaces.web.picture import picture
from beliefdb.interfaces.web.session import Reader, Writer
from beliefdb.interfaces.web.svg import MARK_WORDS
from beliefdb.render.pictures.labels import HOLDS_AGAIN
from beliefdb.store.beliefs import MAX_PAGE

router = APIRouter(route_class=view.PageRoute, include_in_schema=False)

#: a form field (empty when the form leaves it out)
Text = Annotated[str, Form()]


def _or_none(value: str) -> str | None:
    return value.strip() or None


# --- correction ---------------------------------------------------------------------------------

def _preview_page(request: Request, v: session.Viewer, belief: str, statement: str, value: str, reason: str,
                  *, conflict: str | None = None) -> Response:
    found = v.db.why(belief)
    replaced = None
    # superseded since the preview: the correction can only go to what replaced it (the newest), or, where
    # that was superseded in turn, to the end of the chain (a bounded walk: supersession has no cycle)
    hops = 0
    while conflict is not None and found.belief.status == "superseded" and found.replaced_by and hops < 20:
        replaced = found.replaced_by[-1]
        found = v.db.why(replaced.new_belief)
        hops += 1
    seen = v.db.preview_correction(found.belief.id, statement, _or_none(value))
    names = describe.Names(v.db)
    context = {"viewer": v, "title": "Correction preview", "belief": found.belief, "preview": seen,
               "groups": describe.correction(seen, names), "statement": statement, "value": value,
               "reason": reason, "conflict": conflict, "replaced": replaced, "mark_words": MARK_WORDS}
    return view.page(request, "correction.html", context, 409 if conflict else 200)


@router.post("/beliefs/{belief}/correction/preview")
def correction_preview(request: Request, belief: str, v: Writer, statement: Text = "", value: Text = "",
                       reason: Text = "") -> Response:
    if not statement.strip():
        raise errors.InvalidInput("a correction needs the corrected statement")
    return _preview_page(request, v, belief, statement.strip(), value, reason)


@router.post("/beliefs/{belief}/correction")
def correction_apply(request: Request, belief: str, v: Writer, statement: Text = "", value: Text = "",
                     reason: Text = "", expected_revision: Annotated[int, Form(ge=0, le=2**31 - 1)] = 0
                     ) -> Response:
    try:
        done = v.db.apply_correction(belief, statement, reviewer=v.who.principal, expect_revision=expected_revision,
                                     value=_or_none(value), reason=_or_none(reason))
    except errors.StaleCorrectionPreview as exc:
        return _preview_page(request, v, belief, statement, value, reason, conflict=exc.message)
    except errors.InvalidInput as exc:
        # refused as superseded: the preview refuses a superseded belief, so it was superseded since
        if v.db.why(belief).belief.status != "superseded":
            raise
        return _preview_page(request, v, belief, statement, value, reason, conflict=exc.message)
    names = describe.Names(v.db)
    groups = describe.changes(done.changes, names, preview=False) if done.changes else []
    return view.page(request, "corrected.html", {"viewer": v, "title": "Corrected", "result": done,
                                                 "groups": groups, "mark_words": MARK_WORDS})


# --- retracting a source ------------------------------------------------------------------------

def _retract_page(request: Request, v: session.Viewer, source: str, *, conflict: str | None = None,
                  offset: int = 0, limit: int = describe.LIST_LIMIT) -> Response:
    seen = v.db.preview_retract(source=source)
    # a large source's retraction names thousands of nodes: the picture draws the first of them (the
    # impact page has the rest) and each list a page; the form confirms the whole change (its fingerprint)
    # (a retraction changes every world: what it would do to fixture material is drawn too, labelled)
    graph = v.db.impact_graph(source, limit=IMPACT_LIMIT, include_fixtures=True)
    groups = describe.changes(seen, describe.Names(v.db), preview=True, offset=offset, limit=limit)
    longest = max((g.count for g in groups), default=0)
    pages = paging("/sources/retract", [("source", source)], offset=offset, shown=max(min(longest - offset, limit), 0),
                   total=longest, limit=limit, default_limit=describe.LIST_LIMIT, one="entry", many="entries",
                   order="of each list")
    more = url("/impact", [("ref", source), ("offset", str(graph.page.shown))]) \
        if graph.page is not None and graph.truncated else ""
    context = {"viewer": v, "title": f"Retract {source}?", "source": source, "changes": seen,
               "picture": picture(graph, "impact"), "picture_more": more, "groups": groups, "pages": pages,
               "mark_words": MARK_WORDS, "expected": seen.fingerprint(), "conflict": conflict}
    return view.page(request, "retract.html", context, 409 if conflict else 200)


@router.get("/sources/retract")
def retract_preview(request: Request, v: Reader, source: str = "",
                    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = describe.LIST_LIMIT,
                    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0) -> Response:
    if not source.strip():
        raise errors.InvalidInput("name the source to retract")
    return _retract_page(request, v, source, offset=offset, limit=limit)


@router.post("/sources/retract")
def retract_apply(request: Request, v: Writer, source: Text = "", reason: Text = "", expected: Text = "") -> Response:
    if not source.strip():
        raise errors.InvalidInput("name the source to retract")
    if not reason.strip():
        raise errors.InvalidInput("a retraction needs a reason")
    # only what the preview showed, all of it (checked and applied in one transaction): if it would now
    # change something else, show that instead
    try:
        done = v.db.retract(source=source, reason=reason.strip(), expect=expected)
    except errors.StalePreview:
        return _retract_page(request, v, source, conflict="What retracting it would change is no longer what"
                                                          " your preview showed.")
    context = {"viewer": v, "title": f"Retracted {source}", "source": source, "changes": done,
               "groups": describe.changes(done, describe.Names(v.db), preview=False), "mark_words": MARK_WORDS}
    return view.page(request, "retracted.html", context)


# --- the review queue ---------------------------------------------------------------------------

#: what each verdict does, by the kind of item (rules 4, 8 and 17 of docs/rules.md)
VERDICTS = {
    "decision_flagged": "Approve: keep the decision as it is and release its held actions."
                        " Reject: cancel its actions; nothing may carry it out.",
    "action_held": "Approve: release the action. Reject: cancel it.",
    "conflict": "Approve: the belief you keep supersedes the other. Reject: leave both conflicting.",
    "correction_proposed": "Approve: the correction is applied as your own change. Reject: nothing changes.",
    "version_proposed": "Approve: the new version is applied as your own change. Reject: nothing changes.",
    "retraction_proposed": "Approve: the retraction is applied as your own change. Reject: nothing changes.",
}

#: how many review items a page of the queue shows
REVIEW_LIMIT = 50


def _queue(v: session.Viewer, limit: int, offset: int) -> dict[str, object]:
    """A page of the review queue, oldest first, its nodes named (only theirs are read): the items up to
    the page's end, and the queue's length counted in its index."""
    end = offset + limit
    items = v.db.review_items(limit=end if end <= MAX_PAGE else None)[offset:end]
    total = v.db.review_count()
    names = describe.Names(v.db, [n for i in items for n in (i.node, i.other_node) if n]) if items else None
    return {"items": items, "holds_again": HOLDS_AGAIN,
            "labels": {i.id: (names.label(i.node) if names and i.node else "") for i in items},
            "others": {i.id: (names.label(i.other_node) if names and i.other_node else "") for i in items},
            "pages": paging("/review", [], offset=offset, shown=len(items), total=total, limit=limit,
                            default_limit=REVIEW_LIMIT, one="review item", many="review items",
                            order="oldest first"),
            "pages_label": "Pages of the review queue"}


@router.get("/review")
def review(request: Request, v: Reader, limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = REVIEW_LIMIT,
           offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0) -> Response:
    return view.page(request, "review.html", {"viewer": v, "title": "Review queue", "nav": "review", "groups": [],
                                              "verdicts": VERDICTS, **_queue(v, limit, offset)})


@router.post("/review/{item}")
def resolve(request: Request, item: str, v: Writer, verdict: Text = "", note: Text = "",
            winner: Text = "") -> Response:
    if verdict not in ("approved", "rejected"):
        raise errors.InvalidInput("verdict: approved or rejected")
    # (a conflict's form sends its "Keep" choice with either button: only an approval takes a winner)
    done = v.db.resolve_review(item, verdict, note=_or_none(note),
                               winner=_or_none(winner) if verdict == "approved" else None)
    said, groups = describe.resolution(done, describe.Names(v.db))
    return view.page(request, "review.html", {"viewer": v, "title": "Review queue", "nav": "review", "message": said,
                                              "groups": groups, "mark_words": MARK_WORDS, "verdicts": VERDICTS,
                                              **_queue(v, REVIEW_LIMIT, 0)})
