"""The credentials of a request, looked at before anything else: a request that names two (``Authorization``
given twice) is answered 400, and one with no credentials at all that carries a body 401, neither body read.

Two ``Authorization`` headers name two tokens, and which one the request acts as is not known: the server
read the first and dropped the other silently, as a JSON reader would keep one of a key given twice, which
the API refuses (as it refuses a query parameter given twice), so a client's bug or a proxy's merge would
act as a principal nobody chose. Refused in the API's error shape, at every resource and at ``/mcp``.

A request with no credentials at all that carries a body is answered 401 before its body is read.

FastAPI reads a route's body before the route's token dependency looks at the token: without this, a
POST /sources with no token declaring 100 MB got no answer while the server waited for the body, and
a 120 MB one doubled the server's memory, all before its 401. No credentials at all is no bearer token
in ``Authorization`` and no product-view session cookie; such a request with a body
(``Content-Length`` above 0, or ``Transfer-Encoding``) is refused at once: in the API's error shape, or
for a person's browser (:func:`beliefdb.interfaces.web.view.browser`) sent to sign in, as the page
would have. Only the sign-in and sign-out forms take a body from a caller not signed in (the sign-in
form's body is the token), capped at 1 MiB like every route that takes no document's text. A token
(or a cookie) is judged where it was, after the body: valid or not, it takes a database lookup, which
the routes make once."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import Request
from fastapi.responses import Response
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from beliefdb import errors
from beliefdb.interfaces.access import bearer
from beliefdb.interfaces.web import view
from beliefdb.interfaces.web.session import COOKIE
from beliefdb.store.tokens import NO_TOKEN

#: the forms that take a body from a caller not signed in: signing in (its token is the body) and out
OPEN_FORMS = ("/signin", "/signout")


def without_credentials(scope: Scope) -> bool:
    """Whether a request carries no credentials at all: no bearer token and no session cookie."""
    headers = Headers(scope=scope)
    return bearer(headers.get("authorization")) is None and not Request(scope).cookies.get(COOKIE)


def carries_body(scope: Scope) -> bool:
    """Whether a request says it has a body: a ``Content-Length`` other than 0, or a ``Transfer-Encoding``."""
    headers = Headers(scope=scope)
    return headers.get("content-length", "0").strip() != "0" or "transfer-encoding" in headers


def authorizations(scope: Scope) -> int:
    """How many ``Authorization`` headers a request carries."""
    return sum(1 for name, _ in scope.get("headers", ()) if name.lower() == b"authorization")


def given_twice(count: int) -> str:
    """The refusal of a request carrying ``count`` (2 or more) ``Authorization`` headers."""
    said = "twice" if count == 2 else f"{count} times"
    return (f"Authorization: given {said} ({count} headers): give it once (it names whom the request acts as,"
            " and one of them would be kept silently)")


class CredentialsFirst:
    """Refuse (400) a request that names more than one ``Authorization`` header, then (401) one that carries a
    body and no credentials at all, before reading the body: ``refuse`` answers in the API's error shape
    (status, code, message); a browser is sent to sign in."""

    def __init__(self, app: ASGIApp, refuse: Callable[[int, str, str], Response]) -> None:
        self.app, self.refuse = app, refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (count := authorizations(scope)) > 1:  # (not a browser's: it sent one)
            await self.refuse(400, errors.InvalidInput.code, given_twice(count))(scope, receive, send)
            return
        if (scope["type"] != "http" or scope.get("path") in OPEN_FORMS or not carries_body(scope)
                or not without_credentials(scope)):
            await self.app(scope, receive, send)
            return
        refused = errors.Unauthenticated(NO_TOKEN)
        answer = (view.failure(Request(scope), refused) if view.browser(scope)
                  else self.refuse(401, refused.code, refused.message))
        await answer(scope, receive, send)
