"""The adjacency's primary key carries the support flag (issue 21, impact at 10M): the walk of what a
retraction takes down reads every row of each node it reaches with one probe of the primary key,
instead of a probe of the partial index adjacency_support (dropped) and another of the key.

Revision ID: 0028
Revises: 0024
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0028"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0028_impact.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
