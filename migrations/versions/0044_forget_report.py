"""What a forget reports and records: the texts waiting to be stored it masked, where a forgotten name is
still typed, and a keyed digest of what was forgotten in its audit event.

Revision ID: 0044
Revises: 0043
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0044"
down_revision = "0043"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0044_forget_report.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
