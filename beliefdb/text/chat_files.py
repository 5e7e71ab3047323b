"""Chat files read as turns: JSON Lines of ``{"speaker", "time", "text"}`` and transcripts of
``Speaker: text``, ``**Speaker:** text`` or ``[time] Speaker: text`` lines (markdown chat exports; the
colon may be the full-width ``：`` of CJK chat).

In a transcript, a line that is not a speaker line continues the turn before it; markdown headings,
horizontal rules and blank lines end a turn and are not part of any. Anything wrong is InvalidInput
naming the file and the line, before anything is stored.
"""

from __future__ import annotations

import json
from typing import Any, Final

from beliefdb import errors
from beliefdb.inputs import parse_moment
from beliefdb.models.conversations import Turn
from beliefdb.text.transcripts import SKIP_RE, speaker_line
from beliefdb.text.turns import check_turn

__all__ = ["parse_chat_file", "parse_chat_jsonl", "parse_transcript"]


def parse_transcript(text: str, name: str) -> list[Turn]:
    """The turns of a transcript; InvalidInput names ``name`` and the line of the first problem."""
    turns: list[Turn] = []
    where: list[str] = []  # the line each turn starts on, for the message of a bad turn
    current: dict[str, Any] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            body = "\n".join(current["lines"]).strip()
            if not body:
                raise errors.InvalidInput(f"{current['where']}: a turn without text (expected 'Speaker: text')")
            turns.append(check_turn(Turn(current["speaker"], body, current["time"]), current["where"]))
            where.append(current["where"])
            current = None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        here = f"{name} line {number}"
        if not line or SKIP_RE.fullmatch(line):
            close()
            continue
        m = speaker_line(line)
        if m is not None:
            close()
            moment = parse_moment(m.group("time").strip(), f"{here}: the time") if m.group("time") else None
            current = {"speaker": m.group("bold") or m.group("plain"), "time": moment,
                       "lines": [m.group("text") or ""], "where": here}
        elif current is not None:
            current["lines"].append(line)
        else:
            raise errors.InvalidInput(f"{here}: not a turn (expected 'Speaker: text', '**Speaker:** text' or"
                                      " '[time] Speaker: text')")
    close()
    if not turns:
        raise errors.InvalidInput(f"{name}: no turns (expected lines of 'Speaker: text')")
    return turns


def _field(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return obj.get(_key(obj, keys))


def _key(obj: dict[str, Any], keys: tuple[str, ...]) -> str:
    """The first of ``keys`` the object has (the first of all when it has none: its value is None)."""
    return next((key for key in keys if key in obj), keys[0])


_TIME_KEYS: Final = ("time", "timestamp", "created_at")  # what chat exports call a turn's time


def parse_chat_jsonl(text: str, name: str) -> list[Turn]:
    """Turns from JSON Lines, one ``{"speaker", "text", "time"}`` object a line (``role``/``content``
    accepted for ``speaker``/``text``, ``timestamp``/``created_at`` for ``time``; the time optional, ISO
    8601); blank lines skipped."""
    turns = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        here = f"{name} line {number}"
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:
            detail = exc.msg if isinstance(exc, json.JSONDecodeError) else "not JSON"
            raise errors.InvalidInput(f"{here}: invalid JSON ({detail})") from None
        if not isinstance(obj, dict):
            raise errors.InvalidInput(f"{here}: expected a JSON object with speaker and text")
        speaker, body = _field(obj, ("speaker", "role")), _field(obj, ("text", "content"))
        when_key = _key(obj, _TIME_KEYS)
        moment = obj.get(when_key)
        if not isinstance(speaker, str) or not speaker.strip():
            raise errors.InvalidInput(f"{here}: 'speaker' must be a non-empty string")
        if not isinstance(body, str) or not body.strip():
            raise errors.InvalidInput(f"{here}: 'text' must be a non-empty string")
        if moment is not None and not isinstance(moment, str):
            raise errors.InvalidInput(f"{here}: '{when_key}' must be an ISO 8601 timestamp string")
        when = parse_moment(moment, f"{here}: '{when_key}'") if moment is not None else None
        turns.append(check_turn(Turn(speaker, body, when), here))
    if not turns:
        raise errors.InvalidInput(f"{name}: no turns")
    return turns


def parse_chat_file(text: str, name: str, *, jsonl: bool) -> list[Turn]:
    """The turns of a chat file: JSON Lines when ``jsonl``, else a transcript."""
    return parse_chat_jsonl(text, name) if jsonl else parse_transcript(text, name)
