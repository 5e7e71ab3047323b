"""A user trial: ``GET /beliefs?as_of=2026-12-07T16:00:00+02:00``, the ``+`` not escaped, arrives as
``2026-12-07T16:00:00 02:00`` (a ``+`` in a URL's query is a space) and was refused with ``not an ISO 8601
timestamp: '2026-12-07T16:00:00 02:00'``, which did not say why. Wherever HTTP reads a moment from a
query string (the API's ``as_of``, the product view's filters) the refusal now says how to write it; the
space is still refused, not read as a ``+`` (it may be a ``-`` lost as well)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi.testclient import TestClient
from serving import bearer
from web_pages import HTML, client, sign_in  # noqa: F401  (client: the product view's fixture)

import beliefdb
from beliefdb import api

HINT = " (hint: a + in a URL is read as a space: write + as %2B in a URL (or use Z))"
SENT = "2026-12-07T16:00:00+02:00"


def test_a_plus_read_as_a_space_in_a_query_moment_is_hinted(bdb: beliefdb.BeliefDB, http_client: TestClient,
                                                             db_url: str) -> None:
    belief = bdb.remember("The restocking fee is 10%.", "restocking_policy", "fee", "10%", "10%",
                          source="policy.md", text="The restocking fee is 10%.").accepted[0].id
    for path in ("/beliefs", f"/beliefs/{belief}"):
        for sent, read in ((SENT, "2026-12-07T16:00:00 02:00"), ("2026-12-07T16:00+0200", "2026-12-07T16:00 0200"),
                           ("2026-12-07T16:00:00.5+02", "2026-12-07T16:00:00.5 02")):
            response = http_client.get(f"{path}?as_of={sent}", headers=bearer(db_url))
            expected = f"as_of: not an ISO 8601 timestamp: '{read}'{HINT}"
            assert (response.status_code, response.json()) == (400, {"error": "invalid_input", "message": expected})
        # written as the hint says, it is read
        for sent in (quote("2999-12-07T16:00:00+02:00"), "2999-12-07T14:00:00Z"):
            assert http_client.get(f"{path}?as_of={sent}", headers=bearer(db_url)).status_code == 200, (path, sent)
        # no hint for a moment wrong otherwise
        said = http_client.get(f"{path}?as_of=yesterday", headers=bearer(db_url)).json()["message"]
        assert said == "as_of: not an ISO 8601 timestamp: 'yesterday'", said
    # a body's moment is JSON, not a URL: its space is no +
    said = http_client.post("/ask", json={"question": "fee?", "as_of": "2026-12-07T16:00:00 02:00"},
                            headers=bearer(db_url)).json()["message"]
    assert said == "as_of: not an ISO 8601 timestamp: '2026-12-07T16:00:00 02:00'", said


def test_the_product_views_filters_hint_it_too(client: TestClient, db_url: str) -> None:  # noqa: F811
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    for name in ("as_of", "since", "until"):
        page = client.get(f"/?{name}={SENT}", headers=HTML)
        assert page.status_code == 400, page.text
        assert "write + as %2B in a URL (or use Z)" in page.text, page.text
