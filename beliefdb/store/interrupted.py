"""What a change stopped by Ctrl-C (a KeyboardInterrupt) had stored, said on the exception.

The code an interrupt passes through marks it (:func:`left`: the transaction under way had committed, the
beliefs stored without a vector yet); the outermost, which knows the whole run, says it in one line, a note
on the exception (``add_note``): the command line prints it (``interrupted: 4 of 9 files stored; ...``), a
program sees it under the traceback. The exception stays a KeyboardInterrupt. And what a run's error says when
earlier transactions of the run had committed (:func:`after_committed`)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from beliefdb.db.queries import Q
from beliefdb.errors import spelled

if TYPE_CHECKING:
    import psycopg

    from beliefdb.db.connector import Database


@dataclass
class Left:
    """What an interrupted step left: ``stored``, the documents its transaction stored, had it committed;
    ``unembedded``, beliefs it stored that have no vector yet."""

    stored: int = 0
    unembedded: int = 0


_MARK = "beliefdb_left"


def left(exc: BaseException) -> Left:
    """The marks on ``exc`` (new, empty ones the first time)."""
    found = getattr(exc, _MARK, None)
    if not isinstance(found, Left):
        found = Left()
        setattr(exc, _MARK, found)
    return found


def mark(exc: BaseException, marks: Left) -> None:
    """Mark ``exc`` with what a step whose transaction committed stored (``marks``)."""
    at = left(exc)
    at.stored, at.unembedded = marks.stored, marks.unembedded


def counted(count: int, word: str) -> str:
    """``1 belief``, ``2,200 beliefs``."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def embed_later(count: int, command: str = "embed") -> str:
    """``; N beliefs not embedded yet: beliefdb embed`` (nothing when none are left)."""
    if count <= 0:
        return ""
    server = f"'beliefdb {command}' on the server"
    return (f"; {counted(count, 'belief')} not embedded yet: "
            + spelled(f"db.{command}()", f"beliefdb {command}", http=server, mcp=server))


def rest(stored: int, total: int) -> str:
    """What to do about the documents (files) a run did not reach: the same run again, which passes over
    those stored as no-ops."""
    return " (run the same command again to store the rest)" if stored < total else ""


@contextmanager
def transaction(db: Database, conn: psycopg.Connection[Any] | None = None, *,
                marks: Left) -> Iterator[psycopg.Connection[Any]]:
    """``db.transaction(conn)``, marking a Ctrl-C that cut off its commit with ``marks`` (what it stores, filled
    in by the body: :func:`left`) when the transaction committed all the same: the outcome of a commit under way
    is never read then, and the server may have committed it ("160 of 200 documents stored" was said of 170).
    Asked of the server by the transaction's id (``pg_xact_status``). In the caller's transaction (``conn``), or
    when it stores nothing (a preview), nothing is marked."""
    xid: str | None = None
    body_done = False
    try:
        with db.transaction(conn) as c:
            if conn is None and marks.stored:
                row = c.execute(Q.transaction_id).fetchone()
                xid = None if row is None else str(row[0])
            yield c
            body_done = True
    except KeyboardInterrupt as exc:
        if body_done and xid is not None and _committed(db, xid):
            mark(exc, marks)
        raise


def _committed(db: Database, xid: str) -> bool:
    """Whether transaction ``xid`` committed, waiting out a commit still under way (a second at most); unknown
    (the server gone, any error: the Ctrl-C stays what is raised) is not committed."""
    deadline = time.monotonic() + 1
    try:
        while (status := db.transaction_status(xid)) == "in progress" and time.monotonic() < deadline:
            time.sleep(0.02)
    except Exception:
        return False
    return status == "committed"


#: what an error of one transaction says of it (connector.translate's words): untrue of a run whose earlier
#: transactions (batches, files) committed
_NOTHING_CHANGED = re.compile(r"(?:[;:] )?nothing was changed(?:: try again)?")


def after_committed(message: str, stored: str) -> str:
    """The message of a failure that stopped a run of many transactions after some committed (a bulk
    ingest's batches, the files of an ingest, the batches of an embed), saying ``stored`` (what they
    stored, and what to do) in place of its "nothing was changed", which is true of its own only."""
    cut = _NOTHING_CHANGED.sub("", message).replace(" ()", "").replace("()", "")
    return f"{cut} ({stored})"
