"""What a support lead reviewing the agents' memory in the browser found the pages leaving out or
getting wrong, each checked against what :class:`BeliefDB` (and so the CLI and the JSON API) answers
for the same thing: a belief's retractions, an approval's consequences, what would stop being current."""

from __future__ import annotations

import re

import web_pages
from fastapi.testclient import TestClient
from product_story import Story, forum_post, publish_v33
from pytest_postgresql import factories
from web_pages import HTML, form_token, sign_in, text_of

import beliefdb
from beliefdb import api

#: the app under a test client, and the story before v3.3 (shared with test_web)
client, story = web_pages.client, web_pages.story
# every test here starts from the story before v3.3: each clones it from a template that holds it
trial_story_proc = web_pages.story_proc()
postgresql = factories.postgresql("trial_story_proc")


def test_the_belief_page_says_when_and_why_its_evidence_was_retracted(client: TestClient, db_url: str,
                                                                      story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        forum_post(db)
        (shipping,) = db.beliefs(subject="return", attribute="shipping")
        db.retract(source="forum-post.txt", reason="poisoned forum post")
        (retraction,) = db.why(shipping.id).retractions
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = text_of(client.get(f"/beliefs/{shipping.id}", headers=HTML).text)
    assert "Status: unsupported" in page
    # why it is unsupported: the CLI's 'source forum-post.txt retracted at ... — poisoned forum post'
    assert (f"source forum-post.txt retracted {retraction.retracted_at:%Y-%m-%d %H:%M:%S} UTC"
            " — poisoned forum post") in page
    # an already retracted source is not offered for retraction again
    assert "Retract forum-post.txt…" not in page


def test_a_retraction_says_what_would_stop_being_current_as_the_cli_does(client: TestClient, db_url: str,
                                                                        story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        # the refund method corrected: that belief is superseded, yet its quote still holds it up
        fix = db.preview_correction(story.refund, "Refunds go to the card.", "card")
        db.apply_correction(story.refund, "Refunds go to the card.", reviewer="alice", expect_revision=fix.revision,
                            value="card")
        seen = db.preview_retract(source="return-policy.md")
        labels = {n.id: n.label for n in db.labels(seen.stopped_current)}
    beliefs = [i for i in seen.stopped_current if i in labels]
    quotes = len(seen.stopped_current) - len(beliefs)
    assert beliefs and quotes and set(seen.stopped_current) != set(seen.stopped_holding)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    preview = client.get("/sources/retract", params={"source": "return-policy.md"}, headers=HTML).text
    shown = re.search(r'<ul class="change-stops_current">(.*?)</ul>', preview, re.S)
    assert shown is not None and f"would stop being current</span> ({len(seen.stopped_current)})" in preview
    assert sorted(re.findall(r'data-id="([0-9a-f-]+)"', shown.group(1))) == sorted(map(str, beliefs))
    assert f"{quotes} quotes of the source" in shown.group(1)
    expected = re.search(r'name="expected" value="([0-9a-f]+)"', preview)
    assert expected is not None
    done = client.post("/sources/retract", data={"source": "return-policy.md", "reason": "wrong file",
                                                 "form_token": form_token(preview), "expected": expected.group(1)},
                       headers=HTML).text
    result = re.search(r'<ul class="change-stops_current">(.*?)</ul>', done, re.S)
    assert result is not None and f"stopped being current</span> ({len(seen.stopped_current)})" in done
    assert sorted(re.findall(r'data-id="([0-9a-f-]+)"', result.group(1))) == sorted(map(str, beliefs))


def test_approving_a_review_item_says_what_the_approval_did(client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        waive = forum_post(db)
        since = "2025-03-01T00:00:00+00:00"
        five, six = (db.remember(f"warehouse closes at {v}", "warehouse", "closing", v, q, source=s, text=q + "\n",
                                 authority="user", valid_from=since).accepted[0].id
                     for s, q, v in (("a.md", "It closes at 5pm.", "5pm"), ("b.md", "It closes at 6pm.", "6pm")))
    with beliefdb.connect(db_url, principal="bob") as db:
        proposal = db.retract(source="forum-post.txt", reason="a forum is no policy")
    assert proposal.proposed and proposal.review_item is not None
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/review", headers=HTML).text
    approved = client.post(f"/review/{proposal.review_item}", data={"verdict": "approved",
                                                                    "form_token": form_token(page)}, headers=HTML)
    assert approved.status_code == 200, approved.text
    # as 'review approve' says: the retraction applied, what stopped being current, the decision it flagged
    flagged = re.search(r'<ul class="change-flagged">(.*?)</ul>', approved.text, re.S)
    assert flagged is not None and f'data-id="{waive}"' in flagged.group(1)
    assert "Waive return shipping for order 1044" in flagged.group(1)
    assert "stopped being current" in approved.text
    with beliefdb.connect(db_url) as db:
        (item,) = [i for i in db.review_items() if i.kind == "conflict"]
    won = client.post(f"/review/{item.id}", data={"verdict": "approved", "winner": str(six),
                                                  "form_token": form_token(page)}, headers=HTML)
    assert won.status_code == 200, won.text
    assert "“warehouse closes at 6pm” won: it supersedes “warehouse closes at 5pm”" in text_of(won.text)
    with beliefdb.connect(db_url) as db:
        assert {b.id: b.status for b in db.beliefs(subject="warehouse", include_all=True)} == {
            five: "superseded", six: "current"}
    # the decision's page says who approved it, when and their note, as why does
    with beliefdb.connect(db_url, principal="alice") as db:
        (flag,) = [i for i in db.review_items(kind="decision_flagged") if i.node == waive]
        db.resolve_review(flag.id, "approved", note="shipping is on us anyway")
    shown = text_of(client.get(f"/decisions/{waive}", headers=HTML).text)
    assert "approved by alice at " in shown and f": shipping is on us anyway (review item {str(flag.id)[:8]})" in shown


def test_rejecting_a_conflict_in_the_browser_rejects_it(client: TestClient, db_url: str, story: Story) -> None:
    """A conflict's form sends its "Keep" choice with either button; the library now refuses a winner with a
    rejection (it was dropped), so the page passes it with an approval only."""
    with beliefdb.connect(db_url, principal="alice") as db:
        since = "2025-03-01T00:00:00+00:00"
        five, six = (db.remember(f"warehouse closes at {v}", "warehouse", "closing", v, q, source=s, text=q + "\n",
                                 authority="user", valid_from=since).accepted[0].id
                     for s, q, v in (("a.md", "It closes at 5pm.", "5pm"), ("b.md", "It closes at 6pm.", "6pm")))
        (item,) = [i for i in db.review_items() if i.kind == "conflict"]
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/review", headers=HTML).text
    rejected = client.post(f"/review/{item.id}", data={"verdict": "rejected", "winner": str(five),
                                                       "form_token": form_token(page)}, headers=HTML)
    assert rejected.status_code == 200, rejected.text
    with beliefdb.connect(db_url) as db:
        assert item.id not in {i.id for i in db.review_items()}
        assert {b.id: b.status for b in db.beliefs(subject="warehouse", include_all=True)} == {
            five: "conflicting", six: "conflicting"}


def test_a_belief_as_of_before_a_change_shows_its_evidence_as_it_was_then(client: TestClient, db_url: str,
                                                                           story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        before = db.why(story.seven).belief.recorded_at
        (quote,) = db.why(story.seven).evidence
        then = max(before, quote.created_at)
        publish_v33(db)
        db.retract(source="return-policy.md", reason="checking")
        # what we believed then: v3.2 was in force, nothing was retracted (the library, so the CLI and API)
        (was,) = db.why(story.seven, as_of=then).evidence
        (now,) = db.why(story.seven).evidence
    assert was.in_force and not now.in_force
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = text_of(client.get(f"/beliefs/{story.seven}", params={"as_of": then.isoformat()}, headers=HTML).text)
    assert "return-policy.md version 1 (v3.2) — supports, official" in page
    assert "no longer in force" not in page and ", retracted" not in page
    today = text_of(client.get(f"/beliefs/{story.seven}", headers=HTML).text)
    assert "return-policy.md version 1 (v3.2) — supports, official, no longer in force, retracted" in today


def test_a_decision_as_of_before_v33_is_as_it_was_then(client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (quote,) = db.why(story.seven).evidence
        then = max(quote.created_at, *(d.created_at for d in db.decisions()), *(a.created_at for a in db.actions()))
        publish_v33(db)  # the refusal is flagged, its email held: now, not then
        statuses = {d.id: d.status for d in db.decisions()}
    assert statuses[story.refuse] == "needs_review"
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/decisions/{story.refuse}", params={"as_of": then.isoformat()}, headers=HTML).text
    said = text_of(page)
    assert "Status: active" in said and "flagged" not in said.split("The picture")[0]
    counted = re.search(r"<h2>Reasons that count</h2>\s*<ul>(.*?)</ul>", page, re.S)
    assert counted is not None and f'id="reason-{story.seven}"' in counted.group(1)
    actions = re.search(r"<h2>Actions</h2>\s*<ul>(.*?)</ul>", page, re.S)
    assert actions is not None and "[scheduled]" in actions.group(1) and "held" not in actions.group(1)
    # the workspace as of then: neither flagged nor held
    whole = client.get("/", params={"as_of": then.isoformat()}, headers=HTML).text
    marks = dict(re.findall(r'data-id="([0-9a-f-]+)" data-marks="([^"]*)"', whole))
    assert "flagged" not in marks[str(story.refuse)] and "held" not in marks[str(story.email)]
    now = client.get("/", headers=HTML).text
    marks = dict(re.findall(r'data-id="([0-9a-f-]+)" data-marks="([^"]*)"', now))
    assert "flagged" in marks[str(story.refuse)] and "held" in marks[str(story.email)]


def test_a_belief_as_of_then_lists_what_was_built_on_it_as_it_was_then(client: TestClient, db_url: str,
                                                                       story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (quote,) = db.why(story.seven).evidence
        then = max(quote.created_at, *(d.created_at for d in db.decisions()), *(a.created_at for a in db.actions()))
        publish_v33(db)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/beliefs/{story.seven}", params={"as_of": then.isoformat()}, headers=HTML).text
    built = re.search(r"<h3>Decisions and their actions \(\d+\)</h3>\s*<ul>(.*?)</ul>\s*<h3>", page, re.S)
    assert built is not None
    said = text_of(built.group(1))
    assert "Refuse the return of order 1042 (day 10) [active]" in said
    assert "action: Email the customer a refusal [scheduled]" in said
    now = text_of(client.get(f"/beliefs/{story.seven}", headers=HTML).text)
    assert "Refuse the return of order 1042 (day 10) [needs review]" in now


def test_a_proposal_in_the_review_queue_links_to_what_approving_it_would_change(client: TestClient, db_url: str,
                                                                               story: Story) -> None:
    with beliefdb.connect(db_url, principal="bob") as db:
        fix = db.preview_correction(story.refund, "Refunds go to the card.", "card")
        assert fix.proposed and fix.if_approved
        db.apply_correction(story.refund, "Refunds go to the card.", reviewer="bob", expect_revision=fix.revision,
                            value="card")
        db.retract(source="return-policy.md", reason="outdated")
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/review", headers=HTML).text
    items = dict(re.findall(r'data-kind="(\w+)">(.*?)</li>', page, re.S))
    assert f'href="/impact?ref={story.refund}">What approving would change' in items["correction_proposed"]
    assert 'href="/impact?ref=return-policy.md">What approving would change' in items["retraction_proposed"]
    # and that page names what the correction's preview says the owner's approval would change
    impact = client.get(f"/impact?ref={story.refund}", headers=HTML).text
    assert all(f'data-id="{row.node}"' in impact for row in fix.if_approved)


def test_the_workspace_as_of_then_shows_its_sources_as_they_were_then(client: TestClient, db_url: str,
                                                                      story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (quote,) = db.why(story.seven).evidence
        then = max(quote.created_at, *(d.created_at for d in db.decisions()), *(a.created_at for a in db.actions()))
        publish_v33(db)
        db.retract(source="return-policy.md", reason="checking")
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    whole = text_of(client.get("/", params={"as_of": then.isoformat()}, headers=HTML).text)
    source = re.search(r"return-policy\.md \[([^]]+)\]( ✗ retracted)? official, document, (v\d+ v3\.\d)", whole)
    assert source is not None, whole
    assert source.groups() == ("in use", None, "v1 v3.2")  # not retracted yet, v3.3 not published yet
    now = text_of(client.get("/", headers=HTML).text)
    assert "return-policy.md [retracted] ✗ retracted official, document, v2 v3.3" in now


def test_a_decision_page_asked_for_a_belief_leads_to_the_belief(client: TestClient, db_url: str,
                                                                story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    went = client.get(f"/decisions/{str(story.seven)[:8]}", params={"as_of": "2099-01-01T00:00:00"}, headers=HTML)
    assert went.status_code == 303, went.text  # it said: 'no decision found for action <the belief>'
    assert went.headers["location"] == f"/beliefs/{story.seven}?as_of=2099-01-01T00%3A00%3A00"


def test_a_decision_as_of_a_moment_speaks_of_then(client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        flagged_at = max(i.created_at for i in db.review_items())
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    then = text_of(client.get(f"/decisions/{story.refuse}", params={"as_of": flagged_at.isoformat()},
                              headers=HTML).text)
    assert "None: no reason held then." in then and "holds now" not in then
    assert "None: no reason holds now." in text_of(client.get(f"/decisions/{story.refuse}", headers=HTML).text)


def test_an_error_page_keeps_the_signed_in_navigation(client: TestClient, db_url: str, story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    missing = client.get("/beliefs/ffffffff", headers=HTML)
    assert missing.status_code == 404 and 'role="alert"' in missing.text
    # the header a signed-in page has: who, the main navigation, and a way to sign out
    assert '<nav aria-label="Main">' in missing.text and 'action="/signout"' in missing.text
    assert "alice in <strong>default</strong>" in missing.text


def test_a_retraction_applies_only_what_its_preview_showed(client: TestClient, db_url: str, story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    preview = client.get("/sources/retract", params={"source": "return-policy.md"}, headers=HTML).text
    expected = re.search(r'name="expected" value="([0-9a-f]+)"', preview)
    assert expected is not None
    form = {"source": "return-policy.md", "reason": "wrong file", "form_token": form_token(preview),
            "expected": expected.group(1)}
    with beliefdb.connect(db_url, principal="alice") as db:  # meanwhile v3.3 is published: more would fall
        fifteen = publish_v33(db)
    stale = client.post("/sources/retract", data=form, headers=HTML)
    assert stale.status_code == 409 and 'id="conflict"' in stale.text and "Nothing was written" in stale.text
    assert f'data-id="{fifteen}"' in stale.text  # the fresh preview names what would now fall
    with beliefdb.connect(db_url) as db:
        assert db.why(story.refund).belief.status == "current"  # nothing retracted
    fresh = re.search(r'name="expected" value="([0-9a-f]+)"', stale.text)
    assert fresh is not None and fresh.group(1) != expected.group(1)
    done = client.post("/sources/retract", data={**form, "expected": fresh.group(1)}, headers=HTML)
    assert done.status_code == 200 and "Retracted return-policy.md" in done.text


def test_a_run_without_steps_offers_its_repair_form_on_its_own_page(client: TestClient, db_url: str,
                                                                     story: Story) -> None:
    """The form's action named the run by its first step's run: with no step it was /runs/ (a 404)."""
    with beliefdb.connect(db_url, principal="alice") as db, db.record_run(task="nothing yet") as run:
        pass
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/runs/{run.id}", headers=HTML).text
    assert f'action="/runs/{run.id}#repair"' in page, re.findall(r'action="[^"]*"', page)


def test_a_page_past_the_end_says_so_once(client: TestClient, db_url: str, story: Story) -> None:
    """Past the last page the runs and review pages said "No runs this far: there are N" and, below it,
    "No runs recorded." (or "Nothing to review."), which N contradicts."""
    with beliefdb.connect(db_url, principal="alice") as db:
        for task in ("one", "two"):
            with db.record_run(task=task):
                pass
        gone = db.remember("The lift is open.", "lift", "status", "open", "The lift is open.", source="lift.md",
                           text="The lift is open.").accepted[0].id
        db.decide("Use the lift", because=[gone])
        db.retract(belief=gone, reason="the lift is closed")  # the decision flagged: a review item
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    runs = text_of(client.get("/runs", params={"offset": 9}, headers=HTML).text)
    assert "there are 2" in runs and "No runs recorded." not in runs, runs
    assert "No runs recorded." not in text_of(client.get("/runs", headers=HTML).text)
    review = text_of(client.get("/review", params={"offset": 50}, headers=HTML).text)
    assert "this far" in review and "Nothing to review." not in review, review
