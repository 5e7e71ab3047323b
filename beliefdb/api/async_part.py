"""What each part of :class:`~beliefdb.api.async_memory.AsyncBeliefDB` (its methods, by subject, in modules
of their own) relies on: the BeliefDB it wraps, and ``call``, which runs a method of it on a worker thread
(defined by AsyncBeliefDB; declared here for the type checker)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

if TYPE_CHECKING:
    from beliefdb.api.memory import BeliefDB

P = ParamSpec("P")
T = TypeVar("T")


class AsyncPart:
    """A part of AsyncBeliefDB: ``sync``, the BeliefDB it wraps, and ``call``."""

    sync: BeliefDB

    if TYPE_CHECKING:
        async def call(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T: ...
