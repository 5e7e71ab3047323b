"""What impact reads, where it reads it: a node's standing, edges out and justifications side by
side in one index (beliefdb.adjacency), and a decision's reasons on its row (decision.reasons),
both kept by triggers.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0007_closure_reads.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
