"""Conversations (issue 20): a fragment that is a conversation's turn carries who said it and when
(beliefdb.fragment.speaker, spoken_at); the re-applied sql/internal/36_claims.sql stores them.

Revision ID: 0020
Revises: 0017
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0020"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0020_turns.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
