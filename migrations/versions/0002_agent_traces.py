"""Agent traces and rollback repair: step status and replay link, trace edges that never
propagate (follows, deletes), and the record of each repair.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0002_agent_traces.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
