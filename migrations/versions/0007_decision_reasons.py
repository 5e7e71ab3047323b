"""Decision reasons: a decision carries its justifications with their antecedents, kept by
triggers, so impact lists what a surviving decision rests on without reading the edges.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.migrate import run_sql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0007_decision_reasons.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
