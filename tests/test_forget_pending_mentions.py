"""Forgetting a person (rule 14 of docs/rules.md) lists where the texts waiting to be stored still name
them, as it lists the stored ones (``text_mentions``): a document in the queue a worker has not ingested
yet, a version proposed to a source's owner, a correction proposed to a belief's owner
(``pending_mentions``, kind queued or proposed). With ``mask_mentions`` the name is masked there too, so
that the worker, or the owner's approval, does not bring it back into the store after the forget."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from forgets import forget

import beliefdb
from beliefdb import errors

MASK = "\u2588"
NEWS = "# News\nOur new colleague Maya starts on Monday; Mayan art is on the wall.\n"
TEAM = "# Team\nThe team grows by one.\n"


def payload_texts(conn: psycopg.Connection[Any]) -> list[str]:
    return [r[0] for r in conn.execute("select payload ->> 'text' from beliefdb.job order by id")]


def stored(conn: psycopg.Connection[Any]) -> str:
    return str(conn.execute("select array_agg(content order by recorded_at) from beliefdb.source_version").fetchone())


def test_a_queued_document_naming_the_person_is_listed_then_masked_on_request(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    (job,) = bdb.submit(text=NEWS, source="news.md")
    preview = bdb.forget(subject="maya", preview=True)
    [queued] = preview.pending_mentions
    assert (queued.kind, queued.id, queued.source, queued.status, queued.count, queued.masked) == (
        "queued", str(job), "news.md", "queued", 1, False)
    assert f"colleague {MASK * 4} starts" in queued.excerpt and "Maya " not in queued.excerpt
    assert "worker" in queued.hint and "--mask-mentions" in queued.hint
    assert preview.text_mentions == []  # (nothing stored names her but what goes)
    masked = bdb.forget(subject="maya", preview=True, mask_mentions=True)
    assert [(m.kind, m.masked) for m in masked.pending_mentions] == [("queued", True)]
    assert masked.jobs == preview.jobs + 1
    assert payload_texts(postgresql) == [NEWS]  # a preview writes nothing
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    assert done.pending_mentions == masked.pending_mentions and done.jobs == masked.jobs
    assert payload_texts(postgresql) == [NEWS.replace("Maya ", MASK * 4 + " ")]  # in place, Mayan stays
    postgresql.commit()
    # the worker stores the text as the forget left it: the name does not come back
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert "Maya " not in stored(postgresql) and MASK * 4 + " starts" in stored(postgresql)


def test_without_the_flag_the_queued_document_is_listed_and_stays(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    bdb.submit(text=NEWS, source="news.md")
    done = bdb.forget(subject="maya")
    assert [(m.kind, m.masked) for m in done.pending_mentions] == [("queued", False)]
    assert payload_texts(postgresql) == [NEWS]


def test_a_proposed_version_naming_the_person_is_listed_then_masked_and_keeps_no_claim_naming_them(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                   source="maya.md", text="Maya lives in Lisbon.\n")
    alice.remember("The team grows by one.", "team", "growth", "one", "The team grows by one", source="team.md",
                   text=TEAM)
    grown = TEAM + "Maya joins the team on Monday.\n"
    naming = bob.remember("Maya joins on Monday.", "team", "new_member", "Maya", "Maya joins the team on Monday",
                          source="team.md", text=grown)
    other = bob.remember("Someone new joins the team on Monday.", "team", "start_day", "Monday",
                         "Maya joins the team on Monday", source="team.md", text=grown)
    assert naming.proposed and other.proposed
    preview = alice.forget(subject="maya", preview=True)
    first, second = preview.pending_mentions
    assert (first.kind, first.id, first.source, first.status, first.field, first.owner, first.by, first.count) == (
        "proposed", str(naming.review_item), "team.md", "open", "content", "alice", "bob", 1)
    assert second.id == str(other.review_item)
    assert f"{MASK * 4} joins the team" in first.excerpt
    done = alice.forget(subject="maya", mask_mentions=True)
    assert [(m.kind, m.masked) for m in done.pending_mentions] == [("proposed", True), ("proposed", True)]
    assert done.proposals == 2
    proposals = dict(postgresql.execute("select id, proposal from beliefdb.review_item").fetchall())
    assert "Maya" not in str(proposals), proposals
    assert {p["content"] for p in proposals.values()} == {grown.replace("Maya", MASK * 4)}
    # the claim whose words name her goes (approved, it would store her name as a belief's); the other
    # stays, its quote masked as the text is
    assert proposals[naming.review_item]["claims"] == []
    [kept] = proposals[other.review_item]["claims"]
    assert kept["quote"] == MASK * 4 + " joins the team on Monday" and kept["value"] == "Monday"
    postgresql.commit()
    alice.resolve_review(other.review_item, "approved")
    postgresql.commit()
    assert "Maya" not in stored(postgresql)
    assert {b.value for b in alice.beliefs()} >= {"Monday", "one"}


def test_a_correction_proposed_naming_the_person_is_listed_and_not_rewritten(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, cli: Any) -> None:
    """A proposed correction is the proposer's typed words, which become the belief's own statement when
    its owner approves it: listed with who may reject it, never masked into another statement."""
    alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                   source="maya.md", text="Maya lives in Lisbon.\n")
    team = alice.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                          source="team.md", text=TEAM).accepted[0]
    asked = bob.apply_correction(team.id, "The team grows by one: Maya.", reviewer="bob", expect_revision=1)
    assert asked.proposed
    shown = cli("forget", "--subject", "maya", "--preview", "--as", "alice").output
    assert f"  proposed statement {asked.review_item} (a belief of alice's, open, 1x): " in shown, shown
    done = alice.forget(subject="maya", mask_mentions=True)
    [item] = done.pending_mentions
    assert (item.kind, item.field, item.owner, item.by, item.masked) == ("proposed", "statement", "alice", "bob",
                                                                         False)
    assert "reject" in item.hint
    (review,) = alice.review_items()
    assert review.id == asked.review_item


def test_masking_a_queued_document_another_submitted_is_their_call(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    alice.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                   source="maya.md", text="Maya lives in Lisbon.\n")
    bob.submit(text=NEWS, source="news.md")
    assert [(m.kind, m.owner) for m in alice.forget(subject="maya", preview=True).pending_mentions] == [
        ("queued", "bob")]
    # her forget masks what is hers to mask and lists bob's text as his call (it refused the whole forget
    # before, so she could not mask the name in her own texts while his job named the person)
    report = alice.forget(subject="maya", mask_mentions=True)
    [listed] = report.pending_mentions
    assert (listed.owner, listed.masked, report.jobs) == ("bob", False, 0)
    assert "only bob (or a login granted beliefdb_eraser) can mask the name in it" in listed.hint
    assert payload_texts(postgresql) == [NEWS]


def test_the_command_line_lists_the_waiting_texts(bdb: beliefdb.BeliefDB, cli: Any) -> None:
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    (job,) = bdb.submit(text=NEWS, source="news.md")
    result = cli("forget", "--subject", "maya", "--preview")
    assert result.exit_code == 0, result.output
    assert "still named in texts waiting to be stored (1 time(s) in 1 text(s)):" in result.output, result.output
    assert f"  queued job {job} (news.md, queued, 1x): " in result.output
    report = json.loads(forget(cli, "--subject", "maya", "--mask-mentions", "--json").stdout)
    assert [(m["kind"], m["id"], m["masked"]) for m in report["pending_mentions"]] == [("queued", str(job), True)]
    assert all(m["kind"] not in ("queued", "proposed") for m in report["mentions"])


def test_a_preview_without_the_flag_does_not_let_the_forget_mask_the_queue(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Rule 7: the apply does what its preview showed. Masking the name in a queued document alone counted
    in no figure of the fingerprint, so a preview without mask_mentions let a forget with it mask the
    queue unseen: the jobs and proposals it masks are in the fingerprint."""
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    bdb.submit(text=NEWS, source="news.md")
    plain = bdb.forget(subject="maya", preview=True)
    masked = bdb.forget(subject="maya", preview=True, mask_mentions=True)
    assert plain.redacted == masked.redacted and plain.fingerprint() != masked.fingerprint()
    postgresql.commit()
    with pytest.raises(errors.StalePreview):
        bdb.forget(subject="maya", expect=plain.fingerprint(), mask_mentions=True)
    assert payload_texts(postgresql) == [NEWS]
    bdb.forget(subject="maya", expect=masked.fingerprint(), mask_mentions=True)
    assert payload_texts(postgresql) == [NEWS.replace("Maya ", MASK * 4 + " ")]


def test_a_preview_shows_no_excerpt_of_another_principals_waiting_text(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB) -> None:
    """Text waiting to be stored is not yet anyone's to read but its writer's and its owner's: bob's
    forget lists alice's queued document that names the person (that it does, and how often), with no
    excerpt of it; his own queued document's excerpt is shown. (Stored texts every principal reads.)"""
    bob.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "Maya lives in Lisbon",
                 source="maya.md", text="Maya lives in Lisbon.\n")
    (theirs,) = alice.submit(text=NEWS, source="news.md")
    (his,) = bob.submit(text="# Note\nMaya called about the contract.\n", source="note.md")
    preview = bob.forget(subject="maya", preview=True)
    listed = {m.id: m for m in preview.pending_mentions}
    assert set(listed) == {str(theirs), str(his)}
    assert (listed[str(theirs)].count, listed[str(theirs)].by, listed[str(theirs)].excerpt) == (1, "alice", None)
    assert listed[str(his)].excerpt is not None and f"{MASK * 4} called" in listed[str(his)].excerpt
