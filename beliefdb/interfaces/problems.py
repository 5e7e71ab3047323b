"""What was wrong with a request, in one line: the HTTP API's bodies and parameters and the MCP tools'
arguments are checked by pydantic, whose own report spans lines (a title, the input, a link); the
servers answer it as beliefdb's other errors are, ``{"error": "invalid_input", "message": ...}``
with a message that names each argument and what was wrong with it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from beliefdb.errors import echoed

#: a moment whose offset's sign is a space: a time, a space, then an offset (``16:00:00 02:00``, ``16:00 0200``)
_SIGN_AS_SPACE = re.compile(r"\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)? \d{2}(?::?\d{2})?$")


def plus_as_space(text: str) -> str:
    """The hint for a moment read from a URL's query string that has a space where its offset's sign would be:
    a ``+`` in a URL's query is read as a space (``?as_of=2026-12-07T16:00:00+02:00`` arrives as
    ``2026-12-07T16:00:00 02:00``); else "". Only a hint: the space is not taken for a ``+``, as it may as well
    have been a ``-`` lost, or a space meant."""
    return " (hint: a + in a URL is read as a space: write + as %2B in a URL (or use Z))" \
        if _SIGN_AS_SPACE.search(text.strip()) else ""


#: the fields the object at a place in a request takes (a problem's ``loc`` without its last part, the
#: field), in order, or None when that is not known
Takes = Callable[[Sequence[Any]], Sequence[str] | None]

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
    # (a caller's key with a line break or a control character in it is quoted as JSON: the line stays one)
    parts = [str(part) if str(part).isprintable() else json.dumps(str(part)) for part in loc]
    return ".".join(parts[1:] if placed and parts and parts[0] in _PLACES else parts)


def _what(problem: Mapping[str, Any]) -> str:
    kind = str(problem.get("type", ""))
    if kind in _SAID:
        return _SAID[kind]
    message = " ".join(str(problem.get("msg") or "invalid").split())  # (one line, whatever it held)
    return message.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def one_line(problems: Iterable[Mapping[str, Any]], *, whole: str = "the request body", placed: bool = True,
             takes: Takes | None = None) -> str:
    """pydantic's problems (``ValidationError.errors()``) as one line: ``name: what was wrong`` for each,
    ``; `` between them; a problem with the whole input is said of ``whole``. ``placed``: each problem's
    location leads with where in the request it was (FastAPI's), not with its name (MCP's). Fields the
    request does not take come first, those of one object together, with the fields it takes (``takes``):
    none is left out, nor counted instead of named."""
    strangers: dict[tuple[Any, ...], list[str]] = {}
    said = []
    for problem in problems:
        loc = tuple(problem.get("loc", ()))
        name, kind = _name(loc, placed), str(problem.get("type", ""))
        if name and kind == "extra_forbidden":
            strangers.setdefault(loc[:-1], []).append(name)
        elif name:
            said.append(f"{name}: {_what(problem)}")
        else:
            said.append(f"{whole} {_WHOLE[kind]}" if kind in _WHOLE else f"{whole}: {_what(problem)}")
    first = []
    for where, names in strangers.items():
        taken = takes(where) if takes is not None else None
        first.append(f"{', '.join(names)}: {_SAID['extra_forbidden']}" + (f" ({', '.join(taken) or 'none'})"
                                                                          if taken is not None else ""))
    return echoed("; ".join(first + said) or "invalid request")


def body_fields(route: Any) -> Takes:
    """The fields the object at a place of a request's body takes, by the body model of its ``route``
    (FastAPI's, ``scope["route"]``) or a model inside it (a turn of POST /jobs); None elsewhere."""
    field = getattr(route, "body_field", None)
    model = field.field_info.annotation if field is not None else None

    def taken(where: Sequence[Any]) -> Sequence[str] | None:
        return fields_at(model, where[1:]) if model is not None and where[:1] == ("body",) else None

    return taken


def arguments_of(types: Mapping[str, Any] | None) -> Takes | None:
    """The fields the object at a place of an MCP tool's arguments takes (a problem's place is not led by a
    part of the request): the arguments themselves at the top, else by the type its argument declares (a
    step's ``memory``, a turn of ``turns``); ``types``: each argument's, as the tool's function declares it."""
    if types is None:
        return None
    return lambda where: list(types) if not where else fields_at(types.get(str(where[0])), where[1:])


def fields_at(model: Any, path: Sequence[Any]) -> list[str] | None:
    """The fields (as a request names them) of the object at ``path`` in a value of ``model`` (a body's
    model; ``path`` the names and list positions down to it, as pydantic's ``loc``), None when no model
    is found there."""
    here: Any = model
    for part in path:
        here = _inside(here, part)
    found = next((m for m in _members(here) if isinstance(m, type) and issubclass(m, BaseModel)), None)
    return [field.alias or name for name, field in found.model_fields.items()] if found is not None else None


def _members(kind: Any) -> list[Any]:
    """The types a value of ``kind`` may be: a union's members, an ``Annotated`` type's own."""
    origin = get_origin(kind)
    if origin is Annotated:
        return _members(get_args(kind)[0])
    if origin is Union or origin is UnionType:
        return [member for arg in get_args(kind) for member in _members(arg)]
    return [kind]


def _inside(kind: Any, part: Any) -> Any:
    """The type of the value at ``part`` (a field's name, a list position, a mapping's key) of a value of
    ``kind``; None when there is none."""
    for member in _members(kind):
        origin, args = get_origin(member), get_args(member)
        if isinstance(part, str) and isinstance(member, type) and issubclass(member, BaseModel):
            for name, field in member.model_fields.items():
                if part in (name, field.alias):
                    return field.annotation
        elif isinstance(part, int) and origin in (list, tuple, set, frozenset, Sequence) and args:
            return args[0]
        elif isinstance(part, str) and origin in (dict, Mapping) and len(args) == 2:
            return args[1]
    return None


def not_json(document: str | bytes | None, position: int, why: str) -> str:
    """The message for a body that is not JSON: what the parser said, and where (line and column, as
    :class:`json.JSONDecodeError` counts them)."""
    text = document.decode("utf-8", "replace") if isinstance(document, bytes) else document or ""
    where = json.JSONDecodeError(why, text, min(max(position, 0), len(text)))
    why = why.removesuffix(" at")  # ("Unterminated string starting at": the place follows once)
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
