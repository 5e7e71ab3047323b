"""A conversation as one source text: each turn on a line of its own, ``[time] Speaker: text`` (or
``Speaker: text`` without a time), and where each turn's text lies in it.

The layout is itself a transcript :mod:`beliefdb.text.transcripts` reads back, and a turn appended
later only adds a line: the offsets of the earlier turns never move, so a new version of the
conversation repeats every earlier quote where it was (their beliefs carry forward, rule 18 of
docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final, NamedTuple

from beliefdb import errors
from beliefdb.inputs import check_moment, check_text, shown
from beliefdb.models.conversations import Turn

__all__ = ["MAX_SPEAKER", "TurnSpan", "append_turn", "check_turn", "lay_out"]

MAX_SPEAKER: Final = 200  # characters: a name, not a paragraph


class TurnSpan(NamedTuple):
    """Where one turn's text lies in the conversation text (``text[start:end]``), who said it, when."""

    start: int
    end: int
    speaker: str
    time: datetime | None

    def to_json(self) -> dict[str, Any]:
        """As the database and a queued job keep it: the time in ISO 8601, or null."""
        return {"start": self.start, "end": self.end, "speaker": self.speaker,
                "time": self.time.isoformat() if self.time is not None else None}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> TurnSpan:
        """The span :meth:`to_json` wrote (or the database returned)."""
        return cls(value["start"], value["end"], value["speaker"],
                   datetime.fromisoformat(value["time"]) if value["time"] is not None else None)


def check_turn(turn: Turn, where: str) -> Turn:
    """``turn`` with its speaker and text stripped, or InvalidInput naming ``where`` and what is wrong."""
    if not isinstance(turn, Turn):
        raise errors.InvalidInput(f"{where}: expected a Turn, not {type(turn).__name__}")
    if not isinstance(turn.speaker, str) or not turn.speaker.strip():
        raise errors.InvalidInput(f"{where}: the speaker must be a non-empty string")
    if not isinstance(turn.text, str) or not turn.text.strip():
        raise errors.InvalidInput(f"{where}: the text must be a non-empty string")
    speaker = " ".join(turn.speaker.split())
    if len(speaker) > MAX_SPEAKER:
        raise errors.InvalidInput(f"{where}: the speaker is longer than {MAX_SPEAKER} characters")
    if ":" in speaker or "[" in speaker or "]" in speaker:
        raise errors.InvalidInput(f"{where}: the speaker '{shown(speaker)}' holds ':', '[' or ']'")
    check_text(speaker, f"{where}: the speaker")
    check_text(turn.text, f"{where}: the text")
    time = turn.time
    if time is not None:
        if not isinstance(time, datetime):
            raise errors.InvalidInput(f"{where}: the time must be a datetime")
        # a time without a zone is local time, fixed here as a chat file's is (parse_moment): read later
        # by a worker, or by a session in another zone, it is still the same moment
        time = check_moment(time, f"{where}: the time")
    return Turn(speaker=speaker, text=turn.text.strip(), time=time)


def _line_prefix(turn: Turn) -> str:
    return f"[{turn.time.isoformat()}] {turn.speaker}: " if turn.time is not None else f"{turn.speaker}: "


def append_turn(text: str, turn: Turn) -> tuple[str, TurnSpan]:
    """``text`` with ``turn`` (already checked) on a new line at its end, and where the turn's text is."""
    head = text + "\n" if text else ""
    start = len(head) + len(_line_prefix(turn))
    return head + _line_prefix(turn) + turn.text, TurnSpan(start, start + len(turn.text), turn.speaker, turn.time)


def lay_out(turns: Sequence[Turn]) -> tuple[str, list[TurnSpan]]:
    """The text of a conversation and where each turn lies in it; InvalidInput names a bad turn."""
    if not turns:
        raise errors.InvalidInput("a conversation needs at least one turn")
    text = ""
    spans = []
    for number, turn in enumerate(turns, start=1):
        text, span = append_turn(text, check_turn(turn, f"turn {number}"))
        spans.append(span)
    return text, spans
