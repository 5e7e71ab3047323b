"""What a support lead reviewing the agents' memory in the browser found unclear or wrong on the pages
that change memory, each checked against what :class:`BeliefDB` (and so the CLI) says of the same
change: a retraction another principal must approve, what would be current again, paging the workspace
(a confirmation that applies only the change its preview showed is in tests/test_web_without_the_story.py)."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import quote as quote_url

import pytest
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
lead_story_proc = web_pages.story_proc()
postgresql = factories.postgresql("lead_story_proc")


def test_previewing_the_retraction_of_anothers_source_says_it_waits_for_their_approval(
        client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        waive = forum_post(db)
    with beliefdb.connect(db_url, principal="bob") as db:
        seen = db.preview_retract(source="forum-post.txt")
    assert seen.proposed and seen.owner == "alice" and waive in seen.flagged
    sign_in(client, api.create_token("default", "bob", url=db_url).token)
    page = client.get("/sources/retract", params={"source": "forum-post.txt"}, headers=HTML).text
    said = text_of(page)
    # as the CLI says it: 'the source belongs to alice: this would be proposed to them; if they approve it:'
    assert ("alice owns this source: retracting it proposes the retraction to them, and nothing changes"
            " until they approve it.") in said
    assert "If alice approves it: what would fall, and what stays" in said
    assert f'data-id="{waive}"' in page  # what their approval would flag
    assert "Propose the retraction to alice" in said


def test_what_would_be_current_again_has_its_own_mark_not_survives(client: TestClient, db_url: str,
                                                                    story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        five, six = (db.remember(f"warehouse closes at {v}", "warehouse", "closing", v, q, source=s, text=q + "\n",
                                 authority="official", valid_from=since).accepted[0].id
                     for s, q, v, since in (("a.md", "It closes at 5pm.", "5pm", "2025-03-01T00:00:00+00:00"),
                                            ("b.md", "It closes at 6pm.", "6pm", "2025-04-01T00:00:00+00:00")))
        seen = db.preview_retract(source="b.md")
    assert seen.became_current == [five] and six in seen.stopped_current
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/sources/retract", params={"source": "b.md"}, headers=HTML).text
    again = re.search(r'<h3><span class="mark mark-(\w+)">(.) would be current again</span> \(1\)</h3>\s*'
                      r'<ul class="change-becomes_current">(.*?)</ul>', page, re.S)
    assert again is not None, page
    # the CLI's and the picture's ↺, never the ✓ of a decision that survives on other support
    assert again.group(1, 2) == ("becomes_current", "↺") and f'data-id="{five}"' in again.group(3)
    assert "✓ would be current again" not in page
    marks = dict(re.findall(r'data-id="([0-9a-f-]+)" data-marks="([^"]*)"', page))
    assert "becomes_current" in marks[str(five)].split() and "survives" not in marks[str(five)].split()


def test_the_workspace_pages_its_beliefs_with_numbers_and_links(client: TestClient, db_url: str, story: Story,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)
        every = [b.id for b in db.beliefs(include_all=True)]
        current = len(db.beliefs())
    n = len(every)
    assert n >= 5
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    seen: list[str] = []
    path: str | None = "/?limit=2"
    for first in range(1, n + 1, 2):
        said = (f"Showing beliefs {first}–{first + 1} of {n}, newest first." if first < n
                else f"Showing belief {n} of {n}, newest first.")
        assert path is not None
        page = client.get(path, headers=HTML)
        assert page.status_code == 200, page.text
        assert said in text_of(page.text), text_of(page.text)
        assert "only part of it is shown" not in page.text
        seen += re.findall(r'<li class="node-item" data-id="([0-9a-f-]+)" data-marks="[^"]*">\s*<a href="/beliefs/',
                           page.text)
        newer = re.search(r'<a href="([^"]+)" rel="prev">← Newer beliefs</a>', page.text)
        assert (newer is None) == (path == "/?limit=2")
        older = re.search(r'<a href="([^"]+)" rel="next">Older beliefs →</a>', page.text)
        path = older.group(1).replace("&amp;", "&") if older else None
    assert path is None  # the last page links to no older one
    assert sorted(seen) == sorted(map(str, every))  # each belief on one page, none twice
    # the filters go along; a page past the end says so and leads back
    filtered = client.get("/", params={"status": "current", "limit": 1}, headers=HTML).text
    assert f"Showing belief 1 of {current}, newest first." in text_of(filtered)
    assert 'href="/?status=current&amp;limit=1&amp;offset=1" rel="next"' in filtered
    far = client.get("/", params={"offset": 50}, headers=HTML).text
    assert f"No beliefs this far: {n} pass these filters." in text_of(far)
    assert '<a href="/">Back to the newest</a>' in far
    # past the count's bound: 'of more than ...'
    monkeypatch.setattr("beliefdb.graph.workspace.COUNT_LIMIT", 3)
    assert "Showing beliefs 1–2 of more than 3, newest first." in text_of(client.get("/?limit=2", headers=HTML).text)


def test_the_impact_of_a_retracted_source_offers_no_retraction_that_would_fail(client: TestClient, db_url: str,
                                                                               story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        forum_post(db)
        db.retract(source="forum-post.txt", reason="poisoned forum post")
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/impact", params={"ref": "forum-post.txt"}, headers=HTML).text
    # its link led to 'nothing to retract: source forum-post.txt is unknown or already retracted' (404)
    assert "/sources/retract?source=forum-post.txt" not in page
    assert "forum-post.txt is retracted already." in text_of(page)
    live = client.get("/impact", params={"ref": "return-policy.md"}, headers=HTML).text
    assert 'href="/sources/retract?source=return-policy.md">Retract return-policy.md… (preview first)' in live


def test_an_address_that_is_no_page_says_so_in_words(client: TestClient, db_url: str, story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    missing = client.get("/sources/retract/x", headers=HTML)
    assert missing.status_code == 404 and "There is no page at /sources/retract/x." in text_of(missing.text)
    # a form's address opened again (a bookmark, a tab restored): it said 'Not found' and 'Method Not Allowed'
    for path in (f"/beliefs/{story.refund}/correction", "/review/abcd", "/signout"):
        opened = client.get(path, headers=HTML)
        said = text_of(opened.text)
        assert opened.status_code == 405 and "<h1>Not a page</h1>" in opened.text, (path, said)
        assert "This address is where a form is sent, not a page to open" in said and "Method Not Allowed" not in said
    assert client.get("/review/abcd").json()["error"] == "method_not_allowed"  # a script's: as before


def test_a_decision_as_of_before_it_was_recorded_says_so(client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (decision,) = [d for d in db.decisions() if d.id == story.refuse]
        before = decision.created_at - timedelta(seconds=1)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    # it said 'Status: active' and 'None: no reason held then' of a decision nobody had made yet
    page = client.get(f"/decisions/{story.refuse}", params={"as_of": before.isoformat()}, headers=HTML)
    assert page.status_code == 404, text_of(page.text)
    assert f"decision {story.refuse} was not recorded yet at {before.isoformat()}" in text_of(page.text)
    then = client.get(f"/decisions/{story.refuse}", params={"as_of": decision.created_at.isoformat()}, headers=HTML)
    assert then.status_code == 200 and "Status: active" in text_of(then.text)


def test_an_action_as_of_a_moment_leads_to_its_decision_as_of_that_moment(client: TestClient, db_url: str,
                                                                          story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    went = client.get(f"/actions/{story.email}", params={"as_of": "2099-01-01T00:00:00"}, headers=HTML)
    assert went.status_code == 303, went.text  # it dropped the moment: the decision as it is now
    assert went.headers["location"] == (f"/decisions/{story.refuse}?as_of=2099-01-01T00%3A00%3A00"
                                        f"#action-{story.email}")
    now = client.get(f"/actions/{story.email}", headers=HTML)
    assert now.headers["location"] == f"/decisions/{story.refuse}#action-{story.email}"


def test_the_links_of_a_page_as_of_a_moment_keep_the_moment(client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (quote,) = db.why(story.seven).evidence
        then = max(quote.created_at, *(d.created_at for d in db.decisions()), *(a.created_at for a in db.actions()))
        publish_v33(db)
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    at = "?as_of=" + quote_url(then.isoformat(), safe="")
    # each link led to the page as it is now: the refusal flagged, its email held, the 7 days superseded
    decision = client.get(f"/decisions/{story.refuse}", params={"as_of": then.isoformat()}, headers=HTML).text
    assert f'<li id="reason-{story.seven}"><a href="/beliefs/{story.seven}{at}">' in decision  # the list
    assert f'href="/beliefs/{story.seven}{at}"' in decision.split("<svg")[1]  # the picture
    assert f'href="/actions/{story.email}{at}"' in decision
    belief = client.get(f"/beliefs/{story.seven}", params={"as_of": then.isoformat()}, headers=HTML).text
    assert f'<a href="/decisions/{story.refuse}{at}">Refuse the return of order 1042 (day 10)</a> [active]' in belief
    workspace = client.get("/", params={"as_of": then.isoformat()}, headers=HTML).text
    assert f'href="/decisions/{story.refuse}{at}"' in workspace
    now = client.get(f"/decisions/{story.refuse}", headers=HTML).text
    assert f'href="/beliefs/{story.seven}"' in now and "as_of" not in now.split("</form>", 2)[-1]


def test_each_review_item_says_what_approving_and_rejecting_it_do(client: TestClient, db_url: str,
                                                                  story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        publish_v33(db)  # the refusal flagged, its email held
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/review", headers=HTML).text
    items = {kind: text_of(body) for kind, body in re.findall(r'data-kind="(\w+)">(.*?)</li>', page, re.S)}
    # two buttons, 'Approve' and 'Reject', and nothing saying that rejecting a decision cancels its actions
    assert ("Approve: keep the decision as it is and release its held actions. Reject: cancel its actions;"
            " nothing may carry it out.") in items["decision_flagged"]
    assert "Approve: release the action. Reject: cancel it." in items["action_held"]


def test_previewing_a_correction_of_anothers_belief_says_it_waits_for_their_approval(
        client: TestClient, db_url: str, story: Story) -> None:
    with beliefdb.connect(db_url, principal="bob") as db:
        seen = db.preview_correction(story.refund, "Refunds go to the card.", "card")
    assert seen.proposed and seen.owner == "alice"
    sign_in(client, api.create_token("default", "bob", url=db_url).token)
    form = form_token(client.get(f"/beliefs/{story.refund}", headers=HTML).text)
    page = client.post(f"/beliefs/{story.refund}/correction/preview", headers=HTML,
                       data={"statement": "Refunds go to the card.", "value": "card", "form_token": form}).text
    said = text_of(page)
    # as the CLI says it: '... changes nothing until they approve it. If they do, the correction would:'
    assert ("alice owns this belief: applying proposes the correction to them, and nothing changes until they"
            " approve it.") in said
    assert "If alice approves it: what would change" in said and "Propose the correction to alice" in said


def test_the_impact_page_says_what_a_decision_survives_on_as_the_cli_does(client: TestClient, db_url: str,
                                                                          story: Story) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get("/impact", params={"ref": str(story.refund)}, headers=HTML).text
    kept = re.search(r'<h3><span class="mark mark-survives">([^<]*)</span> \((\d+)\)</h3>\s*'
                     r'<ul class="impact-survives">(.*?)</ul>', page, re.S)
    assert kept is not None, page
    # it said '✓ survives (1)'; the CLI's pictures say 'survives on other support'
    assert kept.group(1, 2) == ("✓ survives on other support", "1")
    assert f'data-id="{story.credit}"' in kept.group(3) and "survives on" in text_of(kept.group(3))


def test_a_belief_as_of_before_a_decision_cited_it_lists_no_such_decision(client: TestClient, db_url: str,
                                                                          story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (decision,) = [d for d in db.decisions() if d.id == story.refuse]
        before = decision.created_at - timedelta(microseconds=1)
        assert db.why(story.seven, as_of=before).built_on == []  # (it listed the refusal, recorded later)
        assert [d.decision_id for d in db.why(story.seven, as_of=decision.created_at).built_on] == [story.refuse]
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/beliefs/{story.seven}", params={"as_of": before.isoformat()}, headers=HTML).text
    built = re.search(r"<h3>Decisions and their actions \(\d+\)</h3>\s*<ul>(.*?)</ul>\s*<h3>", page, re.S)
    assert built is not None and text_of(built.group(1)).strip() == "No decision cites it."


def test_a_page_as_of_a_moment_links_a_belief_not_believed_then_to_its_page_now(client: TestClient, db_url: str,
                                                                                 story: Story) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        fifteen = publish_v33(db)
        then = db.why(fifteen).belief.recorded_at
        assert db.why(story.seven).belief.status == "superseded"
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/beliefs/{fifteen}", params={"as_of": then.isoformat()}, headers=HTML).text
    # the 7 days, superseded by then, is linked to its page now (not believed then)
    assert f'href="/beliefs/{story.seven}?as_of=' not in page
    assert f'href="/beliefs/{story.seven}"' in page
    for link in set(re.findall(r'href="(/(?:beliefs|decisions|actions)/[^"]+)"', page)):
        assert client.get(link.replace("&amp;", "&"), headers=HTML).status_code in (200, 303), link
