"""Extensions wherever they are: pgvector and pg_trgm, created in schema beliefdb up to revision 0014,
move to beliefdb's own extension schema beliefdb_ext (an installation a team made elsewhere is used
where it is: sql/schema/02_extensions.sql).

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0015_extension_schema.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
