"""PostgreSQL itself: the connector (pool, transactions, error mapping), the embedded server,
migrations, the named queries, and the bootstrap that chooses and readies a database."""

from __future__ import annotations
