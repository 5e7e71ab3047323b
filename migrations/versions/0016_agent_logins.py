"""Per-agent logins: the workspace each login role made by ``beliefdb agent create`` is bound to (the
re-applied sql/api/05_session.sql makes beliefdb.current_workspace_id return it for such a login,
whatever the session's beliefdb.workspace_id says).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0016_agent_logins.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
