"""The spans forgotten in a source version are read by version: an index on beliefdb.redaction
(workspace_id, source_version_id, start_offset).

Revision ID: 0039
Revises: 0038
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0039_redaction_index.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
