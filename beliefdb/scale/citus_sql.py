"""The script a DBA runs on a Citus coordinator, written from a :class:`~beliefdb.scale.citus.Design`.

It has three parts. Settings (``citus.enable_unsafe_triggers`` on every node) come first, outside a
transaction (ALTER SYSTEM cannot run in one). Then, in one transaction: what Citus refuses as migrate
leaves it, rewritten in plain PostgreSQL (:func:`prepare`; tests/test_citus_design.py applies exactly
this part to a real database and checks the result), then the Citus calls (:func:`distribute`).

Its pieces are the named blocks of ``beliefdb/scale/citus.sql``, filled with psycopg.sql: identifiers,
literals, and the catalog's own deparsed text (argument lists, result types, constraint definitions,
policy expressions: what ``pg_get_*`` print, as pg_dump embeds it).
"""

from __future__ import annotations

import re
from importlib import resources
from typing import LiteralString

from psycopg import sql

from beliefdb.db.queries import Queries, parse
from beliefdb.errors import InvalidInput
from beliefdb.scale.citus import (
    DISTRIBUTION_COLUMN,
    REPLACED_TRIGGERS,
    ROUTES,
    SCHEMA,
    WORKSPACE_ARGUMENT,
    Design,
    ForeignKey,
    Function,
    Policy,
)

PIECES = Queries(parse(resources.files("beliefdb.scale").joinpath("citus.sql").read_text(encoding="utf-8"),
                       "beliefdb/scale/citus.sql"))

_SET_NULL = re.compile(r" ON DELETE SET NULL(?: \([^)]*\))?")
_SCALAR_SUBQUERY = re.compile(r"\(\s*SELECT\s+(beliefdb\.\w+\(\))\s+AS\s+\w+\)", re.IGNORECASE)
_COMMANDS: dict[str, LiteralString] = {"*": "all", "r": "select", "a": "insert", "w": "update", "d": "delete"}
_PLAIN = re.compile(r"^[a-z_][a-z0-9_]*$")


def _piece(block: str, /, **fields: sql.Composable) -> sql.Composable:
    """The named block of citus.sql, its fields filled, with the ';' the parser took off put back."""
    return sql.SQL(PIECES[block] + ";").format(**fields) if fields else sql.SQL(PIECES[block] + ";")


def _catalog(text: str) -> sql.SQL:
    """Text PostgreSQL's deparser produced (pg_get_function_arguments, pg_get_constraintdef, ...)."""
    return sql.SQL(text)


class _Names:
    """Identifiers as beliefdb's own SQL writes them: bare when they may be, quoted otherwise."""

    def __init__(self, reserved: frozenset[str]) -> None:
        self.reserved = reserved

    def __call__(self, *parts: str) -> sql.Composable:
        if all(_PLAIN.match(p) and p not in self.reserved for p in parts):
            return sql.SQL(".".join(parts))
        return sql.Identifier(*parts)


def _lines(statements: list[sql.Composable]) -> str:
    return "\n".join(s.as_string(None) for s in statements) + "\n"


def _foreign_key(key: ForeignKey, ids: _Names) -> sql.Composable:
    columns = key.set_null_columns or [c for c in key.columns if c != DISTRIBUTION_COLUMN]
    return _piece(
        "set_null_key", table=ids(SCHEMA, key.table), name=ids(key.name),
        definition=_catalog(_SET_NULL.sub("", key.definition)), function=ids(ROUTES, key.name),
        referenced=ids(SCHEMA, key.referenced),
        assignments=sql.SQL(", ").join(sql.SQL("{} = null").format(ids(c)) for c in columns),
        matches=sql.SQL(" and ").join(sql.SQL("r.{} = old.{}").format(ids(c), ids(p))
                                      for c, p in zip(key.columns, key.referenced_columns, strict=True)),
        comment=sql.Literal(f"Trigger: ON DELETE SET NULL of {key.name}, which Citus refuses on a key with the"
                            " distribution column"))


def _expression(policy: Policy, text: str) -> sql.Composable:
    rewritten = _SCALAR_SUBQUERY.sub(r"\1", text)
    if re.search(r"\bselect\b", rewritten, re.IGNORECASE):
        raise InvalidInput(f"policy {policy.name} on {SCHEMA}.{policy.table} has a subquery the Citus plan cannot"
                           f" rewrite: {text}")
    return _catalog(rewritten)


def _policy(policy: Policy, ids: _Names) -> sql.Composable:
    clauses: list[sql.Composable] = []
    if policy.using_expression is not None:
        clauses.append(sql.SQL(" using ({})").format(_expression(policy, policy.using_expression)))
    if policy.check_expression is not None:
        clauses.append(sql.SQL(" with check ({})").format(_expression(policy, policy.check_expression)))
    return _piece("policy", name=ids(policy.name), table=ids(SCHEMA, policy.table),
                  kind=sql.SQL("permissive" if policy.permissive else "restrictive"),
                  command=sql.SQL(_COMMANDS[policy.command]), roles=_catalog(", ".join(policy.roles)),
                  clauses=sql.Composed(clauses))


