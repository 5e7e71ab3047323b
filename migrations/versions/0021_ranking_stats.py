"""Ranking statistics per workspace (issue 20): how many beliefs of each workspace have each
full-text lexeme (beliefdb.lexeme_frequency, kept by triggers the re-applied
sql/internal/46_retrieval.sql creates), which retrieval reads instead of the database-wide
pg_stats; and a full-text index over fragment text, for ask's fallback to unextracted text.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0021_ranking_stats.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
