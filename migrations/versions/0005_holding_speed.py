"""Holding speed: a justification counts its antecedents that are not current, and each
antecedent edge carries its justification's consequent, so evaluating a closure reads one
index entry per edge and nothing outside the closure.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0005_holding_speed.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
