"""The row audit runs one trigger function per table (beliefdb._audit_rows_<table>), which reads its
key columns directly and hashes each row's text, instead of one generic function over to_jsonb (issue 21).

Revision ID: 0032
Revises: 0031
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0032_audit_per_table.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
