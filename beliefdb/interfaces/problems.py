"""What was wrong with a request, in one line: the HTTP API's bodies and parameters and the MCP tools'
arguments are checked by pydantic, whose own report spans lines (a title, the input, a link); the
servers answer it as beliefdb's other errors are, ``{"error": "invalid_input", "message": ...}``
with a message that names each argument and what was wrong with it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: how many of a request's problems one message names (the rest are counted)
SHOWN = 3

#: where FastAPI says a value came from (the first part of its loc): not part of its name
_PLACES = frozenset({"body", "query", "path", "header", "cookie"})

#: pydantic's words for some problems, and beliefdb's: of one value, and of the whole input
_SAID = {
    "missing": "missing (it is required)",
    "extra_forbidden": "not one of the fields this request takes",
}
_WHOLE = {
    "missing": "is missing (send a JSON object)",
    "model_attributes_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
}


def _name(loc: Sequence[Any], placed: bool) -> str:
    """The argument's name: when ``placed``, FastAPI's ``loc`` leads with where the value came from (a field
    may itself be named ``path`` or ``query``: only the first part is a place)."""
    parts = [str(part) for part in loc]
    return ".".join(parts[1:] if placed and parts and parts[0] in _PLACES else parts)


def _what(problem: Mapping[str, Any]) -> str:
    kind = str(problem.get("type", ""))
    if kind in _SAID:
        return _SAID[kind]
    message = " ".join(str(problem.get("msg") or "invalid").split())  # (one line, whatever it held)
    return message.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def one_line(problems: Iterable[Mapping[str, Any]], *, whole: str = "the request body", placed: bool = True) -> str:
    """pydantic's problems (``ValidationError.errors()``) as one line: ``name: what was wrong`` for the
    first few, ``; `` between them; a problem with the whole input is said of ``whole``. ``placed``: each
    problem's location leads with where in the request it was (FastAPI's), not with its name (MCP's)."""
    listed = list(problems)
    said = []
    for problem in listed[:SHOWN]:
        name, kind = _name(problem.get("loc", ()), placed), str(problem.get("type", ""))
        if name:
            said.append(f"{name}: {_what(problem)}")
        else:
            said.append(f"{whole} {_WHOLE[kind]}" if kind in _WHOLE else f"{whole}: {_what(problem)}")
    if len(listed) > SHOWN:
        said.append(f"and {len(listed) - SHOWN} more")
    return "; ".join(said) or "invalid request"


def not_json(document: str | bytes | None, position: int, why: str) -> str:
    """The message for a body that is not JSON: what the parser said, and where (line and column, as
    :class:`json.JSONDecodeError` counts them)."""
    text = document.decode("utf-8", "replace") if isinstance(document, bytes) else document or ""
    where = json.JSONDecodeError(why, text, min(max(position, 0), len(text)))
    return f"the request body is not valid JSON: {why} at line {where.lineno} column {where.colno}"


def unreadable(cause: BaseException | None) -> str:
    """The message for a body Python's JSON reader raised on other than with a syntax error: bytes that
    are not UTF-8 (nor UTF-16 or -32, which it also reads), and where; arrays or objects nested past its
    recursion limit."""
    if isinstance(cause, UnicodeDecodeError):
        return (f"the request body is not valid JSON: not UTF-8 ({cause.reason} at byte {cause.start}; send"
                " the JSON encoded as UTF-8)")
    if isinstance(cause, RecursionError):
        return "the request body is not valid JSON here: it nests arrays or objects too deep to be read"
    return "the request body could not be read as JSON"
