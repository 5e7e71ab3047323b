"""Agents reach it: bearer tokens of the HTTP and MCP servers, bound to a principal and a workspace,
and the result type of a decision recorded in a run (the re-applied sql/api/62_agent_access.sql adds
beliefdb.authenticate and beliefdb.decide_in_run).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0014_agent_access.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
