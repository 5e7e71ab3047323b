"""Ranking never depends on other workspaces (issue 20): the words too common to nominate candidates
are counted in the asked workspace's own beliefs (beliefdb.lexeme_frequency, kept by triggers), not
in the database-wide pg_stats, so what workspace B stores changes nothing in workspace A's answers,
and none of B's words is in A's statistics."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import beliefdb
from beliefdb.store.workspaces import create_workspace

A_FACTS = (
    ("The red widget costs 12 euros.", "red_widget", "price", "12 euros"),
    ("The blue handle belongs to the garden door.", "garden_door", "handle", "blue"),
    ("The blue widget has a steel handle.", "blue_widget", "handle", "steel"),
    ("Invoices are paid within 30 days.", "invoices", "payment_term", "30 days"),
)
QUESTIONS = ("Which widget has the blue handle?", "How much does the red widget cost?",
             "When are invoices paid?", "garden door handle colour")
# words B may use: some of A's, and some A never uses
VOCABULARY = ("widget", "blue", "handle", "invoices", "garden", "door", "zebra", "quokka", "harbour", "lantern")
B_ONLY = {"zebra", "quokka", "harbour", "lantern"}


def recall_ranking(db_url: str, workspace_id: str, question: str) -> list[tuple[Any, ...]]:
    """beliefdb.recall as the application role, text and names only: every candidate with its ranks."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (workspace_id,))
        conn.execute("set role beliefdb_app")
        return [tuple(r) for r in conn.execute(
            "select belief_id, score, text_rank, name_rank from beliefdb.recall(%s, null, null, 50)",
            (question,)).fetchall()]


def rankings(db_url: str, workspace_id: str) -> dict[str, list[tuple[Any, ...]]]:
    return {q: recall_ranking(db_url, workspace_id, q) for q in QUESTIONS}


def statistics(conn: psycopg.Connection[Any], workspace_id: str) -> dict[str, int]:
    return dict(conn.execute("select lexeme, beliefs from beliefdb.lexeme_frequency where workspace_id = %s",
                             (workspace_id,)).fetchall())


def recounted(conn: psycopg.Connection[Any], workspace_id: str) -> dict[str, int]:
    """What the statistics must be: every lexeme of the workspace's beliefs, counted from scratch."""
    return dict(conn.execute("""
        select l.lexeme, count(*) from beliefdb.belief b
         cross join lateral unnest(tsvector_to_array(b.search)) as l (lexeme)
         where b.workspace_id = %s group by l.lexeme""", (workspace_id,)).fetchall())


@pytest.fixture
def tenant_a(db_url: str) -> Iterator[beliefdb.BeliefDB]:
    create_workspace(db_url, "tenant-a")
    with beliefdb.connect(db_url, workspace="tenant-a") as a:
        for statement, subject, attribute, value in A_FACTS:
            a.remember(statement, subject, attribute, value, statement, source=f"{subject}.md",
                       text=statement + "\n", authority="official")
        yield a


@pytest.mark.slow
def test_another_workspaces_common_word_does_not_change_this_ones_ranking(
        db_url: str, tenant_a: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    a_ws = tenant_a.database.workspace_id
    before = rankings(db_url, a_ws)
    assert any(before.values())
    # B stores "widget" in 1,200 beliefs: with database-wide statistics, "widget" stopped nominating
    # in A too (A's red widget was no longer a text candidate for "Which widget has the blue handle?")
    b_ws = str(create_workspace(db_url, "tenant-b").id)
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (b_ws,))
    postgresql.execute("""
        insert into beliefdb.belief (workspace_id, statement, subject, attribute, value, confidence)
        select %s, 'Widget ' || g || ' is stored in zebra harbour ' || g || '.', 'widget_' || g, 'place',
               'harbour ' || g, 0.8
          from generate_series(1, 1200) g""", (b_ws,))
    postgresql.commit()
    postgresql.execute("analyze beliefdb.belief")
    postgresql.commit()  # the planner statistics the old estimate read, visible to every session
    assert statistics(postgresql, b_ws)["widget"] == 1200
    assert rankings(db_url, a_ws) == before
    assert not B_ONLY & set(statistics(postgresql, a_ws))
    # and in B, where it is common, "widget" nominates nothing on its own
    common = postgresql.execute("select beliefdb._common_lexemes(%s, array['widget', 'handl'], 1000)",
                                (b_ws,)).fetchone()
    assert common == (["widget"],)


@pytest.mark.slow
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(b_beliefs=st.lists(st.tuples(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=4),
                                    st.integers(1, 99)), min_size=1, max_size=3))
def test_rankings_in_a_are_the_same_whatever_b_stores(db_url: str, tenant_a: beliefdb.BeliefDB,
                                                      postgresql: psycopg.Connection[Any],
                                                      b_beliefs: list[tuple[list[str], int]]) -> None:
    a_ws = tenant_a.database.workspace_id
    before = rankings(db_url, a_ws)
    asked = [a.belief.id for a in tenant_a.ask(QUESTIONS[0]).beliefs]
    with contextlib.suppress(beliefdb.errors.IntegrityViolation):  # B keeps what earlier examples stored
        create_workspace(db_url, "tenant-b")
    with beliefdb.connect(db_url, workspace="tenant-b") as b:
        for words, n in b_beliefs:
            statement = f"The {' '.join(words)} measures {n} metres."
            b.remember(statement, "_".join(words), "length", f"{n} metres", statement,
                       source=f"{'-'.join(words)}-{n}.md", text=statement + "\n")
        b_ws = b.database.workspace_id
    postgresql.execute("analyze beliefdb.belief")
    postgresql.commit()
    assert rankings(db_url, a_ws) == before
    assert [a.belief.id for a in tenant_a.ask(QUESTIONS[0]).beliefs] == asked
    # the statistics of each workspace are exactly its own beliefs' words
    assert statistics(postgresql, a_ws) == recounted(postgresql, a_ws)
    assert statistics(postgresql, b_ws) == recounted(postgresql, b_ws)
    assert not B_ONLY & set(statistics(postgresql, a_ws))


def test_statistics_follow_forgetting_and_a_refresh_counts_them_again(
        db_url: str, tenant_a: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    a_ws = tenant_a.database.workspace_id
    assert statistics(postgresql, a_ws) == recounted(postgresql, a_ws)
    assert statistics(postgresql, a_ws)["invoic"] == 1
    tenant_a.forget(source="invoices.md")
    # forgetting is complete (rule 14 of docs/rules.md): the forgotten words leave the statistics
    assert "invoic" not in statistics(postgresql, a_ws)
    assert statistics(postgresql, a_ws) == recounted(postgresql, a_ws)
    # a belief whose words change moves its counts (nothing in beliefdb changes them today)
    postgresql.execute("update beliefdb.belief set value = 'turquoise' where workspace_id = %s "
                       "and subject = 'garden_door'", (a_ws,))
    assert statistics(postgresql, a_ws)["turquoise"] == 1 and "blue" in statistics(postgresql, a_ws)
    assert statistics(postgresql, a_ws) == recounted(postgresql, a_ws)
    postgresql.execute("delete from beliefdb.lexeme_frequency where workspace_id = %s", (a_ws,))
    postgresql.commit()
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (a_ws,))
        conn.execute("set role beliefdb_app")
        counted = conn.execute("select beliefdb.refresh_ranking_stats()").fetchone()
        # the application role reads recall's statistics only through recall
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select * from beliefdb.lexeme_frequency")
    assert counted == (len(recounted(postgresql, a_ws)),)
    assert statistics(postgresql, a_ws) == recounted(postgresql, a_ws)
