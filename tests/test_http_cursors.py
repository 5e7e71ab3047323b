"""A malformed page cursor (``?after=zz``, not an id nor a prefix of one) was 404 at GET /beliefs
(``unknown belief``: as if a belief had been looked for) and 400 at GET /review-items: every list
endpoint answers it 400, on one line, in the same words. A well-formed cursor that names nothing
stays 404 (an unknown item: the page before it is gone)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from serving import bearer, refused

LISTS = ("/beliefs", "/decisions", "/actions", "/review-items")


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize("cursor", ["zz", "0123-zz", "not an id", "é", "012", "", "0" * 33])
def test_a_malformed_cursor_is_400_in_the_same_words_at_every_list(http_client: TestClient, db_url: str,
                                                                   path: str, cursor: str) -> None:
    said = refused(http_client.get(path, params={"after": cursor}, headers=bearer(db_url)), 400, "invalid_input")
    assert said == (f"after: {cursor!r} is not an id (a UUID or at least 4 of its first hex digits: the last id"
                    " of the page before)"), said


@pytest.mark.parametrize("path", LISTS)
def test_a_well_formed_cursor_that_names_nothing_is_still_404(http_client: TestClient, db_url: str,
                                                              path: str) -> None:
    answer = http_client.get(path, params={"after": "00000000-0000-0000-0000-000000000000"}, headers=bearer(db_url))
    assert answer.status_code == 404, answer.text


@pytest.mark.parametrize(("path", "cursor"), [("/jobs", "before"), ("/runs", "offset")])
def test_a_number_cursor_that_is_no_number_is_400(http_client: TestClient, db_url: str, path: str,
                                                  cursor: str) -> None:
    refused(http_client.get(path, params={cursor: "zz"}, headers=bearer(db_url)), 400, "invalid_input")
