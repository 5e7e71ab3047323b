"""Rule 14 of docs/rules.md: what was forgotten in a version of a source stays forgotten when the line
it was in comes back to the source word for word, whichever version is in force then: a conversation cut
at its end (a later, shorter export) and then ingested whole again, grown in place by the turns it had;
a document or a conversation back at an earlier text. Its words stay masked where it is stored, and a
claim over them is rejected as ``forgotten``. Words nobody forgot are never masked: another line (a
line edited, another speaker's new turn where a forgotten turn was) is new text."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from conftest import Cli
from forgets import forget

import beliefdb
from beliefdb.models import Turn


def T(speaker: str, text: str, month: int, day: int = 1) -> Turn:
    return Turn(speaker, text, datetime(2026, month, day, 9, tzinfo=UTC))


def current(bdb: beliefdb.BeliefDB, subject: str) -> set[tuple[str, str]]:
    return {(b.attribute, b.value) for b in bdb.beliefs(subject=subject)}


def texts(conn: psycopg.Connection[Any]) -> str:
    """Every text the database keeps of sources: versions, fragments, evidence, and turns' speakers."""
    rows = conn.execute(
        "select coalesce(string_agg(v.content, ' '), '') from beliefdb.source_version v"
        " union all select coalesce(string_agg(f.text || ' ' || coalesce(f.speaker, ''), ' '), '')"
        " from beliefdb.fragment f"
        " union all select coalesce(string_agg(e.quote, ' '), '') from beliefdb.evidence e").fetchall()
    return " ".join(r[0] for r in rows)


# Tom's turn about Maya: forgetting the subject maya forgets the belief and masks its quote; Maya's own
# turns are what she said: forgetting her as a speaker masks them whole
CHAT = [T("Tom", "I live in Paris.", 1, 5), T("Ann", "Hello.", 1, 6),
        T("Tom", "I work as a nurse.", 1, 7), T("Maya", "I live in Berlin.", 1, 8)]


@pytest.mark.parametrize("more", [False, True], ids=["whole", "whole-and-a-turn-more"])
def test_a_forgotten_turn_cut_off_stays_forgotten_when_the_whole_chat_comes_back(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], more: bool) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    bdb.ingest_conversation(CHAT[:2], source="chat")
    result = bdb.forget(subject="maya")
    assert result.redacted >= 1
    assert "Berlin" not in texts(postgresql) and "Maya" not in texts(postgresql)

    again = [*CHAT, T("Ann", "Bye.", 2)] if more else CHAT
    preview = bdb.ingest_conversation(again, source="chat", preview=True)
    whole = bdb.ingest_conversation(again, source="chat")
    assert [a.value for a in preview.accepted] == [a.value for a in whole.accepted]
    assert whole.note.startswith("appended") and not whole.new_version
    assert [(r.quote, r.reason.split(":")[0]) for r in whole.rejected] == [("I live in Berlin.", "forgotten")]
    assert current(bdb, "maya") == set()
    # Tom's turn is his, back: the belief it supported before the cut is current again
    assert current(bdb, "tom") == {("lives_in", "Paris"), ("job", "nurse")}
    kept = texts(postgresql)
    assert "Berlin" not in kept and "Maya" not in kept
    assert postgresql.execute("select count(*) from beliefdb.fragment where speaker = 'Maya'").fetchone() == (0,)
    assert bdb.audit_verify().ok
    # and once more: the text in force, what was forgotten in it still forgotten
    once_more = bdb.ingest_conversation(again, source="chat")
    assert not once_more.new_version and once_more.accepted == []
    assert current(bdb, "maya") == set()


