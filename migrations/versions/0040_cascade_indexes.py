"""The cascades of deletions read by index: beliefdb.evidence by justification_id when a justification
is deleted, beliefdb.relation by from_belief when a belief is.

Revision ID: 0040
Revises: 0039
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0040"
down_revision = "0039"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0040_cascade_indexes.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
