"""A decision, an action and an outcome may carry an idempotency key, as a correction does (rule 18 of docs/rules.md):
a request retried after a timeout with the same key and the same content records nothing again and
answers the first call's result (``already_applied``); the same key with other content is refused
(idempotency_key_reused). A turn appended to a conversation takes one too (append_turn). Keys are per
workspace and per kind. What decide, act, decide_in_run,
record_outcome and derive return says whether it was such a repeat (``already_applied``). A review item's
verdict (``review_resolution``) names the other review items it closed (``closed``). An index finds a
source's done jobs (``job_submit`` queues no text its source holds in force already), and a job failed for
good keeps no ``run_after`` after its failure.

Revision ID: 0051
Revises: 0050
"""

from __future__ import annotations

from pathlib import Path

from beliefdb.db.migrate import run_sql

revision = "0051"
down_revision = "0050"
branch_labels = None
depends_on = None


def upgrade() -> None:
    run_sql((Path(__file__).parent / "0051_decision_keys.sql").read_text(encoding="utf-8"))


def downgrade() -> None:
    raise NotImplementedError("beliefdb does not downgrade; restore a backup instead")
