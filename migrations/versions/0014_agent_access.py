"""Agents reach it: bearer tokens of the HTTP and MCP servers, bound to a principal and a workspace
(the re-applied sql/65_agent_access.sql adds row-level security and beliefdb.authenticate).

Revision ID: 0014
Revises: 0012
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0014"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0014_agent_access.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
