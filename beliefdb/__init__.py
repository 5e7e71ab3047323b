"""beliefdb: agent memory in PostgreSQL that knows why it believes something.

>>> import beliefdb
>>> db = beliefdb.connect()                      # doctest: +SKIP
>>> db.ingest("return-policy.md", authority="official")   # doctest: +SKIP
>>> db.beliefs(subject="return_policy")          # doctest: +SKIP
>>> adb = await beliefdb.aconnect()              # doctest: +SKIP  (asyncio: the same methods, awaited)

``import beliefdb`` loads none of it: each name below loads what it needs when first used (PEP 562), so
that the command line (:mod:`beliefdb.__main__`) catches a Ctrl-C while the rest loads.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from beliefdb.api import SOURCE_VERSION as __version__
    from beliefdb.api import AsyncBeliefDB, BeliefDB, aconnect, connect
    from beliefdb.errors import BeliefDBError

__all__ = ["AsyncBeliefDB", "BeliefDB", "BeliefDBError", "__version__", "aconnect", "connect"]

#: where each name of the package is defined (module, name there)
_NAMES = {"AsyncBeliefDB": ("beliefdb.api", "AsyncBeliefDB"), "BeliefDB": ("beliefdb.api", "BeliefDB"),
          "aconnect": ("beliefdb.api", "aconnect"), "connect": ("beliefdb.api", "connect"),
          "__version__": ("beliefdb.api", "SOURCE_VERSION"), "BeliefDBError": ("beliefdb.errors", "BeliefDBError")}

if not TYPE_CHECKING:  # (for mypy, only the names imported above exist)

    def __getattr__(name: str) -> Any:
        """A name of the package, loaded on first use; a submodule (``beliefdb.errors``) too, as when this
        package imported them all."""
        if name in _NAMES:
            module, attribute = _NAMES[name]
            value = getattr(importlib.import_module(module), attribute)
        elif not name.startswith("_") and importlib.util.find_spec(f"beliefdb.{name}") is not None:
            value = importlib.import_module(f"beliefdb.{name}")
        else:
            raise AttributeError(f"module 'beliefdb' has no attribute {name!r}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        """The package's names and its submodules, loaded or not (tab completion, ``help(beliefdb)``), without
        what its own imports left here (``importlib``, ``Any``, ``annotations``)."""
        import pkgutil

        submodules = {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")}
        return sorted({n for n in globals() if n.startswith("__")} | set(__all__) | submodules)
