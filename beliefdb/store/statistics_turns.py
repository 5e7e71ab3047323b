"""Taking turns at planner statistics: every forget and workspace delete gathers the statistics of the text
tables before it commits (rule 14 of docs/rules.md: nothing forgotten stays in them), and one session at a time
may, whatever its workspace, each for a second or so. A change that gave up waiting (``StatisticsBusy``) rolled
back whole, holding nothing: it is tried again, so that a dozen erasures of different workspaces at once wait
their turn instead of failing."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final, TypeVar

from beliefdb import errors

T = TypeVar("T")

#: how many times a change that found the statistics busy is made in all
ATTEMPTS: Final = 3


def taking_turns(change: Callable[[], T], *, attempts: int = ATTEMPTS) -> T:
    """``change()``, made again (after a short random pause, so that the waiting sessions do not come back
    together) when it gave up waiting for another session's statistics, up to ``attempts`` times in all."""
    for attempt in range(1, attempts + 1):
        try:
            return change()
        except errors.StatisticsBusy:
            if attempt == attempts:
                raise
            time.sleep(random.uniform(0.05, 0.5))
    raise AssertionError("unreachable")
