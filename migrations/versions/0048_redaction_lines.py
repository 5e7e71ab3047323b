"""A source's authority before each change of it, and when (beliefdb.authority_change: as-of confidence
reads the authority a source had then, rule 9); and a span forget masks remembers the line it lay in
(offset, length and a keyed digest of its words), so that the same line back in a text of its source is
masked again (rule 14).

Revision ID: 0048
Revises: 0047
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0048"
down_revision = "0047"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0048_redaction_lines.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
