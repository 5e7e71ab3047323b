"""A typed SQL API: the API's functions return composite types (whose fields are those of the Python
models) instead of jsonb, except the reports that are not flat, and take a belief or node by its id
or a unique prefix, resolved inside; the old signatures are dropped here (the re-applied sql/
creates the new).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0013_typed_api.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
