"""Forgetting a person (rule 14 of docs/rules.md) masks what they said and what was said of them by the
beliefs that go; another speaker's turn that names them ("Nice to meet you Maya") is that speaker's
words, and stays. The preview and the report list where the stored source texts still name them
(``text_mentions``: the source, its version, how many times, a masked excerpt), so a user knows; with
``mask_mentions`` forget masks the name there too, offsets of all other evidence still valid."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg
import pytest
from forgets import forget

import beliefdb
from beliefdb import errors, render
from beliefdb.models import Turn
from beliefdb.render.ask import ask_text

MASK = "\u2588"


def at(minute: int) -> datetime:
    return datetime(2025, 3, 1, 10, 0, tzinfo=UTC) + timedelta(minutes=minute)


GREETING = "Nice to meet you Maya, see you Tuesday."
TURNS = [
    Turn("Maya", "I live in Lisbon.", at(0)),
    Turn("Bob", GREETING, at(1)),
    Turn("Maya", "My back has been hurting since the accident.", at(2)),
    Turn("Bob", "ok", at(3)),
]
TEAM = "The team grows by one. MAYA joins on Monday; Mayan art is on the wall.\n"


def contents(conn: psycopg.Connection[Any]) -> dict[str, str]:
    return {r[0]: r[1] for r in conn.execute(
        "select s.name || ' v' || v.version, v.content from beliefdb.source_version v"
        " join beliefdb.source s on s.id = v.source_id order by 1")}


def offsets_broken(conn: psycopg.Connection[Any]) -> list[Any]:
    """Every fragment whose text is not its version's text at its offsets, and every evidence whose quote
    is not its fragment's text: none, as long as masking keeps every offset valid."""
    return conn.execute(
        """select f.id, f.text from beliefdb.fragment f
             join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
            where substr(v.content, f.start_offset + 1, f.end_offset - f.start_offset) <> f.text
           union all
           select e.fragment_id, e.quote from beliefdb.evidence e
             join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
            where e.quote <> f.text""").fetchall()


def people(bdb: beliefdb.BeliefDB) -> UUID:
    """Maya's conversation with Bob (a belief of Bob's quotes his turn that names her), and a document
    about the team that names her; the id of Bob's belief."""
    bdb.ingest_conversation(TURNS, source="chat-1", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    bob = bdb.remember("Bob meets someone on Tuesday.", "bob", "meeting_day", "Tuesday", "see you Tuesday",
                       source="chat-1").accepted[0].id
    bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one", source="team.md",
                 text=TEAM)
    return bob


