"""The product view's server side on a database without the return-policy story (the tests that start
from it are in tests/test_web.py, tests/test_web_lead.py and tests/test_web_trial.py, each of which
clones it from a template): signing in with a token kept in an HttpOnly, SameSite=Strict cookie; the
belief page marks each quote in its source text (escaped); a run's trace and the repair plan of a
memory named faulty; a confirmed retraction applies only what its preview showed, even against a
writer meanwhile; a NUL in an address is a page saying why; the sign-in page's token command works;
a run step names the step it reads once."""

from __future__ import annotations

import re
import threading
import time

import psycopg
import pytest
import web_pages
from conftest import Cli
from fastapi.testclient import TestClient
from web_pages import HTML, sign_in, text_of

import beliefdb
from beliefdb import api
from beliefdb.interfaces.web.session import COOKIE

client = web_pages.client


def test_signing_in_keeps_the_token_in_a_strict_http_only_cookie(client: TestClient, db_url: str) -> None:
    to_signin = client.get("/review", headers=HTML)
    assert to_signin.status_code == 303 and to_signin.headers["location"] == "/signin?next=/review"
    bad = client.post("/signin", data={"token": "bdb_nope"}, headers=HTML)
    assert bad.status_code == 401 and "Not signed in: that token is unknown or revoked." in bad.text
    assert COOKIE not in bad.cookies
    made = api.create_token("default", "alice", url=db_url)
    response = client.post("/signin", data={"token": made.token, "next": "https://elsewhere.example/"},
                           headers=HTML)
    assert response.status_code == 303 and response.headers["location"] == "/"  # never to another site
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}={made.token};") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    page = client.get("/review", headers=HTML)
    assert page.status_code == 200 and "alice" in page.text and "<title>Review queue · beliefdb</title>" in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert page.headers["x-content-type-options"] == "nosniff" and page.headers["cache-control"] == "no-store"
    # revoked: the next click is the sign-in page with one line saying why, and the cookie goes
    api.revoke_token(str(made.id), url=db_url)
    gone = client.get("/review", headers=HTML)
    assert gone.status_code == 401 and 'role="alert"' in gone.text and "Signed out:" in gone.text
    assert f'{COOKIE}=""' in gone.headers["set-cookie"]
    out = client.post("/signout", headers=HTML)
    assert out.status_code == 303 and out.headers["location"] == "/signin"
    assert f'{COOKIE}=""' in out.headers["set-cookie"]


def test_the_belief_page_marks_each_quote_in_its_source_text_escaped(client: TestClient, db_url: str) -> None:
    text = "# <b>Notes</b> & more\n\nThe restocking fee is 10%.\n"
    with beliefdb.connect(db_url, principal="alice") as db:
        report = db.ingest_text(text, source="notes <x>.md", authority="official")
        (fee,) = report.accepted
        (evidence,) = db.why(fee.id).evidence
        derived = db.derive("Restocking costs a tenth of the price.", "restocking_policy", "share", "a tenth",
                            [fee.id])
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/beliefs/{fee.id}", headers=HTML).text
    start = text.index("The restocking fee is 10%.")
    assert (evidence.start_offset, evidence.end_offset) == (start, start + len("The restocking fee is 10%."))
    assert ("# &lt;b&gt;Notes&lt;/b&gt; &amp; more\n\n<mark>The restocking fee is 10%.</mark>\n</blockquote>"
            in page)
    assert "notes &lt;x&gt;.md version 1" in page and "<b>" not in page
    assert (f'<ul class="derived"><li><a href="/beliefs/{derived.id}">Restocking costs a tenth of the price.</a>'
            " [current]</li>") in page


