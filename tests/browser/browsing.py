"""Helpers of the browser tests: a page signed in with a new token, and screenshots kept as artifacts."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page

from beliefdb import api

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


class Signed:
    """Opens pages of the site in a fresh browser context signed in with a token."""

    def __init__(self, browser: Browser, site: str, url: str) -> None:
        self.browser, self.site, self.url = browser, site, url

    def __call__(self, principal: str = "alice", *, read_only: bool = False) -> Page:
        token = api.create_token("default", principal, read_only=read_only, url=self.url).token
        context = self.browser.new_context(base_url=self.site, viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto("/signin")
        page.get_by_label("Token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{self.site}/")
        return page


def shot(page: Page, name: str) -> Path:
    """A full-page screenshot of ``page`` kept as a test artifact."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
