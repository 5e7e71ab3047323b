"""The queue's resources of the HTTP API: ``POST /jobs`` queues a text for ``beliefdb worker`` and answers
with its job id at once, ``GET /jobs`` lists the token's workspace's jobs (as ``beliefdb jobs --json``).
Only text: a path would name a file of the server's machine."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import Field

from beliefdb.interfaces.http_callers import Reader, Writer
from beliefdb.interfaces.http_routes import INT4, Body, doc, ok
from beliefdb.models import Job
from beliefdb.render.schema import Schema
from beliefdb.vocabulary import Authority, Label

JOB_IDS: Schema = {"title": "Queued", "type": "object", "required": ["jobs"],
                   "properties": {"jobs": {"type": "array", "items": {"type": "integer"}}}}


class Submit(Body):
    source: str = Field(min_length=1, description="The source's name; the text is its next version once ingested.")
    text: str = Field(min_length=1)
    authority: Authority | None = None
    label: Label | None = None
    version_label: str | None = None
    extractor: Literal["rules", "none", "llm"] = "rules"
    max_attempts: int = Field(5, ge=1, le=100, description="Tries before the job is failed for good.")


router = APIRouter()


@router.post("/jobs", responses=doc(JOB_IDS), summary="Queue a text for a worker; its job id at once")
def submit(body: Submit, c: Writer) -> JSONResponse:
    return ok({"jobs": c.db.submit(text=body.text, source=body.source, authority=body.authority, label=body.label,
                                   version_label=body.version_label, extractor=body.extractor,
                                   max_attempts=body.max_attempts)})


@router.get("/jobs", responses=doc(list[Job]), summary="The workspace's jobs, newest first")
def jobs(c: Reader, status: Literal["queued", "running", "done", "failed"] | None = None,
         limit: int = Query(100, ge=1, le=INT4)) -> JSONResponse:
    return ok(c.db.jobs(status=status, limit=limit))
