"""Conversations over the HTTP API: ``POST /conversations`` stores a whole conversation (its turns, each a
fragment with its speaker and time) as the next version of a source, and ``POST
/conversations/{conversation}/turns`` appends one turn as it is said (the source is created by its first
turn). Both answer the ingest report, as ``beliefdb ingest --format chat --json`` prints it."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import Field

from beliefdb.interfaces.http_bodies import Body, Moment
from beliefdb.interfaces.http_callers import KnownQuery, Reader, Writer, writer
from beliefdb.interfaces.http_routes import doc, ok
from beliefdb.models import IngestReport, Turn
from beliefdb.vocabulary import Authority, Label

#: a bound on the list itself; the conversation's text is then held to BELIEFDB_INGEST_MAX_BYTES as any ingest
MAX_TURNS = 100_000


class TurnBody(Body):
    speaker: str = Field(min_length=1, description="Who said it (the subject of what they say of themselves).")
    text: str = Field(min_length=1)
    time: Moment | None = Field(None, description="When it was said (ISO 8601 with a zone); absent: unknown (the turn"
                                " has no time, and its beliefs no start of valid time). Unlike one turn appended,"
                                " which is said now without it.")

    def turn(self) -> Turn:
        """The library's turn."""
        return Turn(self.speaker, self.text, self.time)


class Conversation(Body):
    source: str = Field(min_length=1, description="The conversation's source name; a changed one is its next version.")
    turns: list[TurnBody] = Field(min_length=1, max_length=MAX_TURNS)
    authority: Authority | None = None
    label: Label | None = None
    version_label: str | None = None
    extractor: Literal["rules", "none", "llm"] = "rules"
    preview: bool = Field(False, description="Only what ingesting would change; nothing written.")


class Said(Body):
    speaker: str = Field(min_length=1, description="Who said it.")
    text: str = Field(min_length=1)
    time: Moment | None = Field(None, description="When it was said (default: now, by beliefdb's clock, so the same"
                                " turn sent again without it is another turn: a client that retries sends `time`"
                                " or an `idempotency_key`).")
    extractor: Literal["rules", "none", "llm"] = "rules"
    idempotency_key: str | None = Field(None, description="Names this request: sent again with the same turn (the same"
                                        " speaker, text and time, or none again) it appends nothing and answers the"
                                        " first one's turn (`already_applied`); another request with the key is 409"
                                        " idempotency_key_reused.")


router = APIRouter(route_class=KnownQuery)


@router.post("/conversations", responses=doc(IngestReport, llm=True),
             summary="Store a conversation's turns as the next version of a source")
def ingest_conversation(body: Conversation, c: Reader) -> JSONResponse:
    if not body.preview or body.extractor == "llm":  # an llm preview spends the endpoint's budget
        writer(c)
    return ok(c.db.ingest_conversation([t.turn() for t in body.turns], source=body.source, authority=body.authority,
                                       label=body.label, version_label=body.version_label, extractor=body.extractor,
                                       preview=body.preview))


@router.post("/conversations/{conversation:path}/turns", responses=doc(IngestReport, llm=True),
             summary="Append one turn to a conversation (created by its first turn)",
             description="The conversation's name is the rest of the path up to `/turns`: a name holding `/`"
                         " is written as is or with `%2F` (`/conversations/team%2Fchat-1/turns`).")
def remember_turn(conversation: str, body: Said, c: Writer) -> JSONResponse:
    return ok(c.db.remember_turn(conversation, body.speaker, body.text, time=body.time, extractor=body.extractor,
                                 idempotency_key=body.idempotency_key))
