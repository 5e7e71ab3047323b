"""A version labelled with its own number (``--version-label v2`` on version 2) is named once: ``why``
printed "policy.md v2 v2", and ask "policy.md v2 (v2)" (a commit fixed it for impact only). A label
that says more (v3.2) is still printed beside the number."""

from __future__ import annotations

from typing import Any

from conftest import Cli
from fastapi.testclient import TestClient
from web_pages import HTML, sign_in

from beliefdb import api
from beliefdb.interfaces.http import create_app

Q7 = "Returns are accepted within 7 days of delivery."
Q15 = "Returns are accepted within 15 days of delivery."


def test_a_label_equal_to_the_version_number_is_said_once(cli: Cli, write_doc: Any, db_url: str) -> None:
    doc = write_doc("policy.md", Q7 + "\n")
    (old,) = [b["id"] for b in cli.json("ingest", doc, "--version-label", "v3.2")["accepted"]]
    doc.write_text(Q15 + "\n", encoding="utf-8")
    (new,) = [b["id"] for b in cli.json("ingest", doc, "--version-label", "V2")["accepted"]]

    text = cli("why", new).stdout
    assert "; policy.md v2 (in force)," in text and "v2 V2" not in text, text
    assert "; policy.md v1 v3.2 (history)," in cli("why", old).stdout

    answer = cli("ask", "how many days for returns?").stdout
    assert "policy.md v2," in answer and "(V2)" not in answer, answer
    context = cli.json("ask", "how many days for returns?")["context"]
    assert "source policy.md v2," in context and "(V2)" not in context, context
    assert "source policy.md v1 (v3.2)," in context, context

    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as client:
        sign_in(client, api.create_token("default", "rita", read_only=True, url=db_url).token)
        page = client.get(f"/beliefs/{new}", headers=HTML).text
    assert "policy.md version 2\n" in page and "(V2)" not in page
