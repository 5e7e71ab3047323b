"""Truth at the edges: provenance labels are separate worlds (belief.provenance), a belief whose
valid time has ended is expired, sources have owners, an action records how it ended, review
items close themselves when what they ask about is settled, and forgetting a subject redacts the
source text it appears in (beliefdb.redaction).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0010_truth_at_the_edges.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
