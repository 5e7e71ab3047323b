"""The conversation methods :class:`~beliefdb.BeliefDB` inherits from :class:`Conversations`: a
conversation's turns stored as fragments of one source, with speaker and time, and read by a
turn-aware extractor (:mod:`beliefdb.store.conversations`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.inputs import check_callback, given_path, parse_moment
from beliefdb.models import IngestFailure, IngestReport, Turn
from beliefdb.store import conversations
from beliefdb.store.ingest import SourceOptions


class Conversations:
    """The conversation methods of :class:`~beliefdb.BeliefDB` (one transaction each)."""

    database: Database

    def ingest_conversation(self, turns: Sequence[Turn], *, source: str, authority: str | None = None,
                            label: str | None = None, version_label: str | None = None, extractor: str = "rules",
                            embed: bool = True, preview: bool = False) -> IngestReport:
        """Store a conversation as the next version of the source ``source``: each turn a fragment with its
        speaker and time, so a belief's evidence is the exact turn and its valid time starts at the turn's
        time. The extractor reads turn by turn, the speaker the subject of what they say of themselves. A new
        conversation is of ``user`` authority unless ``authority`` is given (what people say is their word)."""
        options = SourceOptions(name=source, authority=authority, provenance=label,
                                version_label=version_label)
        return conversations.ingest_conversation(self.database, turns, options, extractor=extractor, embed=embed,
                                                 preview=preview)

    def remember_turn(self, conversation: str, speaker: str, text: str, *, time: datetime | str | None = None,
                      extractor: str = "rules", embed: bool = True,
                      idempotency_key: str | None = None) -> IngestReport:
        """Append one turn to ``conversation`` (its version in force grows by this turn, in place: only the
        turn's fragment and claims are stored; the source is created by its first turn) and extract from
        this turn only. ``time``: when it was said, a ``datetime`` or ISO 8601 text as ``remember``'s
        ``valid_from`` (default: now, by beliefdb's clock: the same turn sent again is then another turn). A
        conversation its first turn creates is of ``user`` authority, as :meth:`remember` makes one.
        ``idempotency_key`` makes a retry safe (rule 18 of docs/rules.md): the same turn again with the key
        appends nothing and answers the first one's (``already_applied``); another request with it is
        IdempotencyKeyReused."""
        if isinstance(time, str):
            time = parse_moment(time, errors.argument("time"))
        return conversations.remember_turn(self.database, conversation, Turn(speaker, text, time),
                                           extractor=extractor, embed=embed, idempotency_key=idempotency_key)

    def ingest_transcripts(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
                           label: str | None = None, version_label: str | None = None, extractor: str = "rules",
                           embed: bool = True, preview: bool = False, progress: Callable[[Path], None] | None = None,
                           max_bytes: int | None = None) -> list[IngestReport | IngestFailure]:
        """Ingest chat files (``.jsonl`` of ``{"speaker", "time", "text"}``, or ``Speaker: text`` transcripts),
        one conversation each, like :meth:`ingest` (``beliefdb ingest --format chat``)."""
        check_callback(progress, "progress")
        options = SourceOptions(name=source, authority=authority, provenance=label, version_label=version_label)
        return conversations.ingest_transcripts(self.database, [given_path(p, "paths") for p in paths], options,
                                                extractor=extractor, embed=embed, preview=preview, progress=progress,
                                                max_bytes=max_bytes)
