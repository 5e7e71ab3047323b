"""Conversations in: turns as fragments of one source (with speaker and time), read by a turn-aware
extractor, so a belief's evidence is the exact turn and its valid time starts at the turn's time.

A conversation is a source; its text is the turns laid out one a line (:mod:`beliefdb.text.turns`).
Appending a turn (:func:`remember_turn`) grows the version in force of that source by one line, in
place (``beliefdb.append_turn``): every earlier offset, fragment and quote stays where it was, only
the new turn's fragment and claims are written, and claims come from the new turn only (read in the
light of the turns before it, as the whole conversation would read it: "Mila" the daughter named
before). The text is the same as a whole ingest of the conversation, so that is a no-op after (rule
18 of docs/rules.md). A retracted conversation's latest text grows the same way, kept as history until
the source is restored; after a retracted latest version, the turn follows the text in force as a new
version of it (all its turns sent: the earlier ones' quotes carry forward to it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from beliefdb import errors
from beliefdb.db.connector import Database
from beliefdb.db.queries import Q
from beliefdb.inputs import shown
from beliefdb.models import IngestFailure, IngestReport, Turn
from beliefdb.store import files
from beliefdb.store.decisions import check_idempotency_key
from beliefdb.store.documents import named_documents
from beliefdb.store.each_file import each_file
from beliefdb.store.ingest import (
    SourceOptions,
    file_source,
    ingest_text,
    max_ingest_bytes,
    too_big,
)
from beliefdb.text.chat_files import parse_chat_file
from beliefdb.text.registry import get_extractor
from beliefdb.text.turns import TurnSpan, append_turn, check_turn, lay_out

__all__ = ["CHAT_SUFFIXES", "ingest_conversation", "ingest_transcripts", "read_chat_file", "remember_turn"]

CHAT_SUFFIXES = (".jsonl", ".txt", ".md", ".markdown")


def ingest_conversation(db: Database, turns: Sequence[Turn], options: SourceOptions, *, extractor: str = "rules",
                        embed: bool = True, preview: bool = False, path: str | None = None,
                        max_bytes: int | None = None) -> IngestReport:
    """Store ``turns`` as the next version of the source ``options.name`` (one transaction)."""
    text, spans = lay_out(turns)
    return ingest_text(db, text, options, extractor=extractor, path=path, embed=embed, preview=preview,
                       max_bytes=max_bytes, turns=spans)


def remember_turn(db: Database, conversation: str, turn: Turn, *, extractor: str = "rules",
                  embed: bool = True, idempotency_key: str | None = None) -> IngestReport:
    """Append ``turn`` to ``conversation`` (created by its first turn) and extract from that turn only (read
    after the turns before it, as an ingest of the whole conversation reads it).
    A turn without a time was said now (beliefdb's clock): its claims start their valid time then, so a
    change meets what the earlier turns said as the later claim (rule 8 of docs/rules.md), and the same turn
    sent again is another turn, unless ``idempotency_key`` names the request: then the same request again
    appends nothing and answers the first one's turn, ``already_applied`` (another with the key is
    IdempotencyKeyReused; rule 18).

    Reading the conversation and storing its next version is one transaction under the workspace's
    writer lock, so two turns appended at once both end up in it, one after the other."""
    if not isinstance(conversation, str) or not conversation.strip():
        raise errors.InvalidInput("a conversation name is required")
    turn = check_turn(turn, "the turn")
    check_idempotency_key(idempotency_key, "turn")
    get_extractor(extractor)  # (an unknown or unconfigured extractor: an error before the lock is taken)
    with db.transaction() as c:
        c.execute(Q.lock_workspace)
        row = c.execute(Q.conversation_in_force, (conversation,)).fetchone()
        text, spans, latest = "", [], False
        if row is not None:
            # (a document's text takes no turns: ingest_version refuses them; a retracted source's latest
            # text grows too, kept as history until it is restored)
            text, _version, stored, latest = row
            spans = [TurnSpan.from_json(t) for t in stored]
        stamped = turn.time is None
        if stamped:  # a turn remembered as it happens was said now
            now = c.execute(Q.clock_now).fetchone()
            assert now is not None
            turn = replace(turn, time=now[0])
        text, span = append_turn(text, turn)
        report = ingest_text(db, text, SourceOptions(name=conversation),
                             extractor=extractor, embed=embed, conn=c, turns=[*spans, span], read=[span],
                             append=latest, turn_key=None if idempotency_key is None else (idempotency_key, stamped))
    return report


def read_chat_file(path: Path, limit: int) -> list[Turn]:
    """The turns of a chat file (JSONL of turns, or a transcript), at most ``limit`` bytes; a bad file is
    InvalidInput naming it (and its line)."""
    if path.suffix.lower() not in CHAT_SUFFIXES:
        raise errors.InvalidInput(
            f"{shown(path)}: unsupported file type for {errors.spelled('a chat file', '--format chat')}"
            f" '{shown(path.suffix) or '(none)'}'"
            f" (supported: {', '.join(CHAT_SUFFIXES)})")
    data = files.read_regular(path)
    if len(data) > limit:
        raise too_big(shown(path), len(data), limit)
    return parse_chat_file(files.decode_utf8(data, shown(path)), shown(path), jsonl=path.suffix.lower() == ".jsonl")


def ingest_transcripts(db: Database, paths: list[Path], options: SourceOptions, *, extractor: str = "rules",
                       embed: bool = True, preview: bool = False, progress: Callable[[Path], None] | None = None,
                       max_bytes: int | None = None) -> list[IngestReport | IngestFailure]:
    """Ingest chat files (JSONL of turns, or transcripts; a directory: its chat files, each named by its
    path below it), one conversation and one transaction each; a bad file is reported (its line named)
    and does not stop the others."""
    named = named_documents(paths, "ingest", CHAT_SUFFIXES, source=options.name)
    limit = max_ingest_bytes(max_bytes)
    get_extractor(extractor)

    def one(path: Path) -> IngestReport:
        turns = read_chat_file(path, limit)
        return ingest_conversation(db, turns, file_source(options, path, name=named[path]),
                                   extractor=extractor, embed=embed, preview=preview, path=shown(path),
                                   max_bytes=limit)

    return each_file(list(named), one, progress)
