"""A conversation ingested again (rule 18 of docs/rules.md): the same chat file grown by turns grows its
version in place, so every earlier turn keeps its fragment and whatever became of its beliefs
(retracted, corrected); a conversation edited before its end is a new version whose quotes are
re-verified by the same turn only (another speaker who says the same words says them of themselves);
what was forgotten (rule 14) is not brought back by the file it came from; and a new version that
repeats a retracted belief's quote, or a retracted fragment's, leaves it retracted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.errors import InvalidInput
from beliefdb.models import Turn


def T(speaker: str, text: str, month: int, day: int = 1) -> Turn:
    return Turn(speaker, text, datetime(2026, month, day, 9, tzinfo=UTC))


def current(bdb: beliefdb.BeliefDB, subject: str) -> set[tuple[str, str]]:
    return {(b.attribute, b.value) for b in bdb.beliefs(subject=subject)}


def quoted_turns(bdb: beliefdb.BeliefDB, subject: str) -> dict[str, list[tuple[str | None, datetime | None, int]]]:
    """Each current belief of ``subject`` (by value): the speaker, time and version of the turns it quotes."""
    return {b.value: [(e.speaker, e.spoken_at, e.version) for e in bdb.why(b.id).evidence]
            for b in bdb.beliefs(subject=subject)}


def texts(conn: psycopg.Connection[Any]) -> str:
    """Every text the database keeps of sources: versions, fragments, evidence."""
    rows = conn.execute(
        "select coalesce(string_agg(v.content, ' '), '') from beliefdb.source_version v"
        " union all select coalesce(string_agg(f.text, ' '), '') from beliefdb.fragment f"
        " union all select coalesce(string_agg(e.quote, ' '), '') from beliefdb.evidence e").fetchall()
    return " ".join(r[0] for r in rows)


CHAT = [T("Maya", "I live in Berlin.", 1, 5), T("Tom", "I live in Paris.", 1, 6),
        T("Maya", "My favorite food is sushi.", 1, 7), T("Tom", "My favorite food is sushi.", 1, 8)]


def test_a_grown_chat_file_grows_its_version_and_a_retracted_belief_stays_retracted(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    berlin = next(b for b in bdb.beliefs(subject="maya") if b.value == "Berlin")
    bdb.retract(belief=berlin.id, reason="she moved before this chat")
    paris = next(b for b in bdb.beliefs(subject="tom") if b.value == "Paris")
    (paris_turn,) = bdb.why(paris.id).evidence
    bdb.retract(fragment=str(paris_turn.fragment_id), reason="Tom was joking")
    assert current(bdb, "tom") == {("favorite_food", "sushi")}

    grown = bdb.ingest_conversation([*CHAT, T("Tom", "I work as a nurse.", 2)], source="chat",
                                    version_label="February export")
    assert (grown.new_version, grown.version, grown.note) == (False, 1, "appended: one turn added to the text in force")
    assert [e.version_label for e in bdb.why(grown.accepted[0].id).evidence] == ["February export"]
    assert [(a.subject, a.value) for a in grown.accepted] == [("tom", "nurse")]
    assert grown.reverified == []
    # neither retraction is undone by the same words read again
    assert current(bdb, "maya") == {("favorite_food", "sushi")}
    assert current(bdb, "tom") == {("favorite_food", "sushi"), ("job", "nurse")}
    assert [b.status for b in bdb.beliefs(subject="maya", include_all=True) if b.value == "Berlin"] == ["retracted"]
    # one version, grown: the earlier turns kept their fragments (and the retraction of one)
    assert postgresql.execute("select count(*), max(version) from beliefdb.source_version").fetchone() == (1, 1)
    assert [e.fragment_id for e in bdb.why(paris.id).evidence] == [paris_turn.fragment_id]
    # audited as an ingest that grew the version, and the chain verifies
    (payload,) = postgresql.execute(
        "select e.payload from beliefdb.audit_event e where e.action = 'ingest' and e.payload ? 'appended'").fetchone()
    assert payload["appended"] is True and payload["version"] == 1 and payload["accepted"] == 1
    assert bdb.audit_verify().ok
    # and the same grown file again is the text in force: a no-op
    again = bdb.ingest_conversation([*CHAT, T("Tom", "I work as a nurse.", 2)], source="chat")
    assert not again.new_version and again.note == "unchanged: the same text as version 1, in force"
    assert again.accepted == [] and again.corroborated == []


def test_the_same_words_of_two_speakers_stay_each_ones_own(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    expected_maya = [("Maya", datetime(2026, 1, 7, 9, tzinfo=UTC))]
    expected_tom = [("Tom", datetime(2026, 1, 8, 9, tzinfo=UTC))]
    # grown at its end: the same version, the same fragments
    bdb.ingest_conversation([*CHAT, T("Ann", "Hello.", 2)], source="chat")
    assert [(s, t) for s, t, _ in quoted_turns(bdb, "maya")["sushi"]] == expected_maya
    assert [(s, t) for s, t, _ in quoted_turns(bdb, "tom")["sushi"]] == expected_tom
    # edited before its end (a turn put first): a new version, and each quote goes to its own turn
    edited = bdb.ingest_conversation([T("Ann", "Hi all.", 1, 1), *CHAT, T("Ann", "Hello.", 2)], source="chat")
    assert edited.new_version and edited.version == 2 and len(edited.reverified) == 4
    assert quoted_turns(bdb, "maya")["sushi"] == [(s, t, v) for v in (2, 1) for s, t in expected_maya]
    assert quoted_turns(bdb, "tom")["sushi"] == [(s, t, v) for v in (2, 1) for s, t in expected_tom]


def test_one_speaker_saying_a_value_again_keeps_each_statement_at_its_own_time(bdb: beliefdb.BeliefDB) -> None:
    said = [T("Maya", "I live in Berlin.", 1), T("Maya", "I live in Munich.", 3), T("Maya", "I live in Berlin.", 6)]
    bdb.ingest_conversation(said, source="chat")
    assert current(bdb, "maya") == {("lives_in", "Berlin")}
    june = datetime(2026, 6, 1, 9, tzinfo=UTC)
    assert [(s, t) for s, t, _ in quoted_turns(bdb, "maya")["Berlin"]] == [("Maya", june)]
    # a new version (a turn put first) re-verifies June's belief by June's turn, not January's
    bdb.ingest_conversation([T("Tom", "Hi.", 1, 1), *said], source="chat")
    assert current(bdb, "maya") == {("lives_in", "Berlin")}
    assert [(s, t) for s, t, _ in quoted_turns(bdb, "maya")["Berlin"]] == [("Maya", june), ("Maya", june)]


def test_a_turn_the_new_version_drops_no_longer_supports_its_belief(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    # Tom's sushi turn goes; Maya says the same words, but they are hers
    edited = bdb.ingest_conversation([T("Ann", "Hi all.", 1, 1), *CHAT[:3]], source="chat")
    assert edited.new_version
    assert current(bdb, "tom") == {("lives_in", "Paris")}
    assert current(bdb, "maya") == {("lives_in", "Berlin"), ("favorite_food", "sushi")}
    assert [b.status for b in bdb.beliefs(subject="tom", include_all=True) if b.value == "sushi"] == ["unsupported"]


def test_what_was_forgotten_is_not_brought_back_by_its_chat_file(bdb: beliefdb.BeliefDB,
                                                                  postgresql: psycopg.Connection[Any]) -> None:
    chat = [T("Maya", "I live in Berlin.", 1, 5), T("Tom", "I live in Paris.", 1, 6),
            T("Maya", "My back hurts since the accident.", 1, 7)]
    bdb.ingest_conversation(chat, source="chat")
    bdb.forget(subject="maya")
    assert "Berlin" not in texts(postgresql) and "accident" not in texts(postgresql)

    same = bdb.ingest_conversation(chat, source="chat")
    assert not same.new_version and same.accepted == []
    assert same.note == "unchanged: the same text as version 1, in force (what was forgotten in it stays forgotten)"
    assert [(r.quote, r.reason.split(":")[0]) for r in same.rejected] == [("I live in Berlin.", "forgotten")]

    longer = [*chat, T("Tom", "I work as a nurse.", 2)]
    preview = bdb.ingest_conversation(longer, source="chat", preview=True)
    grown = bdb.ingest_conversation(longer, source="chat")
    assert (preview.note, [a.value for a in preview.accepted]) == (grown.note, [a.value for a in grown.accepted])
    assert (grown.new_version, grown.note) == (False, "appended: one turn added to the text in force")
    assert [(a.subject, a.value) for a in grown.accepted] == [("tom", "nurse")]
    assert [r.reason.split(":")[0] for r in grown.rejected] == ["forgotten"]
    kept = texts(postgresql)
    assert "Berlin" not in kept and "accident" not in kept and "Maya" not in kept
    assert "I work as a nurse." in kept
    assert current(bdb, "maya") == set()
    assert current(bdb, "tom") == {("lives_in", "Paris"), ("job", "nurse")}
    assert bdb.audit_verify().ok


def test_a_document_version_that_repeats_a_retracted_beliefs_quote_leaves_it_retracted(
        bdb: beliefdb.BeliefDB) -> None:
    first = "The refund window is 30 days.\nShipping is free."
    bdb.ingest_text(first, source="policy.md")
    (window,) = bdb.beliefs(subject="refund_policy")
    bdb.retract(belief=window.id, reason="an extraction mistake")
    second = bdb.ingest_text(first + "\nReturns need a receipt.", source="policy.md")
    assert second.new_version and second.version == 2
    assert second.accepted == [] and second.reverified == []
    assert [u.id for u in second.unchanged] == [window.id]
    assert bdb.beliefs(subject="refund_policy") == []
    # restored, it holds on the version in force
    bdb.retract(belief=window.id, undo=True)
    (restored,) = bdb.beliefs(subject="refund_policy")
    assert restored.id == window.id
    assert [(e.version, e.in_force) for e in bdb.why(window.id).evidence] == [(2, True), (1, False)]


def test_a_retracted_turn_stays_retracted_in_a_conversation_edited_before_its_end(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT, source="chat")
    paris = next(b for b in bdb.beliefs(subject="tom") if b.value == "Paris")
    (turn,) = bdb.why(paris.id).evidence
    bdb.retract(fragment=str(turn.fragment_id), reason="Tom was joking")
    assert current(bdb, "tom") == {("favorite_food", "sushi")}
    edited = bdb.ingest_conversation([T("Ann", "Hi all.", 1, 1), *CHAT], source="chat")
    assert edited.new_version and edited.version == 2
    # Tom's Paris is not re-verified by the same turn of the new version: that turn is retracted too
    assert paris.id not in edited.reverified and len(edited.reverified) == 3
    assert current(bdb, "tom") == {("favorite_food", "sushi")}
    assert [u.id for u in edited.unchanged if u.id == paris.id] == [paris.id] and edited.accepted == []
    carried = [e for e in bdb.why(paris.id).evidence if e.version == 2]
    assert len(carried) == 1 and carried[0].fragment_id != turn.fragment_id
    row = postgresql.execute("select retracted_at is not null, retraction_reason from beliefdb.node where id = %s",
                             (carried[0].fragment_id,)).fetchone()
    assert row == (True, "Tom was joking")
    # restoring the new version's turn is what brings Paris back
    bdb.retract(fragment=str(carried[0].fragment_id), undo=True)
    assert current(bdb, "tom") == {("favorite_food", "sushi"), ("lives_in", "Paris")}


def test_a_document_version_that_repeats_a_retracted_fragment_keeps_it_retracted(bdb: beliefdb.BeliefDB) -> None:
    first = "The refund window is 30 days.\nShipping is free."
    bdb.ingest_text(first, source="policy.md")
    (window,) = bdb.beliefs(subject="refund_policy")
    (quoted,) = bdb.why(window.id).evidence
    bdb.retract(fragment=str(quoted.fragment_id), reason="a draft sentence")
    assert bdb.beliefs(subject="refund_policy") == []
    second = bdb.ingest_text("# Policy\n" + first, source="policy.md")
    assert second.new_version and second.reverified == [] and second.accepted == []
    assert bdb.beliefs(subject="refund_policy") == []
    # a version that drops the sentence, then one that says it again: the same words, still retracted
    bdb.ingest_text("Shipping is free.", source="policy.md")
    fourth = bdb.ingest_text("Shipping is free.\nThe refund window is 30 days.", source="policy.md")
    assert fourth.accepted == [] and fourth.reverified == [] and [u.id for u in fourth.unchanged] == [window.id]
    assert bdb.beliefs(subject="refund_policy") == []
    # restored where the source says it now, it holds again
    (now,) = [e for e in bdb.why(window.id).evidence if e.version == 4]
    bdb.retract(fragment=str(now.fragment_id), undo=True)
    assert {b.value for b in bdb.beliefs(subject="refund_policy")} == {"30 days"}


def test_a_retracted_occurrence_does_not_take_the_support_the_same_words_give_elsewhere(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    said = "The refund window is 30 days."
    bdb.ingest_text(f"{said}\nShipping is free.\n{said}", source="policy.md")
    (window,) = bdb.beliefs(subject="refund_policy")
    first, _ = sorted(bdb.why(window.id).evidence, key=lambda e: e.start_offset)
    bdb.retract(fragment=str(first.fragment_id), reason="the draft's copy")
    assert [b.id for b in bdb.beliefs(subject="refund_policy")] == [window.id]  # it holds by the second
    new = bdb.ingest_text(f"# Policy\n{said}\nShipping is free.\n{said}", source="policy.md")
    assert new.new_version and window.id in new.reverified
    assert [b.id for b in bdb.beliefs(subject="refund_policy")] == [window.id]
    retracted = postgresql.execute(
        "select count(*) from beliefdb.fragment f join beliefdb.node n on n.id = f.id"
        " where f.source_version_id = (select id from beliefdb.source_version where version = 2)"
        " and n.retracted_at is not null").fetchone()
    assert retracted == (0,)


def test_cli_ingesting_a_grown_chat_file_says_it_was_appended(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    lines = ['{"speaker": "Maya", "time": "2026-01-05T09:00:00+00:00", "text": "I live in Berlin."}',
             '{"speaker": "Tom", "time": "2026-01-06T09:00:00+00:00", "text": "I live in Paris."}']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("ingest", str(path), "--source", "chat")
    assert result.exit_code == 0, result.output
    path.write_text("\n".join([*lines, '{"speaker": "Tom", "time": "2026-02-01T09:00:00+00:00",'
                                       ' "text": "I work as a nurse."}']) + "\n", encoding="utf-8")
    result = cli("ingest", str(path), "--source", "chat", "--json")
    assert result.exit_code == 0, result.output
    assert '"appended: one turn added to the text in force"' in result.output
    assert '"new_version": false' in result.output


@pytest.mark.parametrize(("new", "old", "expected"), [
    ("[2026-05-03,)", "[2026-01-10,)", "2026-05-03"),  # the later statement: when it became valid
    ("[2026-01-10,)", "[2026-05-03,)", "2026-12-01"),  # a stronger, earlier one: when it was recorded
    ("[2026-01-10,)", None, "2026-01-10"),
    ("[2026-01-10,)", "[2026-01-10,)", "2026-12-01"),
    ("(,)", "[2026-01-10,)", "2026-12-01"),
    ("[2026-01-10,)", "(,)", "2026-01-10"),
])
def test_replaced_on_is_never_before_the_replaced_value_was_valid(postgresql: psycopg.Connection[Any], new: str,
                                                                  old: str | None, expected: str) -> None:
    row = postgresql.execute("select beliefdb.replaced_on(%s::tstzrange, %s::tstzrange, '2026-12-01 12:00+00')::date"
                             "::text", (new, old)).fetchone()
    assert row == (expected,)


def test_a_correction_of_januarys_value_is_not_dated_before_what_it_beat(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_conversation([T("Maya", "I live in Berlin.", 1, 10)], source="chat")
    (berlin,) = bdb.beliefs(subject="maya")
    preview = bdb.preview_correction(berlin.id, "Maya lives in Hamburg.", "Hamburg")
    bdb.apply_correction(berlin.id, "Maya lives in Hamburg.", reviewer="hr", expect_revision=preview.revision,
                         value="Hamburg")
    bdb.ingest_conversation([T("Maya", "I live in Berlin.", 1, 10), T("Maya", "I live in Munich.", 5, 3)],
                            source="chat")
    answer = bdb.ask("Where does Maya live?")
    top = answer.beliefs[0]
    assert top.belief.value == "Hamburg"  # rule 8: the correction's authority wins
    munich = next(h for h in top.history if h.belief.value == "Munich")
    assert munich.replaced_on >= datetime(2026, 5, 3, tzinfo=UTC)
    assert not any("on 2026-01-10" in w and "Munich" in w for w in top.warnings)


def test_a_last_turn_that_goes_on_over_a_line_is_a_new_version(bdb: beliefdb.BeliefDB, tmp_path: Path) -> None:
    path = tmp_path / "chat.md"
    path.write_text("**Maya:** I live in Berlin.\n\n**Tom:** I live in Paris.\n", encoding="utf-8")
    bdb.ingest_transcripts(path, source="chat", embed=False)
    path.write_text("**Maya:** I live in Berlin.\n\n**Tom:** I live in Paris.\nI work as a nurse.\n", encoding="utf-8")
    (report,) = bdb.ingest_transcripts(path, source="chat", embed=False)
    assert isinstance(report, beliefdb.models.IngestReport)
    assert report.new_version and report.version == 2
    (nurse,) = [b for b in bdb.beliefs(subject="tom") if b.value == "nurse"]
    assert [(e.speaker, e.version) for e in bdb.why(nurse.id).evidence] == [("Tom", 2)]


def test_neither_the_same_nor_a_grown_export_brings_back_what_was_forgotten(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    chat = [T("Maya", "I live in Berlin.", 1, 5), T("Tom", "I live in Paris.", 1, 6)]
    longer = [*chat, T("Tom", "I work as a nurse.", 2)]
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_conversation(chat, source="chat")
        alice.forget(subject="maya")
        alice.ingest_conversation(longer, source="chat")
        # the grown file again, by someone else: the text in force (no proposal holding the text)
        again = bob.ingest_conversation(longer, source="chat")
        assert not again.proposed and not again.new_version
        assert postgresql.execute("select count(*) from beliefdb.review_item").fetchone() == (0,)
        kept = texts(postgresql)
        assert "Berlin" not in kept and "Maya" not in kept
        assert postgresql.execute("select count(*) from beliefdb.fragment where speaker = 'Maya'").fetchone() == (0,)
        assert current(alice, "maya") == set()
        assert current(alice, "tom") == {("lives_in", "Paris"), ("job", "nurse")}
        assert alice.audit_verify().ok


def test_a_proposal_of_the_grown_conversation_is_settled_when_its_owner_grows_it(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    longer = [*CHAT, T("Tom", "I work as a nurse.", 2)]
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_conversation(CHAT, source="chat")
        assert bob.ingest_conversation(longer, source="chat").proposed
        grown = alice.ingest_conversation(longer, source="chat")
        assert grown.note == "appended: one turn added to the text in force"
        assert postgresql.execute("select status::text from beliefdb.review_item").fetchall() != [("open",)]


def test_approving_a_turn_proposed_before_the_conversation_grew_keeps_the_turns_added_since(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A turn another principal appends is proposed to the owner as the conversation with that turn;
    approved after the owner appended more, it follows them (it used to replace the text, dropping them)."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="dave") as dave:
        alice.remember_turn("chat-1", "Zoe", "I live in Paris.", time=datetime(2026, 1, 1, 9, tzinfo=UTC))
        proposed = dave.remember_turn("chat-1", "Dave", "I work as a nurse.", time=datetime(2026, 1, 2, 9, tzinfo=UTC))
        assert proposed.proposed
        alice.remember_turn("chat-1", "Zoe", "I work at Acme.", time=datetime(2026, 1, 3, 9, tzinfo=UTC))
        (item,) = alice.review_items()
        alice.resolve_review(item.id, "approved")
        (content,) = [r[0] for r in postgresql.execute("select content from beliefdb.source_version")]
        assert [line.split("] ")[1] for line in content.split("\n")] == [
            "Zoe: I live in Paris.", "Zoe: I work at Acme.", "Dave: I work as a nurse."]
        assert current(alice, "zoe") == {("lives_in", "Paris"), ("works_at", "Acme")}
        assert current(alice, "dave") == {("job", "nurse")}
        (nurse,) = alice.beliefs(subject="dave")
        assert [(e.speaker, e.version) for e in alice.why(nurse.id).evidence] == [("Dave", 1)]
        assert alice.audit_verify().ok


def test_turns_are_not_stored_in_a_document(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    text = "The return window is 30 days."
    bdb.ingest_text(text, source="policy.md")
    # the document's text and a turn after it: neither a new version nor the document grown in place
    turns = [T("Maya", text, 1, 5), T("Maya", "I live in Berlin.", 1, 6)]
    for preview in (True, False):
        with pytest.raises(InvalidInput, match=r"policy\.md is a document, not a conversation"):
            bdb.ingest_conversation(turns, source="policy.md", preview=preview)
    assert postgresql.execute(
        "select s.origin_type::text, v.version, v.content from beliefdb.source s"
        " join beliefdb.source_version v on v.source_id = s.id").fetchall() == [("document", 1, text)]
    assert bdb.beliefs(subject="maya") == []
    # a conversation given as plain text is a conversation: its turns are stored
    bdb.ingest_text("Maya: hello", source="chat", origin="conversation")
    grown = bdb.remember_turn("chat", "Maya", "I live in Berlin.", time=datetime(2026, 1, 6, tzinfo=UTC))
    assert grown.version == 1 and {b.value for b in bdb.beliefs(subject="maya")} == {"Berlin"}


def retracted_fragments(conn: psycopg.Connection[Any], version: int) -> list[tuple[str, str | None, str | None]]:
    return [tuple(r) for r in conn.execute(
        "select f.text, f.speaker, n.retraction_reason from beliefdb.fragment f"
        " join beliefdb.node n on n.id = f.id join beliefdb.source_version v on v.id = f.source_version_id"
        " where v.version = %s and n.retracted_at is not null order by f.start_offset", (version,))]


def test_a_retracted_turn_nothing_was_extracted_from_stays_retracted_in_a_new_version(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    question = "Is the office dog friendly?"
    chat = [*CHAT, T("Tom", question, 1, 9), T("Maya", question, 1, 10)]
    bdb.ingest_conversation(chat, source="chat", embed=False)
    toms = [f for f in bdb.ask("office dog friendly").fragments if f.speaker == "Tom"]
    assert [f.text for f in toms] == [question]
    bdb.retract(fragment=str(toms[0].fragment_id), reason="off topic")
    assert [f.speaker for f in bdb.ask("office dog friendly").fragments] == ["Maya"]
    edited = bdb.ingest_conversation([T("Ann", "Hi all.", 1, 1), *chat], source="chat", embed=False)
    assert edited.new_version and edited.version == 2
    # Tom's question is the same turn of the new version, retracted for the same reason; Maya's the same
    # words are hers, not retracted
    assert retracted_fragments(postgresql, 2) == [(question, "Tom", "off topic")]
    assert [f.speaker for f in bdb.ask("office dog friendly").fragments] == ["Maya"]
    # restoring the new version's turn brings it back
    (carried,) = postgresql.execute(
        "select f.id from beliefdb.fragment f join beliefdb.source_version v on v.id = f.source_version_id"
        " where v.version = 2 and f.speaker = 'Tom' and f.text = %s", (question,)).fetchall()
    bdb.retract(fragment=str(carried[0]), undo=True)
    assert sorted(f.speaker or "" for f in bdb.ask("office dog friendly").fragments) == ["Maya", "Tom"]


def test_a_retracted_sentence_nothing_was_extracted_from_stays_retracted_in_a_new_version(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    draft, kept = "Ugh, the office coffee machine broke again!", "Can we bring dogs to the office?"
    bdb.ingest_text(f"{draft}\n{kept}\n{kept}", source="notes.md")
    hits = {f.text: f for f in bdb.ask("office coffee machine broke").fragments}
    bdb.retract(fragment=str(hits[draft].fragment_id), reason="a rant")
    first_dogs = min((f for f in bdb.ask("bring dogs office").fragments), key=lambda f: f.start_offset)
    bdb.retract(fragment=str(first_dogs.fragment_id), reason="asked twice")
    bdb.ingest_text(f"# Notes\n{draft}\n{kept}\n{kept}", source="notes.md")
    # the rant is retracted again; the question is not, since the version before still had it once
    assert retracted_fragments(postgresql, 2) == [(draft, None, "a rant")]
    assert draft not in [f.text for f in bdb.ask("office coffee machine broke").fragments]


def test_a_conversations_turns_are_not_replaced_by_a_document(bdb: beliefdb.BeliefDB,
                                                              postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT[:1], source="chat")
    for attempt in (lambda: bdb.ingest_text("The return window is 7 days.", source="chat"),
                    lambda: bdb.remember("The return window is 7 days.", "return_policy", "window", "7 days",
                                         "7 days", source="chat", text="The return window is 7 days.")):
        with pytest.raises(InvalidInput, match="chat is a conversation: its text is given as turns"):
            attempt()
    bdb.submit(text="The return window is 7 days.", source="chat", max_attempts=1)
    assert bdb.work(stop_when_empty=True, embed=False).failed == 1
    assert "chat is a conversation" in (bdb.jobs()[0].last_error or "")
    assert current(bdb, "maya") == {("lives_in", "Berlin")}
    assert postgresql.execute("select count(*) from beliefdb.source_version").fetchone() == (1,)
    # its text in force again, as a plain text, changes nothing; turns appended still grow it
    (content,) = postgresql.execute("select content from beliefdb.source_version").fetchone() or ("",)
    assert not bdb.ingest_text(content, source="chat").new_version
    bdb.remember_turn("chat", "Maya", "I moved to Munich.", time=datetime(2026, 3, 1, tzinfo=UTC))
    assert current(bdb, "maya") == {("lives_in", "Munich")}


@pytest.mark.slow
def test_a_new_source_whose_text_comes_as_turns_is_a_conversation(bdb: beliefdb.BeliefDB, tmp_path: Path,
                                                                    postgresql: psycopg.Connection[Any]) -> None:
    """The default is decided once, by the database, from the text having turns: every way turns arrive
    makes a conversation, and a text without turns a document."""
    chat = tmp_path / "support.jsonl"
    chat.write_text('{"speaker": "Tom", "text": "I live in Paris."}\n', encoding="utf-8")
    bdb.ingest_conversation(CHAT[:1], source="by-call", embed=False)
    bdb.remember_turn("by-turn", "Maya", "I live in Berlin.", embed=False)
    bdb.ingest_transcripts(chat, embed=False)
    bdb.ingest_text("The return window is 30 days.", source="policy.md")
    bdb.submit(turns=CHAT[1:2], source="queued")
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert dict(postgresql.execute("select name, origin_type::text from beliefdb.source").fetchall()) == {
        "by-call": "conversation", "by-turn": "conversation", "support.jsonl": "conversation",
        "policy.md": "document", "queued": "conversation"}


SUPPORT_CHAT = Path(__file__).resolve().parent.parent / "docs" / "examples" / "support-chat.md"


@pytest.mark.parametrize("more", [False, True], ids=["the-same-text", "and-a-turn-more"])
def test_a_conversation_cut_at_its_end_and_ingested_whole_again_re_verifies_its_beliefs(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], more: bool) -> None:
    """The chat file cut short at its end (its last turns gone: their beliefs unsupported, a decision on
    one flagged, its action held), then ingested whole again: the turns it gets back are the same turns
    (speaker, time, words), so their beliefs are re-verified there, as a version going back to an
    earlier text does (rule 18): one current belief per claim, the decision and its action hold again.
    Grown in place, they were new claims: a second Porto belief, the first unsupported, the decision
    flagged for good."""
    from beliefdb.text.chat_files import parse_transcript

    full = parse_transcript(SUPPORT_CHAT.read_text(encoding="utf-8"), "support-chat.md")
    first = bdb.ingest_conversation(full, source="chat.md")
    (porto,) = [a for a in first.accepted if a.value == "Porto"]
    (lisbon,) = [a for a in first.accepted if a.value == "Lisbon"]
    decision = bdb.decide("Ship to Porto", because=[porto.id])
    action = bdb.act(decision.id, "Mail Porto")
    cut = bdb.ingest_conversation(full[:-2], source="chat.md")
    assert (cut.new_version, cut.unsupported, cut.flagged, cut.held) == (True, [porto.id], [decision.id], [action.id])
    beliefs = postgresql.execute("select count(*) from beliefdb.belief").fetchone()
    assert beliefs is not None

    again = [*full, T("Maya", "I work as a nurse.", 7)] if more else full
    whole = bdb.ingest_conversation(again, source="chat.md")
    assert [(a.subject, a.value) for a in whole.accepted] == ([("maya", "nurse")] if more else [])
    assert whole.reverified == [porto.id]
    assert [(s.old, s.new) for s in whole.superseded] == [(lisbon.id, porto.id)]
    assert {(c.id, c.kind, c.started_holding) for c in whole.current_again} == {
        (porto.id, "belief", True), (decision.id, "decision", True), (action.id, "action", True)}
    # one belief per claim: Porto is the one believed, current again, and nothing was believed twice
    assert postgresql.execute("select count(*) from beliefdb.belief").fetchone() == (beliefs[0] + more,)
    assert {b.id: b.status for b in bdb.beliefs(subject="maya", include_all=True) if b.attribute == "lives_in"} \
        == {lisbon.id: "superseded", porto.id: "current"}
    (shown,) = bdb.decisions(of=decision.id)
    assert shown.holds and shown.status == "needs_review"
    assert all(r["live"] for r in shown.reasons)
    # and the same whole file once more is the text in force: a no-op
    same = bdb.ingest_conversation(again, source="chat.md")
    assert not same.new_version and same.accepted == [] and same.reverified == []


@pytest.mark.parametrize("what", ["belief", "fragment"])
def test_what_was_retracted_in_a_turn_cut_off_stays_retracted_when_the_turn_comes_back(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], what: str) -> None:
    """Rule 18: the turn the whole file gets back is the same evidence; a retracted belief quoted from it
    stays retracted, and its retracted fragment goes forward retracted (its words support nothing new)."""
    from beliefdb.text.chat_files import parse_transcript

    full = parse_transcript(SUPPORT_CHAT.read_text(encoding="utf-8"), "support-chat.md")
    (porto,) = [a for a in bdb.ingest_conversation(full, source="chat.md").accepted if a.value == "Porto"]
    if what == "belief":
        bdb.retract(belief=porto.id, reason="she never moved")
    else:
        (turn,) = bdb.why(porto.id).evidence
        bdb.retract(fragment=str(turn.fragment_id), reason="a joke")
    bdb.ingest_conversation(full[:-2], source="chat.md")
    beliefs = postgresql.execute("select count(*) from beliefdb.belief").fetchone()
    whole = bdb.ingest_conversation(full, source="chat.md")
    assert whole.accepted == [] and whole.reverified == [] and porto.id in {u.id for u in whole.unchanged}
    assert postgresql.execute("select count(*) from beliefdb.belief").fetchone() == beliefs
    assert [b.status for b in bdb.beliefs(subject="maya", include_all=True) if b.value == "Porto"] == [
        "retracted" if what == "belief" else "unsupported"]
    retracted = postgresql.execute(
        "select count(*) from beliefdb.fragment f join beliefdb.node n on n.id = f.id"
        " where f.source_version_id = (select id from beliefdb.source_version where version = 2)"
        " and f.text = 'And I moved to Porto last week.' and n.retracted_at is not null").fetchone()
    assert retracted == ((1,) if what == "fragment" else (0,))


def test_the_text_of_a_retracted_version_ingested_again_grows_nothing(bdb: beliefdb.BeliefDB) -> None:
    """Rule 18: the text of a retracted version ingested again changes nothing. Cut at its end (version 2,
    a prefix of version 1), version 1 retracted, then version 1's text again: the conversation's text in
    force grew by the cut turns, and what they said was believed again."""
    bdb.ingest_conversation(CHAT, source="chat")
    bdb.ingest_conversation(CHAT[:2], source="chat")
    bdb.retract(source="chat", version=1, reason="an export of the wrong chat")
    before = current(bdb, "maya"), current(bdb, "tom")
    again = bdb.ingest_conversation(CHAT, source="chat")
    assert not again.new_version and again.accepted == [] and again.reverified == []
    assert (current(bdb, "maya"), current(bdb, "tom")) == before
    assert ("favorite_food", "sushi") not in current(bdb, "maya")
