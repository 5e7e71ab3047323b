"""The queue of jobs (issue 20): beliefdb.job, documents to ingest taken by workers with a row lock
held for the job's transaction (the functions, row-level security and grants come with the
re-applied sql/api/58_jobs.sql and sql/api/80_privileges.sql).

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0018_jobs.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
