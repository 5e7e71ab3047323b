"""Supersessions that end (rule 3): beliefdb.relation.ended_at, set when rule 8 settles a pair the
other way while the old superseder no longer holds; uniqueness only among relations in effect.

Revision ID: 0029
Revises: 0028
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0029_relation_end.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
