"""Two refusals were told apart by their message text: a conflict approved without its winner (the
library and the CLI name their own argument, ``winner='A'`` / ``--winner A``) by the message's first
words, and a lock wait for another session's ANALYZE (WorkspaceBusy saying what it waited for) by the
words PostgreSQL puts in the error's context, which its lc_messages translates. Each is now decided by a
field beliefdb's SQL sets, the error's DETAIL (a JSON object): another message text with the same DETAIL
is mapped the same, and the same text without it is not. The errors are raised by the real database."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb import errors
from beliefdb.db import connector
from beliefdb.store import review

A = "1d0e3c58-7a69-4c2e-8a56-2b8b63a1f001"
B = "2f1c9e77-35b4-4d0f-9c0a-6a0f4e2b5002"
BUSY_STATS = ("another session is gathering planner statistics of a table this change needs (a forget gathers"
              " them before it commits, rule 14; a bulk ingest after it, in any workspace): gave up waiting after"
              " BELIEFDB_LOCK_TIMEOUT; nothing was changed: try again")


def _raised(conn: psycopg.Connection[Any], raise_statement: str) -> psycopg.Error:
    """The database error of a PL/pgSQL block running ``raise_statement`` (rolled back)."""
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(f"do $$ begin {raise_statement}; end $$")
    conn.rollback()
    return caught.value


def test_a_conflict_without_its_winner_is_told_by_the_detail_not_the_words(bdb: beliefdb.BeliefDB) -> None:
    detail = f'{{"needs": "winner", "candidates": ["{A}", "{B}"]}}'
    cases = [  # (message, detail or None, the message the caller gets)
        (f"a conflict wants one of {A} and {B}", detail, f"approving a conflict needs winner='{A}' or winner='{B}'"),
        (f"approving a conflict needs its winner: {A} or {B}", None,
         f"approving a conflict needs its winner: {A} or {B}"),
    ]
    for message, given, said in cases:
        with pytest.raises(errors.InvalidInput) as refused, review._naming_the_winner(), \
                bdb.database.transaction() as c:
            using = "errcode = 'BD005'" + (f", detail = '{given}'" if given else "")
            c.execute(f"do $$ begin raise exception '{message}' using {using}; end $$")
        assert refused.value.message == said, (message, given)
    with errors.wording("cli"), pytest.raises(errors.InvalidInput) as refused, review._naming_the_winner(), \
            bdb.database.transaction() as c:
        c.execute(f"do $$ begin raise exception 'x' using errcode = 'BD005', detail = '{detail}'; end $$")
    assert refused.value.message == f"approving a conflict needs --winner {A} or --winner {B}"


def test_a_wait_for_statistics_is_told_by_the_detail_not_the_context(postgresql: psycopg.Connection[Any]) -> None:
    waited = _raised(postgresql, "raise exception 'canceling statement due to lock timeout' using"
                                 " errcode = '55P03', detail = '{\"waited_for\": \"analyze\"}'")
    busy = connector.translate(waited)
    assert isinstance(busy, errors.WorkspaceBusy) and busy.message == BUSY_STATS
    # the words the context had ("SQL statement "analyze beliefdb...."), without the detail: the workspace's
    # write lock, as any other lock wait
    postgresql.execute("create function pg_temp.busy() returns void language plpgsql as $f$ begin raise exception"
                       " 'canceling statement due to lock timeout' using errcode = '55P03'; end $f$")
    worded = _raised(postgresql, "execute 'select pg_temp.busy() /* analyze beliefdb.belief */'")
    assert "analyze beliefdb." in (worded.diag.context or ""), worded.diag.context
    other = connector.translate(worded)
    assert isinstance(other, errors.WorkspaceBusy) and other.message.startswith("another writer holds this workspace")


def test_the_sql_sets_the_details(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The SQL that raises them sets the DETAIL the mapping reads: review_resolve's refusal, and each ANALYZE
    of beliefdb's tables that may wait for another session's (bulk_analyze, refresh_ranking_stats,
    _analyze_text_tables, _analyze_deleted_tables)."""
    functions = {name: source for name, source in postgresql.execute(
        "select p.proname, p.prosrc from pg_proc p where p.pronamespace = 'beliefdb'::regnamespace"
        " and p.proname in ('review_resolve', 'bulk_analyze', 'refresh_ranking_stats', '_analyze_text_tables',"
        " '_analyze_deleted_tables')")}
    assert "'needs', 'winner', 'candidates'" in functions.pop("review_resolve")
    assert len(functions) == 4, sorted(functions)
    for name, source in functions.items():
        assert "when lock_not_available then" in source and """'{"waited_for": "analyze"}'""" in source, name


