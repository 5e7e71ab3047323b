"""The servers' callers are told the database cannot be reached (503 database_unavailable, Retry-After),
not how the server reaches it: the answer carried libpq's first line, which names the server's socket
path, or its database host and port, to any caller, one without a token too (a token cannot be looked up
while the database is down). The server's log keeps the reason; the library and the CLI, run by whoever
holds the URL, still say it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_pages import HTML

import beliefdb
from beliefdb import errors
from beliefdb.interfaces.http import create_app


@pytest.mark.parametrize("where", ["socket", "tcp"])
def test_a_server_does_not_tell_its_callers_how_it_reaches_the_database(
        where: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    gone = tmp_path / "no-server-here"
    if where == "socket":
        url, secrets = f"postgresql://dblogin7:pw-1@/beliefdb?host={gone}", [str(gone), "dblogin7", "pw-1"]
    else:
        url, secrets = "postgresql://dblogin7:pw-1@127.0.0.1:1/beliefdb", ["127.0.0.1", "dblogin7", "pw-1"]
    with caplog.at_level(logging.WARNING), TestClient(create_app(url, mcp=False)) as client:
        for headers in ({"Authorization": "Bearer bdb_whatever"}, {}):
            answer = client.get("/beliefs", headers=headers)
            assert answer.status_code == 503 and answer.json()["error"] == "database_unavailable", answer.text
            message = answer.json()["message"]
            assert message.startswith("cannot connect to the database"), message
            assert not [s for s in secrets if s in message], message
        client.cookies.set("beliefdb_token", "bdb_whatever")
        page = client.get("/review", headers=HTML)
        assert page.status_code == 503 and "cannot connect to the database" in page.text, page.text
        assert not [s for s in secrets[:2] if s in page.text], page.text
    # the operator reads why in the server's log
    assert any(secrets[0] in r.getMessage() for r in caplog.records if r.name.startswith("beliefdb")), caplog.text
    # the library (and so the CLI) still says it
    said = "cannot connect to the database: .*" + ("No such file" if where == "socket" else "127.0.0.1")
    with pytest.raises(errors.DatabaseUnavailable, match=said), beliefdb.connect(url) as db:
        db.beliefs()
