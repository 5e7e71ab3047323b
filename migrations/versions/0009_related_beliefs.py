"""A belief's self row in beliefdb.adjacency says whether it supersedes, is superseded by or is
tied with another belief (kept by triggers), so the closure walk looks up the relations of those
beliefs alone.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0009_related_beliefs.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
