"""The whole demo story done by a person in the browser, against one database: v3.3 re-ingested (set up
through the library) and the workspace page shows the refusal flagged and its email held, and as of
before v3.3 the 7-day belief current; the impact picture marks exactly what ``impact --json`` names; a
read-only token sees no form and its change is refused; the keyboard reaches the main actions; a belief
corrected with preview and apply; a stale preview shows the conflict; the poisoned forum post
retracted, and what falls and what stays; a review item approved. The tests build on each other in
this order (one server, one browser, one database: the module's)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import quote
from uuid import UUID

import pytest
from playwright.sync_api import Page, expect
from product_story import Story, before_v33, forum_post, publish_v33
from typer.testing import CliRunner

import beliefdb
import beliefdb.cli
from browser.browsing import Signed, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]

IMPACT_MARKS = ("stops_holding", "would_flag", "would_hold", "survives", "becomes_current")


@dataclass(frozen=True)
class Told:
    story: Story
    fifteen: UUID
    before_v33: datetime
    url: str


@pytest.fixture(scope="module")
def told(module_db: str) -> Iterator[Told]:
    with beliefdb.connect(module_db, principal="alice") as db:
        story = before_v33(db)
        # the page's time field holds whole seconds: "then" is the next whole second after the story
        # was recorded (a moment within its last second would read as before it), and v3.3 comes after
        then = (datetime.now(UTC) + timedelta(seconds=1)).replace(microsecond=0)
        time.sleep((then - datetime.now(UTC)).total_seconds() + 0.2)
        fifteen = publish_v33(db)
    yield Told(story, fifteen, then, module_db)


def test_v33_flags_the_refusal_and_holds_its_email(signed_in: Signed, told: Told) -> None:
    s = told.story
    page = signed_in()
    expect(page).to_have_title("Workspace · beliefdb")
    refusal = page.locator(f'svg.graph a[data-id="{s.refuse}"]')
    email = page.locator(f'svg.graph a[data-id="{s.email}"]')
    expect(refusal).to_have_class(re.compile(r"\bmark-flagged\b"))
    expect(refusal).to_contain_text("⚑ flagged")  # in words too, not colour alone
    expect(email).to_have_class(re.compile(r"\bmark-held\b"))
    expect(email).to_contain_text("held")
    expect(page.locator(f'svg.graph a[data-id="{s.credit}"]')).not_to_have_class(re.compile(r"\bmark-flagged\b"))
    expect(page.locator(f'svg.graph a[data-id="{s.seven}"]')).to_have_class(re.compile(r"\bmark-superseded\b"))
    # the list says the same
    expect(page.locator(f'.as-list li[data-id="{s.refuse}"]')).to_contain_text("flagged")
    shot(page, "workspace")
    # what we believed before v3.3: the 7-day belief current, no 15-day belief yet
    page.get_by_label("What we believed at (UTC)").fill(told.before_v33.strftime("%Y-%m-%dT%H:%M:%S"))
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("status")).to_contain_text("what we believed then")
    expect(page.locator(f'svg.graph a[data-id="{s.seven}"]')).to_have_class(re.compile(r"\bstatus-current\b"))
    expect(page.locator(f'svg.graph a[data-id="{told.fifteen}"]')).to_have_count(0)
    # the refusal's page: its only reason lost, its email held
    page.goto("/")
    page.locator(f'svg.graph a[data-id="{s.refuse}"]').click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Refuse the return of order 1042 (day 10)")
    expect(page.locator(".lost-reason")).to_contain_text("Returns are accepted within 7 days of delivery.")
    expect(page.locator(f"#action-{s.email}")).to_contain_text("held")
    shot(page, "decision")


def _impact_json(url: str, ref: str) -> dict[str, list[dict[str, str] | str]]:
    result = CliRunner().invoke(beliefdb.cli.app, ["impact", ref, "--json"], env={"BELIEFDB_URL": url})
    assert result.exit_code == 0, result.output
    parsed: dict[str, list[dict[str, str] | str]] = json.loads(result.stdout)
    return parsed


def test_the_impact_picture_marks_exactly_what_impact_json_names(signed_in: Signed, told: Told) -> None:
    page = signed_in()
    for ref in (str(told.story.refund), str(told.fifteen), "return-policy.md"):
        page.goto(f"/impact?ref={quote(ref)}")
        marked = page.eval_on_selector_all(
            "svg.graph .node", "(nodes, marks) => nodes.filter(n => marks.some(m => n.classList.contains('mark-' + m)))"
            ".map(n => [n.dataset.id, n.classList.contains('kind-source')])", list(IMPACT_MARKS))
        said = _impact_json(told.url, ref)
        named = {x["id"] for x in said["stops_holding"] + said["becomes_current"] if isinstance(x, dict)
                 and x["kind"] != "fragment"}
        named |= {x for x in said["flagged"] + said["held"] if isinstance(x, str)}
        named |= {x["decision"] for x in said["still_supported"] if isinstance(x, dict)}
        fragments = [x for x in said["stops_holding"] if isinstance(x, dict) and x["kind"] == "fragment"]
        assert named and {i for i, source in marked if not source} == named, ref
        # a fragment is folded into its source: the source is marked when a quote of it would stop counting
        assert bool([i for i, source in marked if source]) == bool(fragments), ref
        if ref == str(told.story.refund):
            expect(page.locator(".impact-survives")).to_contain_text("Refund order 1043 as store credit")
            expect(page.locator(".impact-survives")).to_contain_text("survives on")
            shot(page, "impact")


def test_a_read_only_token_sees_no_form_and_its_change_is_refused(signed_in: Signed, told: Told) -> None:
    page = signed_in("rita", read_only=True)
    expect(page.locator("header .badge")).to_have_text("read-only")
    for path in ("/", f"/beliefs/{told.story.refund}", "/review", f"/decisions/{told.story.refuse}",
                 "/impact?ref=return-policy.md", "/sources/retract?source=return-policy.md"):
        page.goto(path)
        expect(page.locator('form[method="post"]')).to_have_count(1)  # signing out only
        expect(page.locator('form[action="/signout"]')).to_have_count(1)
    with beliefdb.connect(told.url) as db:
        item = db.review_items()[0].id
    refused = page.request.post(f"/review/{item}", form={"verdict": "approved", "form_token": "x"},
                                headers={"Accept": "text/html"})
    assert refused.status == 403 and "this token is read-only" in refused.text()
    with beliefdb.connect(told.url) as db:
        assert item in {i.id for i in db.review_items()}


def _tab_to(page: Page, wanted: str, limit: int = 120) -> list[str]:
    """Press Tab until the focused element's text or label is ``wanted``; what was focused on the way."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        said = page.evaluate("() => { const e = document.activeElement;"
                             " return (e.getAttribute('aria-label') || e.innerText || e.value || '').trim(); }")
        seen.append(said)
        if said == wanted:
            return seen
    raise AssertionError(f"Tab never reached {wanted!r}: {seen}")


