"""Foundation: workspaces, sources, versions, fragments, beliefs, evidence, relations,
justifications, decisions, actions, corrections, runs, steps and the audit chain.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0001_foundation.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
