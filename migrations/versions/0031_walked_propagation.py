"""A propagation walks what rests on a change by its stored supports: beliefdb.evaluate_closure and
beliefdb.evaluate take p_walk (issue 21).

Revision ID: 0031
Revises: 0030
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0031_walked_propagation.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
