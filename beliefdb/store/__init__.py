"""The domain operations, one module per area (beliefs, decisions, corrections, retractions, review,
lifecycle, traces and repair, retrieval, vectors, workspaces, audit, calibration). Each calls the SQL
API through the connector with the named queries of :mod:`beliefdb.db.queries`; the rules themselves
are decided in SQL."""

from __future__ import annotations
