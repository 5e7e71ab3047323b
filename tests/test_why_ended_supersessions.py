"""`why` says of each supersession in a belief's history whether it is still in effect (rule 3): one
that ended (rule 8 settled the pair the other way: ``relation.ended_at``) with the moment it ended, one
whose superseder no longer holds as not in effect. It said "replaced by ..." of both, so a belief
current again read as replaced: the 30 days of rule 3's example (30, then 60, then 90 elsewhere, then
30 again), and the 50 days a source went back to (50, 60, 50). Text and --json (``ended``,
``in_effect``), now and as of a moment."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from conftest import Cli
from fastapi.testclient import TestClient
from web_pages import HTML, sign_in

from beliefdb import api
from beliefdb.interfaces.http import create_app


def ingest(cli: Cli, doc: Path, days: int, source: str) -> list[str]:
    """A new text of ``source`` saying the return window is ``days`` days; the ids of the beliefs it added."""
    doc.write_text(f"The return window is {days} days.\n", encoding="utf-8")
    return [b["id"] for b in cli.json("ingest", str(doc), "--source", source)["accepted"]]


def history_line(text: str, start: str) -> str:
    (line,) = [x for x in text.splitlines() if x.startswith(start)]
    return line


def test_why_says_a_supersession_ended_when_rule_8_settled_the_pair_again(cli: Cli, write_doc: Any) -> None:
    p, q = write_doc("p.md", ""), write_doc("q.md", "")
    (thirty,) = ingest(cli, p, 30, "P")
    (sixty,) = ingest(cli, p, 60, "P")
    (ninety,) = ingest(cli, q, 90, "Q")
    assert ingest(cli, p, 30, "P") == []  # (the 30 days again: re-verified, current again)

    why = cli.json("why", thirty)
    assert why["belief"]["status"] == "current"
    (by,) = why["replaced_by"]
    assert (by["new_belief"], by["in_effect"]) == (sixty, False) and by["ended"] is not None
    (replaced,) = why["replaced"]
    assert (replaced["old_belief"], replaced["in_effect"], replaced["ended"]) == (ninety, True, None)
    text = cli("why", thirty).stdout
    assert history_line(text, f"  replaced by {sixty[:8]} ").endswith(
        f"— rule 8: stronger or more recent; ended at {by['ended']}, no longer in effect")
    assert history_line(text, f"  replaced {ninety[:8]} ").endswith("— rule 8: stronger or more recent")
    # the 60 days' side of the same supersession says so too; what replaced it (the 90) is in effect
    text = cli("why", sixty).stdout
    assert history_line(text, f"  replaced {thirty[:8]} ").endswith(f"; ended at {by['ended']}, no longer in effect")
    assert history_line(text, f"  replaced by {ninety[:8]} ").endswith("— rule 8: stronger or more recent")

    # as of a moment before it ended, it was in effect then (and had not ended)
    at, ended = datetime.fromisoformat(by["at"]), datetime.fromisoformat(by["ended"])
    before = at + (ended - at) / 2
    then = cli.json("why", thirty, "--as-of", before.isoformat())
    assert then["belief"]["status"] == "superseded"
    assert [(h["new_belief"], h["ended"], h["in_effect"]) for h in then["replaced_by"]] == [(sixty, None, True)]
    assert history_line(cli("why", thirty, "--as-of", before.isoformat()).stdout,
                        f"  replaced by {sixty[:8]} ").endswith("— rule 8: stronger or more recent")


def test_why_says_a_supersession_whose_superseder_stopped_holding_is_not_in_effect(cli: Cli,
                                                                                   write_doc: Any) -> None:
    p = write_doc("p.md", "")
    (fifty,) = ingest(cli, p, 50, "P")
    (sixty,) = ingest(cli, p, 60, "P")
    ingest(cli, p, 50, "P")  # (the 60 days loses its quote: it no longer holds)

    why = cli.json("why", fifty)
    assert why["belief"]["status"] == "current"
    assert [(h["new_belief"], h["ended"], h["in_effect"]) for h in why["replaced_by"]] == [(sixty, None, False)]
    assert history_line(cli("why", fifty).stdout, f"  replaced by {sixty[:8]} ").endswith(
        f"— rule 8: stronger or more recent; not in effect: {sixty[:8]} does not hold")
    assert history_line(cli("why", sixty).stdout, f"  replaced {fifty[:8]} ").endswith(
        "; not in effect: this belief does not hold")


def test_the_belief_page_says_a_supersession_ended_too(cli: Cli, write_doc: Any, db_url: str) -> None:
    """(review) The product view's belief page said "It was replaced by" the 60 days of a 30 days current again."""
    p, q = write_doc("p.md", ""), write_doc("q.md", "")
    (thirty,) = ingest(cli, p, 30, "P")
    (sixty,) = ingest(cli, p, 60, "P")
    ingest(cli, q, 90, "Q")
    ingest(cli, p, 30, "P")
    with TestClient(create_app(db_url, mcp=False), base_url="http://testserver", follow_redirects=False) as client:
        sign_in(client, api.create_token("default", "rita", read_only=True, url=db_url).token)
        page = client.get(f"/beliefs/{thirty}", headers=HTML).text
    replaced_by = page.split("<h3>It was replaced by</h3>")[1].split("</ul>")[0]
    assert f'href="/beliefs/{sixty}' in replaced_by and "no longer in effect" in replaced_by