def _wrapper(f: Function, ids: _Names) -> list[sql.Composable]:
    call = sql.SQL("{}({})").format(ids(SCHEMA, f.name), sql.SQL(", ").join(
        sql.SQL("{} => {}").format(ids(a), ids(a)) for a in f.in_arguments))
    if f.returns_void:
        run = _piece("run_void", call=call)
    elif f.returns_set:
        run = _piece("run_set", call=call)
    elif f.out_arguments:
        run = _piece("run_out", call=call, outs=sql.SQL(", ").join(ids(a) for a in f.out_arguments))
    else:
        run = _piece("run_value", call=call)
    arguments = f.arguments if f.takes_the_workspace else ", ".join(
        a for a in (f"{WORKSPACE_ARGUMENT} uuid", f.arguments) if a)
    signature = _catalog(f.wrapper)
    statements = [_piece("wrapper", function=ids(ROUTES, f.name), arguments=_catalog(arguments),
                         result=_catalog(f.result), run=run, signature=signature,
                         comment=sql.Literal(f"Routed by workspace: {f.signature} on the node that holds the"
                                             " workspace"))]
    if f.granted:
        statements.append(_piece("grant", signature=signature))
    return statements


def routed(design: Design) -> list[Function]:
    """The functions that get a wrapper, in name order."""
    return [design.functions[r.function] for r in design.plan.functions if r.route == "workspace"]


def prepare(design: Design) -> str:
    """What Citus refuses as migrate leaves it, rewritten in plain PostgreSQL, and the wrappers."""
    ids = _Names(design.reserved)
    statements: list[sql.Composable] = [_piece("bind")]
    changed = {k.constraint for k in design.plan.foreign_keys}
    keys = [k for k in design.foreign_keys if k.name in changed]
    if keys:
        statements.append(sql.SQL(
            "\n-- Citus refuses ON DELETE SET NULL on a key that includes the distribution column (even with a\n"
            "-- column list): the key becomes ON DELETE NO ACTION and a trigger does the nulling first."))
        statements += [_foreign_key(key, ids) for key in keys]
    policies = [p for p in design.policies if f"{SCHEMA}.{p.table}.{p.name}" in design.plan.rewritten_policies]
    if policies:
        statements.append(sql.SQL(
            "\n-- Citus refuses a policy with a subquery on a distributed table: the workspace is compared directly."))
        statements += [_policy(policy, ids) for policy in policies]
    if design.plan.replaced_triggers:
        if set(design.plan.replaced_triggers) != {f"{SCHEMA}.{t}.{n}" for t, n in REPLACED_TRIGGERS}:
            raise InvalidInput("unexpected triggers on reference tables: " + ", ".join(design.plan.replaced_triggers))
        statements += [sql.SQL(""), _piece("create_workspace"),
                       _piece("grant", signature=sql.SQL("beliefdb_citus.create_workspace(text)"))]
    statements.append(sql.SQL(
        "\n-- One wrapper per function that works inside one workspace: the workspace id first, so Citus\n"
        "-- routes the call to the node holding it (create_distributed_function below)."))
    for f in routed(design):
        statements += _wrapper(f, ids)
    statements.append(_piece("grant", signature=sql.SQL("beliefdb_citus._bind(uuid)")))
    return _lines(statements)


def distribute(design: Design) -> str:
    """The Citus calls: reference tables, distributed tables (one colocation group), functions."""
    plan = design.plan
    anchor = sql.Literal(plan.anchor)
    statements: list[sql.Composable] = [sql.SQL("-- tables without a workspace: one copy on every node")]
    statements += [_piece("reference_table", table=sql.Literal(t)) for t in design.reference()]
    statements.append(sql.SQL(
        "\n-- tables of workspace rows, by workspace_id, in one colocation group (referenced tables first)"))
    statements += [_piece("anchor_table", table=sql.Literal(t.table), shard_count=sql.Literal(plan.shard_count))
                   if t.colocate_with == "none" else _piece("distributed_table", table=sql.Literal(t.table),
                                                            anchor=anchor)
                   for t in plan.tables if t.placement == "distributed"]
    statements.append(sql.SQL(
        "\n-- every function of beliefdb on every node (those the tables depend on are there already)"))
    helpers = [f"{ROUTES}._bind(uuid)"] + [f"{ROUTES}.{k.constraint}()" for k in plan.foreign_keys]
    if plan.replaced_triggers:
        helpers.append(f"{ROUTES}.create_workspace(text)")
    statements += [_piece("propagate_function", signature=sql.Literal(s)) for s in [*sorted(design.functions),
                                                                                   *helpers]]
    statements.append(sql.SQL(
        "\n-- the wrappers, routed by their first argument; force_delegation: also inside a transaction block,\n"
        "-- and Citus refuses any statement of theirs that reaches another workspace's shard"))
    statements += [_piece("route_function", signature=sql.Literal(f.wrapper), anchor=anchor) for f in routed(design)]
    return _lines(statements)


def script(design: Design) -> str:
    """The whole script: settings, then in one transaction :func:`prepare` and :func:`distribute`."""
    summary = (f"{len(design.distributed())} tables distributed, {len(design.reference())} reference tables,"
               f" {len(routed(design))} routed functions, {design.plan.shard_count} shards")
    header = _piece("header", summary=sql.SQL(summary))
    return _lines([header, sql.SQL("")]) + prepare(design) + "\n" + distribute(design) + "\ncommit;\n"
