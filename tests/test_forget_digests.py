"""No digest beliefdb keeps or records confirms a guess of forgotten words (rule 14 of docs/rules.md): a
source version a forget masked has the sha256 of its masked text, and the audit chain records digests of
texts and rows keyed by the workspace's secret. Before, the version kept the sha256 of its words as they
were and the chain the plain sha256 of each ingested text and of each written row: hashing a guessed line
confirmed it ("Maya's desk is 4C." in 27 tries)."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime
from typing import Any

import psycopg
from undo_revisions import undo_0051

import beliefdb
from beliefdb.db import migrate
from beliefdb.models import Turn

TEXT = "Maya's phone number is 555-1234.\nThe return window is 30 days.\n"
MASKED_LINE = "█" * len("Maya's phone number is 555-1234.")


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def payloads(conn: psycopg.Connection[Any]) -> str:
    found = json.dumps([r[0] for r in conn.execute("select payload from beliefdb.audit_event order by seq")])
    conn.commit()
    return found


def test_a_masked_version_and_the_chain_hold_no_plain_digest_of_what_was_forgotten(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(TEXT, source="office.md")
    # the version's row as it was written, and its words: what a plain digest of either would confirm
    (row_before,) = postgresql.execute("select v::text from beliefdb.source_version v").fetchone() or ("",)
    postgresql.commit()
    assert "555-1234" in row_before
    kept = next(b for b in bdb.beliefs() if b.subject == "return_policy")
    assert bdb.forget(subject="maya").beliefs == 1
    content, stored = postgresql.execute("select content, encode(sha256, 'hex') from beliefdb.source_version"
                                         ).fetchone() or ("", "")
    assert content == MASKED_LINE + "\nThe return window is 30 days.\n"
    # the version's digest is of the text as it reads, and so is what why shows of it
    assert stored == sha(content) != sha(TEXT)
    assert {e.version_sha256 for e in bdb.why(kept.id).evidence} == {sha(content)}
    # the chain: neither the text's nor its row's plain digest, anywhere
    chain = payloads(postgresql)
    assert sha(TEXT) not in chain and sha(row_before) not in chain
    assert '"text_hmac"' in chain and '"rows_hmac"' in chain and "rows_sha256" not in chain
    assert bdb.audit_verify().ok


def test_the_text_as_ingested_is_still_the_masked_version_again(bdb: beliefdb.BeliefDB,
                                                                postgresql: psycopg.Connection[Any]) -> None:
    """Rule 18 after a forget, though the version's digest is now of its masked text: the original text
    in force again changes nothing; back after another text it is a new version masked as the first; the
    text of a masked version that was retracted changes nothing."""
    bdb.ingest_text(TEXT, source="office.md")
    bdb.forget(subject="maya")
    again = bdb.ingest_text(TEXT, source="office.md")
    assert not again.new_version and "stays forgotten" in (again.note or "")
    other = bdb.ingest_text("The return window is 60 days.\n", source="office.md")
    assert other.new_version and other.version == 2
    back = bdb.ingest_text(TEXT, source="office.md")
    assert back.new_version and back.version == 3
    (third,) = postgresql.execute("select content from beliefdb.source_version where version = 3").fetchone() or ("",)
    postgresql.commit()
    assert third.startswith(MASKED_LINE + "\n") and "555-1234" not in third
    bdb.retract(source="office.md", version=3, reason="wrong file")
    assert not bdb.ingest_text(TEXT, source="office.md").new_version


def test_another_principal_learns_nothing_by_sending_a_guess(db_url: str,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    """A principal who does not own the source and sends a guess of its forgotten words gets the same
    answer whatever the guess: the version in force, unchanged (before, the right guess was "unchanged"
    by its digest and a wrong one a proposal); no proposal holds the guess, nothing stores it."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text(TEXT, source="office.md")
        alice.forget(subject="maya")
        right = bob.ingest_text(TEXT, source="office.md")
        wrong = bob.ingest_text(TEXT.replace("1234", "9999"), source="office.md")
        assert (right.proposed, right.new_version, right.version) == (wrong.proposed, wrong.new_version,
                                                                     wrong.version) == (False, False, 1)
        assert right.note == wrong.note
        # a text that differs outside what was forgotten is still a proposal, with no digest in its reason
        assert bob.ingest_text("The return window is 60 days.\n", source="office.md").proposed
        reasons = [i.reason for i in alice.review_items()]
        assert len(reasons) == 1 and "sha256" not in reasons[0]
    stored = " ".join(r[0] for r in postgresql.execute("select content from beliefdb.source_version"))
    proposed = " ".join(r[0] for r in postgresql.execute("select proposal::text from beliefdb.review_item"))
    postgresql.commit()
    assert "555-" not in stored and "555-" not in proposed


