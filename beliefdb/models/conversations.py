"""A conversation's turns, as a caller gives them to :meth:`~beliefdb.BeliefDB.ingest_conversation`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation: who spoke, what they said, and when (None when unknown).

    Stored as one fragment of the conversation's source version (its offsets cover ``text`` exactly),
    with ``speaker`` and ``time``; the valid time of a claim extracted from it starts at ``time``."""

    speaker: str
    text: str
    time: datetime | None = None
