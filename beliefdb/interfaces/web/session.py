"""Who is looking at the product view: a bearer token (``beliefdb token create``) entered once on the
sign-in page and kept in an HttpOnly, SameSite=Strict cookie. Each request asks the database who the
token speaks for (:class:`beliefdb.interfaces.access.Memories`, as the JSON API does), so a revoked
token stops working at the next click. A form that changes memory must come from this site: the
cookie is never sent on another site's request (SameSite=Strict), a browser's ``Origin`` must be this
host, and the form carries a token derived from the session's own (what another site cannot read)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Form, Request
from fastapi.responses import Response

from beliefdb import errors
from beliefdb.api import BeliefDB
from beliefdb.interfaces.access import Memories
from beliefdb.models import Identity

#: the cookie that holds the token (HttpOnly: page scripts cannot read it)
COOKIE = "beliefdb_token"
READ_ONLY = "this token is read-only: it may read everything and change nothing"


@dataclass(frozen=True)
class Viewer:
    """The signed-in principal, the memory its token reaches, and the token its forms carry."""

    who: Identity
    db: BeliefDB
    form_token: str

    @property
    def read_only(self) -> bool:
        return self.who.read_only


def form_token(token: str) -> str:
    """What each form of a session carries: derived from the token (a page of another site cannot
    read it), revealing nothing of it."""
    return hashlib.sha256(b"beliefdb form\x00" + token.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def memories(request: Request) -> Memories:
    found: Memories = request.app.state.memories
    return found


def viewer(request: Request) -> Iterator[Viewer]:
    """The signed-in viewer (Unauthenticated without a cookie, or with a token that is unknown or revoked),
    its memory held until the page is answered."""
    token = request.cookies.get(COOKIE)
    if not token:
        raise errors.Unauthenticated("sign in with a token to see this workspace")
    mem = memories(request)
    who = mem.identify(token)
    with mem.lease(who) as db:
        yield Viewer(who, db, form_token(token))


def same_site(request: Request) -> None:
    """Refuse a form a browser posted from another site (its ``Origin``); a request without one (no
    browser sends a form without it) still needs the form token."""
    origin = request.headers.get("origin")
    if origin is not None and (origin == "null" or urlsplit(origin).netloc != request.url.netloc):
        raise errors.PermissionDenied(f"a form posted from another site ({origin}) is refused")


def writer(request: Request, seen: Annotated[Viewer, Depends(viewer)],
           form_token: Annotated[str, Form()] = "") -> Viewer:
    """A viewer that may change memory, on a form of this site: 403 for a read-only token, a form
    from another site, or one without this session's form token."""
    if seen.read_only:
        raise errors.ReadOnlyToken(READ_ONLY)
    same_site(request)
    if not hmac.compare_digest(form_token.encode(), seen.form_token.encode()):
        raise errors.PermissionDenied("this form did not come from this session's pages: reload the page and"
                                      " try again")
    return seen


Reader = Annotated[Viewer, Depends(viewer)]
Writer = Annotated[Viewer, Depends(writer)]


def keep(response: Response, request: Request, token: str) -> None:
    """Set the session cookie: HttpOnly, SameSite=Strict, Secure over HTTPS, for this site's paths."""
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https",
                        path="/")


def forget(response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
