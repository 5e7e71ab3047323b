"""A scope names each condition once. ``ask --scope region=EU --scope region=US`` kept the last and asked
about the US alone, silently: it is a usage error (exit 2) naming the key. A JSON object may hold a name
twice as well (RFC 8259 only says it SHOULD not; Python's reader keeps the last, silently): a request
body whose ``scope`` names a condition twice is 400 ``invalid_input`` naming it, at POST /ask and POST
/beliefs, as any object of any body naming a key twice is (tests/test_http_keys_once.py). (A ``scope`` a
library caller gives is a mapping: one value per name.)"""

from __future__ import annotations

import json

from conftest import Cli
from fastapi.testclient import TestClient
from serving import bearer, refused


def test_the_cli_refuses_a_key_given_twice(cli: Cli) -> None:
    err = cli.error("ask", "how many days for returns?", "--scope", "region=EU", "--scope", "channel=web",
                    "--scope", "region=US", code="invalid_input", expect=2)
    assert "--scope" in err["message"] and "region" in err["message"] and "twice" in err["message"], err
    # the key as it is taken: spaces around it are not part of it
    line = cli.one_line_error("ask", "q", "--scope", "region=EU", "--scope", " region =EU")
    assert "region" in line and "twice" in line and "(see beliefdb ask --help)" in line, line
    assert cli("ask", "q", "--scope", "region=EU", "--scope", "channel=web", expect=None).exit_code == 0


def test_http_refuses_a_scope_naming_a_condition_twice(http_client: TestClient, db_url: str) -> None:
    headers = {**bearer(db_url), "Content-Type": "application/json"}
    twice = '{"question": "how many days?", "scope": {"region": "EU", "channel": "web", "region": "US"}}'
    said = refused(http_client.post("/ask", content=twice, headers=headers), 400, "invalid_input")
    assert said == "scope.region: given twice in one object: give it once", said
    remember = ('{"statement": "s", "subject": "a", "attribute": "b", "value": "c", "quote": "c", "source": "x",'
                ' "text": "c", "scope": {"region": "EU", "region": "EU"}}')
    said = refused(http_client.post("/beliefs", content=remember, headers=headers), 400, "invalid_input")
    assert said == "scope.region: given twice in one object: give it once", said
    # a scope with each name once is asked
    once = json.dumps({"question": "how many days?", "scope": {"region": "EU", "channel": "web"}})
    assert http_client.post("/ask", content=once, headers=headers).status_code == 200


def test_a_caller_without_a_valid_token_is_told_that_first(http_client: TestClient) -> None:
    """The body is checked for the caller the token names: without one (or with a bogus one) the answer is
    401, whatever the body says (it was 400 for a scope naming a condition twice)."""
    twice = '{"question": "how many days?", "scope": {"region": "EU", "region": "US"}}'
    for headers in ({"Content-Type": "application/json"},
                    {"Content-Type": "application/json", "Authorization": "Bearer bogus"}):
        for path in ("/ask", "/beliefs"):
            assert http_client.post(path, content=twice, headers=headers).status_code == 401, (path, headers)


def test_a_read_only_token_is_told_it_may_not_write_before_its_body_is_read(http_client: TestClient,
                                                                             db_url: str) -> None:
    headers = {**bearer(db_url, read_only=True), "Content-Type": "application/json"}
    remember = ('{"statement": "s", "subject": "a", "attribute": "b", "value": "c", "quote": "c", "source": "x",'
                ' "text": "c", "scope": {"region": "EU", "region": "EU"}}')
    refused(http_client.post("/beliefs", content=remember, headers=headers), 403, "read_only_token")
