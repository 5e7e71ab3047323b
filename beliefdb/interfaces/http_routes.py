"""The resources of the HTTP API: each route parses its request, calls :class:`beliefdb.api.BeliefDB`
as the caller's token says, and answers with what the CLI prints with ``--json``. Rules cited as
"rule N" are those of docs/rules.md."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from beliefdb import errors, render
from beliefdb.interfaces import remote
from beliefdb.interfaces.access import answered
from beliefdb.interfaces.http_bodies import (
    INT4,
    Act,
    Ask,
    Correct,
    Decide,
    Impact,
    IngestText,
    PreviewCorrection,
    QueryMoment,
    RecordOutcome,
    RecordStep,
    Remember,
    Resolve,
    Retract,
)
from beliefdb.interfaces.http_callers import KnownQuery, Reader, Writer, writer
from beliefdb.models import (
    Action,
    AuditResult,
    Belief,
    CorrectionPreview,
    CorrectionResult,
    Decision,
    Identity,
    IngestReport,
    OutcomeRecorded,
    Recorded,
    ReviewItem,
    ReviewResolution,
    Run,
    RunDecision,
    RunTrace,
    StepRecorded,
    Workspace,
)
from beliefdb.render import ask as render_ask
from beliefdb.render.schema import ASK, ERROR, IMPACT, RETRACTION, WHY, Schema, schema_of
from beliefdb.vocabulary import REVIEW_ITEM_KINDS

ERRORS = {400: "bad input", 401: "no valid bearer token", 403: "not allowed (read-only token, not the owner)",
          404: "unknown id or name", 409: "stale preview, idempotency key reused, or conflict",
          503: "memory unavailable"}


#: the error of a route that may ask the llm extractor (``extractor: "llm"``)
REFUSED = {502: "the llm endpoint refused the request (extractor_refused: HTTP 400, 401, 403, 404 or 422 from it,"
                " a bad key or an unknown model; check BELIEFDB_LLM_API_KEY and BELIEFDB_LLM_MODEL): trying again"
                " cannot help, so no Retry-After; nothing was stored"}


def doc(result: Any, status: int = 200, *, llm: bool = False) -> dict[int | str, dict[str, Any]]:
    """The responses of a route: its result (a type, or a schema) with its ``status`` (202 where the work is
    only queued) and the errors (with :data:`REFUSED` where the route may ask the llm extractor)."""
    schema: Schema = result if isinstance(result, dict) else schema_of(result)
    said = {200: "OK", 202: "Accepted: queued for a worker, not done yet"}[status]
    out: dict[int | str, dict[str, Any]] = {status: {"description": said, "content": {"application/json": {
        "schema": schema}}}}
    for error, said in {**ERRORS, **(REFUSED if llm else {})}.items():
        out[error] = {"description": said, "content": {"application/json": {"schema": ERROR}}}
    return out


def ok(value: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(render.jsonable(value), status_code=status)


router = APIRouter(route_class=KnownQuery)

#: the largest page of GET /beliefs (a client that wants every belief follows the Link header)
MAX_HTTP_PAGE = 10_000
#: a page after the one that ended with this id
#: (one that is no id, nor 4 or more of its first hex digits, is the library's InvalidInput, 400, in the
#: same words at every list and door: beliefdb.inputs.check_cursor)
After = Annotated[str | None, Query(description="Only those after this id (the last id of the page before).")]


@router.get("/whoami", responses=doc(Identity), summary="Who the token speaks for")
def whoami(c: Reader) -> JSONResponse:
    return ok(c.who)


@router.get("/workspaces", responses=doc(list[Workspace]), summary="The token's workspace (it sees no other)")
def workspaces(c: Reader) -> JSONResponse:
    return ok([w for w in c.db.workspaces(match=c.who.workspace) if w.name == c.who.workspace])


@router.post("/sources", responses=doc(IngestReport, llm=True), summary="Ingest a text as the next version of a source")
def ingest_text(body: IngestText, c: Reader) -> JSONResponse:
    if not body.preview or body.extractor == "llm":  # an llm preview spends the endpoint's budget
        writer(c)
    return ok(c.db.ingest_text(body.text, source=body.source, authority=body.authority, label=body.label,
                               origin=body.origin, version_label=body.version_label, extractor=body.extractor,
                               preview=body.preview))


@router.post("/beliefs", responses=doc(IngestReport), summary="Remember one belief with its quote")
def remember(body: Remember, c: Writer) -> JSONResponse:
    return ok(c.db.remember(body.statement, body.subject, body.attribute, body.value, body.quote, source=body.source,
                            text=body.text, kind=body.kind, scope=body.scope,
                            valid_from=body.valid_from.isoformat() if body.valid_from else None,
                            valid_to=body.valid_to.isoformat() if body.valid_to else None, authority=body.authority,
                            origin=body.origin))


def link_next(page: JSONResponse, request: Request, **query: Any) -> None:
    """Name the next page in ``page``'s ``Link`` header: this request with ``query``, as a reference relative to
    its URL (RFC 8288): a proxy in front serves another scheme and host than the server sees."""
    following = request.url.include_query_params(**query)
    page.headers["Link"] = f'<{following.path}?{following.query}>; rel="next"'


def _paged(request: Request, rows: Sequence[Belief | Decision | Action | ReviewItem], limit: int) -> JSONResponse:
    """The first ``limit`` of ``rows`` (asked for one more), with a ``Link`` to the next page when more follow."""
    page = ok(list(rows[:limit]))
    if len(rows) > limit:
        link_next(page, request, after=str(rows[limit - 1].id), limit=limit)
    return page


@router.get("/beliefs", responses=doc(list[Belief]),
            summary="Current beliefs (or all, or as of a moment), a page at a time",
            description="Ordered by subject, attribute and recording. At most `limit` (default 1,000); when more"
                        " follow, the `Link` header names the next page (`rel=\"next\"`: the same query with"
                        " `after` = the last id of this one).")
def beliefs(c: Reader, request: Request, subject: str | None = None, attribute: str | None = None,
            include_all: Annotated[bool, Query(alias="all")] = False, as_of: QueryMoment | None = None,
            include_fixtures: bool = False,
            limit: Annotated[int, Query(ge=1, le=MAX_HTTP_PAGE, description="At most this many.")] = 1000,
            after: After = None) -> JSONResponse:
    rows = c.db.beliefs(subject=subject, attribute=attribute, include_all=include_all, as_of=as_of,
                        include_fixtures=include_fixtures, limit=limit + 1, after=after)
    return _paged(request, rows, limit)


@router.get("/beliefs/{belief}", responses=doc(WHY), summary="Why a belief is held")
def why(belief: str, c: Reader, as_of: QueryMoment | None = None, include_fixtures: bool = False,
        run: str | None = None) -> JSONResponse:
    if run is not None:
        writer(c)  # recording the read is a change
    return JSONResponse(render.why_json(c.db.why(belief, as_of=as_of, include_fixtures=include_fixtures, run=run)))


@router.post("/decisions", responses=doc(Recorded | RunDecision),
             summary="Record a decision and the beliefs it rests on")
def decide(body: Decide, c: Writer) -> JSONResponse:
    if body.run is not None:
        return ok(c.db.decide_in_run(body.run, body.title, because=body.because, all_of=body.all_of,
                                     idempotency_key=body.idempotency_key))
    return ok(c.db.decide(body.title, because=body.because, all_of=body.all_of, idempotency_key=body.idempotency_key))


@router.get("/decisions", responses=doc(list[Decision]), summary="Decisions, with whether each still holds",
            description="Oldest first. At most `limit` (default 1,000); when more follow, the `Link` header names"
                        " the next page (`rel=\"next\"`: the same query with `after` = the last id of this one).")
def decisions(c: Reader, request: Request,
              status: Literal["active", "needs_review", "approved", "rejected"] | None = None,
              of: Annotated[str | None, Query(description="This decision, or this action's (id or prefix).")] = None,
              limit: Annotated[int, Query(ge=1, le=MAX_HTTP_PAGE, description="At most this many.")] = 1000,
              after: After = None) -> JSONResponse:
    return _paged(request, c.db.decisions(status, of, limit=limit + 1, after=after), limit)


@router.post("/actions", responses=doc(Recorded), summary="Record an action carrying out a decision")
def act(body: Act, c: Writer) -> JSONResponse:
    return ok(c.db.act(body.decision, body.description, idempotency_key=body.idempotency_key))


@router.get("/actions", responses=doc(list[Action]), summary="Actions, with their status",
            description="Oldest first. At most `limit` (default 1,000); when more follow, the `Link` header names"
                        " the next page (`rel=\"next\"`: the same query with `after` = the last id of this one).")
def actions(c: Reader, request: Request,
            status: Literal["scheduled", "held", "done", "failed", "rolled_back", "cancelled"] | None = None,
            limit: Annotated[int, Query(ge=1, le=MAX_HTTP_PAGE, description="At most this many.")] = 1000,
            after: After = None) -> JSONResponse:
    return _paged(request, c.db.actions(status, limit=limit + 1, after=after), limit)


@router.post("/outcomes", responses=doc(OutcomeRecorded),
             summary="Record what actually happened after a decision or action (an action's status follows it)")
def record_outcome(body: RecordOutcome, c: Writer) -> JSONResponse:
    return ok(c.db.record_outcome(body.node, body.outcome.value, note=body.note,
                                  idempotency_key=body.idempotency_key))


@router.post("/corrections/preview", responses=doc(CorrectionPreview),
             summary="What correcting a belief would change, and the revision to apply at")
def preview_correction(body: PreviewCorrection, c: Reader) -> JSONResponse:
    return ok(c.db.preview_correction(body.belief, body.statement, body.value))


@router.post("/corrections", responses=doc(CorrectionResult),
             summary="Apply a correction at the previewed revision (409 when stale, superseded meanwhile, or its"
                     " key named another; again: already_applied)")
def correct(body: Correct, c: Writer) -> JSONResponse:
    return ok(c.db.apply_correction(body.belief, body.statement, reviewer=c.who.principal,
                                    expect_revision=body.expected_revision, value=body.value, reason=body.reason,
                                    idempotency_key=body.idempotency_key))


@router.post("/retractions", responses=doc(RETRACTION), summary="Retract (or restore) a belief, fragment or source",
             description="`preview` first: it answers what would change and its `fingerprint`; then the apply with"
                         " `expect` set to that fingerprint changes only that (409 stale_preview when what it would"
                         " change is no longer what the preview showed; nothing is written).")
def retract(body: Retract, c: Reader) -> JSONResponse:
    if body.preview:
        if body.expect is not None:
            raise errors.InvalidInput(f"{errors.argument('expect')} goes with the apply, not with"
                                      f" {errors.argument('preview')} (a preview changes nothing)")
        return JSONResponse(render.retraction_json(c.db.preview_retract(
            belief=body.belief, fragment=body.fragment, source=body.source, version=body.version, undo=body.undo)))
    writer(c)
    return JSONResponse(render.retraction_json(c.db.retract(
        belief=body.belief, fragment=body.fragment, source=body.source, version=body.version, reason=body.reason,
        undo=body.undo, expect=body.expect)))


@router.get("/review-items", responses=doc(list[ReviewItem]), summary="Open review items, a page at a time",
            description="Oldest first (of `kind` only, when given), each with who may resolve it (`owners`). At most"
                        " `limit` (default 1,000); when more follow, the `Link` header names the next page"
                        " (`rel=\"next\"`: the same query with `after` = the last id of this one).")
def review_items(c: Reader, request: Request,
                 limit: Annotated[int, Query(ge=1, le=MAX_HTTP_PAGE, description="At most this many.")] = 1000,
                 after: After = None,
                 kind: Annotated[str | None, Query(
                     description="Only items of this kind, or of these (comma-separated): "
                                 + ", ".join(REVIEW_ITEM_KINDS) + ".")] = None) -> JSONResponse:
    # (a proposed document names its file by its name: beliefdb.interfaces.remote)
    return _paged(request, remote.review_items(c.db.review_items(limit=limit + 1, after=after, kind=kind)), limit)


@router.post("/review-items/{item}", responses=doc(ReviewResolution), summary="Approve or reject a review item",
             description="What the verdict applied, and the other review items it closed (`closed`, each with its"
                         " `note`); an item resolved already: 409 already_resolved.")
def resolve(item: str, body: Resolve, c: Writer) -> JSONResponse:
    return ok(c.db.resolve_review(item, body.verdict, note=body.note, winner=body.winner))


@router.get("/runs", responses=doc(list[Run]), summary="Recorded agent runs, a page at a time",
            description="Oldest first. At most `limit` (default 1,000); when more follow, the `Link` header names"
                        " the next page (`rel=\"next\"`: the same query with `offset` past this one).")
def runs(c: Reader, request: Request,
         limit: Annotated[int, Query(ge=1, le=MAX_HTTP_PAGE, description="At most this many.")] = 1000,
         offset: Annotated[int, Query(ge=0, le=INT4, description="After this many runs.")] = 0) -> JSONResponse:
    rows = c.db.runs(limit=limit + 1, offset=offset)
    page = ok(rows[:limit])
    if len(rows) > limit:
        link_next(page, request, offset=offset + limit, limit=limit)
    return page


@router.get("/runs/{run}", responses=doc(RunTrace), summary="A run's steps and their inputs")
def run_trace(run: str, c: Reader) -> JSONResponse:
    return ok(c.db.run_trace(run))


@router.post("/steps", responses=doc(StepRecorded), summary="Record one step of an agent run")
def record_step(body: RecordStep, c: Writer) -> JSONResponse:
    memory = body.memory.model_dump(exclude_none=True) if body.memory else None
    return ok(c.db.record_step(body.kind, body.payload, run=body.run, task=body.task,
                               inputs=[(i.edge, i.node) for i in body.inputs], supports=body.supports,
                               memory=memory))


@router.post("/ask", responses=doc(ASK), summary="Answer from memory: current beliefs with quotes and warnings")
def ask(body: Ask, c: Reader) -> JSONResponse:
    if body.run is not None:
        writer(c)  # recording the read is a change
    answer = c.db.ask(body.question, k=body.k, as_of=body.as_of, scope=body.scope,
                      min_confidence=body.min_confidence, include_fixtures=body.include_fixtures, run=body.run,
                      subjects=body.subjects)
    return JSONResponse(render_ask.ask_json(answered(answer)))


@router.post("/impact", responses=doc(IMPACT), summary="Dry run: what would stop holding if these were retracted")
def impact(body: Impact, c: Reader) -> JSONResponse:
    return JSONResponse(render.jsonable(render.impact_json(c.db.impact(*body.refs))))


@router.get("/audit/verify", responses=doc(AuditResult), summary="Verify the workspace's audit chain")
def audit_verify(c: Reader) -> JSONResponse:
    return ok(c.db.audit_verify())
