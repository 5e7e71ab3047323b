"""A forgotten quote is masked in every text of the workspace that holds it (rule 14 of docs/rules.md),
not only in the documents its evidence came from: a user trial forgot a person whose phone number a
second document of the same owner repeated, in a line the extractor did not read; the number stayed in
that document's text and fragment, and `ask` still answered with it. In another principal's document the
words stay, theirs to change (rule 17), and the report lists where."""

from __future__ import annotations

from typing import Any

import psycopg

import beliefdb

MASK = "\u2588"
SAID = "Maya López's phone number is +351 912 345 678"
CRM = f"# CRM\n{SAID}. The office wifi password is tiger42.\n"
CONTACTS = f"# Contacts\n{SAID}.\n"


def texts(conn: psycopg.Connection[Any], source: str) -> tuple[list[str], list[str]]:
    """The versions' texts of a source and its fragments' texts."""
    versions = [r[0] for r in conn.execute(
        "select v.content from beliefdb.source_version v join beliefdb.source s on s.id = v.source_id"
        " where s.name = %s order by v.version", (source,)).fetchall()]
    fragments = [r[0] for r in conn.execute(
        "select f.text from beliefdb.fragment f join beliefdb.source_version v on v.id = f.source_version_id"
        " join beliefdb.source s on s.id = v.source_id where s.name = %s order by f.start_offset",
        (source,)).fetchall()]
    conn.commit()
    return versions, fragments


def phone(memory: beliefdb.BeliefDB) -> None:
    memory.remember(f"{SAID}.", "maya_lopez", "phone", "+351 912 345 678", SAID, source="contacts.md",
                    text=CONTACTS)


def test_a_forgotten_quote_is_masked_in_another_document_of_the_owner(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    crm = bdb.ingest_text(CRM, source="crm.md")
    assert [b.quote for b in crm.accepted] == ["The office wifi password is tiger42."]  # (hers: unextracted)
    phone(bdb)
    assert any(SAID in f for f in texts(postgresql, "crm.md")[1])
    preview = bdb.forget(subject="maya_lopez", preview=True)
    assert SAID in texts(postgresql, "crm.md")[0][0]  # (a preview writes nothing)
    done = bdb.forget(subject="maya_lopez", expect=preview.fingerprint())
    assert done.redacted == preview.redacted == 2
    (crm_text,), crm_fragments = texts(postgresql, "crm.md")
    assert crm_text == CRM.replace(SAID, MASK * len(SAID)) and len(crm_text) == len(CRM)
    assert not any("912 345" in f for f in crm_fragments), crm_fragments
    assert "The office wifi password is tiger42." in crm_text  # (the rest of the line stays)
    assert not any("912 345" in t for t in texts(postgresql, "contacts.md")[0])
    answer = bdb.ask("what is Maya López's phone number?")
    assert "912 345" not in beliefdb.render.to_json(answer)
    assert bdb.audit_verify().ok


def test_in_another_principals_document_the_quote_stays_and_is_listed(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    with beliefdb.connect(db_url, principal="alice") as alice, beliefdb.connect(db_url, principal="bob") as bob:
        bob.ingest_text(CRM, source="crm.md")
        phone(alice)
        done = alice.forget(subject="maya_lopez")
        assert [(k.what, k.source, k.owner, k.count) for k in done.kept] == [("quote", "crm.md", "bob", 1)]
    assert texts(postgresql, "crm.md")[0] == [CRM]
    assert not any("912 345" in t for t in texts(postgresql, "contacts.md")[0])


def test_an_occurrence_inside_another_beliefs_quote_elsewhere_stays_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The exception of rule 14 holds in the other documents too: the same words within another belief's
    quote are that belief's own."""
    line = f"Emergency contact: {SAID}"
    (kept,) = bdb.remember(f"The emergency contact is {SAID}.", "office", "emergency_contact", SAID, line,
                           source="office.md", text=f"{line}\n").accepted
    phone(bdb)
    bdb.forget(subject="maya_lopez")
    assert texts(postgresql, "office.md")[0] == [f"{line}\n"]
    assert [e.quote for e in bdb.why(kept.id).evidence] == [line]
    assert {b.id for b in bdb.beliefs()} == {kept.id}


def test_the_report_names_what_stops_holding_with_the_forget(db_url: str, cli: Any) -> None:
    """A belief whose quote holds a forgotten quote goes with it (rule 14: "the preview names it"); the
    text report counted it among the beliefs and named none."""
    line = f"Contacts: {SAID} and Bob's is 5."
    with beliefdb.connect(db_url) as memory:
        (listed,) = memory.remember("Contacts are listed.", "contacts", "listed", "yes", line, source="c.md",
                                    text=f"{line}\n").accepted
        (number,) = memory.remember(f"{SAID}.", "maya_lopez", "phone", "+351 912 345 678", SAID,
                                    source="c.md").accepted
    shown = cli("forget", "--subject", "maya_lopez", "--preview").output
    assert "1 span(s) of source text masked (quotes, turns, names)" in shown, shown
    (named,) = [x for x in shown.splitlines() if x.startswith("would stop holding")]
    assert named.startswith("would stop holding (3: 2 belief(s), 1 quote(s)): "), shown
    assert str(listed.id)[:8] in named and str(number.id)[:8] in named, shown


def test_a_short_quote_is_not_looked_for_in_other_documents(bdb: beliefdb.BeliefDB,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    """A quote of a few characters ("555") is a part of others' words in other documents ("5551234"): only
    a quote of 12 characters or more is masked beyond its own sources (a review of the change)."""
    other = "# Directory\nReception: 5551234\n"
    bdb.ingest_text(other, source="directory.md")
    bdb.remember("Maya's extension is 555.", "maya_lopez", "extension", "555", "555", source="contacts.md",
                 text="Ext. 555\n")
    bdb.forget(subject="maya_lopez")
    assert texts(postgresql, "directory.md")[0] == [other]
    assert texts(postgresql, "contacts.md")[0] == ["Ext. " + MASK * 3 + "\n"]
