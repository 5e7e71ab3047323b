"""A justification's evidence is found by justification: an index on beliefdb.evidence
(workspace_id, justification_id), which the foreign key's cascade reads when a justification is deleted.

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
    run_sql((Path(__file__).parent / "0040_evidence_justification_index.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
