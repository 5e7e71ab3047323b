"""Forgetting over the HTTP API: ``POST /forget`` erases one source, a subject's beliefs and the
conversation turns it said, or one belief, completely (rule 14 of docs/rules.md), and every belief left
without support, as ``beliefdb forget --json`` prints it. Unlike ``POST /retractions`` it keeps no
history. A ``preview`` says exactly what would go and writes nothing: a read-only token may ask it."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import Field

from beliefdb.interfaces.http_callers import Reader, writer
from beliefdb.interfaces.http_routes import Body, doc, ok
from beliefdb.models import Forgotten


class Forget(Body):
    source: str | None = Field(None, min_length=1, description="Forget this source: its text, versions, fragments.")
    subject: str | None = Field(None, min_length=1, description="Forget every belief about this subject, and every"
                                " conversation turn said by a speaker of that name (Maya López for maya_lopez).")
    belief: str | None = Field(None, min_length=1, description="Forget this belief (id or unique prefix).")
    preview: bool = Field(False, description="Exactly what would be forgotten; nothing written.")


router = APIRouter()


@router.post("/forget", responses=doc(Forgotten),
             summary="Forget a source, a subject or a belief completely, and what rested on it alone")
def forget(body: Forget, c: Reader) -> JSONResponse:
    if not body.preview:
        writer(c)
    return ok(c.db.forget(source=body.source, subject=body.subject, belief=body.belief, preview=body.preview))