def test_another_speakers_words_naming_the_person_are_listed_and_stay(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    people(bdb)
    preview = bdb.forget(subject="maya", preview=True)
    listed = [(t.source, t.version, t.count, t.masked) for t in preview.text_mentions]
    assert listed == [("chat-1", 1, 1, False), ("team.md", 1, 1, False)], preview.text_mentions
    chat, team = preview.text_mentions
    # the excerpt shows where, the name masked in it, clipped
    assert f"Nice to meet you {MASK * 4}, see you Tuesday." in chat.excerpt and "Maya" not in chat.excerpt
    assert team.excerpt.startswith(f"The team grows by one. {MASK * 4} joins on Monday; Mayan art")
    assert team.excerpt.endswith("…")
    assert "--mask-mentions" in chat.hint
    assert not any(m.kind == "text" for m in preview.mentions)  # the typed mentions are as they were
    done = bdb.forget(subject="maya", expect=preview.fingerprint())
    assert done.text_mentions == preview.text_mentions and done.redacted == preview.redacted
    # without the flag, the other speaker's words stay as they were said
    texts = contents(postgresql)
    assert GREETING in texts["chat-1 v1"] and "Lisbon" not in texts["chat-1 v1"]
    assert texts["team.md v1"] == TEAM
    assert offsets_broken(postgresql) == []


def test_masking_the_mentions_takes_the_name_out_of_the_stored_texts(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bob = people(bdb)
    before = contents(postgresql)
    plain = bdb.forget(subject="maya", preview=True)
    preview = bdb.forget(subject="maya", preview=True, mask_mentions=True)
    assert [(t.source, t.count, t.masked) for t in preview.text_mentions] == [("chat-1", 1, True), ("team.md", 1, True)]
    assert preview.redacted == plain.redacted + 2 and preview.fingerprint() != plain.fingerprint()
    assert contents(postgresql) == before  # a preview writes nothing
    postgresql.commit()
    # the preview without the flag is not what the forget with it would do
    with pytest.raises(errors.StalePreview):
        bdb.forget(subject="maya", expect=plain.fingerprint(), mask_mentions=True)
    done = bdb.forget(subject="maya", expect=preview.fingerprint(), mask_mentions=True)
    assert done.text_mentions == preview.text_mentions and done.redacted == preview.redacted

    after = contents(postgresql)
    assert {k: len(v) for k, v in after.items()} == {k: len(v) for k, v in before.items()}  # masked in place
    assert f"Bob: Nice to meet you {MASK * 4}, see you Tuesday." in after["chat-1 v1"]
    assert after["team.md v1"] == TEAM.replace("MAYA", MASK * 4)  # "Mayan" is another word
    assert not any("maya" in t.lower().replace("mayan", "") for t in after.values()), after
    assert offsets_broken(postgresql) == []
    assert postgresql.execute("select text from beliefdb.fragment where speaker = 'Bob' order by start_offset"
                              ).fetchall() == [(GREETING.replace("Maya", MASK * 4),), ("ok",)]
    # Bob's belief still holds, on his masked words; why and ask show no name
    postgresql.commit()
    why = json.dumps(render.why_json(bdb.why(bob)), default=str)
    assert "see you Tuesday" in why and "Maya" not in why
    answer = bdb.ask("nice to meet you see you Tuesday")
    shown = json.dumps(render.jsonable(answer), default=str) + ask_text(answer)
    assert "Tuesday" in shown and "Maya" not in shown and "MAYA" not in shown
    # recorded as forget's masks are (offsets only), and in forget's audit event
    assert postgresql.execute("select count(*) from beliefdb.redaction where reason = 'forgotten subject named'"
                              ).fetchone() == (2,)
    (event,) = postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget'").fetchone() or (None,)
    assert event["mentions_masked"] == 2 and "Maya" not in json.dumps(event)
    assert bdb.audit_verify().ok
    # a source or a belief has no name to mask
    with pytest.raises(errors.InvalidInput, match="mask_mentions"):
        bdb.forget(source="team.md", mask_mentions=True)


def test_a_name_in_cjk_script_is_listed_and_masked_inside_anothers_unspaced_words(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    said = "我昨天见了王小明，他说你好。"
    bdb.ingest_conversation([Turn("王小明", "我住在上海。", at(0)), Turn("李雷", said, at(1))], source="聊天",
                            embed=False)
    bdb.remember("王小明住在上海。", "王小明", "城市", "上海", "我住在上海。", source="聊天")
    preview = bdb.forget(subject="王小明", preview=True)
    assert [(t.source, t.count) for t in preview.text_mentions] == [("聊天", 1)]
    assert MASK * 3 + "，他说你好" in preview.text_mentions[0].excerpt
    done = bdb.forget(subject="王小明", mask_mentions=True)
    assert [(t.source, t.count, t.masked) for t in done.text_mentions] == [("聊天", 1, True)]
    (text,) = contents(postgresql).values()
    assert "王小明" not in text and f"李雷: 我昨天见了{MASK * 3}，他说你好。" in text
    assert offsets_broken(postgresql) == []


def test_the_command_line_lists_them_and_masks_them_with_the_flag(bdb: beliefdb.BeliefDB, cli: Any) -> None:
    people(bdb)
    result = cli("forget", "--subject", "maya", "--preview")
    assert result.exit_code == 0, result.output
    head = "still named in stored source text, outside what was forgotten (2 time(s) in 2 version(s))"
    assert head in result.output, result.output
    assert "chat-1 v1 (1x): " in result.output and "Maya," not in result.output
    result = forget(cli, "--subject", "maya", "--mask-mentions", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(t["source"], t["version"], t["count"], t["masked"]) for t in report["text_mentions"]] == [
        ("chat-1", 1, 1, True), ("team.md", 1, 1, True)]
    assert all(m["kind"] != "text" for m in report["mentions"])


def test_masking_the_name_in_anothers_source_is_its_owners_call(db_url: str, postgresql: psycopg.Connection[Any],
                                                                 cli: Any) -> None:
    """The name is listed wherever it is written; masking it is done in the sources the forgetting principal
    owns, and a source another principal owns is left as written, listed as theirs to mask (rule 17). Before,
    such a source refused the whole forget, so a name in anyone's document kept the owner from masking it
    in their own."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                       source="team.md", text=TEAM)
        bob.remember("Maya's badge code is 4471.", "maya", "badge_code", "4471", "badge code is 4471",
                     source="badge.md", text="Maya's badge code is 4471.\n")
        bob.ingest_text("Notes\nMaya called.\n", source="notes.md")
        listed = bob.forget(subject="maya", preview=True)
        assert [(t.source, t.owner) for t in listed.text_mentions] == [
            ("badge.md", "bob"), ("notes.md", "bob"), ("team.md", "alice")]
        shown = cli("forget", "--subject", "maya", "--mask-mentions", "--preview", "--as", "bob").output
        assert "team.md v1 (1x): " in shown and "(not masked: alice's)" in shown, shown
        assert "hint (text): source team.md is owned by alice: only they" in shown, shown
        masked = bob.forget(subject="maya", mask_mentions=True)
        assert [(t.source, t.masked) for t in masked.text_mentions] == [
            ("badge.md", True), ("notes.md", True), ("team.md", False)]
        (theirs,) = [t for t in masked.text_mentions if not t.masked]
        assert "only they (or a login granted beliefdb_eraser) can mask the name" in theirs.hint
    assert contents(postgresql)["team.md v1"] == TEAM
    assert contents(postgresql)["notes.md v1"] == f"Notes\n{MASK * 4} called.\n"
