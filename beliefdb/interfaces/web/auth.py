"""Signing in to the product view with a token, and signing out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from beliefdb import errors
from beliefdb.interfaces.web import session, view

router = APIRouter(route_class=view.PageRoute, include_in_schema=False)


def _next(path: str) -> str:
    """Where to go after signing in: a path of this site only (never another host)."""
    ok = path.startswith("/") and not path.startswith("//") and "\\" not in path and "\n" not in path
    return path if ok else "/"


@router.get("/signin")
def signin_page(request: Request, next: str = "/") -> Response:
    return view.page(request, "signin.html", {"error": None, "next": _next(next)})


@router.post("/signin")
def signin(request: Request, token: Annotated[str, Form()] = "", next: Annotated[str, Form()] = "/") -> Response:
    session.same_site(request)
    token = token.strip()
    try:
        if not token:
            raise errors.Unauthenticated("enter a token")
        session.memories(request).identify(token)
    except errors.Unauthenticated as exc:
        said = exc.message if not token else "that token is unknown or revoked"
        return view.page(request, "signin.html", {"error": f"Not signed in: {said}.", "next": _next(next)}, 401)
    response = RedirectResponse(_next(next), status_code=303)
    session.keep(response, request, token)
    return response


@router.post("/signout")
def signout(request: Request) -> Response:
    session.same_site(request)
    response = RedirectResponse("/signin", status_code=303)
    session.forget(response)
    return response
