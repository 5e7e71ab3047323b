"""Truth rule 1, the evidence gate: a belief is stored only if its quote is an exact substring of the
source version, with offsets; anything else is rejected with a reason and counted; the database itself
refuses evidence whose quote is not the source text at its offsets."""

from __future__ import annotations

import json
import unicodedata
from typing import Any
from uuid import UUID

import psycopg
import pytest
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb import errors
from beliefdb.models import IngestReport
from beliefdb.text.gate import cuts_a_word, shares_a_word

POLICY = "Returns are accepted within 7 days of delivery. Refunds are issued within 5 days."


# The application role writes tables only through beliefdb's functions; these tests write by hand
# as the schema owner the library connects as (for this transaction only), like a DBA would.
OWNER = "set local role none"

def claim(quote: str, value: str = "7 days", *, subject: str = "return_policy", attribute: str = "window",
          **extra: Any) -> dict[str, Any]:
    return {"statement": f"{subject} {attribute} is {value}", "subject": subject, "attribute": attribute,
            "value": value, "quote": quote, **extra}


def ingest_claims(bdb: beliefdb.BeliefDB, write_doc: Any, text: str, *claims: dict[str, Any],
                  name: str = "policy.md", **options: Any) -> IngestReport:
    """Ingest ``text`` as ``name`` with exactly these claims (no extractor), one report."""
    doc = write_doc(name, text)
    lines = write_doc(name + ".claims.jsonl", "".join(json.dumps(c) + "\n" for c in claims))
    (report,) = bdb.ingest(doc, claims=lines, extractor="none", **options)
    assert isinstance(report, IngestReport), report
    return report


def version_of(conn: psycopg.Connection[Any], source: str, version: int = 1) -> tuple[UUID, UUID, str]:
    """(workspace_id, source_version id, text) of a stored version, read as the superuser."""
    row = conn.execute(
        """select v.workspace_id, v.id, v.content from beliefdb.source_version v
             join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
            where s.name = %s and v.version = %s""", (source, version)).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


def stored_triples(bdb: beliefdb.BeliefDB) -> set[tuple[str, str, str]]:
    return {(b.subject, b.attribute, b.value) for b in bdb.beliefs(include_all=True)}


