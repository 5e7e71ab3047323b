"""Scaling out: the plan that distributes a migrated beliefdb schema over a Citus cluster by workspace
(beliefdb/scale/citus.py, docs/scale-out.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: shards per distributed table unless --shard-count says otherwise (here, not in beliefdb.scale.citus, so
#: that ``beliefdb scale citus --help`` and every other command start without importing the planner)
DEFAULT_SHARD_COUNT: Final = 64


@dataclass(frozen=True)
class TablePlacement:
    """Where a table of schema beliefdb goes: ``distributed`` by ``workspace_id`` (colocated with
    ``colocate_with``; the anchor of the group says ``none``), or ``reference`` (one copy on every node)."""

    table: str
    placement: str
    colocate_with: str | None
    reason: str


@dataclass(frozen=True)
class FunctionRoute:
    """Where a function of schema beliefdb runs: ``workspace`` (through its wrapper ``route``, on the
    node holding the workspace), ``row`` (inside the query that reads the row it takes), ``coordinator``
    (reads across workspaces) or ``anywhere`` (reads no workspace table)."""

    function: str
    route: str
    wrapper: str | None
    granted: bool


@dataclass(frozen=True)
class ForeignKeyChange:
    """A foreign key Citus refuses as it is (ON DELETE SET NULL of a key that includes the distribution
    column): re-created ON DELETE NO ACTION, the nulling done by a BEFORE DELETE trigger on ``referenced``."""

    table: str
    constraint: str
    referenced: str
    set_null_columns: list[str]


@dataclass(frozen=True)
class CitusPlan:
    """The whole distribution: tables, functions, and what the script changes so Citus accepts them."""

    shard_count: int
    anchor: str
    tables: list[TablePlacement]
    functions: list[FunctionRoute]
    foreign_keys: list[ForeignKeyChange]
    rewritten_policies: list[str]
    replaced_triggers: list[str]