@pytest.mark.slow
def test_a_run_page_shows_the_trace_and_the_repair_plan_of_a_faulty_memory(client: TestClient,
                                                                           db_url: str) -> None:
    workspace = api.demo("repair", say=lambda _: None, url=db_url, keep=True)
    sign_in(client, api.create_token(workspace, "demo", url=db_url).token)
    runs = client.get("/runs", headers=HTML)
    assert runs.status_code == 200 and "get to know traveller 42" in runs.text
    with beliefdb.connect(db_url, workspace) as db:
        first = next(r for r in db.runs() if r.task == "get to know traveller 42")
        steps = db.run_trace(first.id).steps
        written = {n.id for n in db.run_graph(first.id).nodes if n.kind == "belief"}
        memories = {b.id: b for b in db.beliefs(include_all=True) if b.id in written}
        # the demo repaired the Gold tier already: a memory of the run still standing is named instead
        tier = next(b for b in memories.values() if "Gold" in b.value)
        other = next(b for b in memories.values() if b.status != "retracted")
        plan = db.repair_plan([other.id])
    page = client.get(f"/runs/{first.id}", headers=HTML)
    assert page.status_code == 200 and all(f'id="step-{s.id}"' in page.text for s in steps)
    assert f'<option value="{other.id}"' in page.text  # a memory the run wrote, to name as faulty
    assert f'<option value="{tier.id}"' not in page.text  # (not one a repair deleted)
    planned = client.get(f"/runs/{first.id}", params={"faulty": str(other.id)}, headers=HTML).text
    for action in ("delete", "quarantine", "invalidate", "replay", "preserve"):
        shown = re.search(rf'<ul class="plan-{action}">(.*?)</ul>', planned, re.S)
        assert shown is not None, action
        assert shown.group(1).count("<li>") == max(len(plan.of(action)), 1), action
    assert 'role="img"' in planned
    # the memory the demo's repair deleted is no faulty memory to plan again: said in words
    again = client.get(f"/runs/{first.id}", params={"faulty": str(tier.id)}, headers=HTML)
    assert again.status_code == 400 and "is retracted already" in again.text, again.text[:300]


def test_a_confirmed_retraction_applies_only_what_its_preview_showed_even_against_a_writer_meanwhile(
        db_url: str) -> None:
    """The confirm step (``retract(expect=fingerprint)``) takes the preview again and applies it in one
    transaction holding the workspace's write lock: a writer that commits while it waits makes it
    stale (nothing written), never applied on top of a change the preview did not show."""
    from beliefdb.db.queries import Q
    from beliefdb.store import retraction

    with beliefdb.connect(db_url, principal="alice") as db, beliefdb.connect(db_url, principal="alice") as other:
        five, six = (db.remember(f"warehouse closes at {v}", "warehouse", "closing", v, q, source=s, text=q + "\n",
                                 authority="official", valid_from=since).accepted[0].id
                     for s, q, v, since in (("a.md", "It closes at 5pm.", "5pm", "2025-03-01T00:00:00+00:00"),
                                            ("b.md", "It closes at 6pm.", "6pm", "2025-04-01T00:00:00+00:00")))
        shown = db.preview_retract(source="b.md")
        assert shown.became_current == [five]  # what the reviewer saw: 5pm would be current again
        outcome: list[object] = []

        def confirm() -> None:
            try:
                outcome.append(db.retract(source="b.md", reason="wrong hours", expect=shown.fingerprint()))
            except beliefdb.errors.BeliefDBError as exc:
                outcome.append(exc)

        with other.database.transaction() as c:  # another writer, holding the workspace meanwhile
            c.execute(Q.lock_workspace)
            retraction.retract(other.database, source="a.md", reason="also wrong", conn=c)
            waiting = threading.Thread(target=confirm)
            waiting.start()
            # the confirm waits for the writer's lock (the only session of this test's database that can
            # wait on one), then judges what the writer committed
            with psycopg.connect(db_url, autocommit=True) as watcher:
                deadline = time.monotonic() + 30
                while watcher.execute("select count(*) from pg_stat_activity where datname = current_database()"
                                      " and wait_event_type = 'Lock'").fetchone() != (1,):
                    assert time.monotonic() < deadline, "the confirm never waited for the writer's lock"
                    time.sleep(0.01)
            assert waiting.is_alive()
        waiting.join(30)
        (stale,) = outcome
        assert isinstance(stale, beliefdb.errors.StalePreview), stale
        assert stale.code == "stale_preview"
        assert db.why(six).belief.status == "current"  # b.md not retracted: nothing written
        fresh = db.preview_retract(source="b.md")
        assert fresh.became_current == [] and fresh.fingerprint() != shown.fingerprint()
        done = db.retract(source="b.md", reason="wrong hours", expect=fresh.fingerprint())
        assert done.fingerprint() == fresh.fingerprint() and db.why(six).belief.status != "current"


def test_a_nul_in_an_address_is_a_page_saying_why_not_json(client: TestClient, db_url: str) -> None:
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    for path in ("/?subject=%00", "/beliefs/%00", "/impact?ref=a%00b", "/decisions/x?as_of=%00"):
        page = client.get(path, headers=HTML)
        assert page.status_code == 400 and page.headers["content-type"].startswith("text/html"), (path, page.text)
        assert 'role="alert"' in page.text and "text may not contain NUL characters" in page.text
        assert '<nav aria-label="Main">' in page.text  # still signed in
        assert page.headers["content-security-policy"].startswith("default-src 'none'")
    assert client.get("/beliefs/%00").json()["error"] == "invalid_input"  # a script's request: JSON, as before