def count(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(f"select count(*) from beliefdb.{table}").fetchone()  # table names are literals here
    assert row is not None
    return int(row[0])


# --- rejections, each with its reason, nothing stored ------------------------------------------------


def test_quote_not_in_source_is_rejected_and_nothing_stored(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                             postgresql: psycopg.Connection[Any]) -> None:
    report = ingest_claims(bdb, write_doc, POLICY, claim("Returns are accepted within 30 days of delivery."))
    assert report.accepted == [] and report.corroborated == []
    assert [(r.quote, r.reason) for r in report.rejected] == [
        ("Returns are accepted within 30 days of delivery.", "quote is not in the source text")]
    assert bdb.beliefs(include_all=True) == []
    assert count(postgresql, "evidence") == 0
    # the version itself is stored: the document was read, only the claim was refused
    assert report.new_version and report.version == 1


def test_right_words_at_wrong_offsets_are_rejected(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    quote = "Refunds are issued within 5 days."
    at = POLICY.index(quote)
    assert at > 0
    report = ingest_claims(bdb, write_doc, POLICY, claim(quote, "5 days", attribute="refund_time",
                                                         start=0, end=len(quote)))
    assert report.accepted == []
    (rejected,) = report.rejected
    assert rejected.quote == quote
    assert rejected.reason == (f"quote is in the source at [{at}, {at + len(quote)}), "
                               f"not at the given offsets [0, {len(quote)})")
    assert bdb.beliefs(include_all=True) == []


def test_offsets_off_by_one_are_rejected(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    quote = "Refunds are issued within 5 days."
    at = POLICY.index(quote)
    report = ingest_claims(bdb, write_doc, POLICY, claim(quote, "5 days", start=at + 1, end=at + 1 + len(quote)))
    assert report.accepted == []
    assert [r.reason.startswith(f"quote is in the source at [{at},") for r in report.rejected] == [True]
    assert bdb.beliefs(include_all=True) == []


def test_only_one_offset_is_rejected(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    report = ingest_claims(bdb, write_doc, POLICY, claim("Returns are accepted", start=0))
    assert [r.reason for r in report.rejected] == ["quote offsets need both start and end"]
    assert bdb.beliefs(include_all=True) == []


def test_given_offsets_of_a_repeated_quote_are_kept(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    text = "Window: 7 days. Window: 7 days."
    second = text.rindex("Window: 7 days.")
    assert second > 0
    report = ingest_claims(bdb, write_doc, text, claim("Window: 7 days.", start=second, end=len(text)))
    (accepted,) = report.accepted
    assert (accepted.start, accepted.end) == (second, len(text))
    (evidence,) = bdb.why(accepted.id).evidence
    assert (evidence.start_offset, evidence.end_offset) == (second, len(text))


@pytest.mark.parametrize(("text", "quote"), [
    (POLICY, "Returns are accepted  within 7 days of delivery."),       # double space in the quote
    (POLICY, "Returns are accepted within 7 days\nof delivery."),       # newline instead of a space
    (POLICY, "Returns are accepted\twithin 7 days of delivery."),       # tab instead of a space
    ("Returns are accepted within 7 days\nof delivery.", "Returns are accepted within 7 days of delivery."),
], ids=["double-space", "newline-in-quote", "tab-in-quote", "newline-in-document"])
def test_whitespace_variant_is_rejected(bdb: beliefdb.BeliefDB, write_doc: Any, text: str, quote: str) -> None:
    report = ingest_claims(bdb, write_doc, text, claim(quote))
    assert report.accepted == []
    assert [(r.quote, r.reason) for r in report.rejected] == [
        (quote, "quote differs from the source text in whitespace")]
    assert bdb.beliefs(include_all=True) == []


CAFE_NFC = unicodedata.normalize("NFC", "Le café ouvre à 8 h.")
CAFE_NFD = unicodedata.normalize("NFD", CAFE_NFC)


@pytest.mark.parametrize(("text", "quote", "form"), [
    (CAFE_NFC, CAFE_NFD, "NFC"),                                       # NFD quote, NFC document
    (CAFE_NFD, CAFE_NFC, "NFC"),                                       # NFC quote, NFD document
    ("Returns are accepted within 7 days.", "Ｒｅｔｕｒｎｓ are accepted", "NFKC"),   # full-width letters
    ("Returns are accepted within 7 days.", "Returns are accepted within ７ days", "NFKC"),  # full-width digit
    ("The ﬁle limit is 10 MB.", "The file limit is 10 MB.", "NFKC"),  # ligature in the document
], ids=["nfd-quote", "nfd-document", "fullwidth-letters", "fullwidth-digit", "ligature"])
def test_unicode_normalisation_variant_is_rejected(bdb: beliefdb.BeliefDB, write_doc: Any, text: str,
                                                   quote: str, form: str) -> None:
    assert quote != text and quote not in text  # the variant really differs code point by code point
    report = ingest_claims(bdb, write_doc, text, claim(quote, subject="cafe", attribute="opens"))
    assert report.accepted == []
    assert [(r.quote, r.reason) for r in report.rejected] == [
        (quote, f"quote differs from the source text in Unicode normalisation ({form})")]
    assert bdb.beliefs(include_all=True) == []


def test_letter_case_variant_is_rejected(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    quote = "returns are accepted within 7 days of delivery."
    report = ingest_claims(bdb, write_doc, POLICY, claim(quote))
    assert report.accepted == []
    assert [(r.quote, r.reason) for r in report.rejected] == [
        (quote, "quote differs from the source text in letter case")]
    assert bdb.beliefs(include_all=True) == []


def test_quote_spanning_two_versions_is_rejected_against_the_new_one(bdb: beliefdb.BeliefDB,
                                                                     write_doc: Any) -> None:
    v1 = "Returns are accepted within 7 days of delivery."
    v2 = "Exchanges are possible within 15 days of delivery."
    first = ingest_claims(bdb, write_doc, v1, claim(v1))
    assert len(first.accepted) == 1
    spanning = "Returns are accepted within 15 days of delivery."  # v1's opening, v2's ending
    assert spanning not in v1 and spanning not in v2
    second = ingest_claims(bdb, write_doc, v2, claim(spanning, "15 days"),
                           claim("Returns are accepted within 7 days", "7 days", attribute="old_window"))
    assert second.new_version and second.version == 2
    assert second.accepted == [] and second.corroborated == []
    assert [(r.quote, r.reason) for r in second.rejected] == [
        (spanning, "quote is not in the source text"),
        # a quote only the previous version holds is judged against the new version too
        ("Returns are accepted within 7 days", "quote is not in the source text"),
    ]
    assert ("return_policy", "window", "15 days") not in stored_triples(bdb)
    assert ("return_policy", "old_window", "7 days") not in stored_triples(bdb)


def test_empty_quote_is_rejected_by_remember(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text(POLICY, source="policy.md", extractor="none")
    report = bdb.remember("window is 7 days", "return_policy", "window", "7 days", "", source="policy.md")
    assert report.accepted == []
    assert [(r.quote, r.reason) for r in report.rejected] == [("", "quote is empty")]
    assert bdb.beliefs(include_all=True) == []


def test_empty_quote_in_a_claims_file_is_invalid_input_and_stores_nothing(
        bdb: beliefdb.BeliefDB, write_doc: Any, postgresql: psycopg.Connection[Any]) -> None:
    doc = write_doc("policy.md", POLICY)
    lines = write_doc("claims.jsonl", json.dumps(claim(POLICY)) + "\n" + json.dumps(claim("")) + "\n")
    with pytest.raises(errors.InvalidInput, match="line 2: 'quote' must be a non-empty string"):
        bdb.ingest(doc, claims=lines, extractor="none")
    assert bdb.beliefs(include_all=True) == []
    assert count(postgresql, "source") == 0


def test_whitespace_only_quote_is_rejected_by_remember(bdb: beliefdb.BeliefDB) -> None:
    """A quote of blanks quotes nothing; a claims file refuses it, remember() must too (same gate)."""
    bdb.ingest_text(POLICY, source="policy.md", extractor="none")
    report = bdb.remember("window is 7 days", "return_policy", "window", "7 days", " ", source="policy.md")
    assert report.accepted == [], "a single space was accepted as evidence"
    assert len(report.rejected) == 1
    assert bdb.beliefs(include_all=True) == []


# --- accepted quotes: exact offsets, in characters ---------------------------------------------------

UNICODE_DOC = (
    "# 退货政策 🎉\n\n"
    "退货须在交货后7天内提出。\n"
    "🚚 Livraison gratuite dès 50 € — café compris.\n"
    "Emoji 👍🏽 and flags 🇫🇷 count as code points: the window is 7 days.\n"
)


def test_accepted_quotes_have_exact_character_offsets_in_non_ascii_text(
        bdb: beliefdb.BeliefDB, write_doc: Any, postgresql: psycopg.Connection[Any]) -> None:
    quotes = ["退货须在交货后7天内提出。", "Livraison gratuite dès 50 €", "the window is 7 days.", "🇫🇷"]
    last = UNICODE_DOC.index("the window is 7 days.")
    report = ingest_claims(
        bdb, write_doc, UNICODE_DOC,
        claim(quotes[0], "7天", subject="退货", attribute="期限"),
        claim(quotes[1], "50 €", subject="livraison", attribute="seuil"),
        claim(quotes[2], "7 days", start=last, end=last + len(quotes[2])),
        claim(quotes[3], "FR", subject="shop", attribute="country"),
    )
    assert report.rejected == []
    assert [a.quote for a in report.accepted] == quotes
    _, version_id, content = version_of(postgresql, "policy.md")
    assert content == UNICODE_DOC
    for accepted in report.accepted:
        assert UNICODE_DOC[accepted.start:accepted.end] == accepted.quote
        assert accepted.start == UNICODE_DOC.index(accepted.quote)
        # PostgreSQL counts the same characters: substr() at those offsets is the quote
        row = postgresql.execute(
            "select substr(v.content, %s + 1, %s - %s), f.start_offset, f.end_offset, f.text, e.quote"
            "  from beliefdb.source_version v"
            "  join beliefdb.fragment f on f.workspace_id = v.workspace_id and f.source_version_id = v.id"
            "  join beliefdb.evidence e on e.workspace_id = f.workspace_id and e.fragment_id = f.id"
            " where v.id = %s and e.belief_id = %s",
            (accepted.start, accepted.end, accepted.start, version_id, accepted.id)).fetchone()
        assert row == (accepted.quote, accepted.start, accepted.end, accepted.quote, accepted.quote)
        (evidence,) = bdb.why(accepted.id).evidence
        assert (evidence.quote, evidence.start_offset, evidence.end_offset) == (
            accepted.quote, accepted.start, accepted.end)
    # characters, not UTF-8 bytes and not UTF-16 units: the three counts differ for this document
    lengths = postgresql.execute("select char_length(content), octet_length(content) "
                                 "from beliefdb.source_version where id = %s", (version_id,)).fetchone()
    assert lengths is not None
    chars, octets = lengths
    assert chars == len(UNICODE_DOC) != octets == len(UNICODE_DOC.encode("utf-8"))
    assert len(UNICODE_DOC.encode("utf-16-le")) // 2 != len(UNICODE_DOC)


# --- the database refuses mismatched evidence ---------------------------------------------------------


@pytest.fixture
def stored(bdb: beliefdb.BeliefDB, write_doc: Any, postgresql: psycopg.Connection[Any]) -> dict[str, Any]:
    """One ingested version with one belief and its evidence; ids read as the superuser."""
    report = ingest_claims(bdb, write_doc, POLICY, claim("Returns are accepted within 7 days of delivery."))
    (accepted,) = report.accepted
    workspace_id, version_id, content = version_of(postgresql, "policy.md")
    row = postgresql.execute("select fragment_id from beliefdb.evidence where belief_id = %s",
                             (accepted.id,)).fetchone()
    assert row is not None
    postgresql.commit()
    return {"workspace_id": workspace_id, "version_id": version_id, "content": content,
            "belief_id": accepted.id, "fragment_id": row[0]}


def superuser_refuses(conn: psycopg.Connection[Any], query: Any, params: Any) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as raised:
        conn.execute(query, params)
    conn.rollback()
    return raised.value


def test_database_refuses_fragment_text_that_is_not_the_source_text(
        postgresql: psycopg.Connection[Any], stored: dict[str, Any]) -> None:
    before = count(postgresql, "fragment")
    error = superuser_refuses(
        postgresql,
        "insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)"
        " values (%s, %s, 0, 7, 'Refunds')", (stored["workspace_id"], stored["version_id"]))
    assert error.sqlstate == "BD001"
    assert stored["content"][0:7] == "Returns"
    assert count(postgresql, "fragment") == before


def test_database_refuses_fragment_past_the_end_of_the_text(
        postgresql: psycopg.Connection[Any], stored: dict[str, Any]) -> None:
    content: str = stored["content"]
    tail = content[-5:]  # what substr() returns for a span running past the end
    error = superuser_refuses(
        postgresql,
        "insert into beliefdb.fragment (workspace_id, source_version_id, start_offset, end_offset, text)"
        " values (%s, %s, %s, %s, %s)",
        (stored["workspace_id"], stored["version_id"], len(content) - 5, len(content) + 10, tail))
    assert error.sqlstate == "BD001"


def test_database_refuses_evidence_quote_that_is_not_its_fragment_text(
        postgresql: psycopg.Connection[Any], stored: dict[str, Any]) -> None:
    other = postgresql.execute(
        "insert into beliefdb.belief (workspace_id, statement, subject, attribute, value)"
        " values (%s, 'window is 30 days', 'return_policy', 'window', '30 days') returning id",
        (stored["workspace_id"],)).fetchone()
    assert other is not None
    error = superuser_refuses(
        postgresql,
        "insert into beliefdb.evidence (workspace_id, belief_id, fragment_id, quote, role)"
        " values (%s, %s, %s, 'Returns are accepted within 30 days of delivery.', 'mentions')",
        (stored["workspace_id"], other[0], stored["fragment_id"]))
    assert error.sqlstate == "BD001"


def test_library_maps_refused_fragment_to_evidence_mismatch(bdb: beliefdb.BeliefDB, stored: dict[str, Any],
                                                            postgresql: psycopg.Connection[Any]) -> None:
    before = count(postgresql, "fragment")
    refused = pytest.raises(errors.EvidenceMismatch, match="fragment text is not the source text")
    with refused, bdb.database.transaction() as conn:  # through translate()
        conn.execute(OWNER)
        conn.execute("insert into beliefdb.fragment (source_version_id, start_offset, end_offset, text)"
                     " values (%s, 0, 7, 'Refunds')", (stored["version_id"],))
    assert count(postgresql, "fragment") == before


def test_library_maps_refused_evidence_to_evidence_mismatch(bdb: beliefdb.BeliefDB,
                                                            stored: dict[str, Any]) -> None:
    refused = pytest.raises(errors.EvidenceMismatch, match="evidence quote is not the text of its fragment")
    with refused, bdb.database.transaction() as conn:
        conn.execute(OWNER)
        conn.execute("update beliefdb.evidence set quote = quote || ' Really.' where belief_id = %s",
                     (stored["belief_id"],))
    (evidence,) = bdb.why(stored["belief_id"]).evidence
    assert evidence.quote == "Returns are accepted within 7 days of delivery."


def test_library_maps_edited_fragment_text_to_evidence_mismatch(bdb: beliefdb.BeliefDB,
                                                                stored: dict[str, Any]) -> None:
    with pytest.raises(errors.EvidenceMismatch), bdb.database.transaction() as conn:
        conn.execute(OWNER)
        conn.execute("update beliefdb.fragment set text = 'Returns are accepted within 30 days of delivery.'"
                     " where id = %s", (stored["fragment_id"],))


def test_database_refuses_moving_a_quoted_fragment_to_other_text(bdb: beliefdb.BeliefDB, stored: dict[str, Any],
                                                                  postgresql: psycopg.Connection[Any]) -> None:
    """Moving a fragment to another span (text consistent with the source) must not leave its evidence
    quoting text the fragment no longer holds."""
    content: str = stored["content"]
    target = "Refunds are issued within 5 days"  # no fragment exists at exactly this span
    start = content.index(target)
    with pytest.raises(errors.BeliefDBError), bdb.database.transaction() as conn:
        conn.execute(OWNER)
        conn.execute("update beliefdb.fragment set start_offset = %s, end_offset = %s, text = %s"
                     " where id = %s", (start, start + len(target), target, stored["fragment_id"]))
    mismatched = postgresql.execute(
        "select count(*) from beliefdb.evidence e join beliefdb.fragment f"
        " on f.workspace_id = e.workspace_id and f.id = e.fragment_id where e.quote <> f.text").fetchone()
    assert mismatched == (0,)


def test_database_gate_rejects_claims_that_bypass_the_python_gate(bdb: beliefdb.BeliefDB, stored: dict[str, Any],
                                                                  postgresql: psycopg.Connection[Any]) -> None:
    content: str = stored["content"]
    refund = "Refunds are issued within 5 days."
    at = content.index(refund)
    claims = [
        claim(refund, "5 days", attribute="refund", start=0, end=len(refund)),                  # wrong offsets
        claim(refund.upper(), "5 days", attribute="refund", start=at, end=at + len(refund)),    # wrong case
        claim("", "5 days", attribute="refund", start=at, end=at),                              # empty span
        claim(refund, "5 days", attribute="refund"),                                            # no offsets
        claim(refund, "5 days", attribute="refund", start=at, end=at + len(refund) + 100),      # past the end
    ]
    before = count(postgresql, "evidence")
    with bdb.database.transaction() as conn:
        conn.execute(OWNER)  # add_claims is internal: ingest_version calls it with owner rights
        outcome = bdb.database.scalar("select beliefdb._add_claims(%s, %s, %s)",
                                      (stored["workspace_id"], stored["version_id"], Jsonb(claims)), conn)
    assert outcome["accepted"] == [] and outcome["corroborated"] == []
    assert [r["reason"] for r in outcome["rejected"]] == ["quote is not the source text at the given offsets"] * 5
    assert ("return_policy", "refund", "5 days") not in stored_triples(bdb)
    assert count(postgresql, "evidence") == before


def test_database_gate_is_not_fooled_by_normalisation(bdb: beliefdb.BeliefDB,
                                                      postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(CAFE_NFC, source="cafe.md", extractor="none")
    workspace_id, version_id, content = version_of(postgresql, "cafe.md")
    nfd = unicodedata.normalize("NFD", "café")
    at = content.index("café")
    assert workspace_id and version_id
    # the function the application calls for claims against a stored source, Python gate skipped
    outcome = bdb.database.scalar(
        "select beliefdb.add_claims_to_source(%s, %s)",
        ("cafe.md", Jsonb([claim(nfd, "yes", subject="cafe", attribute="named", start=at, end=at + len("café"))])))
    assert outcome["accepted"] == []
    assert len(outcome["rejected"]) == 1
    assert bdb.beliefs(include_all=True) == []


# --- every claim is counted ------------------------------------------------------------------------


def test_mixed_claims_file_counts_every_claim(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    text = "Returns are accepted within 7 days of delivery.\nThe return window is 7 days.\nShipping is free."
    claims = [
        claim("Returns are accepted within 7 days of delivery."),                     # accepted
        claim("The return window is 7 days."),                                        # corroborates it
        claim("Shipping is free.", "free", subject="shipping", attribute="cost"),     # accepted
        claim("Returns are accepted within 30 days of delivery.", "30 days"),         # not in the text
        claim("The return  window is 7 days.", "7 days", attribute="w2"),             # whitespace
        claim("shipping is free.", "free", subject="shipping", attribute="c2"),       # case
        claim("Shipping is free.", "free", subject="shipping", attribute="c3", start=0, end=17),  # offsets
    ]
    report = ingest_claims(bdb, write_doc, text, *claims)
    assert len(report.accepted) + len(report.rejected) + len(report.corroborated) == len(claims)
    assert len(report.accepted) == 2 and len(report.corroborated) == 1 and len(report.rejected) == 4
    assert sorted(r.reason.split(" at [")[0] for r in report.rejected) == [
        "quote differs from the source text in letter case",
        "quote differs from the source text in whitespace",
        "quote is in the source",
        "quote is not in the source text",
    ]
    assert stored_triples(bdb) == {("return_policy", "window", "7 days"), ("shipping", "cost", "free")}


def test_a_repeated_claim_is_counted_in_the_report(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    """The same claim twice in one file: the second is neither accepted, rejected nor corroborated — the
    database reports it as 'unchanged', which the IngestReport drops, so the counts no longer add up."""
    quote = "Returns are accepted within 7 days of delivery."
    report = ingest_claims(bdb, write_doc, POLICY, claim(quote), claim(quote))
    assert len(report.accepted) == 1
    counted = len(report.accepted) + len(report.rejected) + len(report.corroborated)
    counted += len(getattr(report, "unchanged", []))
    assert counted == 2, "a repeated claim vanished from the report"


def test_rejected_claims_are_recorded_in_the_audit_event(bdb: beliefdb.BeliefDB, write_doc: Any,
                                                         postgresql: psycopg.Connection[Any]) -> None:
    ingest_claims(bdb, write_doc, POLICY, claim("Returns are accepted within 7 days of delivery."),
                  claim("not in the text at all"))
    row = postgresql.execute("select payload from beliefdb.audit_event where action = 'ingest'").fetchone()
    assert row is not None
    assert (row[0]["accepted"], row[0]["rejected"]) == (1, 1), row[0]


@pytest.mark.parametrize("value, quote, shared", [
    ("7", "rated 7.0", True),  # (a model's JSON number 7.0 is the value "7")
    ("49", "The Pro plan costs $49.00.", True),
    ("2.5", "2.50 EUR", True),
    ("0.1", "$0.10 a request", True),
    ("true", "Bob is vegan.", True),  # (a yes or no the quote says in words)
    ("5", "15 days", False),
    ("free", "Lamps cost 5 EUR.", False),
])
def test_a_models_value_is_in_its_quote_as_a_number_not_as_its_spelling(value: str, quote: str,
                                                                       shared: bool) -> None:
    """(review) Numbers were compared as written: 7.0 (given as "7"), 49.00, 2.50 were refused as not in
    their quotes, and a boolean value never is."""
    assert shares_a_word(value, quote) is shared


@pytest.mark.parametrize("text, quote, cut", [
    ("The plan costs $4.99 a month.", "The plan costs $4", True),  # (a number cut at its decimal mark)
    ("Budget is 1,000,000 EUR.", "Budget is 1", True),
    ("यह किताब है", "यह किता", True),  # (a vowel sign is in its word)
    ("The plan costs $4.99 a month.", "The plan costs $4.99", False),
    ("It costs 5. Then more.", "It costs 5.", False),
])
def test_a_models_quote_may_not_end_inside_a_number_or_before_a_mark(text: str, quote: str, cut: bool) -> None:
    """(review) A quote cut at a number's decimal or grouping mark, or before a combining vowel sign, was
    taken as ending on a word's edge."""
    at = text.find(quote)
    assert cuts_a_word(text, at, at + len(quote)) is cut