def test_the_keyboard_reaches_the_main_actions(signed_in: Signed, told: Told) -> None:
    page = signed_in()
    page.goto(f"/beliefs/{told.story.refund}")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.innerText") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
    seen = _tab_to(page, "Preview the correction")
    assert "If this belief were wrong: what would change?" in seen
    page.goto("/")
    assert "Review" in _tab_to(page, "Review")
    page.goto("/review")
    _tab_to(page, "Approve")


def test_correct_a_belief_with_preview_and_apply(signed_in: Signed, told: Told) -> None:
    s = told.story
    page = signed_in()  # alice owns the belief: her correction applies (another's would be proposed to her)
    page.goto(f"/beliefs/{s.refund}")
    page.get_by_label("Corrected statement").fill("Refunds go to the original payment method.")
    page.get_by_label("Corrected value (optional)").fill("original payment method")
    page.get_by_role("button", name="Preview the correction").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Correct: The refund method is store credit.")
    expect(page.locator(".change-would_flag")).to_have_text("Nothing.")
    expect(page.locator(".change-survives")).to_contain_text("Refund order 1043 as store credit")
    shot(page, "correction-preview")
    page.get_by_label("Reason").fill("policy FAQ was wrong")
    page.get_by_role("button", name="Apply the correction").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Corrected")
    page.locator("#replacement").click()
    expect(page.locator("h1.statement")).to_have_text("Refunds go to the original payment method.")
    expect(page.locator("#evidence ~ section blockquote mark").first).to_have_text(
        "Refunds go to the original payment method.")  # backed by the reviewer's own words
    page.goto(f"/decisions/{s.credit}")
    expect(page.locator("main")).to_contain_text("Status: active")
    page.goto(f"/beliefs/{s.refund}")
    expect(page.locator(".status-word")).to_have_text("superseded")


