"""Forgetting a subject forgets what the subject said too: beliefdb.forget takes the speakers whose
turns are the subject's words (the library names those whose name is the subject), deletes those
turns and masks them, and their speaker labels, in the conversation texts.

Revision ID: 0037
Revises: 0036
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0037_forget_speakers.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
