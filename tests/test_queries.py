"""beliefdb/queries.sql: the one place the Python side's SQL lives.

Every block is used by some module and every name a module sends is defined; no other module of
the package holds SQL text (migrate, the embedded server and the connection binding excepted);
and every statement plans against the migrated schema (``explain`` with NULL parameters, as the
schema owner, rolled back): a misspelt column, table, function or type fails here, not at run time.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.db import queries
from beliefdb.db.queries import Q, QueryFileError

PACKAGE = Path(beliefdb.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))

# modules that may hold SQL text: migrate applies sql/ and alembic, the server module manages the
# embedded server (databases, settings), and the connector binds each connection (set_config, set role)
ALLOWED_MODULES = {"db/migrate.py", "db/server.py"}
ALLOWED_FUNCTIONS = {("db/connector.py", "_bind")}

_SQL = re.compile(r"(?is)^\s*(select\b.*\b(from|beliefdb\.)|insert\s+into\b|update\s+[\w.]+\s+set\b"
                  r"|delete\s+from\b|with\s+\w+\s+as\s*\(|with\s+recursive\b)")
_QUERY_CALLS = {"execute", "executemany", "fetch_all", "fetch_one", "scalar"}
_PLACEHOLDER = re.compile(r"%%|%\((\w+)\)s|%s")


def _trees() -> dict[str, ast.Module]:
    return {path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(encoding="utf-8"), str(path))
            for path in MODULES}


def _allowed_lines(name: str, tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and (name, node.name) in ALLOWED_FUNCTIONS:
            assert node.end_lineno is not None
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def test_every_block_is_used_and_every_used_name_is_defined() -> None:
    used: dict[str, set[str]] = {}
    for name, tree in _trees().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "Q":
                used.setdefault(node.attr, set()).add(name)
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Q"
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
                used.setdefault(node.slice.value, set()).add(name)
    assert sorted(set(Q) - set(used)) == [], "blocks of queries.sql no module uses"
    assert {n: sorted(m) for n, m in used.items() if n not in Q} == {}, "names queries.sql does not define"


def test_no_sql_text_outside_queries_sql() -> None:
    found: list[str] = []
    for name, tree in _trees().items():
        if name in ALLOWED_MODULES:
            continue
        allowed = _allowed_lines(name, tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in allowed:
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.match(node.value):
                found.append(f"{name}:{node.lineno}: {node.value.split()[:6]}")
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                if _SQL.match(text):
                    found.append(f"{name}:{node.lineno}: f-string {text.split()[:6]}")
            # a query built in place (a literal, an f-string, a concatenation) instead of Q.name
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _QUERY_CALLS
                    and node.args):
                args = node.args[1:] if node.func.attr in ("fetch_all", "fetch_one") else node.args
                if args and isinstance(args[0], ast.Constant | ast.JoinedStr | ast.BinOp):
                    found.append(f"{name}:{node.lineno}: {node.func.attr}() of a query written in place")
    assert found == []


def test_parse_rejects_malformed_files() -> None:
    good = "-- header\n\n-- one --\n-- the first\nselect 1;\n\n-- two --\n-- the second\n-- more words\nselect 2\n"
    assert queries.parse(good) == {"one": "select 1", "two": "select 2"}
    with pytest.raises(QueryFileError, match="defined twice"):
        queries.parse("-- one --\n-- a\nselect 1;\n-- one --\n-- b\nselect 2;\n")
    with pytest.raises(QueryFileError, match="no description"):
        queries.parse("-- one --\nselect 1;\n")
    with pytest.raises(QueryFileError, match="no statement"):
        queries.parse("-- one --\n-- a\n\n-- two --\n-- b\nselect 2;\n")
    with pytest.raises(QueryFileError, match="before the first"):
        queries.parse("select 0;\n-- one --\n-- a\nselect 1;\n")
    with pytest.raises(AttributeError, match="no query named"):
        _ = Q.no_such_query
    with pytest.raises(KeyError, match="no query named"):
        _ = Q["no_such_query"]


def _null_params(statement: str) -> dict[str, None] | list[None]:
    names = [m.group(1) for m in _PLACEHOLDER.finditer(statement) if m.group(0) != "%%"]
    if any(names) and not all(names):
        raise AssertionError("a statement mixes %s and %(name)s placeholders")
    return dict.fromkeys(names) if any(names) else [None] * len(names)


def test_every_query_plans_against_the_schema(postgresql: psycopg.Connection[Any]) -> None:
    failed: dict[str, str] = {}
    with postgresql.transaction(force_rollback=True):
        for name, statement in Q.items():
            try:
                with postgresql.transaction(force_rollback=True):
                    if statement.lower().startswith("copy "):
                        # (a COPY cannot be explained: it runs, with no rows, into the staging tables
                        # bulk_stage makes for a bound workspace's transaction)
                        postgresql.execute("select set_config('beliefdb.workspace_id',"
                                           " (select id::text from beliefdb.workspace limit 1), true)")
                        postgresql.execute("select beliefdb.bulk_stage()")
                        with postgresql.cursor().copy(statement):
                            pass
                        continue
                    postgresql.execute("explain " + statement, _null_params(statement))
            except psycopg.Error as exc:
                failed[name] = str(exc).splitlines()[0]
    assert failed == {}