def legacy_row(conn: psycopg.Connection[Any], action: str, payload: dict[str, Any]) -> None:
    """An event appended as the release before recorded it: a statement's entry with its rows' plain
    digest (_audit_append keys it now, so the payload is put back and the event's hashes made again)."""
    conn.execute("select beliefdb._audit_append((select id from beliefdb.workspace where name = 'default'),"
                 " %s, '{}'::jsonb)", (action,))
    conn.execute(
        "with last as (select e.workspace_id, e.seq from beliefdb.audit_event e order by e.seq desc limit 1)"
        " update beliefdb.audit_event e set payload = %(p)s::jsonb,"
        " payload_hash = beliefdb.audit_payload_hash(%(p)s::jsonb),"
        " hash = beliefdb.audit_link_hash(e.prev_hash, e.workspace_id, e.seq, e.at, e.principal, e.action,"
        "                                 beliefdb.audit_payload_hash(%(p)s::jsonb))"
        " from last where e.workspace_id = last.workspace_id and e.seq = last.seq", {"p": json.dumps(payload)})
    conn.execute("update beliefdb.audit_head h set hash = e.hash from beliefdb.audit_event e"
                 " where e.workspace_id = h.workspace_id and e.seq = h.seq")


def test_events_from_before_keep_their_hashes_only_once_their_text_is_masked(
        db_url: str, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A chain written before revision 0050 recorded each ingest's plain sha256: the upgrade takes the
    masked versions' digests to their masked text and redacts those events, and a later forget that
    masks words of such a version redacts its event too; the chain still verifies."""
    bdb.ingest_text(TEXT, source="office.md")
    bdb.ingest_text("Bob's desk is 4C.\n", source="desks.md")
    postgresql.execute("select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace"
                       " where name = 'default'), false)")
    for source, text in (("office.md", TEXT), ("desks.md", "Bob's desk is 4C.\n")):
        postgresql.execute("select beliefdb._audit_append((select id from beliefdb.workspace where name = 'default'),"
                           " 'ingest', jsonb_build_object('source', %s::text, 'version', 1, 'sha256', %s::text))",
                           (source, sha(text)))
    postgresql.commit()
    bdb.forget(subject="maya")
    # the version as a forget of the release before left it: masked, with the digest of its words as they were
    postgresql.execute("alter table beliefdb.source_version disable trigger source_version_immutable")
    postgresql.execute("update beliefdb.source_version set sha256 = sha256(convert_to(%s, 'UTF8'))"
                       " where content like %s", (TEXT, MASKED_LINE + "%"))
    postgresql.execute("alter table beliefdb.source_version enable trigger source_version_immutable")
    postgresql.execute("drop index beliefdb.audit_event_plain_digest")
    postgresql.execute("alter table beliefdb.agent_login drop column made_in")  # (revision 0050's too)
    postgresql.execute("alter table beliefdb.redaction drop column line_salt")
    undo_0051(postgresql)  # revision 0051's
    postgresql.execute("update beliefdb.alembic_version set version_num = '0049'")
    postgresql.commit()
    # (the forget redacted office.md's event of the old form already: put one back, as the old code left it,
    # and the old forget's own update of the version, recorded by the plain digest of its row, whose text
    # held the sha256 of the words as they were)
    postgresql.execute("select beliefdb._audit_append((select id from beliefdb.workspace where name = 'default'),"
                       " 'ingest', jsonb_build_object('source', 'office.md', 'version', 1, 'sha256', %s::text))",
                       (sha(TEXT),))
    (row,) = postgresql.execute("select v::text from beliefdb.source_version v where content like %s",
                                (MASKED_LINE + "%",)).fetchone() or ("",)
    legacy_row(postgresql, "source_version.update", {
        "table": "source_version", "op": "update", "count": 1, "keys": [row.split(",")[1]],
        "rows_sha256": sha(row)})
    postgresql.commit()
    assert sha(TEXT) in payloads(postgresql) and sha(row) in payloads(postgresql)
    migrate.upgrade(db_url)
    stored = postgresql.execute("select encode(sha256, 'hex') from beliefdb.source_version where content like %s",
                                (MASKED_LINE + "%",)).fetchone()
    assert stored == (sha(MASKED_LINE + "\nThe return window is 30 days.\n"),)
    chain = payloads(postgresql)
    assert sha(TEXT) not in chain and sha(row) not in chain
    # desks.md was not masked: its event stays as recorded, until a forget masks words of it
    assert sha("Bob's desk is 4C.\n") in chain
    bdb.remember("Bob's desk is 4C.", "bob", "desk", "4C", "Bob's desk is 4C.", source="desks.md",
                 text="Bob's desk is 4C.\n")
    bdb.forget(subject="bob")
    assert sha("Bob's desk is 4C.\n") not in payloads(postgresql)
    assert bdb.audit_verify().ok


def test_a_keyed_digest_is_its_events_alone_and_of_the_text_as_stored(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Anyone who may write in the workspace could make the server key a guess: ingested, the guess's
    event recorded the same keyed digest as the forgotten text's (trial31). Each digest is keyed to its
    event (seq and time), so the same text in two events has two; and an ingest records the text as it
    stored it, masked where something was forgotten, not as it was given."""
    bdb.ingest_text(TEXT, source="a.md")
    bdb.ingest_text(TEXT, source="b.md")
    bdb.forget(subject="maya")
    bdb.ingest_text(TEXT.replace("30 days", "45 days"), source="a.md")
    rows = postgresql.execute(
        "select e.payload, k.key, beliefdb._audit_salt(e.seq, e.at) from beliefdb.audit_event e"
        " join beliefdb.audit_key k on k.workspace_id = e.workspace_id"
        " where e.action = 'ingest' and e.payload is not null order by e.seq").fetchall()
    postgresql.commit()
    (first, _, _), (second, _, _), (third, key, salt) = rows
    assert first["text_hmac"] != second["text_hmac"]
    # the rows each wrote: the same texts, never the same digest
    assert not {r["rows_hmac"] for r in first["rows"]} & {r["rows_hmac"] for r in second["rows"]}
    stored = MASKED_LINE + "\nThe return window is 45 days.\n"
    assert third["text_hmac"] == hmac.new(bytes(key), bytes(salt) + hashlib.sha256(stored.encode()).digest(),
                                          hashlib.sha256).hexdigest()


def test_a_conversation_sent_again_as_a_document_after_a_forget_is_still_that_version(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """(review) Its text in force again, as a document, was "unchanged" before a forget and refused as a
    document's text after it: the version's digest is now of its masked text."""
    turns = [Turn("Maya", "My phone number is 555-1234.", datetime(2026, 1, 1, 9, tzinfo=UTC)),
             Turn("Tom", "The return window is 30 days.", datetime(2026, 1, 1, 10, tzinfo=UTC))]
    bdb.ingest_conversation(turns, source="chat")
    (text,) = postgresql.execute("select content from beliefdb.source_version").fetchone() or ("",)
    postgresql.commit()
    assert (bdb.ingest_text(text, source="chat").note or "").startswith("unchanged")
    bdb.forget(subject="maya")
    again = bdb.ingest_text(text, source="chat")
    assert not again.new_version and (again.note or "").startswith("unchanged")


def test_a_proposal_a_forget_masks_loses_its_digests_from_before(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(review) A version proposed before revision 0050 quoted 48 bits of its text's sha256 in its reason
    and recorded the plain sha256 in its event: a forget that masks the proposal (and no stored version)
    takes both out, and the chain still verifies."""
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        alice.ingest_text("The return window is 30 days.\n", source="office.md")
        alice.remember("Maya's desk is 4C.", "maya", "desk", "4C", "Maya's desk is 4C.", source="desks.md",
                       text="Maya's desk is 4C.\n")
        proposed = "The return window is 30 days.\nCall Maya on 555-1234.\n"
        item = bob.ingest_text(proposed, source="office.md").review_item
        # (as the release before recorded them)
        postgresql.execute("update beliefdb.review_item set reason = reason || %s where id = %s",
                           (f" (sha256 {sha(proposed)[:12]})", item))
        postgresql.execute("select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace"
                           " where name = 'default'), false)")
        postgresql.execute("select beliefdb._audit_append((select id from beliefdb.workspace where name = 'default'),"
                           " 'version.propose', jsonb_build_object('item', %s::text, 'source', 'office.md',"
                           " 'sha256', %s::text, 'owner', 'alice'))", (str(item), sha(proposed)))
        postgresql.commit()
        assert sha(proposed) in payloads(postgresql)
        alice.forget(subject="maya", mask_mentions=True)
        (reason,) = postgresql.execute("select reason from beliefdb.review_item where id = %s",
                                       (item,)).fetchone() or ("",)
        postgresql.commit()
        assert "sha256" not in reason and sha(proposed)[:12] not in payloads(postgresql)
        assert alice.audit_verify().ok


def test_no_one_may_forget_a_guess_to_learn_a_digest_of_anothers(db_url: str,
                                                                   postgresql: psycopg.Connection[Any]) -> None:
    """(trial32) What a forget records was keyed by the workspace's secret alone: another principal forgot a
    guessed line in a source of their own and compared the redaction's line digest with the other
    source's (readable), and forgot a guessed name and compared the events' digests. A line's digest is
    now keyed again with its source's name, and a forget event's with the event: the right guess gives
    neither, and a forgotten line still comes back masked in its own source."""
    line = "Maya Lopez's salary is 91000 dollars."
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.remember(line, "maya_lopez", "salary", "91000 dollars", line, source="hr.md",
                       text=f"# Staff\n{line}\nThe cafeteria opens at 8am.\n")
        alice.forget(subject="maya_lopez")
        mal.remember(line, "maya_lopez", "salary", "91000 dollars", line, source="guess.md", text=f"{line}\n")
        mal.forget(subject="maya_lopez")
        digests = dict(postgresql.execute(
            "select s.name, r.line_digest from beliefdb.redaction r"
            " join beliefdb.source_version v on v.workspace_id = r.workspace_id and v.id = r.source_version_id"
            " join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id").fetchall())
        names = [r[0] for r in postgresql.execute(
            "select payload ->> 'hmac_sha256' from beliefdb.audit_event where action = 'forget' order by seq")]
        postgresql.commit()
        assert set(digests) == {"hr.md", "guess.md"} and digests["hr.md"] != digests["guess.md"]
        assert len(names) == 2 and names[0] != names[1]
        # (its own source still knows the line again)
        again = alice.ingest_text(f"# Staff\n{line}\nThe cafeteria opens at 9am.\n", source="hr.md")
        assert again.new_version and [r.reason.split(":")[0] for r in again.rejected] == ["forgotten"]
        (stored,) = postgresql.execute("select content from beliefdb.source_version v where v.version = 2"
                                       ).fetchone() or ("",)
        postgresql.commit()
        assert "91000" not in stored


def test_the_upgrade_keys_the_lines_masked_before_with_their_source(
        db_url: str, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A line masked before revision 0050 was recorded by its digest keyed by the workspace alone: the
    upgrade keys it again with its source's name and a random salt, so it is still recognised where it
    comes back."""
    line = "Maya Lopez's salary is 91000 dollars."
    text = f"# Staff\n{line}\nThe cafeteria opens at 8am.\n"
    bdb.remember(line, "maya_lopez", "salary", "91000 dollars", line, source="hr.md", text=text)
    bdb.forget(subject="maya_lopez")
    (key,) = postgresql.execute("select key from beliefdb.audit_key").fetchone() or (b"",)
    words = hmac.new(bytes(key), b"line\x1f" + line.encode(), hashlib.sha256).digest()
    # (as the release before recorded it)
    postgresql.execute("update beliefdb.redaction set line_digest = %s", (words,))
    postgresql.execute("drop index beliefdb.audit_event_plain_digest")
    postgresql.execute("alter table beliefdb.agent_login drop column made_in")
    postgresql.execute("alter table beliefdb.redaction drop column line_salt")
    undo_0051(postgresql)  # revision 0051's
    postgresql.execute("update beliefdb.alembic_version set version_num = '0049'")
    postgresql.commit()
    migrate.upgrade(db_url)
    (digest, salt) = postgresql.execute("select line_digest, line_salt from beliefdb.redaction"
                                        ).fetchone() or (b"", b"")
    postgresql.commit()
    sourced = hmac.new(bytes(key), b"source\x1fhr.md\x1f" + words, hashlib.sha256).digest()
    assert bytes(digest) == hmac.new(bytes(key), b"salted\x1f" + bytes(salt) + sourced, hashlib.sha256).digest()
    again = bdb.ingest_text(text.replace("8am", "9am"), source="hr.md")
    assert [r.reason.split(":")[0] for r in again.rejected] == ["forgotten"]
    assert bdb.audit_verify().ok


def test_a_guess_queued_for_anothers_source_and_forgotten_gives_no_digest_of_its_line(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """(review) Keyed with the source's name alone, a line's digest could be had for any guess: queue a
    text for the other's source holding the guesses, forget a subject of your own that masks them there,
    read your job's digests. Each record has a random salt of its own: no two are the same."""
    line = "Maya Lopez's salary is 91000 dollars."
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="mallory") as mal:
        alice.remember(line, "maya_lopez", "salary", "91000 dollars", line, source="hr.md",
                       text=f"# Staff\n{line}\nThe cafeteria opens at 8am.\n")
        alice.forget(subject="maya_lopez")
        mal.remember("Dollars are the currency.", "dollars", "currency", "yes", "Dollars are the currency.",
                     source="mine.md", text="Dollars are the currency.\n")
        mal.submit(text=f"{line.replace('91000', '85000')}\n{line}\n", source="hr.md")
        mal.forget(subject="dollars", mask_mentions=True)
    queued = postgresql.execute("select x ->> 'digest' from beliefdb.job j"
                                " cross join lateral jsonb_array_elements(j.payload -> 'forgotten_lines') x").fetchall()
    recorded = postgresql.execute("select encode(line_digest, 'hex') from beliefdb.redaction r"
                                  " join beliefdb.source_version v on v.id = r.source_version_id"
                                  " join beliefdb.source s on s.id = v.source_id where s.name = 'hr.md'").fetchall()
    postgresql.commit()
    assert queued and recorded and not {q[0] for q in queued} & {r[0] for r in recorded}


def test_a_forgotten_retraction_reason_is_not_confirmed_by_its_events_hash(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """(trial33) Forget redacts the retract event of a forgotten belief, whose reason is someone's words
    about it; its payload_hash stays, and the rest of the payload was known: a guessed reason rebuilt it.
    An event a forget may redact carries a random nonce."""
    (kim,) = bdb.remember("Kim Park's desk is 4C.", "kim_park", "desk", "4C", "Kim Park's desk is 4C.",
                          source="desks.md", text="Kim Park's desk is 4C.\n").accepted
    bdb.retract(belief=kim.id, reason="Kim Park was fired for fraud")
    (kept,) = postgresql.execute("select payload from beliefdb.audit_event where action = 'retract'"
                                 ).fetchone() or ({},)
    postgresql.commit()
    assert kept["reason"] == "Kim Park was fired for fraud" and len(kept["nonce"]) == 32
    bdb.forget(subject="kim_park")
    rows = postgresql.execute("select payload, payload_hash from beliefdb.audit_event where action = 'retract'"
                              ).fetchall()
    rebuilt = postgresql.execute("select beliefdb.audit_payload_hash(%s::jsonb)",
                                 (json.dumps({k: v for k, v in kept.items() if k != "nonce"}),)).fetchone()
    postgresql.commit()
    assert rows[0][0] is None and rebuilt is not None and bytes(rebuilt[0]) != bytes(rows[0][1])
    assert bdb.audit_verify().ok


def test_the_upgrade_keys_a_queued_texts_record_of_masked_lines_as_well(
        db_url: str, bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A queued job's record of the lines a forget masked in its text (forgotten_lines) is keyed again by
    the upgrade as a redaction row is: its source's name and a random salt of each piece's own."""
    line = "Maya Lopez's salary is 91000 dollars."
    text = f"# Staff\n{line}\nThe cafeteria opens at 8am.\n"
    bdb.remember(line, "maya_lopez", "salary", "91000 dollars", line, source="hr.md", text=text)
    bdb.submit(text=text + "More.\n", source="hr.md")
    bdb.forget(subject="maya_lopez")
    (key,) = postgresql.execute("select key from beliefdb.audit_key").fetchone() or (b"",)
    words = hmac.new(bytes(key), b"line\x1f" + line.encode(), hashlib.sha256).digest()
    (pieces,) = postgresql.execute("select payload -> 'forgotten_lines' from beliefdb.job").fetchone() or ([],)
    # (as the release before recorded them: the line's digest keyed by the workspace alone, no salt)
    before = [{k: v for k, v in p.items() if k not in ("salt", "by")} | {"digest": words.hex()} for p in pieces]
    postgresql.execute("update beliefdb.job set payload = payload || jsonb_build_object('forgotten_lines', %s::jsonb)",
                       (json.dumps(before),))
    postgresql.execute("update beliefdb.redaction set line_digest = %s", (words,))
    postgresql.execute("drop index beliefdb.audit_event_plain_digest")
    postgresql.execute("alter table beliefdb.agent_login drop column made_in")
    postgresql.execute("alter table beliefdb.redaction drop column line_salt")
    undo_0051(postgresql)  # revision 0051's
    postgresql.execute("update beliefdb.alembic_version set version_num = '0049'")
    postgresql.commit()
    migrate.upgrade(db_url)
    (after,) = postgresql.execute("select payload -> 'forgotten_lines' from beliefdb.job").fetchone() or ([],)
    postgresql.commit()
    sourced = hmac.new(bytes(key), b"source\x1fhr.md\x1f" + words, hashlib.sha256).digest()
    assert after and len({p["salt"] for p in after}) == len(after)
    for piece in after:
        salted = hmac.new(bytes(key), b"salted\x1f" + bytes.fromhex(piece["salt"]) + sourced, hashlib.sha256)
        assert piece["digest"] == salted.hexdigest()
