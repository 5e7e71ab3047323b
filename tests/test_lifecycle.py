"""Belief lifecycle against a real PostgreSQL: confidence decay and recompute (rule 9), outcomes,
forgetting that leaves no trace (rule 14), provenance labels."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from conftest import Cli, url_at
from forgets import forget
from psycopg import sql

import beliefdb
from beliefdb import errors
from beliefdb.store import lifecycle

POLICY = "# Return policy\nReturns are accepted within 7 days of delivery.\n"
SECRET = "The vault combination is 31-07-1977 by order of Quillfeather."


def confidence(db: beliefdb.BeliefDB, value: str) -> float:
    (b,) = [b for b in db.beliefs(include_all=True) if b.value == value]
    return round(b.confidence, 4)


def test_recency_halves_confidence_each_half_life_and_new_evidence_restores_it(db_url: str) -> None:
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as jan:
        jan.ingest_text(POLICY, source="return-policy.md", authority="official")  # kind policy: 90 days
        assert confidence(jan, "7 days") == 0.9
        factors = {f.factor: f for f in jan.why(jan.beliefs()[0].id).confidence}
        assert factors["recency"].weight == 1.0
        assert factors["recency"].detail == "0 day(s) since last verified, half-life 90 days (multiplier)"
    with beliefdb.connect(url_at(db_url, "2026-04-01T00:00:00Z")) as april:  # 90 days later
        report = lifecycle.decay(april.database)
        assert (report.beliefs, report.changed, report.lowered) == (1, 1, 1)
        assert confidence(april, "7 days") == 0.45
        assert {f.factor: f.weight for f in april.why(april.beliefs()[0].id).confidence}["confidence"] == \
            pytest.approx(0.45)
        # another half-life: under the 0.3 threshold, low confidence (labelled in ask), never deleted
        later = lifecycle.decay(april.database, now=_at("2026-06-30"))
        assert later.became_low == 1 and later.low_confidence == 1
        assert confidence(april, "7 days") == 0.225
        assert april.ask("how many days for returns?").beliefs[0].low_confidence
    with beliefdb.connect(url_at(db_url, "2026-06-30T00:00:00Z")) as june:
        # the policy is published again (the same sentence in a new version): re-verified, fresh again
        june.ingest_text(POLICY + "Updated June.\n", source="return-policy.md")
        assert confidence(june, "7 days") == 0.9
        assert lifecycle.decay(june.database).low_confidence == 0


def test_recency_of_a_long_forgotten_belief_is_small_not_an_error(db_url: str) -> None:
    """Forty years are 162 half-lives of a policy: 0.5**162 is below what a real can hold, so the
    decay stops at 30 half-lives (about 1e-9) instead of failing every statement that computes it."""
    with beliefdb.connect(url_at(db_url, "2026-01-01T00:00:00Z")) as jan:
        jan.ingest_text(POLICY, source="return-policy.md", authority="official")
    with beliefdb.connect(url_at(db_url, "2066-01-01T00:00:00Z")) as later:
        report = lifecycle.decay(later.database)
        assert (report.changed, report.lowered) == (1, 1)
        (belief,) = later.beliefs(include_all=True)
        assert belief.confidence == pytest.approx(0.9 * 0.5**30)
        assert {f.factor: f.weight for f in later.why(belief.id).confidence}["recency"] == pytest.approx(0.5**30)


def _at(day: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(day + "T00:00:00+00:00")


def test_recompute_applies_a_dba_policy_change_in_one_statement(cli: Cli, bdb: beliefdb.BeliefDB,
                                                                 postgresql: psycopg.Connection[Any]) -> None:
    bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    bdb.ingest_text("The restocking fee is 10%.\n", source="fees.md", authority="internal")
    postgresql.execute("update beliefdb.confidence_policy set weight = 0.6 "
                       "where factor = 'authority' and key = 'official'")
    postgresql.commit()
    assert confidence(bdb, "7 days") == 0.9  # stored until recomputed
    report = cli.json("recompute")
    assert (report["beliefs"], report["changed"]) == (2, 1)
    assert confidence(bdb, "7 days") == 0.6 and confidence(bdb, "10%") == 0.8
    events = postgresql.execute("select action from beliefdb.audit_event order by seq desc limit 1").fetchall()
    assert events == [("recompute",)]


def test_outcomes_are_recorded_audited_and_shown_by_why(cli: Cli, bdb: beliefdb.BeliefDB,
                                                         postgresql: psycopg.Connection[Any]) -> None:
    report = bdb.ingest_text(POLICY, source="return-policy.md", authority="official")
    belief = report.accepted[0].id
    decision = bdb.decide("Refuse the return of order 1042", because=[belief])
    action = bdb.act(decision.id, "Email the customer a refusal")
    lifecycle.record_outcome(bdb.database, decision.id, "disputed", "the customer escalated")
    assert cli.json("outcome", str(action.id)[:8], "rolled_back")["kind"] == "action"
    (built,) = bdb.why(belief).built_on
    assert built.outcome is not None and built.outcome["outcome"] == "disputed"
    assert built.outcome["note"] == "the customer escalated"
    assert built.actions[0]["outcome"]["outcome"] == "rolled_back"
    actions = [r[0] for r in postgresql.execute(
        "select payload ->> 'outcome' from beliefdb.audit_event where action = 'outcome' order by seq")]
    assert actions == ["disputed", "rolled_back"]
    with pytest.raises(errors.InvalidInput, match="invalid outcome"):
        lifecycle.record_outcome(bdb.database, decision.id, "great")
    with pytest.raises(errors.NotFound):
        lifecycle.record_outcome(bdb.database, belief, "failed")  # a belief has no outcome
    text = cli("why", str(belief))
    assert "outcome disputed" in text.stdout and "outcome rolled_back" in text.stdout


def _columns_with(conn: psycopg.Connection[Any], needle: str) -> list[tuple[str, str]]:
    """Every text, jsonb and bytea column of every beliefdb table (audit included) holding ``needle``."""
    columns = conn.execute("""
        select c.table_name, c.column_name, c.data_type
          from information_schema.columns c
          join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
         where c.table_schema = 'beliefdb' and t.table_type = 'BASE TABLE'
           and c.data_type in ('text', 'jsonb', 'bytea', 'character varying', 'ARRAY')""").fetchall()
    assert len(columns) > 30  # the scan really covers the schema
    found = []
    for table, column, data_type in columns:
        if data_type == "bytea":
            predicate = sql.SQL("position(convert_to(%s, 'UTF8') in {}) > 0").format(sql.Identifier(column))
        else:
            predicate = sql.SQL("strpos({}::text, %s) > 0").format(sql.Identifier(column))
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{} where ").format(sql.Identifier(table))
                           + predicate, (needle,)).fetchone()
        if row and row[0]:
            found.append((table, column))
    return found


def test_forgetting_a_source_leaves_no_trace(cli: Cli, bdb: beliefdb.BeliefDB,
                                             postgresql: psycopg.Connection[Any]) -> None:
    report = bdb.ingest_text(f"Vault notes\n{SECRET}\nThe vault opening time is 9 am.\n", source="vault-notes.md",
                             authority="internal")
    # the opening hour is also in another document: it is corroborated there, and survives
    bdb.ingest_text("The vault opening time is 9 am.\n", source="facilities.md", authority="internal")
    hours = next(b.id for b in bdb.beliefs() if b.value == "9 am")
    secret = next(a.id for a in report.accepted if "combination" in a.statement)
    derived = bdb.derive("The vault combination is known.", "vault", "combination_known", "yes", [secret])
    decision = bdb.decide("Let the keeper open the vault", because=[derived.id])
    kept = bdb.decide("Open the vault at 9", because=[hours])
    bdb.ask("what is the vault combination?")
    assert ("source_version", "content") in _columns_with(postgresql, "Quillfeather")

    preview = lifecycle.forget(bdb.database, source="vault-notes.md", preview=True)
    assert preview.preview and preview.versions == 1 and preview.would_flag == [decision.id]
    assert ("source_version", "content") in _columns_with(postgresql, "Quillfeather")  # nothing written

    done = json.loads(forget(cli, "--source", "vault-notes.md", "--json").stdout)
    assert done["flagged"] == [str(decision.id)] and done["beliefs"] >= 2
    assert _columns_with(postgresql, "Quillfeather") == []
    assert _columns_with(postgresql, "31-07-1977") == []
    assert bdb.audit_verify().ok
    statuses = {d.id: d.status for d in bdb.decisions()}
    assert statuses[decision.id] == "needs_review" and statuses[kept.id] == "active"
    assert [b.value for b in bdb.beliefs(subject="vault_opening")] == ["9 am"]  # the other source's belief stays
    assert bdb.ask("what is the vault combination?").status in ("no_match", "ok")
    assert all("31-07-1977" not in a.belief.value for a in bdb.ask("what is the vault combination?").beliefs)


def test_forget_a_subject_or_belief_and_bad_input(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    bdb.remember("Customer 42 prefers email.", "customer_42", "channel", "email", "please email me",
                 source="chat-42", text="Hi, please email me.")
    bdb.remember("Customer 7 prefers phone.", "customer_7", "channel", "phone", "call me",
                 source="chat-7", text="Please call me.")
    done = lifecycle.forget(bdb.database, subject="customer_42")
    assert done.beliefs == 1
    assert [b.subject for b in bdb.beliefs(include_all=True)] == ["customer_7"]
    with pytest.raises(errors.InvalidInput, match="exactly one"):
        lifecycle.forget(bdb.database, subject="x", source="y")
    with pytest.raises(errors.NotFound):
        lifecycle.forget(bdb.database, subject="nobody")
    with pytest.raises(errors.NotFound):
        lifecycle.forget(bdb.database, source="nowhere.md")
    result = cli("forget", expect=2)
    assert result.stderr.startswith("error: forget exactly one")


def test_forget_erases_nothing_without_the_fingerprint_of_a_preview(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """forget erased at once when given no --expect (it cannot be undone), where the README says --preview,
    then --expect FINGERPRINT, and HTTP and MCP refuse an apply without it: a usage error saying so, nothing
    forgotten; a script takes the fingerprint from --preview --json."""
    bdb.remember("Customer 42 prefers email.", "customer_42", "channel", "email", "please email me",
                 source="chat-42", text="Hi, please email me.")
    for argv in (["--subject", "customer_42"], ["--source", "chat-42", "--json"]):
        refused = cli("forget", *argv, expect=2)
        said = refused.stdout if "--json" in argv else refused.stderr
        assert "--preview" in said and "--expect FINGERPRINT" in said, said
        assert [b.subject for b in bdb.beliefs()] == ["customer_42"]
    fingerprint = cli.json("forget", "--subject", "customer_42", "--preview")["fingerprint"]
    done = cli.json("forget", "--subject", "customer_42", "--expect", fingerprint)
    assert done["beliefs"] == 1 and bdb.beliefs() == []


def test_provenance_labels_show_in_lists_and_why(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("The loyalty tier of customer 9 is gold.\n", source="fixture.md", label="fixture")
    assert bdb.beliefs() == []  # production answers never show fixture material
    (b,) = bdb.beliefs(include_fixtures=True)
    assert b.provenance == "fixture"
    assert cli("beliefs").stdout.strip() == "(no beliefs)"
    assert "(fixture, not production history)" in cli("beliefs", "--include-fixtures").stdout
    refused = cli("why", str(b.id), expect=1)
    assert "fixture material, not production history" in refused.stderr
    why = cli("why", str(b.id), "--include-fixtures")
    assert "provenance fixture  ⚠ not production history" in why.stdout


def test_forget_says_which_actions_it_holds(cli: Cli, bdb: beliefdb.BeliefDB) -> None:
    """A forget that flags a decision holds its scheduled actions: the text report says so, as the
    JSON does (it named the flagged decisions only)."""
    (belief,) = bdb.remember("Customer 42 prefers email.", "customer_42", "channel", "email", "please email me",
                             source="chat-42", text="Hi, please email me.").accepted
    decision = bdb.decide("Email customer 42 the offer", because=[belief.id])
    action = bdb.act(decision.id, "Send the offer by email")
    would = cli("forget", "--subject", "customer_42", "--preview").stdout
    assert "1 decision(s) would be flagged, 1 action(s) would be held" in would, would
    done = forget(cli, "--subject", "customer_42").stdout
    assert "1 decision(s) flagged, 1 action(s) held" in done, done
    assert [a.status for a in bdb.actions()] == ["held"] and bdb.actions()[0].id == action.id