def test_an_unknown_belief_is_told_by_the_detail_not_the_words(postgresql: psycopg.Connection[Any]) -> None:
    """UnknownBelief was chosen by the message's first words, "unknown belief ": a not-found worded so is a
    plain NotFound without the detail, and one worded otherwise is UnknownBelief with it (messages kept)."""
    worded = connector.translate(_raised(postgresql, "raise exception 'unknown belief 0000dead' using"
                                                     " errcode = 'BD004'"))
    assert type(worded) is errors.NotFound and worded.message == "unknown belief 0000dead"
    told = connector.translate(_raised(postgresql, "raise exception 'no memory is named 0000dead' using"
                                                   " errcode = 'BD004', detail = '{\"unknown\": [\"belief\"]}'"))
    assert type(told) is errors.UnknownBelief and told.message == "no memory is named 0000dead"
    # what may name a belief among other kinds (why_graph: a belief, a decision or an action) is one too, as
    # it was; what names no belief is not
    mixed = connector.translate(_raised(postgresql, "raise exception 'x' using errcode = 'BD004',"
                                                    " detail = '{\"unknown\": [\"decision\", \"belief\"]}'"))
    assert type(mixed) is errors.UnknownBelief
    decision = connector.translate(_raised(postgresql, "raise exception 'unknown belief x' using errcode = 'BD004',"
                                                       " detail = '{\"unknown\": [\"decision\"]}'"))
    assert type(decision) is errors.NotFound


def test_the_sql_says_which_kind_was_unknown(bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Every refusal of an unknown belief sets {"unknown": ["belief"]} (resolve_node: the kinds it looked
    among), and the library's exceptions and messages are what they were."""
    postgresql.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(bdb.database.workspace_id),))
    postgresql.commit()
    nobody = "0000dead-0000-4000-8000-000000000000"
    for statement, detail, message in [
        ("select beliefdb.resolve_belief('0000dead')", ["belief"], "unknown belief 0000dead"),
        ("select beliefdb.resolve_node('0000dead', '{decision,action}')", ["decision", "action"],
         "unknown decision or action 0000dead"),
        ("select beliefdb.resolve_node('0000dead')", ["node"], "unknown node 0000dead"),
        (f"select beliefdb.recall_warnings('{nobody}')", ["belief"], f"unknown belief {nobody}"),
        (f"select beliefdb._forget_core('{bdb.database.workspace_id}', 'belief', '{nobody}', null, '{{}}',"
         " false)", ["belief"], f"unknown belief {nobody}"),
    ]:
        refused = _raised(postgresql, f"perform {statement.removeprefix('select ')}")
        assert refused.sqlstate == "BD004" and refused.diag.message_primary == message, statement
        assert connector.sql_detail(refused) == {"unknown": detail}, statement
    functions = dict(postgresql.execute(
        "select p.proname, p.prosrc from pg_proc p where p.pronamespace = 'beliefdb'::regnamespace"
        " and p.prosrc like '%unknown belief %%'"))
    for name, source in functions.items():
        for said in source.split("raise exception 'unknown belief %'")[1:]:
            assert said.split(";")[0].endswith("""detail = '{"unknown": ["belief"]}'"""), name
    assert {"correction_preview", "recall_warnings", "_forget_core", "_apply_correction"} <= set(functions)
    with pytest.raises(errors.UnknownBelief, match=r"^unknown belief 0000dead$"):
        bdb.why("0000dead")
    with pytest.raises(errors.UnknownBelief, match=r"^unknown belief or decision or action 0000dead$"):
        bdb.why_graph("0000dead")
    with pytest.raises(errors.NotFound, match=r"^unknown decision 0000dead$") as not_a_belief:
        bdb.act("0000dead", "a")
    assert not isinstance(not_a_belief.value, errors.UnknownBelief)
