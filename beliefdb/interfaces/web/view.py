"""How a page is answered: Jinja2 templates (autoescaped), the page route that turns a beliefdb error
into a page saying why (never a JSON body or a stack trace), the headers every page carries, and the
few formatting filters the templates share."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote
from uuid import UUID

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup
from starlette.datastructures import Headers
from starlette.routing import Match
from starlette.types import Scope

from beliefdb import api, errors
from beliefdb.interfaces import problems
from beliefdb.interfaces.access import retry_after, status_of
from beliefdb.interfaces.web.controls import visible
from beliefdb.interfaces.web.session import COOKIE, forget
from beliefdb.interfaces.web.svg import MARK_WORDS
from beliefdb.models import Identity
from beliefdb.render.pictures.labels import verdict_line, version_name

#: what a page may load: its own stylesheet, nothing inline, nothing from elsewhere, never framed
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self';"
                               " frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def short(value: UUID | str | None) -> str:
    return str(value)[:8] if value is not None else ""


def when(value: datetime | None) -> str:
    """A moment in UTC to the second, as the page shows every time."""
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def field_time(value: datetime | None) -> str:
    """A moment as a datetime-local field holds it (UTC)."""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S") if value is not None else ""


def moment(text: str | None, where: str) -> datetime | None:
    """A moment from a form field: ISO 8601, UTC unless it names its zone (a datetime-local field names
    none); empty: None."""
    if text is None or not text.strip():
        return None
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise errors.InvalidInput(f"{where}: not a date and time: '{api.shown(text)}'{problems.plus_as_space(text)}"
                                  ) from None
    return api.check_moment(parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC), where)


def as_json(value: Any) -> str:
    """A payload as JSON for a person: unicode as it is (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def words(value: str) -> str:
    """A status or mark in plain words: stops_holding -> stops holding."""
    return value.replace("_", " ")


def _shown(value: Any) -> Any:
    # (every {{ value }} of a template passes here before it is escaped; Markup is the page's own HTML)
    return visible(value) if isinstance(value, str) and not isinstance(value, Markup) else value


ENV = Environment(loader=PackageLoader("beliefdb.interfaces.web", "templates"),
                  autoescape=select_autoescape(["html"]), undefined=StrictUndefined, trim_blocks=True,
                  lstrip_blocks=True, finalize=_shown)
ENV.filters.update(short=short, when=when, field_time=field_time, words=words, as_json=as_json,
                   verdict=verdict_line)
ENV.globals.update(mark_words=MARK_WORDS, version_name=version_name)


def page(request: Request, template: str, context: Mapping[str, Any], status: int = 200) -> HTMLResponse:
    """The page ``template`` with ``context`` (and the viewer, when signed in, for the header)."""
    html = ENV.get_template(template).render({"request": request, "viewer": None, "message": None, "nav": None,
                                              **context})
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def error_page(request: Request, status: int, title: str, message: str) -> HTMLResponse:
    return page(request, "error.html", {"title": title, "error": message, "status": status,
                                        "viewer": signed_in(request)}, status)


TITLES = {400: "Not understood", 403: "Not allowed", 404: "Not found", 405: "Not a page", 409: "Conflict",
          413: "Too large", 503: "Memory unavailable"}


def failure(request: Request, exc: errors.BeliefDBError) -> Response:
    """The page for a beliefdb error: sign in again for a missing, unknown or revoked token, else the
    error's status with its one-line message."""
    if isinstance(exc, errors.Unauthenticated):
        if COOKIE not in request.cookies:
            there = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/signin?next={quote(there, safe='/')}", status_code=303)
        response = page(request, "signin.html", {"error": f"Signed out: {exc.message}", "next": "/"}, 401)
        forget(response)
        return response
    status = status_of(exc)
    response = error_page(request, status, TITLES.get(status, "Something went wrong"), exc.message)
    if status == 503:  # when to try again, as the JSON API's 503 says it
        response.headers.update(retry_after(exc))
    return response


@dataclass(frozen=True)
class Header:
    """Who is signed in, for the header of a page that failed before it had its viewer."""

    who: Identity

    @property
    def read_only(self) -> bool:
        return self.who.read_only


def signed_in(request: Request) -> Header | None:
    """The signed-in principal of a failed page's request (None: nobody, or the memory cannot say)."""
    token = request.cookies.get(COOKIE)
    memories = getattr(request.app.state, "memories", None)
    try:
        return Header(memories.identify(token)) if token and memories is not None else None
    except errors.BeliefDBError:
        return None


class PageRoute(APIRoute):
    """A route of the product view: a beliefdb error or bad input becomes a page saying why, and every
    answer carries the security headers."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                response = await handler(request)
            except errors.BeliefDBError as exc:
                response = failure(request, exc)
            except RequestValidationError as exc:
                response = error_page(request, 400, TITLES[400], problems.one_line(exc.errors(), whole="the form"))
            except UnicodeError as exc:
                response = error_page(request, 400, TITLES[400], f"text that cannot be stored: {exc}")
            response.headers.update(SECURITY_HEADERS)
            return response

        return answer


def browser(scope: Scope) -> bool:
    """A browser's request for a page: no bearer token, and it asks for HTML."""
    headers = Headers(scope=scope)
    return "authorization" not in headers and "text/html" in headers.get("accept", "")


class SharedPageRoute(PageRoute):
    """A page at a path the JSON API serves too (``/beliefs/{id}``, ``/runs``): a browser's request
    gets the page, any other (a bearer token, or no HTML asked for) the JSON API's answer."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        if match is not Match.NONE and not browser(scope):
            return Match.NONE, {}
        return match, child
