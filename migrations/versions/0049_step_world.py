"""A step stores its world (beliefdb.step.world: the highest world of what it rests on, rule 15), so
that a memory a step of a long run writes takes its world from the steps it rests on, without walking
back through every earlier step of the run. Steps recorded before the revision have none: the walk
goes through them as before. And the jobs whose text a forget masked are indexed by source
(job_forgotten_lines), which every ingest of that source asks for.

Revision ID: 0049
Revises: 0048
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0049"
down_revision = "0048"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0049_step_world.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
