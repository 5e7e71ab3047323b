"""beliefdb.propagate takes the seeds whose confidence factors the change may have moved, so a correction
does not compute again the confidence of beliefs whose standing alone it changed (issue 21).

Revision ID: 0033
Revises: 0032
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0033_propagate_factors.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
