"""Review items are numbered in the order they were resolved (review_item.resolved_seq), so that
decision_status_at and action_status_at read back the last of verdicts given in one transaction; and
the repairs of what earlier releases left: an audit head behind its chain, actions still to be carried
out on a rejected decision.

Revision ID: 0047
Revises: 0046
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0047"
down_revision = "0046"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0047_resolution_order.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
