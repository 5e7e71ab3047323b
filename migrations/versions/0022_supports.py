"""Supports (issue 21): each node stores the justification it holds by (node.support) and a rank
above everything that justification rests on (node.support_rank); the out rows of beliefdb.adjacency
that carry a support say so (adjacency.support, with the partial index adjacency_support). Existing
workspaces get their supports from the stored holding, level by level. beliefdb.evaluate_closure
returns the supports too (a new result type: dropped here, re-created by the re-applied SQL).

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0022_supports.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
