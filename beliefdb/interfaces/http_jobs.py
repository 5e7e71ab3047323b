"""The queue's resources of the HTTP API: ``POST /jobs`` queues a text, or a conversation's turns (each
a fragment with its speaker and time once ingested, as ``POST /conversations`` stores them), for
``beliefdb worker`` and answers with its job id at once (202 Accepted: queued, not done); ``GET /jobs``
lists the token's workspace's jobs (as ``beliefdb jobs --json``); ``POST /jobs/retry`` queues failed ones
again (``beliefdb jobs retry``; 202 too) and ``POST /jobs/cancel`` deletes queued or failed ones with their
text (``beliefdb jobs cancel``; 200, done when it answers). Only text and turns: a path would name a file of
the server's machine."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field, model_validator

from beliefdb.interfaces import remote
from beliefdb.interfaces.http_bodies import Body
from beliefdb.interfaces.http_callers import KnownQuery, Reader, Writer
from beliefdb.interfaces.http_conversations import MAX_TURNS, TurnBody
from beliefdb.interfaces.http_routes import MAX_HTTP_PAGE, doc, link_next, ok
from beliefdb.models import Job
from beliefdb.render.schema import Schema
from beliefdb.vocabulary import Authority, Label

INT8 = 2**63 - 1
#: the most job ids one retry or cancel names (all_failed, source: every such job)
MAX_RETRY = 10_000
JOB_IDS: Schema = {"title": "Queued", "type": "object", "required": ["jobs"],
                   "properties": {"jobs": {"type": "array", "items": {"type": "integer"}}}}
#: what POST /jobs answers: the job queued, or why the text was not (it would change nothing)
SUBMITTED: Schema = {"title": "Submitted", "type": "object", "required": ["jobs", "unchanged"],
                     "properties": {"jobs": {"type": "array", "items": {"type": "integer"}},
                                    "unchanged": {"type": "array", "items": {
                                        "type": "object", "required": ["source", "reason"],
                                        "properties": {"source": {"type": "string"}, "reason": {"type": "string"}}}}}}


class Submit(Body):
    source: str = Field(min_length=1, description="The source's name; the text (or conversation) is its next version"
                                                  " once ingested.")
    text: str | None = Field(None, min_length=1, description="A document's text (or give turns).")
    turns: list[TurnBody] | None = Field(None, min_length=1, max_length=MAX_TURNS,
                                         description="A conversation's turns (or give text).")
    authority: Authority | None = None
    label: Label | None = None
    version_label: str | None = None
    extractor: Literal["rules", "none", "llm"] = "rules"
    max_attempts: int = Field(5, ge=1, le=100, strict=True, description="Tries before the job is failed for good.")

    @model_validator(mode="after")
    def _text_or_turns(self) -> Submit:
        if self.text is not None and self.turns is not None:
            raise ValueError("give text or turns, not both")
        if self.text is None and self.turns is None:
            raise ValueError("text or turns is required (one of them)")
        return self


class Retry(Body):
    ids: list[Annotated[int, Field(ge=1, le=INT8, strict=True)]] = Field(
        default_factory=list, max_length=MAX_RETRY, description="The failed jobs to queue again (or all_failed).")
    all_failed: bool = Field(False, description="Every failed job of the workspace (or give ids).")


class Cancel(Body):
    ids: list[Annotated[int, Field(ge=1, le=INT8, strict=True)]] = Field(
        default_factory=list, max_length=MAX_RETRY, description="The queued or failed jobs to cancel (or source).")
    source: str | None = Field(None, min_length=1, description="Every queued or failed job of this source name"
                                                                " (or give ids).")


router = APIRouter(route_class=KnownQuery)


def for_remote(rows: list[Job]) -> list[Job]:
    """The jobs as a remote caller sees them: a file queued by ``beliefdb ingest --queue`` (or the library)
    named by its name, not by its path on the machine that read it. That path says where an operator keeps
    files (their home, their folders), and a remote caller can do nothing with it (it queues no path);
    ``beliefdb jobs`` shows it whole, to the operator. Nor the address of an endpoint its error names."""
    return [replace(j, path=remote.file_name(j.path) if j.path else j.path, last_error=remote.job_error(j.last_error))
            for j in rows]


@router.post("/jobs", status_code=202, responses=doc(SUBMITTED, 202),
             summary="Queue a text or a conversation for a worker; its job id at once (202: queued, not done)",
             description="Turns for a document's source, which every attempt would refuse, are refused now"
                         " (400, as `POST /conversations` refuses them) and nothing is queued. A text that would"
                         " change nothing (the text its source holds in force, or the newest job of its source still"
                         " to run carries) is not queued: `jobs` is empty and `unchanged` says why.")
def submit(body: Submit, c: Writer) -> JSONResponse:
    turns = [t.turn() for t in body.turns] if body.turns is not None else None
    queued = c.db.submit(text=body.text, turns=turns, source=body.source, authority=body.authority,
                         label=body.label, version_label=body.version_label, extractor=body.extractor,
                         max_attempts=body.max_attempts)
    return ok({"jobs": list(queued), "unchanged": [{"source": u.source, "reason": u.reason} for u in queued.unchanged]},
              202)


@router.get("/jobs", responses=doc(list[Job]), summary="The workspace's jobs, newest first, a page at a time",
            description="At most `limit` (default 100); when more follow, the `Link` header names the next page"
                        " (`rel=\"next\"`: the same query with `before` = the last id of this one).")
def jobs(c: Reader, request: Request, status: Literal["queued", "running", "done", "failed"] | None = None,
         limit: int = Query(100, ge=1, le=MAX_HTTP_PAGE, description="At most this many."),
         before: int | None = Query(None, ge=1, le=INT8, description="Only those older than this job (the last"
                                                                       " id of the page before).")) -> JSONResponse:
    rows = c.db.jobs(status=status, limit=limit + 1, before=before)
    page = ok(for_remote(rows[:limit]))
    if len(rows) > limit:
        link_next(page, request, before=rows[limit - 1].id, limit=limit)
    return page


@router.post("/jobs/retry", status_code=202, responses=doc(JOB_IDS, 202),
             summary="Queue failed jobs again, attempts afresh (as beliefdb jobs retry); the ids queued again"
                     " (202: queued, not done)",
             description="The `ids` given, or every failed job (`all_failed`): all or none, in one transaction (an id"
                         " that is not a failed job of the workspace is refused and nothing is queued). A job whose"
                         " source was forgotten has no text left and is refused.")
def retry(body: Retry, c: Writer) -> JSONResponse:
    return ok({"jobs": c.db.retry(*body.ids, all_failed=body.all_failed)}, 202)


@router.post("/jobs/cancel", responses=doc(JOB_IDS),
             summary="Cancel queued or failed jobs, deleting their text (as beliefdb jobs cancel); the ids cancelled",
             description="The `ids` given, or every queued or failed job of a `source` name: all or none, in one"
                         " transaction (an id that is not a queued or failed job of the workspace, or one a worker"
                         " holds now, is refused and nothing is cancelled; a `source` with none has nothing to cancel:"
                         " an empty list). A document queued and never stored is in no source, so `POST /forget`"
                         " cannot reach it: this is how its text goes.")
def cancel(body: Cancel, c: Writer) -> JSONResponse:
    return ok({"jobs": c.db.cancel(*body.ids, source=body.source)})
