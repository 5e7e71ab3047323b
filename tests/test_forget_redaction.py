"""Forgetting is complete (rule 14): forgetting a subject takes the person's data out of the stored
source text too (masked at the same length, so other evidence keeps its offsets), and nothing in
the database — planner statistics included — keeps the forgotten text."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from psycopg import sql
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb.store import lifecycle

PHONE = "+49 30 9876 5432"
CHAT = f"Hi, this is Dana. My phone number is {PHONE}. The delivery address is Hauptstrasse 5.\n"


def text_columns(conn: psycopg.Connection[Any]) -> list[tuple[str, str, str]]:
    return conn.execute("""
        select c.relname::text, a.attname::text, t.typname::text
          from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
          join pg_catalog.pg_type t on t.oid = a.atttypid
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r' and a.attnum > 0
           and not a.attisdropped and t.typname in ('text', 'jsonb', 'tsvector')""").fetchall()


def holding(conn: psycopg.Connection[Any], needle: str) -> list[str]:
    """Every table column, and every planner statistic, that still holds ``needle``."""
    found = []
    for table, column, _ in text_columns(conn):
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{} where strpos({}::text, %s) > 0").format(
            sql.Identifier(table), sql.Identifier(column)), (needle,)).fetchone()
        if row and row[0]:
            found.append(f"{table}.{column}")
    stats = conn.execute("""
        select s.starelid::regclass::text || ' ' || a.attname
          from pg_catalog.pg_statistic s
          join pg_catalog.pg_attribute a on a.attrelid = s.starelid and a.attnum = s.staattnum
         where strpos(concat_ws(' ', s.stavalues1::text, s.stavalues2::text, s.stavalues3::text,
                                s.stavalues4::text, s.stavalues5::text), %s) > 0""", (needle,)).fetchall()
    return found + [f"pg_statistic {r[0]}" for r in stats]


def test_forgetting_a_subject_masks_it_in_the_source_text(bdb: beliefdb.BeliefDB,
                                                          postgresql: psycopg.Connection[Any]) -> None:
    phone = bdb.remember(f"Dana's phone number is {PHONE}.", "customer_dana", "phone", PHONE, PHONE,
                         source="chat-dana", text=CHAT)
    address = bdb.remember("Dana's delivery address is Hauptstrasse 5.", "delivery", "address", "Hauptstrasse 5",
                           "The delivery address is Hauptstrasse 5.", source="chat-dana")
    (kept,) = address.accepted
    # statistics that hold the number, as autovacuum's ANALYZE would leave them
    postgresql.execute("analyze beliefdb.source_version, beliefdb.fragment, beliefdb.evidence, beliefdb.belief")
    postgresql.commit()
    assert "source_version.content" in holding(postgresql, PHONE)
    assert any(x.startswith("pg_statistic") for x in holding(postgresql, PHONE))
    postgresql.commit()

    preview = lifecycle.forget(bdb.database, subject="customer_dana", preview=True)
    assert preview.redacted == 1 and preview.beliefs == 1
    assert "source_version.content" in holding(postgresql, PHONE)  # a preview writes nothing
    postgresql.commit()
    done = lifecycle.forget(bdb.database, subject="customer_dana")
    assert done.redacted == 1 and done.beliefs == 1 and phone.accepted

    assert holding(postgresql, PHONE) == []
    postgresql.commit()
    (content,) = postgresql.execute("select content from beliefdb.source_version").fetchone() or ("",)
    assert len(content) == len(CHAT) and "█" * len(PHONE) in content
    # the other belief's evidence is where it was, byte for byte
    why = bdb.why(kept.id)
    (evidence,) = why.evidence
    assert content[evidence.start_offset:evidence.end_offset] == evidence.quote == (
        "The delivery address is Hauptstrasse 5.")
    assert bdb.audit_verify().ok
    (span,) = postgresql.execute("select start_offset, end_offset, reason from beliefdb.redaction").fetchall()
    assert content[span[0]:span[1]] == "█" * len(PHONE) and span[2] == "forgotten subject"
    postgresql.commit()


def test_a_version_is_still_immutable_but_for_its_recorded_redactions(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    bdb.remember(f"Dana's phone number is {PHONE}.", "customer_dana", "phone", PHONE, PHONE,
                 source="chat-dana", text=CHAT)
    with pytest.raises(psycopg.Error, match="source versions are immutable"):
        postgresql.execute("update beliefdb.source_version set content = replace(content, 'Dana', '████')")
    postgresql.rollback()
    with pytest.raises(psycopg.Error, match="fragment text is not the source text"):
        postgresql.execute("update beliefdb.fragment set text = 'something else'")
    postgresql.rollback()


def test_forgetting_a_belief_masks_its_quote_in_every_version(bdb: beliefdb.BeliefDB,
                                                               postgresql: psycopg.Connection[Any]) -> None:
    first = bdb.remember(f"Dana's phone number is {PHONE}.", "customer_dana", "phone", PHONE, PHONE,
                         source="chat-dana", text=CHAT)
    bdb.ingest_text(CHAT + "Thanks!\n", source="chat-dana", extractor="none")  # v2 repeats the number
    (belief,) = first.accepted
    done = lifecycle.forget(bdb.database, belief=belief.id)
    assert done.redacted == 2
    assert holding(postgresql, PHONE) == []
    postgresql.commit()


def test_forgetting_takes_only_what_it_leaves_without_support(bdb: beliefdb.BeliefDB) -> None:
    """A belief that did not hold before the forget is not "left without support" by it: it stays."""
    seven_text, fifteen_text = ("Returns are accepted within 7 days of delivery.",
                                "Returns are accepted within 15 days of delivery.")
    (seven,) = bdb.remember(seven_text, "return_policy", "window", "7 days", seven_text, source="a.md",
                            text=seven_text, authority="internal").accepted
    (fifteen,) = bdb.remember(fifteen_text, "return_policy", "window", "15 days", fifteen_text, source="b.md",
                              text=fifteen_text, authority="official").accepted
    bdb.ingest_text("Thank you for shopping with us.\n", source="a.md", extractor="none")  # drops the 7 days
    done = lifecycle.forget(bdb.database, belief=fifteen.id)
    assert done.beliefs == 1
    assert [(b.id, b.status) for b in bdb.beliefs(include_all=True)] == [(seven.id, "unsupported")]


POLICY = "# Returns\nReturns are accepted within 7 days.\nRefunds need 7 days.\nExchanges: 7 days.\n"


def test_a_quote_over_a_forgotten_quote_goes_with_it_and_the_same_words_quoted_elsewhere_stay(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Forgetting a belief whose quote ("7 days") lies inside another belief's quote masked it there
    too, and that belief stayed current on a quote that no longer says what it states. Its fragment
    goes now, as a forgotten turn does, with the belief it leaves without support (the preview says
    so); the same words quoted elsewhere are that belief's own and stay; elsewhere they are masked."""
    report = bdb.ingest_text(POLICY, source="policy.md", authority="official")
    within, exchanges = (b.id for b in report.accepted)
    assert [b.quote for b in report.accepted] == ["Returns are accepted within 7 days.", "Exchanges: 7 days."]
    (short,) = bdb.remember("The return window is 7 days.", "return_window", "days", "7 days", "7 days",
                            source="policy.md").accepted
    assert short.start == POLICY.index("7 days")
    bdb.submit(text=POLICY + "Store credit never expires.\n", source="policy.md")
    preview = bdb.forget(belief=short.id, preview=True)
    assert (preview.beliefs, preview.fragments) == (2, 1) and within in preview.changes.stopped_holding
    assert postgresql.execute("select content from beliefdb.source_version").fetchone() == (POLICY,)
    bdb.forget(belief=short.id)
    (content,) = postgresql.execute("select content from beliefdb.source_version").fetchone() or ("",)
    assert content == POLICY.replace("7 days", "\u2588" * len("7 days"), 2)
    assert [(b.id, b.status) for b in bdb.beliefs(include_all=True)] == [(exchanges, "current")]
    assert [e.quote for e in bdb.why(exchanges).evidence] == ["Exchanges: 7 days."]
    # the version waiting in the queue is masked as the stored one is, and keeps the quote that stays
    assert bdb.work(stop_when_empty=True, embed=False).done == 1
    assert postgresql.execute("select content from beliefdb.source_version where version = 2").fetchone() == (
        content + "Store credit never expires.\n",)
    assert [e.quote for e in bdb.why(exchanges).evidence][-1:] == ["Exchanges: 7 days."]
    assert {b.id for b in bdb.beliefs()} >= {exchanges}


