"""Who calls the HTTP API: the principal and workspace of the request's bearer token, never those the
request names, and the memory they reach, held from the request's start to its answer (a memory set
aside for other principals' is never closed under a request still using it); and the route class of
the API's resources, which refuses a query parameter the resource does not take and reads a body with the
API's one JSON reader (:class:`beliefdb.interfaces.http_bodies.JsonBody`)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from beliefdb.api import BeliefDB
from beliefdb.interfaces.access import Memories
from beliefdb.interfaces.http_bodies import JsonBody
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


def _query_names(dependant: Dependant) -> frozenset[str]:
    """The query parameters a route takes: its own and its dependencies'."""
    names = {field.alias for field in dependant.query_params}
    for dependency in dependant.dependencies:
        names |= _query_names(dependency)
    return frozenset(names)


class KnownQuery(APIRoute):
    """A resource of the API: a query parameter it does not take is bad input naming it (as a body's
    unknown field is, and an MCP tool's unknown argument), not dropped: a misspelt filter
    (``/beliefs?subjet=...``) would answer as if there were none; so is one given more than once (each takes
    one value, and one of several would be kept silently). Raised as FastAPI's own bad input, so
    a caller without a valid token is told that first. Its body is read by :class:`JsonBody`, which refuses
    an object naming a key twice the same way (in the body's model, so after the token and the write
    permission the route always needs)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        taken = _query_names(self.dependant)

        async def checked(request: Request) -> Response:
            unknown = [name for name in dict.fromkeys(request.query_params) if name not in taken]
            # (every parameter takes one value: the reader kept one of several, silently)
            twice = [name for name in dict.fromkeys(request.query_params)
                     if name in taken and len(request.query_params.getlist(name)) > 1]
            if unknown or twice:
                raise RequestValidationError([
                    {"type": "unknown_parameter", "loc": ("query", name), "input": request.query_params[name],
                     "msg": f"not one of the parameters {request.url.path} takes ({', '.join(sorted(taken))})"
                     if taken else f"not a parameter: {request.url.path} takes none"} for name in unknown] + [
                    {"type": "repeated_parameter", "loc": ("query", name), "input": request.query_params.getlist(name),
                     "msg": f"given twice ({len(request.query_params.getlist(name))} values): give it once"}
                    for name in twice])
            return await handler(JsonBody(request.scope, request.receive))  # (its body read as one reader does)

        return checked
