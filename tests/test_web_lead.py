"""What a support lead reviewing the agents' memory in the browser found unclear or wrong on the pages
that change memory, each checked against what :class:`BeliefDB` (and so the CLI) says of the same
change: a retraction another principal must approve, what would be current again, paging the workspace,
and a confirmation that applies only the change its preview showed."""

from __future__ import annotations

import web_pages
from fastapi.testclient import TestClient
from product_story import Story, forum_post, publish_v33
from web_pages import HTML, sign_in, text_of

import beliefdb
from beliefdb import api

#: the app under a test client, and the story before v3.3 (shared with test_web)
client, story = web_pages.client, web_pages.story


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

