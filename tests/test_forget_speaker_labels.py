"""A speaker whose label contains a forgotten person's name ("Maya's mum", "Maya Lopez (guest)") is not the
person by rule 14 of docs/rules.md (only a speaker whose name is the subject is): their turns are their
words, and stay. But the label names the person, in the text and in every turn's speaker: forget's
preview and report list such speakers (``speaker_mentions``: the label with the name masked, how many
turns, in which sources), and ``mask_mentions`` masks the name in the label wherever it is kept (the
stored turns' speaker, and the turns of the texts waiting to be stored), as it masks it in the text."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from forgets import run_hinted

import beliefdb
from beliefdb.models import Turn

MASK = "\u2588"


def at(minute: int) -> datetime:
    return datetime(2025, 3, 1, 10, 0, tzinfo=UTC) + timedelta(minutes=minute)


CHAT = [
    Turn("Maya", "I live in Lisbon.", at(0)),
    Turn("Maya's mum", "She was born in Porto.", at(1)),
    Turn("Maya Lopez (guest)", "Hello everyone.", at(2)),
    Turn("Bob", "ok", at(3)),
]


def speakers(conn: psycopg.Connection[Any]) -> list[str]:
    return [r[0] for r in conn.execute("select distinct speaker from beliefdb.fragment where speaker is not null"
                                       " order by 1")]


def test_speakers_whose_label_names_the_person_are_listed_and_their_turns_stay(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], cli: Any) -> None:
    bdb.ingest_conversation(CHAT, source="chat-1", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    preview = bdb.forget(subject="maya", preview=True)
    listed = [(s.speaker, s.turns, s.sources, s.masked) for s in preview.speaker_mentions]
    assert listed == [(f"{MASK * 4} Lopez (guest)", 1, ["chat-1"], False), (f"{MASK * 4}'s mum", 1, ["chat-1"], False)]
    hint = preview.speaker_mentions[0].hint
    assert "forget --subject" in hint and "--mask-mentions" in hint
    shown = cli("forget", "--subject", "maya", "--preview")
    head = "speakers whose label names this person, their turns left as their words (2, in 2 turn(s)):"
    assert head in shown.output, shown.output
    assert f"  {MASK * 4}'s mum (1 turn(s) in chat-1)" in shown.output
    postgresql.commit()
    done = bdb.forget(subject="maya")
    assert done.speaker_mentions == preview.speaker_mentions
    # their turns stay, labels and all: they are not the person by the rule
    assert speakers(postgresql) == ["Bob", "Maya Lopez (guest)", "Maya's mum"]
    # if they are her own words, the forget the hint names, run as written with the label, takes them
    postgresql.commit()
    run_hinted(cli, hint, "LABEL", "Maya Lopez (guest)")
    postgresql.commit()
    assert speakers(postgresql) == ["Bob", "Maya's mum"]


def test_masking_the_mentions_masks_the_name_in_the_labels(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_conversation(CHAT, source="chat-1", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    # a conversation queued with a turn of hers: the label goes with the text it labels
    bdb.submit(turns=[*CHAT, Turn("Maya's mum", "I live in Porto.", at(9))], source="chat-1")
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    assert [(s.speaker, s.masked) for s in done.speaker_mentions] == [
        (f"{MASK * 4} Lopez (guest)", True), (f"{MASK * 4}'s mum", True)]
    assert speakers(postgresql) == ["Bob", f"{MASK * 4} Lopez (guest)", f"{MASK * 4}'s mum"]
    (content,) = postgresql.execute("select content from beliefdb.source_version").fetchone() or (None,)
    assert "Maya" not in content and f"{MASK * 4}'s mum: She was born in Porto." in content
    (payload,) = postgresql.execute("select payload from beliefdb.job").fetchone() or (None,)
    assert "Maya" not in json.dumps(payload), payload
    assert bdb.audit_verify().ok
    postgresql.commit()
    # the worker stores the queued turns as the forget left them: no label names her again
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    postgresql.commit()
    assert not any("Maya" in s for s in speakers(postgresql)), speakers(postgresql)
    assert "Maya" not in str(postgresql.execute("select array_agg(content) from beliefdb.source_version").fetchone())


def test_no_planner_statistic_keeps_a_speakers_label_that_named_the_person(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The speakers of turns are a text column too: ANALYZE's values of fragment.speaker kept
    the forgotten speaker's name and the labels masked, until forget gathered them again as it does the
    other text columns (rule 14)."""
    bdb.ingest_conversation(CHAT, source="chat-1", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    postgresql.commit()
    postgresql.execute("analyze beliefdb.fragment")
    postgresql.commit()

    def kept() -> str:
        return str(postgresql.execute("select most_common_vals::text, histogram_bounds::text from pg_catalog.pg_stats"
                                      " where schemaname = 'beliefdb' and tablename = 'fragment'"
                                      " and attname = 'speaker'").fetchall())

    assert "Maya Lopez (guest)" in kept()
    bdb.forget(subject="maya", mask_mentions=True)
    postgresql.commit()
    assert "Maya" not in kept(), kept()


def test_the_labels_masked_are_counted_in_the_report_and_the_audit_event(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], cli: Any) -> None:
    """Rule 12: masking the name in speakers' labels is a change like masking it in the text, so the
    report counts the turns whose label it masked (stored, and waiting to be stored) and the forget's
    audit event says how many, a count and never the name."""
    bdb.ingest_conversation(CHAT, source="chat-1", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    # queued: three turns of others whose label names her, which stay, masked
    bdb.submit(turns=[*CHAT[1:], Turn("Maya's mum", "I live in Porto.", at(9))], source="chat-2")
    postgresql.commit()
    preview = bdb.forget(subject="maya", preview=True, mask_mentions=True)
    assert preview.speaker_mentions_count == 2
    assert [p.speakers for p in preview.pending_mentions] == [3]
    assert preview.labels_masked == 2 + 3
    shown = cli("forget", "--subject", "maya", "--preview", "--mask-mentions")
    assert "would mask the name in the labels of speakers (2, in 2 turn(s)):" in shown.output, shown.output
    assert ", 3 speaker label(s)):" in shown.output
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    assert done.speaker_mentions_count == 2 and [p.speakers for p in done.pending_mentions] == [3]
    assert done.labels_masked == 2 + 3 and done.fingerprint() == preview.fingerprint()
    (event,) = postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget'").fetchone() or (None,)
    assert event["labels_masked"] == 2 + 3, event
    assert "Maya" not in json.dumps(event) and "mum" not in json.dumps(event)
    postgresql.commit()
    assert cli.json("audit", "verify")["ok"] is True


def test_masking_the_mentions_masks_the_labels_a_done_job_kept(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A conversation job done before job_finish dropped its turns keeps them (no text): their speakers'
    labels name the person as the stored turns' did. Forget drops her own turns from it, and
    ``mask_mentions`` masks the name in the others' labels there too, counted with the labels masked."""
    bdb.submit(turns=CHAT, source="chat-1")
    (turns,) = postgresql.execute("select payload -> 'turns' from beliefdb.job").fetchone() or (None,)
    postgresql.commit()
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    # (a job done before job_finish dropped the turns)
    postgresql.execute("update beliefdb.job set payload = payload || jsonb_build_object('turns', %s::jsonb)",
                       (json.dumps(turns),))
    postgresql.commit()
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    postgresql.commit()
    done = bdb.forget(subject="maya", mask_mentions=True)
    (status, payload) = postgresql.execute("select status, payload from beliefdb.job").fetchone() or (None, None)
    assert status == "done" and "text" not in payload
    assert [t["speaker"] for t in payload["turns"]] == [f"{MASK * 4}'s mum", f"{MASK * 4} Lopez (guest)", "Bob"]
    assert "Maya" not in json.dumps(payload), payload
    assert done.jobs == 1
    (event,) = postgresql.execute(
        "select payload from beliefdb.audit_event where action = 'forget'").fetchone() or (None,)
    assert event["labels_masked"] == 2 + 2, event


def test_a_preview_is_stale_once_the_labels_it_would_mask_are_others(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A forget applied with a preview's fingerprint (``expect``) forgets only what the preview showed: the
    speaker labels it masks are part of that. The waiting conversation sent again with more turns of her
    mum's (still one job) would mask three labels where the preview showed one: stale, nothing forgotten."""
    bdb.ingest_conversation(CHAT, source="chat-1", embed=False)
    bdb.remember("Maya lives in Lisbon.", "maya", "city", "Lisbon", "I live in Lisbon.", source="chat-1")
    bdb.submit(turns=[Turn("Maya's mum", "I live in Porto.", at(9))], source="chat-2")
    postgresql.commit()
    preview = bdb.forget(subject="maya", preview=True, mask_mentions=True)
    assert (preview.jobs, preview.labels_masked) == (1, 2 + 1)
    bdb.cancel(source="chat-2")
    bdb.submit(turns=[Turn("Maya's mum", f"I live in Porto, day {n}.", at(9 + n)) for n in range(3)],
               source="chat-2")
    postgresql.commit()
    with pytest.raises(beliefdb.errors.StalePreview):
        bdb.forget(subject="maya", mask_mentions=True, expect=preview.fingerprint())
    assert speakers(postgresql) == sorted(t.speaker for t in CHAT)  # nothing was masked
    again = bdb.forget(subject="maya", preview=True, mask_mentions=True)
    assert (again.jobs, again.labels_masked) == (1, 2 + 3)
    assert bdb.forget(subject="maya", mask_mentions=True, expect=again.fingerprint()).labels_masked == 2 + 3
