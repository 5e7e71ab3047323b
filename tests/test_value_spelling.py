"""A value is the same value whatever runs of whitespace it was typed with (docs/rules.md, rule 18 and
the extractor's naming): the rule extractor spells each run as one space since revision 0050, and a store
upgraded from before held values with double spaces or a tab. Re-ingesting the unchanged document after
the upgrade made a second belief of the same line in the new spelling, in conflict with the first (a user
trial: both `conflicting`, confidence halved, a review item). A claim spelled anew now takes the stored
belief's spelling; a value given with runs takes a stored one's too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb.models import IngestReport

LINE = "Remote work: 2 days  per week"
TEXT = f"# Policy\n{LINE}\nOffice: Lisbon\n"
OLD = "2 days  per week"


def stored_as_before(bdb: beliefdb.BeliefDB, source: str = "policy.md") -> None:
    """The document as the extractor before revision 0050 stored it: the value spelled as typed."""
    start = TEXT.index(LINE)
    claims = [{"statement": LINE, "subject": "policy", "attribute": "remote_work", "value": OLD, "quote": LINE,
               "start": start, "end": start + len(LINE)}]
    with bdb.database.transaction() as conn:
        conn.execute("select beliefdb.ingest_version(%s, %s, p_claims => %s)", (source, TEXT, Jsonb(claims)))


def rows(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    found = conn.execute("select value, status::text from beliefdb.belief where attribute = 'remote_work'"
                         " order by recorded_at").fetchall()
    conn.commit()
    return [(r[0], r[1]) for r in found]


def test_the_unchanged_document_again_is_the_same_belief(bdb: beliefdb.BeliefDB,
                                                         postgresql: psycopg.Connection[Any]) -> None:
    stored_as_before(bdb)
    again = bdb.ingest_text(TEXT, source="policy.md")
    assert [(a.attribute, a.value) for a in again.accepted if a.attribute == "remote_work"] == []
    assert again.conflicts == [] and rows(postgresql) == [(OLD, "current")]
    assert postgresql.execute("select count(*) from beliefdb.review_item").fetchone() == (0,)


def test_a_new_version_and_another_document_saying_it_corroborate_it(bdb: beliefdb.BeliefDB, tmp_path: Path,
                                                                     postgresql: psycopg.Connection[Any]) -> None:
    stored_as_before(bdb)
    v2 = bdb.ingest_text(TEXT.replace("Lisbon", "Porto"), source="policy.md")
    assert v2.conflicts == [] and v2.superseded == [] and v2.unsupported == []
    (tmp_path / "handbook.md").write_text(f"# Policy\n{LINE}\n", encoding="utf-8")
    (tmp_path / "faq.md").write_text(f"# Policy\n{LINE}\nThe FAQ.\n", encoding="utf-8")
    (plain,) = bdb.ingest(tmp_path / "handbook.md", embed=False)
    assert isinstance(plain, IngestReport) and plain.conflicts == [] and len(plain.corroborated) == 1
    bulk = bdb.bulk_ingest(tmp_path / "faq.md", embed=False)
    assert (bulk.accepted, bulk.corroborated) == (0, 1) and bulk.conflicts == 0
    assert rows(postgresql) == [(OLD, "current")]
    assert bdb.audit_verify().ok


def test_a_value_given_with_a_tab_is_the_value_stored(bdb: beliefdb.BeliefDB,
                                                      postgresql: psycopg.Connection[Any]) -> None:
    (first,) = bdb.ingest_text("# Policy\nRemote work: 2 days per week\n", source="policy.md").accepted
    said = bdb.remember("Remote work is 2 days a week.", "policy", "remote_work", "2 days\tper\u00a0week",
                        "Remote work: 2 days per week", source="memo.md", text="Remote work: 2 days per week\n")
    assert said.accepted == [] and [c.id for c in said.corroborated] == [first.id]
    assert rows(postgresql) == [("2 days per week", "current")]


def test_the_spaced_values_index_serves_the_probe(postgresql: psycopg.Connection[Any]) -> None:
    """The question every claim asks of a workspace (does any belief keep a spelled-out run?) reads the
    partial index, whose predicate the function writes out the same: not the workspace's beliefs."""
    body = postgresql.execute("select prosrc from pg_proc where proname = '_stored_spellings'").fetchone()
    assert body is not None
    predicate = postgresql.execute("select pg_get_expr(indpred, indrelid) from pg_index"
                                   " where indexrelid = 'beliefdb.belief_spaced_value'::regclass").fetchone()
    assert predicate is not None
    postgresql.execute("set enable_seqscan = off")
    plan = "\n".join(r[0] for r in postgresql.execute(
        "explain select from beliefdb.belief b where b.workspace_id = gen_random_uuid() and b.value ~ "
        + "'" + r"[\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]{2}|"
        + r"[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\u001c-\u001f]" + "'"))
    assert "belief_spaced_value" in plan, plan
    assert plan.count("belief_spaced_value") == 1 and "'" + predicate[0].split("'")[1] + "'" in body[0]


def test_a_value_spelled_as_a_belief_is_keeps_its_spelling(bdb: beliefdb.BeliefDB,
                                                           postgresql: psycopg.Connection[Any]) -> None:
    """Only a belief of the claim's world and scope lends its spelling, and none when one is spelled as the
    claim is: a fixture's `2 days  per week` made a production claim `2 days per week` a new belief beside
    the production one of that very spelling (a review of the change)."""
    stored_as_before(bdb, source="fixture.md")
    postgresql.execute("update beliefdb.source set provenance = 'fixture' where name = 'fixture.md'")
    postgresql.execute("update beliefdb.belief set provenance = 'fixture'")
    postgresql.commit()
    (first,) = [a for a in bdb.ingest_text(TEXT, source="policy.md").accepted if a.attribute == "remote_work"]
    assert first.value == "2 days per week"  # (the fixture's spelling is another world's)
    again = bdb.ingest_text(f"# Policy\n{LINE}\n", source="memo.md")
    assert [c.id for c in again.corroborated] == [first.id] and again.accepted == []
