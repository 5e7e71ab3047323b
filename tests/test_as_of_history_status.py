"""An answer as of a moment shows each value the belief replaced under it, as history, with the status it had
then: ``ask --as-of T --json`` gave that history entry today's status, ``"status": "current"`` for a value
that was superseded at T and became current again since (its source went back to it), so a script reading
``status`` was told the old value held then. It says ``superseded`` (``beliefdb.belief_status_at``), as
``why --as-of T`` does; an answer of now still gives each entry's status now."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from conftest import Cli

import beliefdb

V1 = "# Trip\n\nHotel cost: 150 EUR\n"
V2 = V1.replace("150", "180")


def test_a_history_entry_as_of_a_moment_has_the_status_it_had_then(bdb: beliefdb.BeliefDB, cli: Cli) -> None:
    bdb.ingest_text(V1, source="p.md", embed=False)
    bdb.ingest_text(V2, source="p.md", embed=False)
    time.sleep(0.05)
    then = datetime.now(UTC)
    time.sleep(0.05)
    bdb.ingest_text(V1, source="p.md", embed=False)  # back to 150: the old belief is current again
    (old,) = [b for b in bdb.beliefs(include_all=True) if b.value == "150 EUR"]
    assert old.status == "current"
    answer = bdb.ask("hotel cost", as_of=then)
    (held,) = [a for a in answer.beliefs if a.belief.value == "180 EUR"]
    assert [(h.belief.id, h.belief.status) for h in held.history] == [(old.id, "superseded")], held.history
    assert bdb.why(old.id, as_of=then).belief.status == "superseded"  # (the same status why gives then)
    said = cli.json("ask", "hotel cost", "--as-of", then.isoformat())
    (shown,) = [b for b in said["beliefs"] if b["value"] == "180 EUR"]
    assert [(h["id"], h["status"]) for h in shown["history"]] == [(str(old.id), "superseded")], shown["history"]
    # now, the 150 belief answers, current, and nothing it replaced is shown as what was current then
    now = bdb.ask("hotel cost")
    assert [(a.belief.id, a.belief.status) for a in now.beliefs][:1] == [(old.id, "current")], now.beliefs
