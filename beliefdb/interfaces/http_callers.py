"""Who calls the HTTP API: the principal and workspace of the request's bearer token, never those the
request names, and the memory they reach, held from the request's start to its answer (a memory set
aside for other principals' is never closed under a request still using it)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from beliefdb.api import BeliefDB
from beliefdb.interfaces.access import Memories
from beliefdb.models import Identity

BEARER = HTTPBearer(auto_error=False, description="A token of 'beliefdb token create': it names the principal and"
                                                  " the workspace of every call.")


@dataclass(frozen=True)
class Caller:
    who: Identity
    db: BeliefDB


def caller(request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
           ) -> Iterator[Caller]:
    """The caller's principal and workspace, from its bearer token (401 without a valid one), and its
    memory, held until the request is answered."""
    memories: Memories = request.app.state.memories
    who = memories.identify(credentials.credentials if credentials else None)
    with memories.lease(who) as db:
        yield Caller(who, db)


def writer(c: Annotated[Caller, Depends(caller)]) -> Caller:
    """A caller that may change memory (403 for a read-only token)."""
    Memories.require_writer(c.who)
    return c


Reader = Annotated[Caller, Depends(caller)]
Writer = Annotated[Caller, Depends(writer)]
