"""When nodes, sources and source versions were retracted and restored (beliefdb.retraction_period):
an as-of question reads what was retracted at its moment, not what is retracted now (a source
retracted since still answered, a belief retracted since was hidden even before).

Revision ID: 0036
Revises: 0035
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0036_retraction_periods.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
