"""Write the README's pictures of the product view from the demo's data: ``docs/img/product-view.png``
(the workspace), ``docs/img/impact.png`` (if the 15-day rule and the customer's word were wrong) and
``docs/img/belief.png`` (a belief with its quote marked in its source), taken with Debian's Chromium
(``/usr/bin/chromium``) driven by Playwright, from ``beliefdb serve``'s app run in this process.

    python scripts/screenshots.py                 # a throw-away embedded server
    python scripts/screenshots.py --db URL        # a migrated database (the demo's workspace is kept)
    python scripts/screenshots.py --output DIR    # somewhere else than docs/img
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

import beliefdb
from beliefdb import api
from beliefdb.api import servers
from beliefdb.db.bootstrap import scratch_database

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
WIDTH = 1280


def _clip(page: Page, path: Path, selector: str) -> None:
    """The page from its top down to the end of ``selector``'s element."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    height = min(box["y"] + box["height"] + 16, 2400)
    page.screenshot(path=str(path), clip={"x": 0, "y": 0, "width": WIDTH, "height": height}, full_page=True)
    print(f"wrote {path}")


def take(url: str, output: Path) -> None:
    workspace = api.demo("returns", say=lambda _: None, url=url, keep=True)
    token = api.create_token(workspace, "demo", url=url).token
    with beliefdb.connect(url, workspace, principal="demo") as db:
        (fifteen,) = db.beliefs(subject="return_policy", attribute="window")
    output.mkdir(parents=True, exist_ok=True)
    with servers.serving(url, mcp=False) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_context(base_url=base, viewport={"width": WIDTH, "height": 900}).new_page()
        page.goto("/signin")
        page.get_by_label("Token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{base}/")
        _clip(page, output / "product-view.png", "figure.picture")
        page.goto(f"/impact?ref={fifteen.id}&ref=chat-1043")
        _clip(page, output / "impact.png", "figure.picture")
        page.goto("/")
        page.locator("svg.graph a.kind-belief", has_text="Refunds go to the original").first.click()
        _clip(page, output / "belief.png", "#evidence ~ section")
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", help="a migrated beliefdb database (default: a throw-away embedded server)")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "img", help="where to write the pictures")
    args = parser.parse_args()
    if args.db:
        take(args.db, args.output)
    else:
        with scratch_database("beliefdb-screenshots-") as url:
            take(url, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