def test_a_forgotten_belief_cut_off_stays_forgotten_when_the_whole_chat_comes_back(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    (nurse,) = [b for b in bdb.beliefs(subject="tom") if b.value == "nurse"]
    bdb.ingest_conversation(CHAT[:2], source="chat")
    bdb.forget(belief=nurse.id)
    assert "nurse" not in texts(postgresql)

    whole = bdb.ingest_conversation(CHAT, source="chat")
    assert [(r.quote, r.reason.split(":")[0]) for r in whole.rejected] == [("I work as a nurse.", "forgotten")]
    assert current(bdb, "tom") == {("lives_in", "Paris")}
    assert current(bdb, "maya") == {("lives_in", "Berlin")}
    assert "nurse" not in texts(postgresql)


def test_a_forgotten_speakers_turns_stay_forgotten_when_an_edited_chat_goes_back_to_its_text(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    bdb.forget(subject="maya")
    # edited before its end: a new version; then the first text again: a new version too
    bdb.ingest_conversation([T("Ann", "Hi all.", 1, 1), *CHAT[:3]], source="chat")
    back = bdb.ingest_conversation(CHAT, source="chat")
    assert back.new_version and back.version == 3
    assert [(r.quote, r.reason.split(":")[0]) for r in back.rejected] == [("I live in Berlin.", "forgotten")]
    assert current(bdb, "maya") == set()
    assert current(bdb, "tom") == {("lives_in", "Paris"), ("job", "nurse")}
    kept = texts(postgresql)
    assert "Berlin" not in kept and "Maya" not in kept


def test_a_document_cut_then_ingested_whole_again_keeps_what_was_forgotten_in_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    first = "The refund window is 30 days.\nDana's badge code is 4471."
    bdb.ingest_text(first, source="policy.md")
    (badge,) = bdb.beliefs(subject="dana")
    bdb.ingest_text("The refund window is 30 days.", source="policy.md")
    bdb.forget(belief=badge.id)
    assert "4471" not in texts(postgresql)

    back = bdb.ingest_text(first, source="policy.md")
    assert back.new_version and back.version == 3
    assert back.accepted == [] and [r.reason.split(":")[0] for r in back.rejected] == ["forgotten"]
    assert back.note == ("the same text as version 1: its beliefs are in force again"
                         " (what was forgotten in it stays forgotten)")
    assert "4471" not in texts(postgresql)
    assert bdb.beliefs(subject="dana") == []
    assert {b.value for b in bdb.beliefs(subject="refund_policy")} == {"30 days"}
    # a document edited elsewhere keeps the line forgotten; the line edited says what it says
    edited = bdb.ingest_text("The refund window is 45 days.\nDana's badge code is 4471.", source="policy.md")
    assert edited.new_version and [a.subject for a in edited.accepted] == ["refund_policy"]
    assert [r.reason.split(":")[0] for r in edited.rejected] == ["forgotten"]
    assert "4471" not in texts(postgresql)
    changed = bdb.ingest_text("The refund window is 45 days.\nDana's badge code is 5582.", source="policy.md")
    assert [(a.subject, a.value) for a in changed.accepted] == [("dana", "5582")]
    # and another source is another text: forgetting was of this one's words
    other = bdb.ingest_text("Dana's badge code is 4471.", source="badges.md")
    assert [(a.subject, a.value) for a in other.accepted] == [("dana", "4471")]


def test_a_forgotten_subjects_quote_in_anothers_turn_stays_masked_when_the_turn_comes_back(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    chat = [*CHAT[:2], T("Tom", "Dana's badge code is 4471.", 1, 9)]
    bdb.ingest_conversation(chat, source="chat")
    bdb.ingest_conversation(chat[:2], source="chat")
    bdb.forget(subject="dana")
    whole = bdb.ingest_conversation(chat, source="chat")
    assert [(r.quote, r.reason.split(":")[0]) for r in whole.rejected] == [("Dana's badge code is 4471.", "forgotten")]
    assert bdb.beliefs(subject="dana") == []
    assert "4471" not in texts(postgresql)
    # Tom's turn is a turn again, his, its words masked (as in version 1, which kept it)
    turns = postgresql.execute(
        "select v.version, f.text from beliefdb.fragment f"
        " join beliefdb.source_version v on v.id = f.source_version_id"
        " where f.speaker = 'Tom' and f.spoken_at = %s order by v.version",
        (datetime(2026, 1, 9, 9, tzinfo=UTC),)).fetchall()
    assert [(v, set(t)) for v, t in turns] == [(1, {"\u2588"}), (2, {"\u2588"})]


def test_an_earlier_shorter_export_keeps_what_was_forgotten_in_the_turns_it_shares(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Maya spoke first and last; forgotten; then an export cut before her last turn: a new version (the
    text in force does not grow into it), whose first turn is hers, forgotten."""
    chat = [T("Maya", "My favorite food is sushi.", 1, 4), *CHAT]
    bdb.ingest_conversation(chat, source="chat")
    bdb.forget(subject="maya")
    cut = bdb.ingest_conversation(chat[:3], source="chat")
    assert cut.new_version and cut.version == 2
    assert [(r.quote, r.reason.split(":")[0]) for r in cut.rejected] == [("My favorite food is sushi.", "forgotten")]
    assert current(bdb, "maya") == set()
    assert current(bdb, "tom") == {("lives_in", "Paris")}
    kept = texts(postgresql)
    assert "sushi" not in kept and "Maya" not in kept
    # and the whole chat again grows it by the turns version 1 had, Maya's last one forgotten
    whole = bdb.ingest_conversation(chat, source="chat")
    assert whole.note.startswith("appended")
    assert [(r.quote, r.reason.split(":")[0]) for r in whole.rejected] == [
        ("My favorite food is sushi.", "forgotten"), ("I live in Berlin.", "forgotten")]
    assert current(bdb, "maya") == set()
    assert "Berlin" not in texts(postgresql)


def test_another_speakers_new_turn_where_a_forgotten_turn_was_is_kept(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """An untimed chat: Maya's last turn forgotten after a cut; the next export has, at the same place, a
    new turn by another speaker with the same words around it: nobody forgot those words."""
    chat = [Turn("Tom", "I live in Paris."), Turn("Maya", "I live in Berlin.")]
    bdb.ingest_conversation(chat, source="chat")
    bdb.ingest_conversation(chat[:1], source="chat")
    bdb.forget(subject="maya")
    grown = bdb.ingest_conversation([chat[0], Turn("Ann", "I live in Lisbon.")], source="chat")
    assert grown.note.startswith("appended") and grown.rejected == []
    assert current(bdb, "ann") == {("lives_in", "Lisbon")}
    assert "Lisbon" in texts(postgresql)
    assert postgresql.execute("select count(*) from beliefdb.fragment where speaker = 'Ann'").fetchone() == (1,)
    # and the same speaker's other words are another line too; her forgotten line again is not
    again = bdb.ingest_conversation([chat[0], Turn("Ann", "I live in Lisbon."), Turn("Maya", "I work as a pilot."),
                                     Turn("Maya", "I live in Berlin.")], source="chat")
    assert [(r.quote, r.reason.split(":")[0]) for r in again.rejected] == [("I live in Berlin.", "forgotten")]
    assert current(bdb, "maya") == {("job", "pilot")}
    assert "Berlin" not in texts(postgresql)


def test_a_chat_with_nothing_forgotten_grows_as_before(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT[:2], source="chat")
    grown = bdb.ingest_conversation(CHAT, source="chat")
    assert grown.note == "appended: 2 turns added to the text in force"
    assert postgresql.execute("select count(*) from beliefdb.redaction").fetchone() == (0,)


def test_masked_lines_are_recorded_with_a_keyed_digest_of_their_words(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text("The refund window is 30 days.\nDana's badge code is 4471.", source="policy.md")
    (badge,) = bdb.beliefs(subject="dana")
    bdb.forget(belief=badge.id)
    ((start, length, digest, salt),) = postgresql.execute(
        "select line_start, line_length, line_digest, line_salt from beliefdb.redaction").fetchall()
    (key,) = postgresql.execute("select key from beliefdb.audit_key").fetchone() or (None,)
    line = "Dana's badge code is 4471."
    assert (start, length) == (30, len(line))
    # the line's keyed digest, keyed again with its source's name and a random salt kept beside it
    # (revision 0050)
    words = hmac.new(bytes(key), b"line\x1f" + line.encode(), hashlib.sha256).digest()
    sourced = hmac.new(bytes(key), b"source\x1fpolicy.md\x1f" + words, hashlib.sha256).digest()
    assert len(bytes(salt)) == 16
    assert bytes(digest) == hmac.new(bytes(key), b"salted\x1f" + bytes(salt) + sourced, hashlib.sha256).digest()
    assert hashlib.sha256(line.encode()).digest() != bytes(digest) != words


def test_the_whole_chat_proposed_by_another_and_approved_keeps_what_was_forgotten(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Another principal's text is proposed as given, and its proposer told nothing of what was forgotten
    (else trying texts would tell them which words were); the owner's approval stores it masked, and the
    review history keeps it masked from then on."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_conversation(CHAT, source="chat")
        alice.ingest_conversation(CHAT[:2], source="chat")
        alice.forget(subject="maya")
        proposed = bob.ingest_conversation(CHAT, source="chat")
        assert proposed.proposed and proposed.rejected == []
        (item,) = alice.review_items()
        approved = alice.resolve_review(item.id, "approved")
        assert "forgotten" in str(approved)
        assert current(alice, "maya") == set()
        assert current(alice, "tom") == {("lives_in", "Paris"), ("job", "nurse")}
        kept = texts(postgresql)
        assert "Berlin" not in kept and "Maya" not in kept
        proposals = str(postgresql.execute("select proposal from beliefdb.review_item").fetchall())
        assert "Berlin" not in proposals and "Maya" not in proposals
        assert postgresql.execute("select count(*) from beliefdb.fragment where speaker = 'Maya'").fetchone() == (0,)


def test_another_principal_cannot_tell_which_words_were_forgotten(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Guessing the forgotten line (a preview or a proposal of each guess) answers every guess alike."""
    first = "The refund window is 30 days.\nDana's badge code is 47."
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text(first, source="policy.md")
        (badge,) = alice.beliefs(subject="dana")
        alice.ingest_text("The refund window is 30 days.", source="policy.md")
        alice.forget(belief=badge.id)
        answers = set()
        for guess in (46, 47, 48):
            text = f"The refund window is 30 days.\nDana's badge code is {guess}."
            preview = bob.ingest_text(text, source="policy.md", preview=True)
            answers.add((preview.proposed, len(preview.rejected), tuple(a.value for a in preview.accepted)))
        assert len(answers) == 1, answers


def test_a_documents_earlier_text_proposed_by_another_is_stored_masked_once_approved(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    first = "The refund window is 30 days.\nDana's badge code is 4471."
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text(first, source="policy.md")
        (badge,) = alice.beliefs(subject="dana")
        alice.ingest_text("The refund window is 30 days.", source="policy.md")
        alice.forget(belief=badge.id)
        proposed = bob.ingest_text(first, source="policy.md")
        assert proposed.proposed and proposed.rejected == []
        (item,) = alice.review_items()
        alice.resolve_review(item.id, "approved")
        assert alice.beliefs(subject="dana") == []
        assert "4471" not in texts(postgresql)
        assert "4471" not in str(postgresql.execute("select proposal from beliefdb.review_item").fetchall())


def test_a_document_with_crlf_breaks_keeps_its_forgotten_line_forgotten_with_lf_breaks(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text("The refund window is 30 days.\r\nDana's badge code is 4471.\r\n", source="policy.md")
    (badge,) = bdb.beliefs(subject="dana")
    bdb.forget(belief=badge.id)
    again = bdb.ingest_text("The refund window is 30 days.\nDana's badge code is 4471.\n", source="policy.md")
    assert [r.reason.split(":")[0] for r in again.rejected] == ["forgotten"] and again.accepted == []
    assert "4471" not in texts(postgresql)
    # and the other way round
    crlf = bdb.ingest_text("The refund window is 45 days.\r\nDana's badge code is 4471.\r\n", source="policy.md")
    assert [a.value for a in crlf.accepted] == ["45 days"] and "4471" not in texts(postgresql)


def test_a_turn_over_two_lines_forgotten_after_a_mention_in_it_stays_forgotten(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A second forget over lines an earlier one masked a word of: each line keeps the digest of its words
    as they were before the first."""
    chat = [T("Tom", "Zed's badge code is 1234.", 1, 5), T("Maya", "I met Zed today.\nI work as a pilot.", 1, 6)]
    bdb.ingest_conversation(chat, source="chat")
    (pilot,) = [b for b in bdb.beliefs(subject="maya") if b.value == "pilot"]
    bdb.ingest_conversation(chat[:1], source="chat")
    bdb.forget(subject="zed", mask_mentions=True)
    bdb.forget(belief=pilot.id)
    again = bdb.ingest_conversation(chat, source="chat")
    assert "pilot" not in texts(postgresql) and "Zed" not in texts(postgresql)
    assert current(bdb, "maya") == set() and again.accepted == []


def test_a_name_masked_in_a_speakers_label_stays_masked_in_the_turns_speaker(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    chat = [T("Tom", "Hi.", 1, 5), T("Maya's phone", "Maya's badge code is 4471.", 1, 6)]
    bdb.ingest_conversation(chat, source="chat")
    bdb.ingest_conversation(chat[:1], source="chat")
    bdb.forget(subject="maya", mask_mentions=True)
    bdb.ingest_conversation(chat, source="chat")
    speakers = {r[0] for r in postgresql.execute("select speaker from beliefdb.fragment where speaker is not null")}
    assert speakers == {"Tom", "\u2588\u2588\u2588\u2588's phone"}, speakers
    assert "Maya" not in texts(postgresql)


def test_in_an_untimed_chat_the_same_speakers_same_words_again_are_the_forgotten_line(
        bdb: beliefdb.BeliefDB) -> None:
    """A line of an untimed chat is its speaker and words: said again later, word for word, it is the line
    forgotten (a timed chat's line has its time, and is another line)."""
    chat = [Turn("Tom", "I live in Paris."), Turn("Ann", "Hi."), Turn("Tom", "I work as a nurse.")]
    bdb.ingest_conversation(chat, source="chat")
    (nurse,) = [b for b in bdb.beliefs(subject="tom") if b.value == "nurse"]
    bdb.forget(belief=nurse.id)
    again = bdb.ingest_conversation([*chat, Turn("Ann", "What now?"), Turn("Tom", "I work as a nurse.")], source="chat")
    # (the turn forgotten, in the text in force, and the same words said again)
    assert [r.reason.split(":")[0] for r in again.rejected] == ["forgotten", "forgotten"]
    assert current(bdb, "tom") == {("lives_in", "Paris")}


ALICE = "Alice: I live in Oslo.\nBob: Hi there.\nAlice: Can you update my shipping address?\nBob: Is it urgent?\n"


def test_a_forgotten_turn_is_reported_as_forgotten_without_its_words_when_the_chat_comes_back(
        cli: Cli, tmp_path: Any) -> None:
    """A user's trial: re-ingesting alice.md after forget --subject alice listed her masked turn "Can you
    update my shipping address?" as a no_pattern sentence, with the hint that skipped turns are kept as
    fragments. It is forgotten, not kept, and the report must not repeat its words."""
    chat = tmp_path / "alice.md"
    chat.write_text(ALICE, encoding="utf-8")
    first = cli.json("ingest", chat, "--format", "chat", "--no-embed")
    assert [s["quote"] for s in first["skipped"]] == ["Can you update my shipping address?", "Is it urgent?"]
    forget(cli, "--subject", "alice")
    for preview in ([], ["--preview"]):
        again = cli.json("ingest", chat, "--format", "chat", "--no-embed", *preview)
        assert [(s["start"], s["end"], s["reason"], s["quote"]) for s in again["skipped"]] == [
            (first["skipped"][0]["start"], first["skipped"][0]["end"], "forgotten", ""),
            (first["skipped"][1]["start"], first["skipped"][1]["end"], "no_pattern", "Is it urgent?")]
        assert "shipping" not in str(again["skipped"]) + str(again["hint"])
        shown = cli("ingest", chat, "--format", "chat", "--no-embed", *preview).output
        assert "shipping" not in shown and "Is it urgent?" in shown
        assert "forgotten (forgotten before in this source" in shown
    # every skipped turn forgotten: no hint that they are kept as fragments
    only = tmp_path / "only.md"
    only.write_text("Alice: I live in Oslo.\nAlice: Can you update my shipping address?\n", encoding="utf-8")
    cli("ingest", only, "--format", "chat", "--no-embed")
    forget(cli, "--subject", "alice")
    shown = cli("ingest", only, "--format", "chat", "--no-embed").output
    assert "shipping" not in shown and "hint" not in shown and "kept as fragments" not in shown


def test_a_bulk_ingest_reports_what_was_forgotten_in_its_sources_without_its_words(cli: Cli, tmp_path: Any) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    text = "The refund window is 30 days.\nDana's badge code is 4471.\nIs Dana's badge still valid?\n"
    (docs / "policy.md").write_text(text, encoding="utf-8")
    cli("ingest", docs, "--no-embed")
    (docs / "policy.md").write_text("The refund window is 30 days.\n", encoding="utf-8")
    cli("ingest", docs, "--no-embed")
    forget(cli, "--subject", "dana", "--mask-mentions")  # (her name masked where it was typed, the question too)
    (docs / "policy.md").write_text(text, encoding="utf-8")
    shown = cli("ingest", docs, "--bulk", "--no-embed").output
    assert "rejected" in shown and "produced no belief" in shown, shown
    assert "Dana" not in shown and "4471" not in shown, shown
    (docs / "policy.md").write_text(text + "Refunds go to the card.\n", encoding="utf-8")
    reported = cli.json("ingest", docs, "--bulk", "--no-embed")
    # (a claim rejected as forgotten names the quote the caller gave, as plain ingest does)
    skipped = [s for r in reported["reports"] for s in r["skipped"]]
    assert skipped and "Dana" not in str(skipped) and "Dana" not in str(reported["skipped"]), reported
