"""beliefdb.vocabulary against the database: the enum types, the check constraints that list
allowed values, the order a repair plan is sorted by, and the error codes (beliefdb.error_code,
the codes sql/ raises, and the Python mapping of codes to exceptions)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import psycopg
import pytest

from beliefdb import errors, vocabulary
from beliefdb.db import migrate
from beliefdb.db.connector import translate
from beliefdb.vocabulary import ErrorCode

# adjacency_entry is internal to the derived index beliefdb.adjacency: no caller names its values
NOT_IN_VOCABULARY = {"adjacency_entry"}
# declared weakest first in SQL (so > ranks them), listed strongest first in Python
REVERSED = {"authority"}


def _enum_types(conn: psycopg.Connection[Any]) -> dict[str, list[str]]:
    rows = conn.execute("""
        select t.typname::text, array_agg(e.enumlabel::text order by e.enumsortorder)
          from pg_catalog.pg_enum e
          join pg_catalog.pg_type t on t.oid = e.enumtypid
         where t.typnamespace = 'beliefdb'::regnamespace
         group by t.typname
    """).fetchall()
    return {name: labels for name, labels in rows}


# a column restricted to a list: "CHECK ((kind = ANY (ARRAY['fact'::text, 'rule'::text, ...])))"
_LISTED = re.compile(r"^CHECK \(\((\w+) = ANY \(ARRAY\[([^\]]*)\]\)\)\)$")


def _listed_values(conn: psycopg.Connection[Any]) -> dict[tuple[str, str], list[str]]:
    rows = conn.execute("""
        select c.relname::text, pg_catalog.pg_get_constraintdef(co.oid)
          from pg_catalog.pg_constraint co
          join pg_catalog.pg_class c on c.oid = co.conrelid
         where c.relnamespace = 'beliefdb'::regnamespace and co.contype = 'c'
    """).fetchall()
    listed: dict[tuple[str, str], list[str]] = {}
    for table, definition in rows:
        match = _LISTED.match(definition)
        if match:
            listed[(table, match[1])] = re.findall(r"'((?:[^']|'')*)'::\w+", match[2])
    return listed


def test_enum_types_are_the_vocabulary(postgresql: psycopg.Connection[Any]) -> None:
    types = _enum_types(postgresql)
    assert set(types) == set(vocabulary.ENUM_TYPES) | NOT_IN_VOCABULARY
    for name, names in vocabulary.ENUM_TYPES.items():
        expected = vocabulary.values(names)
        assert list(reversed(expected) if name in REVERSED else expected) == types[name], name


def test_check_constraints_listing_values_are_the_vocabulary(postgresql: psycopg.Connection[Any]) -> None:
    listed = _listed_values(postgresql)
    # the parse finds them (a changed pg_get_constraintdef spelling would make this test vacuous)
    assert ("belief", "kind") in listed and ("outcome", "outcome") in listed
    assert set(listed) == set(vocabulary.CHECKED_COLUMNS)
    for column, names in vocabulary.CHECKED_COLUMNS.items():
        assert list(vocabulary.values(names)) == listed[column], column


def test_a_plan_is_sorted_by_the_repair_actions(postgresql: psycopg.Connection[Any]) -> None:
    row = postgresql.execute("select pg_catalog.pg_get_functiondef("
                             "'beliefdb.repair_plan_json(text[], boolean)'::regprocedure)").fetchone()
    assert row is not None
    order = re.search(r"array_position\(array\[([^\]]*)\], p\.action\)", row[0])
    assert order is not None
    assert re.findall(r"'(\w+)'", order[1]) == list(vocabulary.REPAIR_ACTIONS)


def test_the_error_code_table_is_the_vocabulary(postgresql: psycopg.Connection[Any]) -> None:
    rows = postgresql.execute("select code, name, meaning from beliefdb.error_code order by code").fetchall()
    assert [(code, name) for code, name, _ in rows] == [(c.value, c.name) for c in ErrorCode]
    meanings = [meaning for _, _, meaning in rows]
    assert all(meanings) and len(set(meanings)) == len(meanings)


def _raised_in(text: str) -> set[str]:
    return set(re.findall(r"(?:errcode\s*=\s*|sqlstate\s+)'(BD\w{3})'", text, flags=re.IGNORECASE))


def test_sql_raises_exactly_the_codes_of_the_table(postgresql: psycopg.Connection[Any]) -> None:
    raised: dict[str, set[str]] = defaultdict(set)
    for path in [*migrate.sql_dir().rglob("*.sql"), *(migrate.migrations_dir() / "versions").glob("*.sql")]:
        for code in _raised_in(path.read_text(encoding="utf-8")):
            raised[code].add(path.name)
    table = {code for (code,) in postgresql.execute("select code from beliefdb.error_code").fetchall()}
    assert set(raised) - table == set(), {code: raised[code] for code in set(raised) - table}
    assert table - set(raised) == set()  # no code the SQL never raises
    # the functions the database holds raise no other code either (sql/ is what migrate applied)
    bodies = postgresql.execute("""
        select string_agg(p.prosrc, E'\\n') from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace
    """).fetchone()
    assert bodies is not None and _raised_in(bodies[0]) <= table


def test_the_python_mapping_names_codes_of_the_table(postgresql: psycopg.Connection[Any]) -> None:
    table = {code for (code,) in postgresql.execute("select code from beliefdb.error_code").fetchall()}
    assert set(errors.BY_ERROR_CODE) <= table
    # every code reaches Python as its own exception, but the one that never leaves the database
    assert table - set(errors.BY_ERROR_CODE) == {ErrorCode.preview_rolled_back}
    for code, exception in errors.BY_ERROR_CODE.items():
        assert exception.code == ErrorCode(code).name, (code, exception)
        assert isinstance(errors.from_error_code(code, "m"), exception)
    assert errors.from_error_code("23505", "m") is None


def test_the_application_role_reads_the_error_codes(postgresql: psycopg.Connection[Any]) -> None:
    postgresql.execute("set local role beliefdb_app")
    row = postgresql.execute("select count(*) from beliefdb.error_code").fetchone()
    assert row == (len(ErrorCode),)


@pytest.mark.parametrize("statement", [
    "select beliefdb.decay()",
    "select beliefdb.recall('how long is the return window?')",
    "select beliefdb.decide('orphan', '[[]]')",
    "select beliefdb.retract_preview('source', 'nowhere.md')",
])
def test_no_bound_workspace_is_one_code(postgresql: psycopg.Connection[Any], statement: str) -> None:
    """The functions that need a bound workspace all say so with unknown_workspace (BD003)."""
    postgresql.execute("set local role beliefdb_app")
    with pytest.raises(psycopg.Error) as refused:
        postgresql.execute(statement)
    assert refused.value.sqlstate == ErrorCode.unknown_workspace, refused.value
    assert isinstance(translate(refused.value), errors.UnknownWorkspace)
