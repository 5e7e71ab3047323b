"""The speakers of a conversation's turns by their version (beliefdb.fragment_speaker, a partial index):
ask's fallback to unextracted text reads the few names of a conversation's people with a probe each,
not every turn of a long conversation.

Revision ID: 0034
Revises: 0033
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0034_fragment_speakers.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
