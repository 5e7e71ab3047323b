"""What beliefdb accepts from a caller before anything reaches PostgreSQL, said in one place for the
CLI, the servers, the claims reader and the library.

* Text: PostgreSQL text holds no NUL character, and psycopg cannot encode a lone surrogate (what an
  argument, an environment variable or a file name with bytes that are not UTF-8 becomes in Python,
  by ``os.fsdecode``, or what a JSON string escape like ``"\\ud800"`` becomes).
* Names shown back (file names, arguments in messages): undecodable bytes as ``\\xNN``, so printing
  a message never fails on the very bytes it complains about.
* Moments: from 0001-01-02 to 9999-12-30 UTC, the range whose every time zone's local time Python
  and psycopg can read back (a valid time outside it is refused by the SQL too, with the same range).
* Paths: an empty one names no file (pathlib reads ``""`` as the current directory): refused
  (:func:`given_path`).
* Page cursors (every list's ``after``): an id or 4 or more of its first hex digits, else bad input
  before the list looks for what it names (:func:`check_cursor`).
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from os import PathLike, fspath
from pathlib import Path
from typing import Any
from uuid import UUID

from beliefdb.errors import InvalidInput, argument, echoed, spelled

EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=UTC)
MOMENT_RANGE = "from 0001-01-02 to 9999-12-30 UTC"
#: what a page cursor may be before a list looks for it: hex digits and dashes (an id, or its start)
_CURSOR = re.compile(r"[0-9a-f-]{4,36}")


def shown(value: str | PathLike[str]) -> str:
    """``value`` printable in any encoding's UTF-8 terminal: undecodable bytes (lone surrogates of
    ``os.fsdecode``) as ``\\xNN``, any other lone surrogate as ``\\udNNN``."""
    text = fspath(value)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def given_path(value: str | PathLike[str], name: str) -> Path:
    """The path a caller gives as the argument ``name``, or InvalidInput for an empty one: pathlib reads
    ``""`` as the current directory, so ``ingest("")`` stored every document of wherever it ran."""
    if fspath(value) == "":
        raise InvalidInput(f"{argument(name, '')}: an empty path names no file")
    return Path(value)


def given_home(home: str | PathLike[str] | None) -> Path | None:
    """A ``home`` argument (the embedded server's folder) as :func:`given_path` reads it, or None."""
    return None if home is None else given_path(home, "home")


def check_workspace_name(name: str) -> None:
    """InvalidInput for an empty or blank workspace name, before it is looked up: it names no workspace,
    and "unknown workspace ''" with a hint to create it could not help."""
    if not name.strip():
        said = "empty" if name == "" else f"blank ('{shown(name)}')"
        raise InvalidInput(f"a workspace name cannot be {said}")


def unstorable(text: str) -> str | None:
    """Why ``text`` cannot be stored as PostgreSQL text, or None when it can."""
    if "\x00" in text:
        return "holds a NUL character"
    return _not_utf8(text)


def storable(text: str) -> str:
    """``text`` with what PostgreSQL's text cannot hold (NUL, a lone surrogate) shown as U+FFFD: for words
    beliefdb passes on and may store (what an endpoint said, in a job's reason), not for a caller's input,
    which :func:`unstorable` refuses."""
    if unstorable(text) is None:
        return text
    return re.sub("[\x00\ud800-\udfff]", "\ufffd", text)


def _not_utf8(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"not valid UTF-8 (an undecodable byte or a lone surrogate at character {exc.start})"
    return None


def unstorable_in(value: Any) -> str | None:
    """Why a JSON-like value (strings, and lists and objects of them, keys included) cannot be stored,
    or None. Walked without recursion, so a value nested deeper than Python's recursion limit is
    answered too (:func:`check_json` refuses it)."""
    return next((why for text in _texts_in(value) if (why := unstorable(text)) is not None), None)


def _texts_in(value: Any) -> Iterator[str]:
    """The strings of a JSON-like value (keys included), in order, walked without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            pending.extend(reversed([part for pair in item.items() for part in pair]))
        elif isinstance(item, (list, tuple)):
            pending.extend(reversed(item))


#: how many levels a JSON value a caller gives (an agent step's payload) may nest: deeper ones are
#: refused, as Python reads and writes JSON recursively and could not give them back
MAX_DEPTH = 100


def depth_of(value: Any) -> int:
    """How many levels of lists and objects ``value`` nests (a string or a number: 0), counted without
    recursion and only up to one past :data:`MAX_DEPTH`."""
    deepest, pending = 0, [(value, 1)]
    while pending and deepest <= MAX_DEPTH:
        item, level = pending.pop()
        children = item.values() if isinstance(item, Mapping) else item if isinstance(item, (list, tuple)) else None
        if children is not None:
            deepest = max(deepest, level)
            pending.extend((child, level + 1) for child in children)
    return deepest


def non_finite_in(value: Any) -> bool:
    """Whether a JSON-like ``value`` holds a float JSON has no number for (NaN, Infinity: what Python's
    JSON readers make of ``NaN``, ``Infinity`` and ``1e400``), walked without recursion."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return True
        if isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


def not_json_in(value: Any, where: str) -> str | None:
    """Where in ``value`` (``where``, then keys and indexes: ``payload['a'][1]``) and what is something JSON
    has no value for (an object, a set, a key that is not text or a number), or None; walked without
    recursion, only up to one past :data:`MAX_DEPTH` levels (deeper is refused as such)."""
    pending: list[tuple[Any, str, int]] = [(value, where, 0)]
    while pending:
        item, path, level = pending.pop()
        if item is None or isinstance(item, str | int | float) or level > MAX_DEPTH:
            continue
        if isinstance(item, dict):
            key = next((k for k in item if not (k is None or isinstance(k, str | int | float))), None)
            if key is not None:
                return f"{path}: a key of type {type(key).__name__} is not JSON (keys are text)"
            pending.extend((v, f"{path}[{k!r}]", level + 1) for k, v in reversed(item.items()))
        elif isinstance(item, list | tuple):
            pending.extend((v, f"{path}[{i}]", level + 1) for i, v in reversed(list(enumerate(item))))
        else:
            return (f"{path}: a {type(item).__name__} is not JSON (give text, a number, true/false, null, a list"
                    " or an object)")
    return None


def check_json(value: Any, where: str) -> None:
    """InvalidInput naming ``where`` when the JSON-like ``value`` holds text PostgreSQL cannot store, a
    number JSON cannot (:func:`non_finite_in`), nests deeper than :data:`MAX_DEPTH` levels, or holds what
    JSON has no value for (:func:`not_json_in`, naming where in it)."""
    check_text(value, where)
    if depth_of(value) > MAX_DEPTH:
        raise InvalidInput(f"{where}: nested deeper than {MAX_DEPTH} levels")
    problem = not_json_in(value, where)
    if problem is not None:
        raise InvalidInput(problem)
    if non_finite_in(value):
        raise InvalidInput(f"{where}: holds a number JSON has none for (NaN or Infinity; a number as large as"
                           " 1e400 is read as Infinity)")


def check_text(value: Any, where: str) -> None:
    """InvalidInput naming ``where`` when ``value`` holds text PostgreSQL cannot store."""
    why = unstorable_in(value)
    if why is not None:
        raise InvalidInput(f"{where}: {why}")


def check_utf8(value: Any, where: str) -> None:
    """InvalidInput naming ``where`` when ``value`` (text, or lists and objects of it, keys included) holds
    text that is not valid UTF-8 (a lone surrogate, which psycopg cannot send); a NUL is left to the
    database's refusal, which every door words alike ("PostgreSQL text fields cannot contain NUL")."""
    why = next((why for text in _texts_in(value) if (why := _not_utf8(text)) is not None), None)
    if why is not None:
        raise InvalidInput(f"{where}: {why}")


def local(value: datetime) -> datetime:
    """A moment without a time zone as local time, with its offset (one with a zone: unchanged), read as
    PostgreSQL reads it in a session of the same zone: a local time that does not exist (the hour clocks
    skip going forward) with the offset before the change (New York's 2024-03-10T02:30 is 03:30 EDT), one
    that occurs twice (the hour clocks repeat going back) with the offset after it (2024-11-03T01:30 is
    01:30 EST): of the two moments either offset gives, the later. Not ``astimezone()``, which reads a
    skipped time an hour early (01:30 EST)."""
    if value.tzinfo is not None:
        return value
    later = max(value.replace(fold=0).timestamp(), value.replace(fold=1).timestamp())
    return datetime.fromtimestamp(later, UTC).astimezone()


def check_moment(value: datetime, where: str) -> datetime:
    """``value`` when it lies in the accepted range, with its offset (one without a time zone is local
    time, :func:`local`: never the database session's zone, which is the server's), else InvalidInput
    naming ``where`` (as for anything but a datetime: text is read by :func:`parse_moment`)."""
    if not isinstance(value, datetime):
        raise InvalidInput(f"{where}: must be a datetime, not {type(value).__name__}"
                           " (ISO 8601 text: beliefdb.api.parse_moment(text, name) reads it)")
    try:
        zoned = local(value)
        utc = zoned.astimezone(UTC)
    except (OverflowError, ValueError, OSError):
        utc = None  # a naive moment at the edge of the calendar has no local time
    if utc is None or not EARLIEST <= utc <= LATEST:
        raise InvalidInput(f"{where}: {value.isoformat()} is out of range (give a moment {MOMENT_RANGE})")
    return zoned


def utc_day(moment: datetime | str) -> str:
    """The UTC day of ``moment`` (a ``datetime``, or ISO 8601 text), as ask's context and text name days, whatever
    the session's time zone; text that is no moment, its first ten characters."""
    if isinstance(moment, str):
        try:
            when = datetime.fromisoformat(moment)
        except ValueError:
            return moment[:10]
    else:
        when = moment
    try:
        return (when.astimezone(UTC) if when.tzinfo else when).isoformat()[:10]
    except OverflowError:  # (the first hours of year 1 east of UTC: no UTC day before it to name)
        return when.isoformat()[:10]


def moment_text(value: Any, where: str) -> str | None:
    """A moment given as a ``datetime`` or an ISO 8601 string (without a time zone: local time) as the
    ISO 8601 text, with its offset, that a claim carries: the moment :func:`parse_moment` read, so that
    the database neither reads it in its session's time zone nor reads it otherwise. None stays None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return check_moment(value, where).isoformat()
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: must be a datetime or an ISO 8601 timestamp string")
    return parse_moment(value, where).isoformat()


def parse_moment(text: str, where: str, *, zoned: bool = False) -> datetime:
    """An ISO 8601 moment (without a time zone: local time, :func:`local`) in the accepted range, with its
    offset, or InvalidInput naming ``where`` and what is accepted. ``zoned``: a moment without a time zone
    is refused, as the servers refuse it (their local time is not their caller's)."""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidInput(f"{where}: not an ISO 8601 timestamp: '{shown(text)}'") from None
    if parsed.tzinfo is None and zoned:
        raise InvalidInput(f"{where}: Input should have timezone info (Z or an offset such as +02:00): '{shown(text)}'")
    # a local time: within the range (as UTC) it has one in every time zone, so the check below can convert it
    if parsed.tzinfo is None and not EARLIEST.replace(tzinfo=None) <= parsed <= LATEST.replace(tzinfo=None):
        raise InvalidInput(f"{where}: {parsed.isoformat()} is out of range (give a moment {MOMENT_RANGE})")
    return check_moment(parsed, where)


def check_integer(value: int, name: str) -> int:
    """A whole number the database keeps as an integer (a version, a revision), the argument ``name``:
    one out of its range could name nothing there, and is bad input rather than a call the database
    cannot match. Anything but an int (text, a float, True) is InvalidInput too, not a TypeError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{argument(name, value)} must be an integer, not {type(value).__name__}")
    if not -(2 ** 31) <= value < 2 ** 31:
        raise InvalidInput(f"{argument(name, value)} is out of range")
    return value


def cursor_problem(value: str | UUID | None) -> str | None:
    """What is wrong with ``value`` as a page cursor (the last id of the page before), None when it may
    be an id or a prefix of one (hex digits and dashes, 4 to 32 digits): what it names is the list's to
    find (unknown when nothing). The CLI's option says it as a usage error, with its own name."""
    ref = str(value).strip().lower()
    if value is None or isinstance(value, UUID) or (_CURSOR.fullmatch(ref) and 4 <= len(ref.replace("-", "")) <= 32):
        return None
    return (f"{echoed(repr(value))} is not an id (a UUID or at least 4 of its first hex digits: the last id of the"
            " page before)")


def check_cursor(value: str | UUID | None) -> str | UUID | None:
    """``value`` when it may be a page cursor (:func:`cursor_problem`), else InvalidInput, in the same words
    at every list and every door (``after``, ``--after``): not "unknown belief zz", as if one had been
    looked for."""
    problem = cursor_problem(value)
    if problem is not None:
        raise InvalidInput(f"{spelled('after', '--after')}: {problem}")
    return value


def check_scope(scope: Any) -> dict[str, str]:
    """The conditions a scope names (None: none), each a name and a value of text, taken as
    :func:`scope_conditions` takes them, else InvalidInput (a list or a text is no scope: ``dict(["EU"])`` is
    ``{"E": "U"}``, and a number would match no condition ``ask`` gives, which are text)."""
    if scope is None:
        return {}
    if not isinstance(scope, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in scope.items()):
        kind = type(scope).__name__ if not isinstance(scope, Mapping) else "a mapping with other values"
        raise InvalidInput(f"{argument('scope')} must be a mapping of names to text values"
                           f" ({{'region': 'EU'}}), not {kind}")
    return scope_conditions(scope.items())


def scope_conditions(pairs: Iterable[tuple[str, str]], where: str | None = None) -> dict[str, str]:
    """The conditions of a scope, given as (name, value) pairs, as every door takes them (the library's
    ``scope=``, the CLI's ``--scope key=value``, a claims file's ``scope``): name and value without the
    spaces around them (``' region = EU '`` is region EU), a name that is not blank, and each name once,
    as trimmed (``{'region': 'EU', ' region': 'US'}`` names region twice). Else InvalidInput naming
    ``where`` (by default the argument: ``scope=``, ``--scope`` at the command line)."""
    said = where or argument("scope")
    conditions: dict[str, str] = {}
    for name, value in pairs:
        key = name.strip()
        if not key:
            example = spelled("{'region': 'EU'}", "region=EU", http='{"region": "EU"}', mcp='{"region": "EU"}')
            raise InvalidInput(f"{said}: each condition needs a name ({example}), not a blank one")
        if key in conditions:
            raise InvalidInput(echoed(f"{said} names {key!r} twice: give each condition once"))
        conditions[key] = value.strip()
    return conditions


def refs_of(refs: Any, name: str) -> list[str]:
    """The ids (or unique prefixes) of a list the argument ``name`` takes, as text; one id alone (a text,
    a UUID) is InvalidInput saying to give a list: a text is a sequence of its characters, each of which
    would be taken for an id prefix ("belief id prefix 7 is too short")."""
    if isinstance(refs, str | UUID) or not isinstance(refs, Iterable):
        raise InvalidInput(f"{argument(name)} takes a list of ids (or unique prefixes), not one"
                           f" {type(refs).__name__}: {name}=[{shown(str(refs))!r}]")
    listed = list(refs)
    wrong = next((ref for ref in listed if not isinstance(ref, str | UUID)), None)
    if wrong is not None:
        raise InvalidInput(f"{argument(name)} takes a list of ids (or unique prefixes), each a str or a UUID,"
                           f" not {type(wrong).__name__}")
    return [str(ref) for ref in listed]


def ids_of(ids: Any, name: str) -> list[UUID]:
    """The whole ids of a list the argument ``name`` takes (UUIDs or their text); one id alone is
    InvalidInput saying to give a list (a text is a sequence of its characters, each of which the
    database would refuse as "invalid input syntax for type uuid"), as is an element that is no id."""
    if isinstance(ids, str | UUID) or not isinstance(ids, Iterable):
        raise InvalidInput(f"{argument(name)} takes a list of ids, not one {type(ids).__name__}:"
                           f" {name}=[{shown(str(ids))!r}]")
    listed: list[UUID] = []
    for each in ids:
        try:
            listed.append(each if isinstance(each, UUID) else UUID(str(each)))
        except ValueError:
            raise InvalidInput(f"{argument(name)} takes whole ids: {shown(str(each))!r} is not one") from None
    return listed


def check_expect(expect: Any) -> str | None:
    """``expect``: a preview's fingerprint (32 hex digits, read in lower case) or None, else InvalidInput."""
    if expect is None or (isinstance(expect, str) and re.fullmatch(r"[0-9a-f]{32}", expect.strip().lower())):
        return None if expect is None else expect.strip().lower()
    got = ("a method: call it, fingerprint()" if callable(expect) else type(expect).__name__ if not isinstance(
        expect, str) else repr(shown(expect[:40])) if expect.strip() else "a blank one")  # (made up: no stale preview)
    where = spelled("fingerprint() of its report", "as --preview printed it", http=(f := "its `fingerprint`"), mcp=f)
    raise InvalidInput(f"{argument('expect')} takes the fingerprint a preview gave (32 hex digits, {where}), not {got}")


def refs_groups(groups: Any) -> list[Any]:
    """The groups of ``all_of`` (each checked by :func:`refs_of`, and by ``decisions.reasons_of`` to name a belief);
    a group that is one id alone is refused there, as all_of itself given as one id is here."""
    if isinstance(groups, str | UUID) or not isinstance(groups, Iterable):
        raise InvalidInput(f"{argument('all_of')} takes a list of groups of ids, not one {type(groups).__name__}:"
                           f" all_of=[[{shown(str(groups))!r}, ...]]")
    return list(groups)


def check_callback(fn: Any, name: str) -> None:
    """A callback the work calls as it goes (the argument ``name``: ``progress``, ``on_outcome``...), or None:
    a plain function. beliefdb calls it on the thread doing the work (the async client's too), where an
    ``async def`` one's coroutine would never be awaited: InvalidInput up front, before anything is
    written, as the repair executor's are refused."""
    if fn is None:
        return
    if not callable(fn):
        raise InvalidInput(f"{argument(name)} takes a function, not {type(fn).__name__}")
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__):
        raise InvalidInput(f"{argument(name)} is an async function: beliefdb calls it on the thread doing the work"
                           " (the async client's too), where its coroutine would never be awaited; give a plain"
                           " function")
