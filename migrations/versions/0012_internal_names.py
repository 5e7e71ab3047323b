"""The internals are marked: functions the application never calls are named with a leading
underscore and are not granted; the old names are dropped here (the re-applied sql/ creates the new).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0012_internal_names.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
