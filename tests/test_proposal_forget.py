"""Forgotten words stay forgotten through a proposal (rule 14 of docs/rules.md): the lines a forget masked
in a version proposed to a source's owner (proposed directly, or by a queued job whose ingest became a
proposal) are recorded with the proposal, so that the version the owner's approval stores has them as
redaction rows, the owner's own ingest of the clear text while the proposal waits is masked, and a
rejected proposal's lines still mask the clear text the owner ingests later."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

import beliefdb

BASE = "# Badge\nDana's badge code is 4471.\n"
QUEUED = BASE + "Reminder for the desk: Dana's badge code is 4471.\nThe badge office is on floor 2.\n"
REMINDER = "Reminder for the desk: "


def kept(conn: psycopg.Connection[Any]) -> str:
    """Every text kept of the source: its versions, fragments, evidence, and the proposals' and jobs' texts (not
    the digests and salts of their forgotten lines, random hex that may hold any four digits)."""
    conn.commit()
    rows = conn.execute(
        "select coalesce(string_agg(v.content, ' '), '') from beliefdb.source_version v"
        " union all select coalesce(string_agg(f.text, ' '), '') from beliefdb.fragment f"
        " union all select coalesce(string_agg(e.quote, ' '), '') from beliefdb.evidence e"
        " union all select coalesce(string_agg((r.proposal - 'forgotten_lines')::text, ' '), '')"
        " from beliefdb.review_item r"
        " union all select coalesce(string_agg((j.payload - 'forgotten_lines')::text, ' '), '') from beliefdb.job j"
    ).fetchall()
    return " ".join(r[0] for r in rows)


def propose(bob: beliefdb.BeliefDB, worker: beliefdb.BeliefDB, alice: beliefdb.BeliefDB, queued: bool) -> None:
    """bob proposes QUEUED for alice's badge.md (queued: through a job the worker ingests after the forget),
    and alice forgets dana."""
    alice.ingest_text(BASE, source="badge.md", embed=False)
    if queued:
        bob.submit(text=QUEUED, source="badge.md")
        assert alice.forget(subject="dana").jobs == 1
        (outcome,) = worker.work(stop_when_empty=True, embed=False).outcomes
        assert outcome.status == "done"
        (job,) = worker.jobs()
        assert job.result is not None and job.result["proposed"] and job.result["version"] is None
    else:
        assert bob.ingest_text(QUEUED, source="badge.md", embed=False).proposed
        alice.forget(subject="dana")


@pytest.mark.parametrize("queued", [True, False], ids=["job-proposed", "proposed"])
def test_an_approved_proposal_keeps_the_forgotten_lines_of_its_text(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, bdb: beliefdb.BeliefDB,
        postgresql: psycopg.Connection[Any], queued: bool) -> None:
    """The version the owner approves is stored masked with its masked pieces' line records: the clear
    export ingested again by the owner is that version again, not a new one with the words in clear."""
    propose(bob, bdb, alice, queued)
    (item,) = alice.review_items()
    approved = alice.resolve_review(item.id, "approved")
    assert approved.status == "approved"
    rows = postgresql.execute(
        "select r.line_digest is not null from beliefdb.redaction r"
        " join beliefdb.source_version v on v.id = r.source_version_id"
        " where v.version = 2 and r.line_start = length(%s)", (BASE,)).fetchall()
    assert rows and all(r[0] for r in rows)  # the Reminder line's masked piece, with its digest
    again = alice.ingest_text(QUEUED, source="badge.md", embed=False)
    assert not again.new_version and again.version == 2 and again.accepted == []
    assert "4471" not in kept(postgresql)
    assert postgresql.execute("select count(*) from beliefdb.source_version").fetchone() == (2,)
    assert "dana" not in {b.subject for b in alice.beliefs(include_all=True)}


@pytest.mark.parametrize("queued", [True, False], ids=["job-proposed", "proposed"])
def test_the_owners_clear_export_is_masked_while_the_proposal_waits(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, bdb: beliefdb.BeliefDB,
        postgresql: psycopg.Connection[Any], queued: bool) -> None:
    """The owner ingests the clear export while bob's masked proposal of it waits: the line only the
    proposal had is masked in the version stored (the proposal's records are read as a version's)."""
    propose(bob, bdb, alice, queued)
    again = alice.ingest_text(QUEUED, source="badge.md", embed=False)
    assert again.new_version and again.version == 2
    assert [a.value for a in again.accepted] == ["on floor 2"]
    (content,) = postgresql.execute("select content from beliefdb.source_version where version = 2").fetchone()
    assert REMINDER in content and "4471" not in content
    assert "4471" not in kept(postgresql)
    assert "dana" not in {b.subject for b in alice.beliefs(include_all=True)}


@pytest.mark.parametrize("queued", [True, False], ids=["job-proposed", "proposed"])
def test_a_rejected_proposals_forgotten_lines_still_mask_the_owners_clear_export(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, bdb: beliefdb.BeliefDB,
        postgresql: psycopg.Connection[Any], queued: bool) -> None:
    """A rejected proposal stores no version, but the forget happened: its records stay with the resolved
    item, and the clear export the owner ingests later is stored masked."""
    propose(bob, bdb, alice, queued)
    (item,) = alice.review_items()
    alice.resolve_review(item.id, "rejected")
    (recorded,) = postgresql.execute("select proposal -> 'forgotten_lines' from beliefdb.review_item").fetchone()
    assert recorded and all(r["line_start"] == len(BASE) or r["line_start"] == len("# Badge\n") for r in recorded)
    again = alice.ingest_text(QUEUED, source="badge.md", embed=False)
    assert again.new_version and again.version == 2
    assert [a.value for a in again.accepted] == ["on floor 2"]
    assert "4471" not in kept(postgresql)
    assert "dana" not in {b.subject for b in alice.beliefs(include_all=True)}


def test_the_review_queue_shows_no_line_records(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The records are the forget's, for the owner's later texts: the review queue (the library's items and
    the review_queue view) shows a proposal without them."""
    alice.ingest_text(BASE, source="badge.md", embed=False)
    assert bob.ingest_text(QUEUED, source="badge.md", embed=False).proposed
    alice.forget(subject="dana")
    postgresql.commit()
    assert postgresql.execute("select count(*) from beliefdb.review_item where proposal ? 'forgotten_lines'"
                              ).fetchone() == (1,)
    (item,) = alice.review_items()
    assert item.proposal is not None and "forgotten_lines" not in item.proposal
    assert REMINDER in item.proposal["content"] and "4471" not in item.proposal["content"]
    assert postgresql.execute("select count(*) from beliefdb.review_queue where proposal ? 'forgotten_lines'"
                              ).fetchone() == (0,)
