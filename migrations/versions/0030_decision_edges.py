"""An adjacency out row says whether its consequent is a decision (adjacency.into_decision), so that
impact looks up the decisions alone among what rests on a node that stops holding (issue 21).

Revision ID: 0030
Revises: 0029
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0030_decision_edges.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
