"""The remaining foreign keys' cascades read by index: beliefdb.correction by belief, fragment and
replacement, beliefdb.review_item by node, other node and source, beliefdb.step by replay_of and
beliefdb.run by parent_run_id.

Revision ID: 0041
Revises: 0040
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0041"
down_revision = "0040"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0041_reference_indexes.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
