"""One error-code table: beliefdb.error_code names each SQLSTATE beliefdb's own SQL raises and
gives it one meaning (its rows are seed rows, sql/schema/90_seed.sql).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0011_error_codes.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
