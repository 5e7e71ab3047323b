"""Scaling beyond one machine: the Citus plan of a migrated beliefdb database and the script a DBA
runs on a Citus coordinator (docs/scale-out.md).

    with psycopg.connect(url) as conn:
        design = citus.read(conn)            # the plan, from the catalog
        text = citus_sql.script(design)      # what `beliefdb scale citus --sql` prints
"""

from __future__ import annotations

from beliefdb.scale import citus, citus_sql

__all__ = ["citus", "citus_sql"]
