"""The HTTP API (``beliefdb serve``): FastAPI over :class:`beliefdb.api.BeliefDB`, and the product view
for people in a browser at ``/`` (:mod:`beliefdb.interfaces.web`).

Every route of the API but ``/health`` takes a bearer token (``beliefdb token create``), and acts as the
principal in the workspace the token names: never one the request names. Answers are what the CLI
prints with ``--json``; errors are ``{"error": code, "message": ...}`` with 400 (bad input), 401 (no
valid token), 403 (read-only token, not the owner), 404 (unknown id), 409 (stale preview, an
idempotency key reused for another request, conflict), 413 (a body over the limit, :class:`BodyLimit`), 502
(the llm or embeddings endpoint refused the request: a bad key or model, no ``Retry-After``) or 503
(memory or the llm extractor unavailable, with ``Retry-After``; a page too). The OpenAPI document is at
``/openapi.json``.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from beliefdb import api, errors, settings
from beliefdb.interfaces import problems, web
from beliefdb.interfaces.access import (
    BUSY_RETRY_AFTER,
    DATABASE_RETRY_AFTER,
    MAX_OPEN,
    Memories,
    bearer,
    code_of,
    retry_after,
    status_of,
)
from beliefdb.interfaces.http_anonymous import CredentialsFirst
from beliefdb.interfaces.http_bodies import REPEATED_KEY, TEXT_OVER
from beliefdb.interfaces.http_conversations import router as conversations_router
from beliefdb.interfaces.http_forget import router as forget_router
from beliefdb.interfaces.http_jobs import router as jobs_router
from beliefdb.interfaces.http_routes import router
from beliefdb.interfaces.web import view

TITLE = "beliefdb"
DESCRIPTION = ("Agent memory that knows why it believes something, and what must change when it is wrong. Every"
               " call acts as the principal, in the workspace, of its bearer token.")


def error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    if status == 401:
        headers = {"WWW-Authenticate": "Bearer"}
    if status == 503:  # when to try again (workspace_busy, database_unavailable, extractor_unavailable)
        headers = {**(headers or {}), **retry_after(code)}
    return JSONResponse({"error": code, "message": message}, status_code=status, headers=headers)


async def _beliefdb_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, errors.BeliefDBError)
    return error(status_of(exc), code_of(exc), exc.message)


async def _invalid(request: Request, exc: Exception) -> Response:
    """Bad input, in one line: a body that is not JSON says where it stops being JSON; otherwise each
    field or parameter and what was wrong with it. FastAPI reads the request before the route's token:
    a caller without a valid one is told that (401), not what was wrong with its request."""
    assert isinstance(exc, RequestValidationError)
    if (refused := await _no_token(request)) is not None:
        return refused
    found = list(exc.errors())
    sent = request.headers.get("content-type", "")
    if _not_json_type(sent) and any(tuple(e.get("loc", ())) == ("body",) and e.get("type") in WHOLE for e in found):
        # (FastAPI reads a body of another type as no JSON at all: say what to send, not that it was no object)
        return error(400, errors.InvalidInput.code, "the request body must be JSON, sent with Content-Type:"
                     f" application/json (it came with {errors.echoed(sent) if sent else 'none'})")
    repeated = next((e for e in found if e.get("type") == REPEATED_KEY), None)
    if repeated is not None:  # (each key an object of the body named more than once, at its place)
        return error(400, errors.InvalidInput.code, errors.echoed(str(repeated.get("msg"))))
    broken = next((e for e in found if e.get("type") == "json_invalid"), None)
    if broken is not None:
        loc = broken.get("loc", ())
        position = loc[-1] if loc and isinstance(loc[-1], int) else 0
        why = str((broken.get("ctx") or {}).get("error", "invalid JSON"))
        return error(400, errors.InvalidInput.code, problems.not_json(exc.body, position, why))
    said = problems.one_line(found, takes=problems.body_fields(request.scope.get("route")))
    return error(400, errors.InvalidInput.code, said)


async def _no_token(request: Request) -> Response | None:
    """The 401 of a request to the API without a valid token, whose body or query was read (and found
    wrong) before its route looked at the token: such a caller is told that, not what its request lacks."""
    if view.browser(request.scope):
        return None
    try:
        await anyio.to_thread.run_sync(request.app.state.memories.identify,
                                       bearer(request.headers.get("authorization")))
    except errors.Unauthenticated as refused:
        return error(401, refused.code, refused.message)
    except errors.BeliefDBError:
        pass  # (the token cannot be looked up now: the request's own problem is still the answer)
    return None


#: pydantic's problems with a whole body that is no JSON object
WHOLE = ("model_attributes_type", "dict_type")


def _not_json_type(content_type: str) -> bool:
    """Whether a request's Content-Type is not JSON's (``application/json``, or a ``+json`` type)."""
    media = content_type.split(";")[0].strip().lower()
    return not (media == "application/json" or (media.startswith("application/") and media.endswith("+json")))


async def _not_text(_request: Request, exc: Exception) -> Response:
    return error(400, errors.InvalidInput.code, f"text that cannot be stored: {exc}")


async def _http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if view.browser(request.scope):  # a person's unknown page: a page saying so, in words
        said = {404: errors.echoed(f"There is no page at {request.url.path}."),
                405: "This address is where a form is sent, not a page to open: go back to the page the form"
                     " is on."}.get(exc.status_code, str(exc.detail))
        return view.error_page(request, exc.status_code, view.TITLES.get(exc.status_code, "Not found"), said)
    code = {404: "not_found", 405: "method_not_allowed", 413: errors.PayloadTooLarge.code}.get(exc.status_code,
                                                                                                 "invalid_input")
    headers = dict(exc.headers or {})
    said = str(exc.detail)
    if exc.status_code == 400 and said == UNREADABLE:  # (FastAPI's, for a body its JSON reader gave up on)
        if (refused := await _no_token(request)) is not None:
            return refused
        return error(400, code, problems.unreadable(exc.__cause__))
    if exc.status_code == 404 and said == "Not Found":  # (the router's: no route at that path)
        said = f"no resource at {request.method} {request.url.path}: the HTTP API's resources are listed at" \
               " /openapi.json"
    if exc.status_code == 405:  # (Starlette's Allow names the methods of the first route of the path only)
        headers["Allow"] = ", ".join(_allowed(request))
        said = f"{request.url.path} does not take {request.method}: it takes {headers['Allow']}"
    return error(exc.status_code, code, errors.echoed(said), headers)


#: FastAPI's detail for a body its JSON reader raised on other than with a syntax error
UNREADABLE = "There was an error parsing the body"

#: the methods a 405's Allow may name
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _allowed(request: Request) -> list[str]:
    """The methods the request's path takes, of every route at that path (a 405's ``Allow``; HEAD where GET
    is, :class:`HeadAsGet`)."""
    allowed = [method for method in METHODS
               if any(route.matches({**request.scope, "method": method})[0] is Match.FULL
                      for route in request.app.router.routes)]
    return [m for m in METHODS if m in allowed or (m == "HEAD" and "GET" in allowed)]


class RefuseNul:
    """PostgreSQL text holds no NUL: a path or query string with one is bad input (400), up front (for a
    browser, the page saying so)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw = scope.get("query_string", b"") + scope.get("raw_path", b"")
            if b"%00" in raw or b"\x00" in raw or "\x00" in scope.get("path", ""):
                said = "text may not contain NUL characters"
                refused = (view.error_page(Request(scope), 400, view.TITLES[400], said) if view.browser(scope)
                           else error(400, errors.InvalidInput.code, said))
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: The routes whose body may carry a document's text (and MCP, whose tools do); every other request
#: is a question, a reference or a verdict, and 1 MiB is far more than any of them takes.
TEXT_ROUTES = ("/sources", "/beliefs", "/conversations", "/jobs", "/steps", "/mcp")
#: the routes under a text route that take none (job ids)
NO_TEXT = ("/jobs/retry", "/jobs/cancel")
SMALL_BODY = 2 ** 20


