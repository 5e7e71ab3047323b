"""Nothing beliefdb keeps or records confirms a guess of forgotten words: a masked source version has
the sha256 of its masked text, and the audit chain records digests of rows and texts keyed by the
workspace's secret (rows_hmac, text_hmac). The versions masked before take the sha256 of their masked
text, and the events that recorded a plain sha256 of a text now masked keep their hashes only.

Revision ID: 0050
Revises: 0049
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0050"
down_revision = "0049"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0050_keyed_digests.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
