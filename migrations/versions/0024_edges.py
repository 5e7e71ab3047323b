"""Fragment words stored (issue 22, edges): beliefdb.fragment.search, the English stems and every
word as written of the fragment's text, generated and stored, with the GIN index fragment_search
over it; ask's fallback to unextracted text (beliefdb.recall_fragments) reads it instead of
computing each matching fragment's words at query time.

Revision ID: 0024
Revises: 0021
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0024"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0024_edges.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
