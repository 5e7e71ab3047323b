"""A moment argument that is not a ``datetime`` (``as_of="2026-01-01"``, ``now=...``) is InvalidInput naming
it, catchable as BeliefDBError: it failed with ``AttributeError: 'str' object has no attribute
'astimezone'``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import beliefdb
from beliefdb import errors


def test_a_moment_that_is_no_datetime_is_bad_input(bdb: beliefdb.BeliefDB) -> None:
    bdb.ingest_text("The return window is 7 days.\n", source="policy.md", embed=False)
    belief = bdb.beliefs()[0].id
    text: Any = "2026-01-01T00:00:00Z"  # what an untyped caller passes
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("as_of", lambda: bdb.beliefs(as_of=text)),
        ("as_of", lambda: bdb.why(belief, as_of=text)),
        ("as_of", lambda: bdb.ask("return window", as_of=text)),
        ("as_of", lambda: bdb.why_graph(belief, as_of=text)),
        ("now", lambda: bdb.decay(now=text, preview=True)),
    ]
    for name, call in calls:
        with pytest.raises(errors.InvalidInput) as refused:
            call()
        assert refused.value.message.startswith(f"{name}: must be a datetime, not str"), refused.value
