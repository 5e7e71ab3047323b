"""The audit chain (truth rule 12 of docs/rules.md): verification is computed by beliefdb.audit_verify in SQL."""

from __future__ import annotations

from typing import Any

import psycopg

from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.models import AuditResult


def verify(db: Database, conn: psycopg.Connection[Any] | None = None) -> AuditResult:
    """Check the bound workspace's chain; ``first_broken`` is the first link that does not hold."""
    result = db.fetch_one(AuditResult, Q.audit_verify, None, conn)
    assert result is not None
    return result  # type: ignore[no-any-return]
