"""Retrieval: pgvector and pg_trgm, full-text search column on beliefs, per-workspace embedding
model, belief embeddings with an HNSW index.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0003_retrieval.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
