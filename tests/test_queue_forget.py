"""Job payloads and forgetting (rule 14 of docs/rules.md): a done job's document text is cleared in
the transaction that completes it (it lives on as the source version, where forget finds it), and
forgetting a source clears the queue of it: payloads, results naming it, errors that may quote it;
a queued job of it is failed instead of bringing the source back."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest
from test_forget_redaction import holding

import beliefdb
from beliefdb.models import Turn

POLICY = "# Returns\nReturns are accepted within 30 days.\nThe restocking fee is 10%.\n"
SECRET = "# Badge\nDana's badge code is 4471.\n"


def payloads(conn: psycopg.Connection[Any]) -> list[tuple[str, dict[str, Any], str | None]]:
    return [(status, payload, error) for status, payload, error in conn.execute(
        "select status, payload, last_error from beliefdb.job order by id").fetchall()]


@pytest.mark.slow
def test_a_done_job_keeps_no_text_and_its_version_has_it(bdb: beliefdb.BeliefDB,
                                                        postgresql: psycopg.Connection[Any]) -> None:
    (job,) = bdb.submit(text=POLICY, source="returns.md", version_label="v1")
    assert payloads(postgresql)[0][1]["text"] == POLICY  # queued: the worker needs it
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    [(status, payload, error)] = payloads(postgresql)
    assert (status, error) == ("done", None)
    assert "text" not in payload and payload["source"] == "returns.md" and payload["version_label"] == "v1"
    assert postgresql.execute("select content from beliefdb.source_version").fetchone() == (POLICY,)
    (shown,) = bdb.jobs()
    assert (shown.id, shown.source, shown.status) == (job, "returns.md", "done")


@pytest.mark.slow
def test_forgetting_a_source_clears_its_jobs_and_fails_the_queued_one(bdb: beliefdb.BeliefDB,
                                                                       monkeypatch: pytest.MonkeyPatch,
                                                                       postgresql: psycopg.Connection[Any]) -> None:
    bdb.submit(text=SECRET, source="badge.md")
    bdb.submit(text=POLICY, source="returns.md")
    assert bdb.work(stop_when_empty=True, embed=False).done == 2
    # a later text of badge.md fails for good, its error quoting the document; another waits
    bdb.submit(text=SECRET.replace("4471", "4472"), source="badge.md", max_attempts=1)
    monkeypatch.setattr("beliefdb.store.jobs._message", lambda exc: "could not parse: Dana's badge code is 4472.")
    monkeypatch.setenv("BELIEFDB_INGEST_MAX_BYTES", "10")  # (the worker's limit is lower than the submitter's)
    assert bdb.work(once=True, embed=False).failed == 1
    monkeypatch.undo()
    bdb.submit(text=SECRET.replace("4471", "4473"), source="badge.md")
    before = payloads(postgresql)
    assert [s for s, _, _ in before] == ["done", "done", "failed", "queued"]
    preview = bdb.forget(source="badge.md", preview=True)
    assert payloads(postgresql) == before  # a preview changes nothing
    bdb.forget(source="badge.md")
    after = payloads(postgresql)
    assert [s for s, _, _ in after] == ["done", "done", "failed", "failed"]
    assert after[1] == before[1]  # returns.md's job is untouched
    for i in (0, 2, 3):
        assert after[i][1] == {"forgotten": True}
    assert after[0][2] is None
    assert after[2][2] == after[3][2] == "its source was forgotten: its text and name were cleared"
    dump = str(postgresql.execute("select array_agg(j::text) from beliefdb.job j").fetchone())
    dump = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+\d\d", "", dump)  # (a time may hold 4471)
    assert "badge" not in dump and "4471" not in dump and "4472" not in dump and "4473" not in dump
    # the failed queued job does not bring the source back
    assert bdb.work(stop_when_empty=True, embed=False).outcomes == []
    assert postgresql.execute("select count(*) from beliefdb.source where name = 'badge.md'").fetchone() == (0,)
    assert preview.versions == 1


@pytest.mark.slow
def test_forgetting_a_subject_masks_its_quotes_and_turns_in_queued_documents(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A queued version that repeats what was forgotten would bring it back when a worker ingests it:
    its text is masked as the stored versions are (a done job keeps no text). Only the queued versions
    of the sources it was forgotten from: another source's document is not read for it."""
    bdb.ingest_text(SECRET, source="badge.md")
    bdb.ingest_conversation([Turn("Dana", "My badge code is 4471, by the way.", datetime(2025, 3, 1, tzinfo=UTC))],
                            source="chat-dana", embed=False)
    assert "dana" in {b.subject for b in bdb.beliefs()}
    bdb.submit(text=SECRET + "The badge office is on floor 2.\n", source="badge.md")
    queued = "Dana: My badge code is 4471, by the way.\n**Dana:** My badge code is 4471, by the way.\nBob: ok\n"
    bdb.submit(text=queued, source="chat-dana")
    bdb.submit(text=POLICY, source="returns.md")
    postgresql.commit()
    done = bdb.forget(subject="dana")
    assert done.fragments == 1 and done.beliefs == 2
    [(_, badge, _), (_, chat, _), (_, other, _)] = payloads(postgresql)
    masked = "\u2588" * len("Dana's badge code is 4471.")
    assert badge["text"] == f"# Badge\n{masked}\nThe badge office is on floor 2.\n"
    assert "4471" not in chat["text"] and chat["text"].endswith("\nBob: ok\n")
    assert len(chat["text"]) == len(queued)  # masked in place
    assert other["text"] == POLICY
    assert bdb.work(stop_when_empty=True, embed=False).done == 3
    assert "dana" not in {b.subject for b in bdb.beliefs()}