def test_a_retractions_reason_goes_from_the_audit_chain_with_what_it_retracted(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A retraction's reason is the words of whoever retracted, kept with the node (gone with it) and
    in the audit event's payload: the event of a forgotten belief, fragment or source keeps its hashes
    only, as an event naming a forgotten source does; the chain still verifies."""
    phone = bdb.remember(f"Dana's phone number is {PHONE}.", "customer_dana", "phone", PHONE, PHONE,
                         source="chat-dana", text=CHAT)
    (belief,) = phone.accepted
    bdb.retract(belief=belief.id, reason="Dana Okafor called: her old number")
    bdb.remember("Our depot is in Leipzig.", "depot", "city", "Leipzig", "Our depot is in Leipzig.",
                 source="depot.md", text="Our depot is in Leipzig.\n")
    bdb.retract(source="depot.md", reason="the depot memo Jon Fairweather wrote is outdated")
    bdb.remember("Returns take 30 days.", "returns", "days", "30", "Returns take 30 days.",
                 source="returns.md", text="Returns take 30 days.\n")
    bdb.retract(source="returns.md", reason="kept: nobody forgets returns.md")
    postgresql.commit()
    assert "audit_event.payload" in holding(postgresql, "Dana Okafor")
    bdb.forget(belief=belief.id)
    bdb.forget(source="depot.md")
    postgresql.commit()
    assert holding(postgresql, "Dana Okafor") == []
    assert holding(postgresql, "Jon Fairweather") == []
    assert "audit_event.payload" in holding(postgresql, "nobody forgets")
    assert bdb.audit_verify().ok


def test_no_planner_statistic_keeps_a_forgotten_jobs_text_or_retraction_reason(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Forgetting clears job payloads and deletes retracted nodes with their reasons: the statistics
    autovacuum's ANALYZE gathered on those columns are gathered again in the same transaction, as
    for the other text columns (they kept the queued document and the reason)."""
    (belief,) = bdb.remember(f"Dana's phone number is {PHONE}.", "customer_dana", "phone", PHONE, PHONE,
                             source="chat-dana", text=CHAT).accepted
    bdb.retract(belief=belief.id, reason="Dana Okafor called: her old number")
    bdb.submit(text="Dana Okafor's badge code is QX-4471.\n", source="badge.md")
    bdb.submit(text="Returns are accepted within 30 days.\n", source="returns.md")
    assert bdb.work(stop_when_empty=True, embed=False).done == 2
    bdb.submit(text="Dana Okafor's badge code is QX-4472.\n", source="badge.md")
    bdb.submit(text="Returns are accepted within 14 days.\n", source="returns.md")
    postgresql.commit()
    postgresql.execute("analyze beliefdb.job, beliefdb.node, beliefdb.retraction_period")
    postgresql.commit()
    assert any(x.startswith("pg_statistic") for x in holding(postgresql, "Dana Okafor"))
    bdb.forget(belief=belief.id)
    bdb.forget(source="badge.md")
    bdb.forget(source="chat-dana")
    postgresql.commit()
    assert holding(postgresql, "Dana Okafor") == []
    assert holding(postgresql, "QX-4472") == []


def test_a_step_that_read_a_forgotten_belief_is_not_taken_as_given(bdb: beliefdb.BeliefDB) -> None:
    """A step nothing was recorded as feeding is a premise (rule 2); one whose reads were forgotten was
    fed: forgetting a retracted belief an agent's step read made the step a premise, and the memory
    it wrote, unsupported since the retraction, current again (rule 14: a belief that did not hold
    before stays as it was). The step no longer holds; the report says so, preview and apply alike."""
    (read,) = bdb.remember("Uwe Falk's desk is 4B.", "uwe_falk", "desk", "4B", "Uwe Falk's desk is 4B.",
                           source="desk.md", text="Uwe Falk's desk is 4B.\n").accepted
    step = bdb.record_step("plan", {"text": "plan from the desk"}, task="desks", inputs=[("reads", read.id)],
                           memory={"subject": "uwe_falk", "attribute": "floor", "value": "4"})
    assert step.memory is not None

    def status(belief: Any) -> str | None:
        return {b.id: b.status for b in bdb.beliefs(include_all=True)}.get(belief)

    bdb.retract(belief=read.id, reason="wrong note")
    assert status(step.memory) == "unsupported"
    preview = bdb.forget(belief=read.id, preview=True)
    done = bdb.forget(belief=read.id)
    assert status(step.memory) == "unsupported"
    assert step.memory not in done.changes.became_current and step.step not in done.changes.started_holding
    assert preview.changes.became_current == done.changes.became_current == []
    # a step that held on what is forgotten stops holding with it, and its memory goes
    (other,) = bdb.remember("Uwe Falk's phone is 555-0101.", "uwe_falk", "phone", "555-0101",
                            "Uwe Falk's phone is 555-0101.", source="phone.md",
                            text="Uwe Falk's phone is 555-0101.\n").accepted
    used = bdb.record_step("plan", {"text": "call"}, task="calls", inputs=[("reads", other.id)],
                           memory={"subject": "callers", "attribute": "next", "value": "Uwe"})
    gone = bdb.forget(belief=other.id)
    assert status(used.memory) is None and gone.beliefs == 2
    assert used.step in gone.changes.stopped_holding


def test_a_retraction_of_a_version_by_its_id_goes_from_the_audit_chain_with_its_source(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A version retracted by its id (``retract('node', <version id>, reason)``: its event names the
    version, not the source) kept its reason in the audit chain after its source was forgotten: forget
    redacted the events of the forgotten nodes and of the source, and a version is neither. The events of
    the forgotten versions are redacted too; the chain still verifies."""
    for days in ("30", "15"):
        text = f"Returns are accepted within {days} days.\n"
        bdb.remember(text.strip(), "returns", "window", f"{days} days", text.strip(), source="a.md", text=text)
    with bdb.database.transaction() as conn:
        (second,) = conn.execute("select v.id from beliefdb.source_version v"
                                 " join beliefdb.source s on s.id = v.source_id"
                                 " where s.name = 'a.md' and v.version = 2").fetchone()
        conn.execute("select beliefdb.retract('node', %s, 'Maya Lopez leaked v2')", (str(second),))
    bdb.retract(source="a.md", version=1, reason="Maya Lopez wrote v1")
    postgresql.commit()
    assert "audit_event.payload" in holding(postgresql, "Maya Lopez leaked")
    bdb.forget(source="a.md")
    postgresql.commit()
    assert holding(postgresql, "Maya Lopez") == []
    assert bdb.audit_verify().ok


def test_another_beliefs_quote_that_contains_the_forgotten_words_keeps_them(bdb: beliefdb.BeliefDB) -> None:
    """Rule 14's exception for another belief's quote (docs/rules.md said "of the same words"): an
    occurrence of a forgotten quote that lies wholly within another belief's quote, the same words or
    more around them, which no forgotten belief's own quote overlaps, is that belief's own and stays; the
    occurrence the forgotten belief quoted is masked."""
    said = "Maya lives in Lisbon."
    text = f"{said} {said} Her cat too."
    second = text.index(said, 1)
    claims = [{"statement": said, "subject": "maya", "attribute": "city", "value": "Lisbon", "quote": said,
               "start": 0, "end": len(said)},
              {"statement": text[second:], "subject": "cat", "attribute": "city", "value": "Lisbon",
               "quote": text[second:], "start": second, "end": len(text)}]
    with bdb.database.transaction() as conn:
        conn.execute("select beliefdb.ingest_version('n.md', %s, p_claims => %s)", (text, Jsonb(claims)))
    done = bdb.forget(subject="maya")
    assert (done.beliefs, done.redacted) == (1, 1)
    with bdb.database.transaction() as conn:
        assert conn.execute("select content from beliefdb.source_version").fetchall() == [
            ("\u2588" * len(said) + text[len(said):],)]
        assert conn.execute("select e.quote from beliefdb.evidence e").fetchall() == [(text[second:],)]
    assert {(b.subject, b.status) for b in bdb.beliefs(include_all=True)} == {("cat", "current")}
