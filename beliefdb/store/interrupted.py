"""What a change stopped by Ctrl-C (a KeyboardInterrupt) had stored, said on the exception.

The code an interrupt passes through marks it (:func:`left`: the transaction under way had committed, the
beliefs stored without a vector yet); the outermost, which knows the whole run, says it in one line, a note
on the exception (``add_note``): the command line prints it (``interrupted: 4 of 9 files stored; ...``), a
program sees it under the traceback. The exception stays a KeyboardInterrupt."""

from __future__ import annotations

from dataclasses import dataclass

from beliefdb.errors import spelled


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
