"""The product view in the browser (``beliefdb serve``, at ``/``): sign in with a token, then the
workspace as Sources → Beliefs → Decisions → Actions, a belief with its quotes in their source text, a
decision's reasons, impact as a picture, the review queue, corrections and retractions (preview, then
apply), and agent runs with their repair plans. Server-rendered HTML (Jinja2, autoescaped) with one
stylesheet shipped in the package: no script, nothing fetched from elsewhere. Every page calls
:class:`beliefdb.api.BeliefDB` as the token's principal in the token's workspace, as the JSON API does."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from beliefdb.interfaces.web import api_docs, auth, changes, pages, runs


def mount(app: FastAPI) -> None:
    """Add the product view to ``app``: before the JSON API's routes, so that a browser asking for a
    page at a path both serve (``/beliefs/{id}``, ``/runs``) gets the page."""
    app.include_router(auth.router)
    app.include_router(pages.shared)
    app.include_router(pages.router)
    app.include_router(runs.router)
    app.include_router(changes.router)
    app.include_router(api_docs.router)
    app.mount("/static", StaticFiles(packages=[("beliefdb.interfaces.web", "static")]), name="static")
