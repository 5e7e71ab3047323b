"""beliefdb: agent memory in PostgreSQL that knows why it believes something.

>>> import beliefdb
>>> db = beliefdb.connect()                      # doctest: +SKIP
>>> db.ingest("return-policy.md", authority="official")   # doctest: +SKIP
>>> db.beliefs(subject="return_policy")          # doctest: +SKIP
"""

from __future__ import annotations

from beliefdb.api import SOURCE_VERSION as __version__
from beliefdb.api import BeliefDB, connect
from beliefdb.errors import BeliefDBError

__all__ = ["BeliefDB", "BeliefDBError", "__version__", "connect"]
