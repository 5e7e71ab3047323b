"""Leaves are read with the edge into them: an out row of beliefdb.adjacency into a node that is not
a belief, has one justification, of one antecedent, and no edge out also carries that node's
standing (kept by triggers).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0008_leaf_entries.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
