"""Forgetting a subject masks the turns of a version proposed to a source's owner as the source's own
version masks them, and takes out of the proposal the claims over what it masks (rule 14).

Revision ID: 0038
Revises: 0037
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0038_pending_turns.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
