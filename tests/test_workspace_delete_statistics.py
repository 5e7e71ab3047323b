"""Deleting a workspace scrubs the planner statistics of what it held, as forget does (rule 14): the
rows go, and ANALYZE's sampled values (pg_statistic, what pg_stats shows) of the tables they were in
are gathered again in the same transaction, so no value of the workspace's text stays there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli

SUBJECT = "zorblax"


def su_all(db_url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    """A query as the test's superuser, autocommitted (pg_stats shows a superuser every column)."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def in_statistics(db_url: str, text: str) -> list[tuple[Any, ...]]:
    """Every (table, column) of beliefdb whose pg_stats values (most common, histogram) hold ``text``."""
    return su_all(db_url, """
        select tablename::text, attname::text from pg_catalog.pg_stats
         where schemaname = 'beliefdb'
           and lower(concat_ws(' ', most_common_vals::text, histogram_bounds::text,
                               most_common_elems::text)) like '%%' || %s || '%%'
         order by 1, 2""", (text,))


@pytest.mark.parametrize("others", [True, False], ids=["beside-another-workspace", "alone"])
def test_deleting_a_workspace_leaves_its_text_in_no_planner_statistics(
        cli: Cli, db_url: str, tmp_path: Path, others: bool) -> None:
    """Beside another workspace's rows, the tables' statistics are gathered again without the deleted
    ones; alone, the tables it leaves empty keep none (ANALYZE of an empty table stores nothing, and
    would keep what it sampled before)."""
    doc = tmp_path / "shoes.md"
    doc.write_text("".join(f"Zorblax Quintavius's shoe size is {n}.\n" for n in range(40)))
    assert cli("workspace", "create", "gdpr").exit_code == 0
    ingested = cli("ingest", str(doc), "-w", "gdpr", "--no-embed", "--json")
    assert ingested.exit_code == 0, ingested.output
    assert json.loads(ingested.stdout)["accepted"]
    if others:
        kept = tmp_path / "orders.md"
        kept.write_text("".join(f"Marlowe Fitzgerald's order size is {n}.\n" for n in range(40)))
        assert cli("ingest", str(kept), "--no-embed").exit_code == 0
    su_all(db_url, "analyze beliefdb.belief, beliefdb.evidence, beliefdb.fragment, beliefdb.source_version,"
                   " beliefdb.workspace")
    subjects = su_all(db_url, "select most_common_vals::text from pg_catalog.pg_stats where schemaname = 'beliefdb'"
                              " and tablename = 'belief' and attname = 'subject'")
    assert subjects and SUBJECT in subjects[0][0].lower(), subjects
    assert ("belief", "subject") in in_statistics(db_url, SUBJECT)
    assert ("workspace", "name") in in_statistics(db_url, "gdpr")

    gone = cli("workspace", "delete", "gdpr", "--force", "--json")
    assert gone.exit_code == 0, gone.output
    assert su_all(db_url, "select count(*) from beliefdb.belief where subject like %s", (f"%{SUBJECT}%",)) == [(0,)]
    assert in_statistics(db_url, SUBJECT) == []
    assert in_statistics(db_url, "quintavius") == []
    assert in_statistics(db_url, "gdpr") == []
    if others:
        # gathered again, not dropped: the other workspace's values are there
        assert ("belief", "subject") in in_statistics(db_url, "marlowe")
