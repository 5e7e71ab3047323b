"""What later revisions add, taken away again: the tests that put a database back to the schema of an
earlier release (then upgrade it) undo each revision since, this one's too."""

from __future__ import annotations

from typing import Any

import psycopg


def undo_0051(conn: psycopg.Connection[Any]) -> None:
    """Revision 0051's idempotency keys of decisions, actions, outcomes and turns (their unique constraints
    and index go with their columns), the already_applied of what decide, act and record_outcome return, the index
    of beliefs whose value keeps a run of whitespace, the review items a verdict closed, and the index of a
    source's done jobs."""
    conn.execute("alter table beliefdb.decision drop column idempotency_key, drop column request_sha256")
    conn.execute("alter table beliefdb.action drop column idempotency_key")
    conn.execute("alter table beliefdb.outcome drop column idempotency_key")
    conn.execute("alter table beliefdb.fragment drop column idempotency_key, drop column stamped")
    for name in ("recorded", "run_decision", "outcome_recorded"):
        conn.execute(f"alter type beliefdb.{name} drop attribute already_applied")
    conn.execute("drop index beliefdb.belief_spaced_value")
    conn.execute("alter type beliefdb.review_resolution drop attribute closed")
    conn.execute("drop index beliefdb.job_done_source")