def body_limit(path: str, text_limit: int) -> tuple[int, str]:
    """The most bytes a request body at ``path`` may hold, and why: ``text_limit`` at a route that takes a
    document's text (:data:`TEXT_ROUTES`), else 1 MiB."""
    if path not in NO_TEXT and any(path == route or path.startswith(route + "/") for route in TEXT_ROUTES):
        return text_limit, " (4 × BELIEFDB_INGEST_MAX_BYTES + 1 MiB)"
    return SMALL_BODY, f" of {path} (1 MiB: it takes no document's text)"


class HeadAsGet:
    """HEAD is answered wherever GET is (RFC 9110: every general-purpose server takes both): the request
    runs as a GET, its status and headers are answered and its body left out. (FastAPI's routes take only
    the methods they name.) MCP's endpoint is left to its transport."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "HEAD" or scope.get("path") == "/mcp":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class Wording:
    """The messages raised for a request are worded for its door (:func:`beliefdb.errors.wording`): a
    hint names the HTTP API's resources (``POST /beliefs``), or the MCP tools at ``/mcp``, and a GET's
    arguments as its query parameters; a person's browser gets the library's words. None names where
    the database is (:func:`beliefdb.errors.remote`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with errors.remote():  # (every caller: not told where the database is)
            if view.browser(scope):
                await self.app(scope, receive, send)
                return
            with errors.wording("mcp" if scope.get("path") == "/mcp" else "http", query=scope["method"] == "GET"):
                await self.app(scope, receive, send)


class BodyLimit:
    """A request body over the limit is refused (413) as it arrives, before it is read whole: by its
    Content-Length, else (chunked) once that many bytes came. For the routes that take a text
    (:data:`TEXT_ROUTES`) the limit is the largest JSON a text of BELIEFDB_INGEST_MAX_BYTES takes (4
    bytes of JSON for a byte of text: an escaped character, a surrogate pair) and 1 MiB for the rest of
    the request; for the others 1 MiB (``/ask`` parsed a body of that size, 129 MB by default, before its
    question's 2,000-character check)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, why = body_limit(scope.get("path", ""), self.limit)
        # (an HTTPException, which FastAPI's body reading lets through and _http answers in the error shape)
        too_large = StarletteHTTPException(413, f"the request body is over the limit of {limit:,} bytes{why}")
        declared = Headers(scope=scope).get("content-length", "")
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            if declared.isdigit() and int(declared) > limit:
                raise too_large
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise too_large
            return message

        await self.app(scope, limited, send)


class TokenRequired:
    """An ASGI app (the MCP endpoint) behind a bearer token: 401 without a valid one. The tools then act
    as the token's principal in its workspace (:mod:`beliefdb.interfaces.mcp`). Every message is a POST:
    another method is 405, as at any resource, before the token (a GET would open the stream of the
    server's own messages, which a stateless server never sends: it never ended)."""

    def __init__(self, app: ASGIApp, memories: Memories) -> None:
        self.app, self.memories = app, memories

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("method") != "POST":
            said = (f"/mcp does not take {scope.get('method')}: it takes POST (MCP over stateless streamable"
                    " HTTP: each message is a POST; there is no stream of the server's own messages to open)")
            await error(405, "method_not_allowed", errors.echoed(said), {"Allow": "POST"})(scope, receive, send)
            return
        token = bearer(Headers(scope=scope).get("authorization"))
        try:
            await anyio.to_thread.run_sync(self.memories.identify, token)
        except errors.BeliefDBError as exc:
            await error(status_of(exc), exc.code, exc.message)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _mount_mcp(app: FastAPI, memories: Memories) -> Callable[[], AbstractAsyncContextManager[None]]:
    """MCP over streamable HTTP at /mcp (stateless: every request carries its token), behind the same
    bearer tokens and body limit (:class:`BodyLimit`, which refuses first: the SDK's own cap, 4 MiB in
    plain text, is lifted); returns what the app's lifespan must run."""
    from mcp.server.transport_security import TransportSecuritySettings

    from beliefdb.interfaces import mcp

    server = mcp.build(memories=memories)
    # no DNS-rebinding check by Host header: every request needs a bearer token a browser page lacks
    inner = server.streamable_http_app(
        streamable_http_path="/mcp", stateless_http=True, json_response=True, max_request_body_size=sys.maxsize,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))
    endpoint = next(r for r in inner.routes if isinstance(r, Route) and r.path == "/mcp").endpoint
    app.router.routes.append(Route("/mcp", endpoint=TokenRequired(endpoint, memories)))
    return server.session_manager.run


#: what a 503's Retry-After says, in the OpenAPI document
RETRY_AFTER = {"Retry-After": {"description": f"The seconds to wait before trying again: {BUSY_RETRY_AFTER} with"
                                              " workspace_busy (another writer held the workspace for"
                                              " BELIEFDB_LOCK_TIMEOUT; nothing was written),"
                                              f" {DATABASE_RETRY_AFTER} with database_unavailable (the database"
                                              " cannot be reached; once it is back, calls are served within about"
                                              " 2 s), and with extractor_unavailable (the llm endpoint failed;"
                                              " nothing was stored) the wait the llm client would have taken"
                                              " next: BELIEFDB_LLM_BACKOFF doubled for each of"
                                              " BELIEFDB_LLM_HTTP_RETRIES, in whole seconds from 1 to 30 (4 by"
                                              " default).",
                               "schema": {"type": "integer"}}}


def _openapi(app: FastAPI, text_limit: int) -> Callable[[], dict[str, Any]]:
    """The OpenAPI document without FastAPI's 422 (a bad request is a 400 here, in the error shape), with the
    413 of each route that takes a body (:class:`BodyLimit`) and the Retry-After of a 503."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            for name, path in schema.get("paths", {}).items():
                for operation in path.values():
                    responses = operation.get("responses", {})
                    responses.pop("422", None)
                    if "503" in responses:
                        responses["503"]["headers"] = RETRY_AFTER
                    if "requestBody" in operation and "400" in responses:
                        limit, why = body_limit(name, text_limit)
                        responses["413"] = {**responses["400"], "description": f"the request body is over the limit of"
                                            f" {limit:,} bytes{why}" + TEXT_OVER * (limit > SMALL_BODY)}
            for name in ("HTTPValidationError", "ValidationError"):
                schema.get("components", {}).get("schemas", {}).pop(name, None)
            app.openapi_schema = schema
        return app.openapi_schema

    return build


def create_app(url: str, *, mcp: bool = True, max_open: int = MAX_OPEN) -> FastAPI:
    """The HTTP API over the beliefdb database of ``url``, with MCP over streamable HTTP at /mcp unless
    not ``mcp``; the memories of at most ``max_open`` principals are kept open at once."""
    memories = Memories(url, max_open=max_open)
    running: list[Callable[[], AbstractAsyncContextManager[None]]] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            stack.callback(memories.close)
            for run in running:
                await stack.enter_async_context(run())
            yield

    # (/docs: web.api_docs, offline; a path with a trailing slash is unknown, 404 in the error shape: Starlette's
    # redirect to the other spelling named the server's own address, behind a proxy another than the caller's)
    app = FastAPI(title=TITLE, version=api.version(), description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None, redirect_slashes=False)
    app.state.memories = memories
    app.add_exception_handler(errors.BeliefDBError, _beliefdb_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(UnicodeError, _not_text)
    app.add_exception_handler(StarletteHTTPException, _http)

    app.add_middleware(HeadAsGet)
    app.add_middleware(RefuseNul)
    app.add_middleware(CredentialsFirst, refuse=error)  # (Authorization twice: 400; a body without credentials: 401)
    app.add_middleware(Wording)
    text_limit = 4 * settings.load().ingest_max_bytes + 2 ** 20
    app.add_middleware(BodyLimit, limit=text_limit)
    @app.get("/health", include_in_schema=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    web.mount(app)  # first: a browser's request at a path both serve gets the page
    app.include_router(router)
    app.include_router(jobs_router)
    app.include_router(conversations_router)
    app.include_router(forget_router)
    if mcp:
        running.append(_mount_mcp(app, memories))
    app.openapi = _openapi(app, text_limit)  # type: ignore[method-assign]
    return app