def test_a_stale_preview_shows_the_conflict(signed_in: Signed, told: Told) -> None:
    page = signed_in()
    page.goto(f"/beliefs/{told.story.fee}")
    page.get_by_label("Corrected statement").fill("The restocking fee is 5%.")
    page.get_by_role("button", name="Preview the correction").click()
    seen = int(page.locator("#revision").inner_text())
    with beliefdb.connect(told.url, principal="alice") as db:  # the belief changes after the preview
        db.retract(belief=told.story.fee, reason="checking")
        db.retract(belief=told.story.fee, reason="", undo=True)
    with page.expect_response(lambda r: r.url.endswith("/correction")) as answer:
        page.get_by_role("button", name="Apply the correction").click()
    assert answer.value.status == 409
    expect(page.locator("#conflict")).to_contain_text("the belief changed since your preview")
    assert int(page.locator("#revision").inner_text()) > seen  # a fresh preview to check and apply
    shot(page, "stale-preview")
    with beliefdb.connect(told.url) as db:
        assert db.why(told.story.fee).belief.status == "current"


def test_retract_the_poisoned_source_and_see_what_falls_and_what_stays(signed_in: Signed, told: Told) -> None:
    with beliefdb.connect(told.url, principal="alice") as db:
        waive = forum_post(db)
        (shipping,) = db.beliefs(subject="return", attribute="shipping")
    page = signed_in()
    page.goto("/impact?ref=forum-post.txt")
    page.get_by_role("link", name="Retract forum-post.txt… (preview first)").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Retract forum-post.txt?")
    expect(page.locator(".change-stops_holding")).to_contain_text("Return shipping is now free.")
    expect(page.locator(".change-stops_holding")).not_to_contain_text("restocking fee")
    expect(page.locator(".change-would_flag")).to_contain_text("Waive return shipping for order 1044")
    page.get_by_label("Reason (recorded with the retraction)").fill("poisoned forum post")
    page.get_by_role("button", name="Retract forum-post.txt").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Retracted forum-post.txt")
    expect(page.locator(".change-stops_holding")).to_contain_text("Return shipping is now free.")
    expect(page.locator(".change-flagged")).to_contain_text("Waive return shipping for order 1044")
    shot(page, "retracted")
    # what falls: the shipping belief and the waiver; what stays: the fee, on the official policy
    page.goto(f"/beliefs/{shipping.id}")
    expect(page.locator(".status-word")).to_have_text("unsupported")
    page.goto(f"/decisions/{waive}")
    expect(page.locator("main")).to_contain_text("needs review")
    page.goto(f"/beliefs/{told.story.fee}")
    expect(page.locator(".status-word")).to_have_text("current")
    expect(page.locator("#evidence ~ section h3", has_text="forum-post.txt version 1")).to_contain_text("retracted")
    expect(page.locator("#evidence ~ section h3", has_text="return-policy.md version 2")).not_to_contain_text(
        "retracted")
    shot(page, "belief")


def test_approve_a_review_item(signed_in: Signed, told: Told) -> None:
    page = signed_in()
    page.goto("/review")
    item = page.locator(".review-item", has_text="Refuse the return of order 1042 (day 10)")
    expect(item).to_have_count(1)
    shot(page, "review")
    item.get_by_label("Note").fill("customer was told in person")
    item.get_by_role("button", name="Approve").click()
    expect(page.get_by_role("status")).to_contain_text("decision flagged) approved")
    expect(page.locator(".review-item", has_text="Refuse the return of order 1042 (day 10)")).to_have_count(0)
