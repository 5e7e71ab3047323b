"""A run's owner: the principal that recorded it, the only one that records steps and decisions in it.

Revision ID: 0042
Revises: 0041
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0042"
down_revision = "0041"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0042_run_owner.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
