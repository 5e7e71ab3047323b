"""beliefdb: agent memory in PostgreSQL that knows why it believes something.

>>> import beliefdb
>>> db = beliefdb.connect()                      # doctest: +SKIP
>>> db.ingest("return-policy.md", authority="official")   # doctest: +SKIP
>>> db.beliefs(subject="return_policy")          # doctest: +SKIP
>>> adb = await beliefdb.aconnect()              # doctest: +SKIP  (asyncio: the same methods, awaited)
"""

from __future__ import annotations

from beliefdb.api import SOURCE_VERSION as __version__
from beliefdb.api import AsyncBeliefDB, BeliefDB, aconnect, connect
from beliefdb.errors import BeliefDBError

__all__ = ["AsyncBeliefDB", "BeliefDB", "BeliefDBError", "__version__", "aconnect", "connect"]
