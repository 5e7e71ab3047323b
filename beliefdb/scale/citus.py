"""The Citus plan of a migrated beliefdb database, read from its catalog (docs/scale-out.md).

Every table holding workspace rows is distributed by ``workspace_id``, all in one colocation group
anchored on ``beliefdb.node``, so everything of one workspace lives on one node; the tables without
a workspace (the workspace directory, the confidence weights, the error codes, alembic's version)
and the agents' login directory are reference tables, one copy on every node. The API functions
read the session's workspace (``beliefdb.current_workspace_id()``) instead of taking it as an
argument, and Citus routes a call only by an argument: each workspace-scoped function gets a
wrapper ``beliefdb_citus.<name>`` that takes the workspace first, binds it for the transaction and
calls the original.

What Citus refuses as migrate leaves it is rewritten by the script (beliefdb/scale/citus_sql.py):
ON DELETE SET NULL on keys that include the distribution column, policies with a subquery, and the
trigger on the (reference) workspace table that starts a workspace's audit chain.

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from beliefdb.db.bootstrap import resolve_url
from beliefdb.db.connector import probe, translated_errors
from beliefdb.db.queries import Queries, parse
from beliefdb.errors import InvalidInput, NotFound
from beliefdb.models.scale import DEFAULT_SHARD_COUNT, CitusPlan, ForeignKeyChange, FunctionRoute, TablePlacement

SCHEMA = "beliefdb"
ROUTES = "beliefdb_citus"  # the wrappers' schema
ANCHOR = "node"  # the colocation group is named by the root of the support graph
DISTRIBUTION_COLUMN = "workspace_id"
WORKSPACE_ARGUMENT = "p_workspace_id"
# the trigger of a reference table the script replaces, and by what (rule 12: a workspace's audit
# chain starts when it is created)
REPLACED_TRIGGERS = {("workspace", "workspace_audit"): f"{ROUTES}.create_workspace(text)"}
# tables with a workspace_id that are directories, not workspace rows: read by login before any
# workspace is known (current_workspace_id() looks up the agent's binding by role name), so they are
# reference tables, one copy on every node, like the workspace directory itself
DIRECTORIES = {"agent_login": "the agents' logins and the workspace each is bound to: read by role name before a "
                              "workspace is known, one copy on every node",
               "workspace": "the workspaces' names and ids: read by name before a session is bound (an agent's "
                            "login sees only its own), one copy on every node"}

CATALOG = Queries(parse(resources.files("beliefdb.scale").joinpath("catalog.sql").read_text(encoding="utf-8"),
                  "beliefdb/scale/catalog.sql"))

_REFERENCE = re.compile(r"\bbeliefdb\.(\w+)\s*(\()?", re.IGNORECASE)


@dataclass(frozen=True)
class Function:
    """A function of schema beliefdb as the catalog has it, with what a wrapper needs of it."""

    name: str
    identity_types: str
    arguments: str
    result: str
    returns_set: bool
    returns_void: bool
    is_trigger: bool
    in_arguments: list[str]
    out_arguments: list[str]
    takes_a_row: bool
    granted: bool
    body: str

    @property
    def signature(self) -> str:
        return f"{SCHEMA}.{self.name}({self.identity_types})"

    @property
    def takes_the_workspace(self) -> bool:
        return WORKSPACE_ARGUMENT in self.in_arguments

    @property
    def wrapper_types(self) -> str:
        if self.takes_the_workspace:
            return self.identity_types
        return ", ".join(t for t in ("uuid", self.identity_types) if t)

    @property
    def wrapper(self) -> str:
        return f"{ROUTES}.{self.name}({self.wrapper_types})"


@dataclass(frozen=True)
class ForeignKey:
    name: str
    table: str
    referenced: str
    columns: list[str]
    referenced_columns: list[str]
    on_delete: str
    on_update: str
    set_null_columns: list[str]
    definition: str


@dataclass(frozen=True)
class Policy:
    table: str
    name: str
    permissive: bool
    command: str
    roles: list[str]
    using_expression: str | None
    check_expression: str | None
    has_subquery: bool


@dataclass(frozen=True)
class Design:
    """The plan and the catalog details the script is written from."""

    plan: CitusPlan
    functions: dict[str, Function]  # by signature
    foreign_keys: list[ForeignKey]
    policies: list[Policy]
    reserved: frozenset[str]  # key words an identifier must be quoted to be

    def distributed(self) -> list[str]:
        return [t.table for t in self.plan.tables if t.placement == "distributed"]

    def reference(self) -> list[str]:
        return [t.table for t in self.plan.tables if t.placement == "reference"]


def _function(row: Mapping[str, Any]) -> Function:
    names: list[str] = list(row["argument_names"])
    modes: list[str] = list(row["argument_modes"])
    if "v" in modes:
        raise InvalidInput(f"{SCHEMA}.{row['name']} takes VARIADIC arguments: the Citus plan cannot wrap it")
    names += [""] * (len(modes) - len(names))
    return Function(
        name=row["name"], identity_types=row["identity_types"], arguments=row["arguments"], result=row["result"],
        returns_set=row["returns_set"], returns_void=row["returns_void"], is_trigger=row["is_trigger"],
        in_arguments=[n for n, m in zip(names, modes, strict=True) if m in ("i", "b")],
        out_arguments=[n for n, m in zip(names, modes, strict=True) if m in ("o", "b")],
        takes_a_row=row["takes_a_row"], granted=row["granted"], body=row["body"])


def plan(url: str | None = None, *, home: Path | None = None, shard_count: int = DEFAULT_SHARD_COUNT) -> Design:
    """The design for ``url`` (else the embedded server of ``home``, else ``BELIEFDB_URL``, else the
    embedded server of ``BELIEFDB_HOME``, migrated on first use); ``url`` must hold a migrated beliefdb schema."""
    resolved = resolve_url(url, home=home)
    probe(resolved)
    with translated_errors(), psycopg.connect(resolved) as conn:
        return read(conn, shard_count)


def read(conn: psycopg.Connection[Any], shard_count: int = DEFAULT_SHARD_COUNT) -> Design:
    """The design for the database ``conn`` is connected to (beliefdb migrated there)."""
    if shard_count < 1:
        raise InvalidInput(f"shard count must be at least 1, not {shard_count}")
    with translated_errors(), conn.cursor(row_factory=dict_row) as cur:
        cur.execute(CATALOG.catalog_search_path)
        cur.execute(CATALOG.catalog_has_schema)
        found = cur.fetchone()
        if found is None or not found["migrated"]:
            raise NotFound("this database has no beliefdb schema: run 'beliefdb migrate' on it first")
        tables = cur.execute(CATALOG.catalog_tables).fetchall()
        views = [r["name"] for r in cur.execute(CATALOG.catalog_views).fetchall()]
        keys = [ForeignKey(**r) for r in cur.execute(CATALOG.catalog_foreign_keys).fetchall()]
        policies = [Policy(**r) for r in cur.execute(CATALOG.catalog_policies).fetchall()]
        triggers = cur.execute(CATALOG.catalog_triggers).fetchall()
        functions = [_function(r) for r in cur.execute(CATALOG.catalog_functions).fetchall()]
        reserved = frozenset(r["word"] for r in cur.execute(CATALOG.catalog_reserved_words).fetchall())
    return _design(tables, views, keys, policies, triggers, functions, shard_count, reserved)


def _design(tables: list[dict[str, Any]], views: list[str], keys: list[ForeignKey], policies: list[Policy],
            triggers: list[dict[str, Any]], functions: list[Function], shard_count: int,
            reserved: frozenset[str]) -> Design:
    distributed = {t["name"] for t in tables if t["has_workspace"] and t["name"] not in DIRECTORIES}
    if ANCHOR not in distributed:
        raise InvalidInput(f"{SCHEMA}.{ANCHOR} has no {DISTRIBUTION_COLUMN}: the Citus plan has no colocation anchor")
    reference = {t["name"] for t in tables} - distributed
    global_table = "no workspace_id: read by every workspace, one copy on every node"
    placements = [TablePlacement(f"{SCHEMA}.{name}", "reference", None, DIRECTORIES.get(name, global_table))
                  for name in _in_key_order(sorted(reference), keys)]
    placements += [TablePlacement(f"{SCHEMA}.{name}", "distributed",
                                  "none" if name == ANCHOR else f"{SCHEMA}.{ANCHOR}",
                                  "workspace rows: all of a workspace on the node holding its shard")
                   for name in _in_key_order([ANCHOR, *sorted(distributed - {ANCHOR})], keys)]
    for key in keys:
        if key.table in reference and key.referenced in distributed:
            raise InvalidInput(f"{SCHEMA}.{key.table} (no workspace_id) references {SCHEMA}.{key.referenced}:"
                               " Citus allows no foreign key from a reference table to a distributed one")
    changed = [k for k in keys if k.table in distributed and k.referenced in distributed
               and DISTRIBUTION_COLUMN in k.columns and k.on_delete in ("n", "d")]
    for key in changed:
        if key.on_delete == "d":
            raise InvalidInput(f"foreign key {key.name} is ON DELETE SET DEFAULT: the Citus plan cannot rewrite it")
    replaced = []
    for t in triggers:
        if t["table_name"] in reference:
            if (t["table_name"], t["name"]) not in REPLACED_TRIGGERS:
                raise InvalidInput(f"trigger {t['name']} on reference table {SCHEMA}.{t['table_name']}: it would fire"
                                   " on every node's copy; the Citus plan does not know how to replace it")
            replaced.append(f"{SCHEMA}.{t['table_name']}.{t['name']}")
    rewritten = [f"{SCHEMA}.{p.table}.{p.name}" for p in policies if p.has_subquery]
    by_signature = {f.signature: f for f in functions}
    routes = _routes(functions, distributed | set(views))
    plan = CitusPlan(
        shard_count=shard_count, anchor=f"{SCHEMA}.{ANCHOR}", tables=placements, functions=routes,
        foreign_keys=[ForeignKeyChange(f"{SCHEMA}.{k.table}", k.name, f"{SCHEMA}.{k.referenced}",
                                       k.set_null_columns or [c for c in k.columns if c != DISTRIBUTION_COLUMN])
                      for k in changed],
        rewritten_policies=rewritten, replaced_triggers=replaced)
    return Design(plan=plan, functions=by_signature, foreign_keys=keys, policies=policies, reserved=reserved)


def _in_key_order(names: list[str], keys: Iterable[ForeignKey]) -> list[str]:
    """``names`` with every table after the tables it references (Citus distributes a referenced table
    first), otherwise in the given order."""
    needs = {n: {k.referenced for k in keys if k.table == n and k.referenced != n and k.referenced in names}
             for n in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = [n for n in names if n not in ordered and needs[n] <= set(ordered)]
        if not ready:
            raise InvalidInput("the foreign keys between " + ", ".join(sorted(set(names) - set(ordered)))
                               + " form a cycle: the Citus plan cannot order them")
        ordered.append(ready[0])
    return ordered


def references(body: str) -> tuple[set[str], set[str]]:
    """The beliefdb names a function body mentions: (called functions, other objects)."""
    calls: set[str] = set()
    others: set[str] = set()
    for match in _REFERENCE.finditer(body):
        (calls if match.group(2) else others).add(match.group(1).lower())
    return calls, others


def _routes(functions: list[Function], workspace_relations: set[str]) -> list[FunctionRoute]:
    """Where each callable function runs. Workspace-scoped: takes p_workspace_id, or (through what it
    calls) reads the session's workspace. Reading workspace tables or views without either reads across
    workspaces: the coordinator's. Internal (underscored) and trigger functions run where their caller runs."""
    calls: dict[str, set[str]] = {}  # by name: an overloaded name calls what any of its bodies calls
    mentions: dict[str, set[str]] = {}
    for f in functions:
        called, other = references(f.body)
        calls.setdefault(f.name, set()).update(called)
        mentions.setdefault(f.name, set()).update(called | other)
    reads = {name for name, m in mentions.items() if m & workspace_relations}
    binds = {name for name, c in calls.items() if "current_workspace_id" in c - {name}}
    changed = True
    while changed:  # through what each function calls
        changed = False
        for name, called in calls.items():
            for found in (binds, reads):
                if name not in found and called & found:
                    found.add(name)
                    changed = True
    # a function that takes a workspace but reads no table (a hash of it) runs anywhere
    scoped = binds | {f.name for f in functions if f.takes_the_workspace and f.name in reads}
    routes = []
    for f in functions:
        if f.name.startswith("_") or f.is_trigger:
            continue
        if f.takes_a_row:
            route = "row"
        elif f.name in scoped:
            route = "workspace"
        elif f.name in reads:
            route = "coordinator"
        else:
            route = "anywhere"
        routes.append(FunctionRoute(function=f.signature, route=route,
                                    wrapper=f.wrapper if route == "workspace" else None, granted=f.granted))
    return routes
