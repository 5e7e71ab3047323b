"""Decisions and actions in their listing's order (beliefdb.decision_listing, beliefdb.action_listing):
a page of a workspace's decisions or actions reads that page, not all of them sorted (150,000
decisions: 25 s for the whole listing).

Revision ID: 0035
Revises: 0034
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0035_listing_order.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