def test_the_sign_in_page_gives_a_token_command_that_works(client: TestClient, cli: Cli) -> None:
    said = re.search(r"<code>(beliefdb token create [^<]*)</code>", client.get("/signin", headers=HTML).text)
    assert said is not None
    args = said.group(1).split()[1:]
    made = cli(*[{"PRINCIPAL": "alice", "WORKSPACE": "default"}.get(a, a) for a in args])
    assert made.stdout.startswith("bdb_")


@pytest.mark.slow
def test_a_run_step_names_the_step_it_reads_once(client: TestClient, db_url: str) -> None:
    workspace = api.demo("repair", say=lambda _: None, url=db_url, keep=True)
    sign_in(client, api.create_token(workspace, "demo", url=db_url).token)
    with beliefdb.connect(db_url, workspace) as db:
        run = next(r for r in db.runs() if r.steps == max(x.steps for x in db.runs()))
    page = text_of(client.get(f"/runs/{run.id}", headers=HTML).text)
    assert "cites step 1. memory_read" in page and "step step" not in page


def test_a_run_page_offers_only_the_memories_the_run_wrote_as_faulty(client: TestClient, db_url: str) -> None:
    with beliefdb.connect(db_url, principal="alice") as db:
        (fee,) = db.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="official").accepted
        step = db.record_step("claim", {"text": "fee?"}, task="price a return", inputs=[("derives", fee.id)],
                              memory={"subject": "return 7", "attribute": "fee", "value": "10%"})
        assert step.memory is not None
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    page = client.get(f"/runs/{step.run}", headers=HTML)
    assert page.status_code == 200, page.text[:300]
    assert f'<option value="{step.memory}"' in page.text  # what the run wrote
    # what the run rested on is a quoted belief: no memory, and a repair of it would be refused (400)
    assert f'<option value="{fee.id}"' not in page.text


def test_a_bidi_override_in_stored_text_is_shown_as_a_mark_not_applied(client: TestClient, db_url: str) -> None:
    """U+202E in a quote or a source's name reversed what the page said after it (its status, the next
    belief) to the end of the block or the picture's label: 'current' read as 'tnerruc'."""
    text = "The restocking fee is 10%\u202e of the price.\n"
    with beliefdb.connect(db_url, principal="alice") as db:
        (fee,) = db.ingest_text(text, source="notes\u202e.md", authority="official").accepted
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    for path in (f"/beliefs/{fee.id}", "/", f"/impact?ref={fee.id}"):
        page = client.get(path, headers=HTML)
        assert page.status_code == 200, page.text
        assert "\u202e" not in page.text, path
        assert "10%[U+202E] of" in page.text, path
    assert "notes[U+202E].md" in client.get(f"/beliefs/{fee.id}", headers=HTML).text


def test_the_belief_page_says_when_the_belief_is_valid_in_utc(client: TestClient, db_url: str) -> None:
    """The belief page said when a belief was recorded, never when it is valid: an expired belief's page said
    "expired" without when it ended, and one valid from a date in Berlin said nothing of it, where `why`,
    `--json`, HTTP and MCP all give the valid time. It is shown in UTC, as every time the page shows."""
    text = "Maya lives in Lisbon.\nThe desk was open.\nMaya likes tea.\n"
    with beliefdb.connect(db_url, principal="alice") as db:
        lisbon = db.remember("Maya lives in Lisbon", "maya", "lives_in", "Lisbon", "Maya lives in Lisbon.",
                             source="notes.md", text=text, valid_from="2026-03-29T03:30:00+02:00").accepted[0]
        desk = db.remember("The desk was open", "desk", "open", "yes", "The desk was open.", source="notes.md",
                           valid_from="2020-01-01T00:00:00-08:00", valid_to="2020-06-01T00:00:00Z").accepted[0]
        tea = db.remember("Maya likes tea", "maya", "likes", "tea", "Maya likes tea.", source="notes.md").accepted[0]
    sign_in(client, api.create_token("default", "alice", url=db_url).token)
    said = {name: text_of(client.get(f"/beliefs/{b.id}", headers=HTML).text) for name, b in
            (("lisbon", lisbon), ("desk", desk), ("tea", tea))}
    assert "valid from 2026-03-29 01:30:00 UTC" in said["lisbon"], said["lisbon"]
    assert "valid from 2020-01-01 08:00:00 UTC until 2020-06-01 00:00:00 UTC" in said["desk"], said["desk"]
    assert "Status: expired" in said["desk"]
    assert "valid time not stated" in said["tea"], said["tea"]
