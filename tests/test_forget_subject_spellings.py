"""One person, two subjects: the rule extractor names a speaker's subject ``maya_lopez``, while a claims
file or an llm extractor may write the name itself, "Maya López". Forgetting one of them (rule 14 of
docs/rules.md) left the other's beliefs, and the report listed such a belief only when its statement or
value named the person: "Contact: maya.l@example.org." about "Maya López" stayed, her email, and nothing
said so. And a belief of ``maya_lopez`` left by forgetting "Maya López" was listed with the hint "what a
source said of another subject: it stays theirs". The report now lists every belief that stays whose
subject names the person (its underscores read as spaces, by the name rule of beliefdb._mention_pattern),
field ``subject``, with the forget of that subject to run."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import psycopg
from conftest import Cli
from forgets import run_hinted

import beliefdb
from beliefdb.models import Turn

ORDER = "Order desk.\nThe courier for order B-1 is DHL.\nContact: maya.l@example.org.\n"


def two_spellings(bdb: beliefdb.BeliefDB) -> tuple[str, str]:
    """A belief of maya_lopez and one of "Maya López" whose statements do not name her; their ids."""
    courier = bdb.remember("The courier for order B-1 is DHL.", "maya_lopez", "courier", "DHL",
                           "The courier for order B-1 is DHL.", source="order.txt", text=ORDER).accepted[0].id
    email = bdb.remember("Contact: maya.l@example.org.", "Maya López", "email", "maya.l@example.org",
                         "Contact: maya.l@example.org.", source="order.txt").accepted[0].id
    return str(courier), str(email)


def test_forgetting_one_spelling_lists_the_beliefs_of_the_other(bdb: beliefdb.BeliefDB) -> None:
    courier, email = two_spellings(bdb)
    by_slug = bdb.forget(subject="maya_lopez", preview=True)
    assert [(m.kind, str(m.id), m.field) for m in by_slug.mentions] == [("belief", email, "subject")], by_slug.mentions
    assert "forget --subject 'Maya López' --preview" in by_slug.mentions[0].hint, by_slug.mentions[0].hint
    by_name = bdb.forget(subject="Maya López", preview=True)
    listed = [(m.kind, str(m.id), m.field) for m in by_name.mentions]
    assert listed == [("belief", courier, "subject")], by_name.mentions
    assert "forget --subject maya_lopez --preview" in by_name.mentions[0].hint, by_name.mentions[0].hint


def test_the_hinted_forget_takes_the_other_spelling_too(
        bdb: beliefdb.BeliefDB, cli: Cli, postgresql: psycopg.Connection[Any]) -> None:
    two_spellings(bdb)
    preview = bdb.forget(subject="maya_lopez", preview=True)
    bdb.forget(subject="maya_lopez", expect=preview.fingerprint())
    run_hinted(cli, preview.mentions[0].hint, "SUBJECT", "unused")
    left = postgresql.execute("select subject, statement from beliefdb.belief").fetchall()
    assert left == [], left


def test_a_speaker_whose_label_is_the_subject_as_written_is_forgotten_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """With a belief whose subject is "Maya López" as written, forget --subject "Maya López" took that subject
    alone: the turns of the speaker "Maya López" stayed, and the report listed her own label among the
    "speakers whose label names this person ... not the person by rule 14 (only a speaker whose name is the
    subject is)", of a speaker whose name is the subject, character for character."""
    at = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    bdb.ingest_conversation([Turn("Maya López", "I am allergic to peanuts.", at),
                             Turn("Agent", "Noted.", at),
                             Turn("MAYA LOPEZ", "I have 3 cats.", at)], source="chat-1", embed=False)
    bdb.remember("Contact: maya.l@example.org.", "Maya López", "email", "maya.l@example.org",
                 "Contact: maya.l@example.org.", source="order.txt", text=ORDER)
    preview = bdb.forget(subject="Maya López", preview=True)
    assert preview.speaker_mentions == [], preview.speaker_mentions
    bdb.forget(subject="Maya López", expect=preview.fingerprint())
    (content,) = postgresql.execute("select v.content from beliefdb.source_version v join beliefdb.source s"
                                    " on s.id = v.source_id where s.name = 'chat-1'").fetchone() or ("",)
    assert "peanuts" not in content and "López" not in content and "cats" not in content, content
    assert [b.subject for b in bdb.beliefs()] == [], bdb.beliefs()
