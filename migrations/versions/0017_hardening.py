"""Hardening (issue 22): the application role appends nothing to the audit chain itself. The granted
beliefdb.audit goes; beliefdb's own changes append through the internal beliefdb._audit (the
re-applied sql/internal/28_audit.sql creates it, and the roles beliefdb_clock and beliefdb_eraser
come with the re-applied sql/schema/00_schema.sql).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0017_hardening.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
