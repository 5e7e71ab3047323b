"""Forgetting over the HTTP API: ``POST /forget`` erases one source, a subject's beliefs and the
conversation turns it said, or one belief, completely (rule 14 of docs/rules.md), and every belief left
without support, as ``beliefdb forget --json`` prints it. Unlike ``POST /retractions`` it keeps no
history, so it is confirmed as a retraction is, and more strictly: a ``preview`` says exactly what would
go and its ``fingerprint`` (it writes nothing: a read-only token may ask it), and the apply must send
that fingerprint back as ``expect``; what would go otherwise is refused (409 ``stale_preview``) and
nothing is forgotten. The MCP tool ``forget`` takes it the same way."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import Field

from beliefdb import errors, render
from beliefdb.interfaces.http_bodies import Body
from beliefdb.interfaces.http_callers import KnownQuery, Reader, writer
from beliefdb.interfaces.http_routes import doc
from beliefdb.render.schema import FORGOTTEN

#: the refusal of a forget without the fingerprint of its preview (the HTTP API's and the MCP tool's)
NEEDS_EXPECT = ("forgetting cannot be undone: preview it first (preview: true) and send its fingerprint as"
                " expect, so that only what the preview showed is forgotten; nothing was forgotten")


class Forget(Body):
    source: str | None = Field(None, min_length=1, description="Forget this source: its text, versions, fragments.")
    subject: str | None = Field(None, min_length=1, description="Forget every belief about this subject, and every"
                                " conversation turn said by a speaker of that name (Maya López for maya_lopez).")
    belief: str | None = Field(None, min_length=1, description="Forget this belief (id or unique prefix).")
    preview: bool = Field(False, description="Exactly what would be forgotten, and its `fingerprint`; nothing written.")
    expect: str | None = Field(None, min_length=1, description="Required unless `preview`: the `fingerprint` a preview"
                               " answered (32 hex digits). Only what it showed is forgotten (else 409 stale_preview,"
                               " nothing forgotten; a value that is no fingerprint is 400 invalid_input).")
    mask_mentions: bool = Field(False, description="With `subject` alone: mask the name too where other speakers and"
                                " documents wrote it in the stored source texts (`text_mentions`, listed either way),"
                                " and in the texts waiting to be stored (`pending_mentions`: queued documents,"
                                " proposed versions); preview with it as you apply.")


router = APIRouter(route_class=KnownQuery)


@router.post("/forget", responses=doc(FORGOTTEN),
             summary="Forget a source, a subject or a belief completely, and what rested on it alone",
             description="`preview` first: it answers exactly what would be forgotten and its `fingerprint`; then"
                         " the apply with `expect` set to that fingerprint forgets only that (400 without it; 409"
                         " stale_preview when what would go is no longer what the preview showed: nothing is"
                         " forgotten, preview again).")
def forget(body: Forget, c: Reader) -> JSONResponse:
    if body.preview:  # (an expect with it is refused: it would check nothing)
        return JSONResponse(render.jsonable(render.forgotten_json(c.db.forget(
            source=body.source, subject=body.subject, belief=body.belief, preview=True, expect=body.expect,
            mask_mentions=body.mask_mentions))))
    writer(c)
    if body.expect is None:
        raise errors.InvalidInput(NEEDS_EXPECT)
    return JSONResponse(render.jsonable(render.forgotten_json(c.db.forget(
        source=body.source, subject=body.subject, belief=body.belief, expect=body.expect,
        mask_mentions=body.mask_mentions))))
