"""Forgetting a subject forgets what the subject said (rule 14): the turns of the speakers whose name
is the subject go as fragments go, with every belief left without support, and are masked in every
version of the conversation text, with the speaker's name in the line that labels each; what others
said stays, at its offsets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from test_forget_redaction import holding

import beliefdb
from beliefdb import errors
from beliefdb.models import Turn
from beliefdb.store import lifecycle

HEALTH = "Honestly my back has been hurting since the accident."
MASK = "\u2588"


def at(minute: int) -> datetime:
    return datetime(2025, 3, 1, 10, 0, tzinfo=UTC) + timedelta(minutes=minute)


TURNS = [
    Turn("Maya López", "I live in Lisbon.", at(0)),
    Turn("Bob", "Nice to meet you. I live in Porto.", at(1)),
    Turn("Maya López", HEALTH, at(2)),
    Turn("Bob", "ok", at(3)),
    Turn("Maya López", "What do you recommend?", at(4)),
]


def contents(conn: psycopg.Connection[Any], source: str) -> list[str]:
    return [r[0] for r in conn.execute(
        "select v.content from beliefdb.source_version v join beliefdb.source s on s.id = v.source_id"
        " where s.name = %s order by v.version", (source,)).fetchall()]


def turns(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in conn.execute(
        "select speaker, text from beliefdb.fragment where speaker is not null order by start_offset, speaker")]


@pytest.mark.slow
def test_forgetting_a_subject_forgets_the_turns_it_said(bdb: beliefdb.BeliefDB,
                                                        postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(TURNS, source="chat-1", embed=False)
    # a belief about someone else that rests on her words alone goes with them (rule 2)
    (hers,) = bdb.remember("The accident hurt Maya's back.", "accident", "injury", "back", HEALTH,
                           source="chat-1").accepted
    before = contents(postgresql, "chat-1")
    postgresql.commit()
    assert {b.subject for b in bdb.beliefs()} == {"maya_lopez", "bob", "accident"}

    preview = bdb.forget(subject="maya_lopez", preview=True)
    assert contents(postgresql, "chat-1") == before  # a preview writes nothing
    postgresql.commit()
    done = bdb.forget(subject="maya_lopez")
    assert (preview.fragments, preview.beliefs, preview.redacted) == (done.fragments, done.beliefs, done.redacted)
    assert (done.fragments, done.beliefs) == (3, 2) and done.redacted == 6  # three turns, three labels

    (text,) = contents(postgresql, "chat-1")
    assert len(text) == len(before[0])  # masked in place: every other offset stays valid
    lines = text.splitlines()
    assert lines[0] == f"[{at(0).isoformat()}] {MASK * len('Maya López')}: {MASK * len('I live in Lisbon.')}"
    assert lines[1] == f"[{at(1).isoformat()}] Bob: Nice to meet you. I live in Porto."
    assert lines[2].endswith(f"{MASK * len('Maya López')}: {MASK * len(HEALTH)}")
    assert lines[3] == f"[{at(3).isoformat()}] Bob: ok"
    assert "López" not in text and "Maya" not in text
    assert turns(postgresql) == [("Bob", "Nice to meet you. I live in Porto."), ("Bob", "ok")]
    assert holding(postgresql, "back has been hurting") == []
    postgresql.commit()
    assert {b.subject for b in bdb.beliefs()} == {"bob"}
    assert hers.id not in {b.id for b in bdb.beliefs(include_all=True)}
    answer = bdb.ask("back hurting since the accident")
    assert answer.status == "no_match" and not answer.fragments  # nor as unextracted text
    assert bdb.audit_verify().ok


@pytest.mark.slow
def test_every_version_and_a_subject_with_turns_alone(bdb: beliefdb.BeliefDB,
                                                      postgresql: psycopg.Connection[Any]) -> None:
    """remember_turn makes each turn part of the version in force: the subject's words are masked in
    each version; a speaker whose words gave no belief is a subject to forget all the same."""
    bdb.remember_turn("support", "Quinn", "Hello there, I need some help.", time=at(0), embed=False)
    bdb.remember_turn("support", "Bob", "Sure, what is it?", time=at(1), embed=False)
    bdb.remember_turn("support", "Quinn", HEALTH, time=at(2), embed=False)
    assert "quinn" not in {b.subject for b in bdb.beliefs()}
    with pytest.raises(errors.NotFound, match="no belief has subject nobody"):
        bdb.forget(subject="nobody")
    done = bdb.forget(subject="quinn")
    assert done.beliefs == 0 and done.fragments >= 2
    for text in contents(postgresql, "support"):
        assert "Quinn" not in text and "help" not in text and "hurting" not in text
        assert "Bob: Sure, what is it?" in text
    assert turns(postgresql) and {s for s, _ in turns(postgresql)} == {"Bob"}


@pytest.mark.slow
def test_another_principals_conversation_is_left_and_listed_as_theirs(alice: beliefdb.BeliefDB,
                                                                      bob: beliefdb.BeliefDB,
                                                                      postgresql: psycopg.Connection[Any]) -> None:
    """Her beliefs are alice's (the belief's owner check); so are the turns, in alice's source, even
    when no belief was made of them: bob's forget leaves them, and lists them as alice's (it refused the
    whole forget before, so a turn in anyone's conversation kept a person from being forgotten)."""
    alice.ingest_conversation([*TURNS, Turn("Quinn", HEALTH, at(5))], source="chat-1", embed=False)
    before = contents(postgresql, "chat-1")
    postgresql.commit()
    mine = lifecycle.forget(bob.database, subject="maya_lopez")  # (her beliefs: listed as hers, not forgotten)
    assert (mine.beliefs, {m.owner for m in mine.mentions if m.field == "subject"}) == (0, {"alice"})
    left = lifecycle.forget(bob.database, subject="quinn")
    assert (left.fragments, [(k.what, k.source, k.owner, k.count) for k in left.kept]) == (
        0, [("turn", "chat-1", "alice", 1)])
    assert contents(postgresql, "chat-1") == before
    postgresql.commit()
    assert alice.forget(subject="quinn").fragments == 1
    assert alice.forget(subject="maya_lopez").fragments == 3


@pytest.mark.slow
def test_from_sql_the_speakers_are_named(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A DBA names the speakers whose turns are the subject's words; without them, only the subject's
    beliefs and quotes go (as before)."""
    bdb.ingest_conversation(TURNS, source="chat-1", embed=False)
    postgresql.execute("select pg_catalog.set_config('beliefdb.workspace_id', %s, false)",
                       (str(bdb.database.workspace_id),))
    quotes_only = postgresql.execute(
        "select fragments, beliefs from beliefdb.forget('subject', 'maya_lopez', true)").fetchone()
    assert quotes_only == (0, 1)
    named = postgresql.execute(
        "select fragments, beliefs from beliefdb.forget('subject', 'maya_lopez', false, array['Maya López'])"
    ).fetchone()
    assert named == (3, 1)
    postgresql.commit()
    assert "López" not in contents(postgresql, "chat-1")[0]


@pytest.mark.slow
def test_a_quote_within_a_turn_goes_with_it_and_the_conversation_goes_on(bdb: beliefdb.BeliefDB,
                                                                       postgresql: psycopg.Connection[Any]) -> None:
    """A fragment quoting part of her turn is her words too: it goes, and so does what rests on it
    alone, not left standing on a quote of masked text. A conversation whose every turn went can be
    appended to; a speaker named like a part of the time label has only the label masked."""
    bdb.remember_turn("journal", "Maya", "Hi. My daughter Mila is 5. I live in Lisbon.", time=at(0), embed=False)
    (mila,) = bdb.remember("Mila is 5.", "mila", "age", "5", "My daughter Mila is 5.", source="journal").accepted
    done = bdb.forget(subject="maya")
    assert done.fragments == 2
    assert mila.id not in {b.id for b in bdb.beliefs(include_all=True)}
    assert postgresql.execute("select count(*) from beliefdb.evidence where quote like %s",
                              (f"%{MASK}%",)).fetchone() == (0,)
    postgresql.commit()
    bdb.remember_turn("journal", "Bob", "I live in Porto.", time=at(1), embed=False)
    assert {b.subject for b in bdb.beliefs()} == {"bob"}
    bdb.remember_turn("clock", "10", "I live in Faro.", time=at(10), embed=False)
    bdb.forget(subject="10")
    (text,) = contents(postgresql, "clock")
    assert text == f"[{at(10).isoformat()}] {MASK * 2}: {MASK * len('I live in Faro.')}"


@pytest.mark.slow
def test_an_eraser_forgetting_anothers_turns_is_named_with_their_owner(
        alice: beliefdb.BeliefDB, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    alice.ingest_conversation([Turn("Quinn", HEALTH, at(0)), Turn("Bob", "ok", at(1))], source="chat-a", embed=False)
    name, password = "dpo_turns", "a-password-of-its-own"
    postgresql.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(name), sql.Literal(password)))
    postgresql.execute(sql.SQL("grant beliefdb_app, beliefdb_eraser to {}").format(sql.Identifier(name)))
    postgresql.commit()
    try:
        with psycopg.connect(make_conninfo(db_url, user=name, password=password), autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(alice.database.workspace_id),))
            conn.execute("set role beliefdb_app")
            assert conn.execute("select fragments from beliefdb.forget('subject', 'quinn', false, array['Quinn'])"
                                ).fetchone() == (1,)
        payload = postgresql.execute("select payload from beliefdb.audit_event where action = 'forget'"
                                     " order by seq desc limit 1").fetchone()
        assert payload is not None and (payload[0]["eraser"], payload[0]["owners"]) == (name, ["alice"])
    finally:
        postgresql.rollback()
        postgresql.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))
        postgresql.commit()


@pytest.mark.slow
def test_the_same_words_said_by_another_stay_theirs(bdb: beliefdb.BeliefDB,
                                                    postgresql: psycopg.Connection[Any]) -> None:
    """Tom said what Maya said: his turn is his words, not a quote of hers, and his belief keeps a quote
    anyone can read. A turn of his that a belief about her quotes is hers to forget."""
    bdb.ingest_conversation([Turn("Maya", "I work at Siemens.", at(0)), Turn("Tom", "I work at Siemens.", at(1)),
                             Turn("Tom", "Maya lives in Lisbon, by the way.", at(2))], source="chat-s", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "lives_in", "Lisbon", "Maya lives in Lisbon, by the way.",
                 source="chat-s")
    done = bdb.forget(subject="maya")
    assert done.beliefs == 2
    (text,) = contents(postgresql, "chat-s")
    lines = text.splitlines()
    assert lines[0].endswith(f"{MASK * 4}: {MASK * len('I work at Siemens.')}")
    assert lines[1] == f"[{at(1).isoformat()}] Tom: I work at Siemens."
    assert lines[2].endswith(f"Tom: {MASK * len('Maya lives in Lisbon, by the way.')}")
    postgresql.commit()
    (tom,) = bdb.answers(subject="tom")
    assert tom.belief.value == "Siemens" and [e.quote for e in tom.evidence] == ["I work at Siemens."]


def test_words_about_the_subject_quoted_within_another_speakers_turn_are_masked(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A forgotten belief that quotes part of another speaker's turn: those words are its evidence, masked
    in that turn too (the rest of the turn is the other speaker's and stays)."""
    bdb.ingest_conversation([Turn("Bob", "Maya lives in Lisbon, I think.", at(0)),
                             Turn("Bob", "I live in Porto.", at(1))], source="chat", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "lives_in", "Lisbon", "Maya lives in Lisbon", source="chat")
    bdb.forget(subject="maya")
    assert holding(postgresql, "Lisbon") == []
    (content,) = postgresql.execute("select content from beliefdb.source_version").fetchone() or ("",)
    assert f"Bob: {MASK * len('Maya lives in Lisbon')}, I think." in content and "Bob: I live in Porto." in content
    assert {(b.subject, b.value) for b in bdb.beliefs()} == {("bob", "Porto")}


def test_a_person_is_forgotten_by_their_name_too(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """forget --subject "Maya López" was not_found ("no belief has subject Maya López"), only maya_lopez
    worked, though her turns are said by "Maya López": the name names her subject when no belief has the
    name itself as its subject; one that does is that subject."""
    bdb.ingest_conversation(TURNS, source="chat-1", embed=False)
    preview = bdb.forget(subject="Maya López", preview=True)
    assert (preview.beliefs, preview.fragments) == (1, 3)
    bdb.forget(subject="Maya López")
    assert {b.subject for b in bdb.beliefs()} == {"bob"} and [s for s, _ in turns(postgresql)] == ["Bob", "Bob"]
    # a subject named as written is that subject
    bdb.remember("Bob Smith is a customer.", "Bob Smith", "role", "customer", "ok", source="chat-1")
    assert bdb.forget(subject="Bob Smith").beliefs == 1
    assert {b.subject for b in bdb.beliefs()} == {"bob"}
    with pytest.raises(errors.NotFound, match="no belief has subject nobody_here"):
        bdb.forget(subject="Nobody Here")