def test_a_proposal_keeps_no_claim_of_what_was_forgotten(db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """A version proposed to a source's owner carries its claims (quotes, values) as well as its text:
    forgetting masks the text and takes out every claim over what it masked."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text(SECRET, source="badge.md")
        assert bob.ingest_text(SECRET + "The badge office is on floor 2.\n", source="badge.md").proposed
        alice.forget(subject="dana")
        (proposal,) = [r[0] for r in postgresql.execute("select proposal from beliefdb.review_item")]
        # (its record of what was masked is hex digests and salts, which may hold "4471" by chance)
        told = str({k: v for k, v in proposal.items() if k != "forgotten_lines"})
        assert "4471" not in told and "Dana" not in told
        assert proposal["content"].endswith("The badge office is on floor 2.\n")
        (item,) = alice.review_items()
        alice.resolve_review(item.id, "approved")
        assert "dana" not in {b.subject for b in alice.beliefs()}
        versions = postgresql.execute("select array_agg(content) from beliefdb.source_version").fetchone()
        assert "4471" not in str(versions)


def test_a_proposed_conversation_approved_after_a_forget_grows_the_version(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """The turns of a proposed conversation are masked as its version masks them (the name and the words,
    not the marks between), so the owner's approval grows the version in place (rule 18)."""
    chat = [Turn("Maya", "I live in Berlin.", datetime(2026, 1, 5, tzinfo=UTC)),
            Turn("Tom", "I live in Paris.", datetime(2026, 1, 6, tzinfo=UTC))]
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_conversation(chat, source="chat", embed=False)
        grown = [*chat, Turn("Tom", "I work as a nurse.", datetime(2026, 2, 1, tzinfo=UTC))]
        assert bob.ingest_conversation(grown, source="chat", embed=False).proposed
        alice.forget(subject="maya")
        (proposal,) = [r[0] for r in postgresql.execute("select proposal from beliefdb.review_item")]
        assert "Berlin" not in str(proposal) and "Maya" not in str(proposal)
        (version,) = [r[0] for r in postgresql.execute("select content from beliefdb.source_version")]
        assert proposal["content"].startswith(version + "\n")
        (item,) = alice.review_items()
        alice.resolve_review(item.id, "approved")
        rows = postgresql.execute("select version, content from beliefdb.source_version").fetchall()
        assert len(rows) == 1 and rows[0][1].endswith("Tom: I work as a nurse.")
        assert {b.value for b in alice.beliefs()} == {"Paris", "nurse"}


SAME = [Turn("Maya", "I live in Lisbon.", datetime(2024, 3, 4, 9, 15, tzinfo=UTC)),
        Turn("Bob", "I live in Lisbon.", datetime(2024, 3, 4, 9, 16, tzinfo=UTC))]
GROWN = [*SAME, Turn("Bob", "I work at Acme.", datetime(2024, 3, 5, 9, 15, tzinfo=UTC))]


def lives_in(bdb: beliefdb.BeliefDB) -> dict[str, str]:
    return {b.subject: b.status for b in bdb.beliefs(include_all=True) if b.attribute == "lives_in"}


def test_a_queued_conversation_keeps_another_speakers_same_words_when_a_subject_is_forgotten(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Another speaker who said the same words said their own (rule 14): masked in the stored version,
    they are not masked in the queued one either, so the job grows the version by its new turn."""
    bdb.ingest_conversation(SAME, source="qc", embed=False)
    bdb.submit(turns=GROWN, source="qc")
    postgresql.commit()
    bdb.forget(subject="maya")
    [(_, queued, _)] = payloads(postgresql)
    assert queued["text"].count("I live in Lisbon.") == 1 and "Maya" not in queued["text"]
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert lives_in(bdb) == {"bob": "current"}
    rows = postgresql.execute("select content from beliefdb.source_version").fetchall()
    assert len(rows) == 1
    assert rows[0][0].endswith("Bob: I live in Lisbon.\n[2024-03-05T09:15:00+00:00] Bob: I work at Acme.")


def test_a_proposed_conversation_keeps_another_speakers_same_words_when_a_subject_is_forgotten(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="carol") as carol:
        alice.ingest_conversation(SAME, source="qc", embed=False)
        assert carol.ingest_conversation(GROWN, source="qc", embed=False).proposed
        alice.forget(subject="maya")
        (item,) = alice.review_items()
        alice.resolve_review(item.id, "approved")
        (version,) = [r[0] for r in postgresql.execute("select content from beliefdb.source_version")]
        assert version.count("Bob: ") == 2 and version.endswith("Bob: I work at Acme.") and "Maya" not in version
        assert lives_in(alice) == {"bob": "current"}
        # the grown conversation ingested again by its owner: what was forgotten stays forgotten
        again = alice.ingest_conversation(GROWN, source="qc", embed=False)
        assert not again.new_version and again.accepted == []
        assert lives_in(alice) == {"bob": "current"}


def test_forgetting_a_subject_forgets_its_turns_in_every_conversation_waiting_to_be_stored(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Its new turns in a conversation queued before the forget, and its turns in a conversation not
    stored yet: masked, and gone as turns, so the worker stores them as the forget left the rest."""
    bdb.ingest_conversation(SAME, source="qc", embed=False)
    phone = Turn("Maya", "My phone number is 555-1234.", datetime(2024, 3, 6, tzinfo=UTC))
    bdb.submit(turns=[*GROWN, phone], source="qc")
    bdb.submit(turns=[Turn("Maya", "I have a cat named Tom.", datetime(2024, 4, 1, tzinfo=UTC)),
                      Turn("Bob", "Nice, I have a dog.", datetime(2024, 4, 1, 0, 1, tzinfo=UTC))], source="other-chat")
    postgresql.commit()
    bdb.forget(subject="maya")
    waiting = str(payloads(postgresql))
    assert "555-1234" not in waiting and "cat named" not in waiting and "Maya" not in waiting
    assert "I work at Acme." in waiting and "Nice, I have a dog." in waiting
    assert bdb.work(stop_when_empty=True, embed=False).done == 2
    for said in ("555-1234", "cat named", "Maya"):
        assert holding(postgresql, said) == [], said
    assert {b.subject for b in bdb.beliefs()} == {"bob"}


@pytest.mark.slow
def test_a_queued_conversation_that_only_repeats_a_forgotten_speakers_stored_turn_keeps_no_speaker_of_theirs(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The queued conversation repeats Maya's stored turn and adds none of hers: the forget masks that
    line as a stored quote first, and the turn must go too (it stayed in the job's turns, her name as
    its speaker, until a worker took the job)."""
    bdb.ingest_conversation(SAME, source="qc", embed=False)
    bdb.submit(turns=GROWN, source="qc")
    postgresql.commit()
    bdb.forget(subject="maya")
    waiting = payloads(postgresql)
    assert "Maya" not in str(waiting), waiting
    assert [t["speaker"] for t in waiting[0][1]["turns"]] == ["Bob", "Bob"]
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert holding(postgresql, "Maya") == []


@pytest.mark.slow
def test_a_done_conversation_job_keeps_no_speaker_of_a_forgotten_subject(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A done job keeps no text, and no turns either (their speakers and times are the text's): a
    forgotten subject's name is not left in the queue. A job done before that change is cleared of
    the subject's turns by the forget."""
    bdb.submit(turns=[Turn("Maya Keller", "I have a cat named Tom.", datetime(2024, 4, 1, tzinfo=UTC)),
                      Turn("Bob", "Nice, I have a dog.", datetime(2024, 4, 1, 0, 1, tzinfo=UTC))], source="chat-1")
    bdb.submit(turns=[Turn("Maya Keller", "I live in Lisbon.", datetime(2024, 4, 2, tzinfo=UTC)),
                      Turn("Bob", "I live in Porto.", datetime(2024, 4, 2, 0, 1, tzinfo=UTC))], source="chat-2")
    assert bdb.work(stop_when_empty=True, embed=False).done == 2
    done = payloads(postgresql)
    assert [s for s, _, _ in done] == ["done", "done"]
    assert all("text" not in p and "turns" not in p for _, p, _ in done), done
    # (a job done before job_finish dropped the turns)
    postgresql.execute(
        """update beliefdb.job set payload = payload || jsonb_build_object('turns', jsonb_build_array(
               jsonb_build_object('start', 0, 'end', 5, 'speaker', 'Maya Keller', 'time', '2024-04-02T00:00:00+00:00'),
               jsonb_build_object('start', 6, 'end', 9, 'speaker', 'Bob', 'time', '2024-04-02T00:01:00+00:00')))
            where payload ->> 'source' = 'chat-2'""")
    postgresql.commit()
    bdb.forget(subject="Maya Keller")
    after = payloads(postgresql)
    assert "Maya" not in str(after), after
    assert [t["speaker"] for t in after[1][1]["turns"]] == ["Bob"]


def test_a_person_who_speaks_only_in_conversations_waiting_to_be_stored_is_forgotten(
        alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Their turns in a queued conversation, an open proposal and a rejected one are masked and go as
    turns, though nothing of theirs is stored yet (forget refused: 'no belief has subject hans_vogel',
    and the worker then stored their words)."""
    alice.submit(turns=[Turn("Hans Vogel", "My pin is VESUVIO-123.", datetime(2026, 11, 8, tzinfo=UTC)),
                        Turn("Bob", "I live in Basel.", datetime(2026, 11, 8, 0, 1, tzinfo=UTC))], source="hans-chat")
    said = Turn("Bob", "I work at Siemens.", datetime(2026, 11, 7, tzinfo=UTC))
    alice.ingest_conversation([said], source="team-chat", embed=False)
    rejected = bob.ingest_conversation(
        [said, Turn("Hans Vogel", "My locker is ETNA-777.", datetime(2026, 11, 7, 0, 1, tzinfo=UTC))],
        source="team-chat", embed=False)
    alice.resolve_review(rejected.review_item, "rejected")
    alice.ingest_conversation([Turn("Bob", "I work at Bosch.", datetime(2026, 11, 9, tzinfo=UTC))],
                              source="bob-chat", embed=False)
    assert bob.ingest_conversation(
        [Turn("Bob", "I work at Bosch.", datetime(2026, 11, 9, tzinfo=UTC)),
         Turn("Hans Vogel", "My car is STROMBOLI-5.", datetime(2026, 11, 9, 0, 1, tzinfo=UTC))],
        source="bob-chat", embed=False).proposed
    postgresql.commit()
    alice.forget(subject="Hans Vogel")
    postgresql.commit()
    for secret in ("Hans", "VESUVIO", "ETNA", "STROMBOLI"):
        assert holding(postgresql, secret) == [], secret
    assert alice.work(stop_when_empty=True, embed=False).done == 1
    postgresql.commit()
    assert holding(postgresql, "VESUVIO") == [] and holding(postgresql, "Hans") == []
    assert {b.value for b in alice.beliefs()} >= {"Basel"}


def test_forgetting_a_source_only_queued_says_it_is_queued(bdb: beliefdb.BeliefDB) -> None:
    """An agent forgets a document it submitted a moment ago, before a worker stored it: there is no
    source yet to forget, and the job will store it. The refusal said only 'unknown source', as for a
    name never seen; it now names the job, and says when the source can be forgotten."""
    (job,) = bdb.submit(text=SECRET, source="badge.md")
    with pytest.raises(beliefdb.errors.NotFound) as unknown:
        bdb.forget(source="badge.md")
    assert unknown.value.message == (
        f"unknown source badge.md: it is only in the queue (job {job}), not stored: cancel its jobs with their text"
        " (beliefdb jobs cancel --source badge.md), or forget it once a worker has stored it")
    with pytest.raises(beliefdb.errors.NotFound) as never:
        bdb.forget(source="nothing.md")
    assert never.value.message == ("unknown source nothing.md (hint: a source forgotten already is not found"
                                   " again (a repeated forget has nothing left to do))")
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert bdb.forget(source="badge.md").versions == 1


# A user's trial (README: "what forget erased stays erased when a line it masked comes back word for word in
# the same source"): the forget came while the export was still queued, so no version recorded the lines it
# masked, and the same export ingested again brought dan's words back as beliefs.
DAN = [Turn("dan", "I live in Oslo.", datetime(2026, 1, 1, 9, tzinfo=UTC)),
       Turn("agent", "Noted.", datetime(2026, 1, 1, 9, 1, tzinfo=UTC)),
       Turn("dan", "I moved to Bergen.", datetime(2026, 1, 2, 9, tzinfo=UTC))]


def kept_text(conn: psycopg.Connection[Any]) -> str:
    """Every text kept of sources and of the queue: versions, fragments and their speakers, evidence, jobs (not
    the digests and salts of their forgotten lines, random hex that may hold any four digits)."""
    rows = conn.execute(
        "select coalesce(string_agg(v.content, ' '), '') from beliefdb.source_version v"
        " union all select coalesce(string_agg(f.text || ' ' || coalesce(f.speaker, ''), ' '), '')"
        " from beliefdb.fragment f"
        " union all select coalesce(string_agg(e.quote, ' '), '') from beliefdb.evidence e"
        " union all select coalesce(string_agg((j.payload - 'forgotten_lines')::text, ' '), '') from beliefdb.job j"
    ).fetchall()
    return " ".join(r[0] for r in rows)


@pytest.mark.parametrize("turns", [DAN, [DAN[0], DAN[2]]], ids=["with-another-speaker", "every-turn-dans"])
@pytest.mark.parametrize("worker_first", [True, False], ids=["stored-then-again", "again-while-queued"])
def test_a_conversation_forgotten_in_while_queued_stays_forgotten_when_it_comes_back(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], worker_first: bool,
        turns: list[Turn]) -> None:
    """The lines a forget masked in a queued export are found again when the same export comes back: after
    the worker stored the job, or ingested directly while the masked job still waits (the worker then finds
    the text in force). Every turn dan's: the masked conversation is still a conversation."""
    bdb.submit(turns=turns, source="c.jsonl")
    postgresql.commit()
    preview = bdb.forget(subject="dan", preview=True)
    assert bdb.forget(subject="dan", expect=preview.fingerprint()).jobs == 1
    if worker_first:
        assert bdb.work(stop_when_empty=True, embed=False).done == 1
    again = bdb.ingest_conversation(turns, source="c.jsonl", embed=False)
    assert again.accepted == []
    if worker_first:
        assert not again.new_version
        assert again.note == ("unchanged: the same text as version 1, in force"
                              " (what was forgotten in it stays forgotten)")
    else:
        assert again.new_version and again.version == 1
        assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert [b for b in bdb.beliefs(include_all=True) if b.subject == "dan"] == []
    postgresql.commit()
    kept = kept_text(postgresql)
    for said in ("Oslo", "Bergen", "dan"):
        assert said not in kept, said
    assert postgresql.execute("select count(*), max(version) from beliefdb.source_version").fetchone() == (1, 1)
    assert postgresql.execute("select origin_type::text from beliefdb.source").fetchone() == ("conversation",)
    # and once more, as a conversation grown by a turn: dan's lines stay masked, the new turn is stored
    grown = bdb.ingest_conversation([*turns, Turn("agent", "I work at Acme.", datetime(2026, 1, 3, tzinfo=UTC))],
                                    source="c.jsonl", embed=False)
    assert [a.value for a in grown.accepted] == ["Acme"] and not grown.new_version
    postgresql.commit()
    kept = kept_text(postgresql)
    assert "I work at Acme." in kept and "Oslo" not in kept and "Bergen" not in kept


NOTE = "# Badge\nDana's badge code is 4471.\n"
QUEUED = NOTE + "Reminder for the desk: Dana's badge code is 4471.\nThe badge office is on floor 2.\n"


@pytest.mark.parametrize("worker_first", [True, False], ids=["stored-then-again", "again-while-queued"])
def test_a_document_forgotten_in_while_queued_stays_forgotten_when_it_comes_back(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], worker_first: bool) -> None:
    """The queued text repeats the forgotten quote in a line no stored version has: that line is masked
    again when the same text comes back (it came back in clear)."""
    bdb.ingest_text(NOTE, source="badge.md", embed=False)
    bdb.submit(text=QUEUED, source="badge.md")
    postgresql.commit()
    assert bdb.forget(subject="dana").jobs == 1
    if worker_first:
        assert bdb.work(stop_when_empty=True, embed=False).done == 1
    again = bdb.ingest_text(QUEUED, source="badge.md", embed=False)
    assert [a.value for a in again.accepted] == ([] if worker_first else ["on floor 2"]) and again.version == 2
    if worker_first:
        assert not again.new_version
        assert again.note == ("unchanged: the same text as version 2, in force"
                              " (what was forgotten in it stays forgotten)")
    else:
        assert bdb.work(stop_when_empty=True, embed=False).done == 1
    postgresql.commit()
    assert "4471" not in kept_text(postgresql)
    assert postgresql.execute("select count(*) from beliefdb.source_version").fetchone() == (2,)
    assert "dana" not in {b.subject for b in bdb.beliefs(include_all=True)}


def test_a_submitted_payload_records_no_forgotten_lines(bdb: beliefdb.BeliefDB,
                                                         postgresql: psycopg.Connection[Any]) -> None:
    """What a forget masked in a job's text is recorded by the forget alone: a submitter's payload that
    names lines of its own is queued without them (the worker would record them as masked spans)."""
    from beliefdb.store import jobs

    line = {"start": 0, "end": 4, "line_start": 0, "line_length": 9, "digest": "00"}
    jobs.submit(bdb.database, [{"source": "s.md", "text": "Returns ok.\n", "forgotten_lines": [line]}])
    [(_, payload, _)] = payloads(postgresql)
    assert payload == {"source": "s.md", "text": "Returns ok.\n"}
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert postgresql.execute("select count(*) from beliefdb.redaction").fetchone() == (0,)


def test_a_queued_text_a_forget_masked_cannot_be_cancelled_out_of_what_keeps_it_forgotten(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Cancelling a job deletes its text and the record of the lines a forget masked in it: the export
    ingested again afterwards stored the forgotten words in clear. The cancel is refused, saying why."""
    bdb.ingest_text(NOTE, source="badge.md", embed=False)
    (job,) = bdb.submit(text=QUEUED, source="badge.md")
    postgresql.commit()
    assert bdb.forget(subject="dana").jobs == 1
    for by in ({"source": "badge.md"}, {}):
        with pytest.raises(beliefdb.errors.InvalidInput, match="a forget masked"):
            bdb.cancel(*([] if by else [job]), **by)
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    again = bdb.ingest_text(QUEUED, source="badge.md", embed=False)
    assert again.accepted == [] or all("4471" not in a.value for a in again.accepted)
    postgresql.commit()
    assert "4471" not in kept_text(postgresql)
    # a job nothing was masked in is cancelled as before
    queued = bdb.submit(text="The badge office is on floor 3.\n", source="office.md")
    assert bdb.cancel(source="office.md") == queued


def test_a_name_masked_in_a_queued_text_is_no_value_once_it_is_stored(bdb: beliefdb.BeliefDB) -> None:
    """A forget with mask_mentions masks the name in a document waiting in the queue; the worker then
    stored `queued_doc / contact = ██████████`, a belief whose value is the mask (an upgrade trial)."""
    bdb.remember("Maya López's phone is 555.", "maya_lopez", "phone", "555", "Maya López's phone is 555",
                 source="crm.md", text="Maya López's phone is 555.\n")
    bdb.submit(text="# Queued doc\nContact: Maya López\nFloor: 2\n", source="queued_doc.md")
    bdb.forget(subject="maya_lopez", mask_mentions=True)
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert [(b.attribute, b.value) for b in bdb.beliefs()] == [("floor", "2")]
