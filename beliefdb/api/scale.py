"""Scaling out beyond one machine (docs/scale-out.md): the Citus plan of a migrated database, read from
its catalog, and the script a DBA runs on the Citus coordinator. ``url``, else the embedded server of
``home``, else ``BELIEFDB_URL``, else the embedded server of ``BELIEFDB_HOME`` (migrated on first use); a
database without beliefdb is refused."""

from __future__ import annotations

from pathlib import Path

from beliefdb.inputs import given_home
from beliefdb.models.scale import DEFAULT_SHARD_COUNT, CitusPlan

__all__ = ["DEFAULT_SHARD_COUNT", "citus_plan", "citus_script"]

# beliefdb.scale (which reads and parses two SQL files) is imported by the functions below, not with this
# module: every command imports it, and only ``beliefdb scale citus`` plans.


def citus_plan(url: str | None = None, *, home: str | Path | None = None,
               shard_count: int = DEFAULT_SHARD_COUNT) -> CitusPlan:
    """Which tables are distributed by workspace_id and which are reference tables, where each function
    runs, and what the script rewrites so Citus accepts the schema."""
    from beliefdb.scale import citus

    return citus.plan(url, home=given_home(home), shard_count=shard_count).plan


def citus_script(url: str | None = None, *, home: str | Path | None = None,
                 shard_count: int = DEFAULT_SHARD_COUNT) -> str:
    """The SQL script that distributes this database's beliefdb schema over a Citus cluster."""
    from beliefdb.scale import citus, citus_sql

    return citus_sql.script(citus.plan(url, home=given_home(home), shard_count=shard_count))
