"""Stored text as the command line's text output shows it: what a tenant wrote (a title, a quote, a
source's name) can neither run a terminal's escape sequences nor forge a line of the output.

The rule, the text pictures' too (``pictures.labels.shorten``): every control character (Unicode
category Cc: C0, DEL and C1, newline and tab among them) is a space, and so is each character that reorders
or breaks a line (:data:`REORDERING`: bidi overrides, U+2028). ``--json`` prints the text exact,
JSON-escaped (:func:`beliefdb.render.to_json`)."""

from __future__ import annotations

import dataclasses
import functools
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

#: what reorders or breaks a line without being a control character: the bidi embeddings, overrides and
#: isolates (U+202E shows the words after it backwards) and the line and paragraph separators
REORDERING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")

#: every control character (Cc: U+0000-U+001F, U+007F-U+009F) and each of REORDERING, mapped to a space
#: by str.translate
CONTROLS = {code: " " for code in range(0xA0) if unicodedata.category(chr(code)) == "Cc"} | {
    ord(ch): " " for ch in REORDERING}

#: the control characters json.dumps leaves raw with ensure_ascii=False (DEL and C1), as JSON escapes
JSON_CONTROLS = {code: f"\\u{code:04x}" for code in range(0x7F, 0xA0)}


def plain(text: str) -> str:
    """``text`` with each control character a space: one line, no escape sequence."""
    return text.translate(CONTROLS)


def cleaned(value: Any) -> Any:
    """``value`` with :func:`plain` text wherever it holds text: in dataclasses (copied, the original
    kept), dicts (keys too), lists, tuples and iterators; anything else (ids, times, numbers) as is.
    A value with no control character is returned itself."""
    if isinstance(value, str):
        text = plain(value)
        return value if text == value else text
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: new for f in dataclasses.fields(value) if f.init
                   if (new := cleaned(old := getattr(value, f.name))) is not old}
        return dataclasses.replace(value, **changed) if changed else value
    if isinstance(value, dict):
        pairs = [(cleaned(k), cleaned(v)) for k, v in value.items()]
        same = all(k is a and v is b for (k, v), (a, b) in zip(pairs, value.items(), strict=True))
        return value if same else type(value)(pairs)
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):  # (a named tuple is left whole)
        items = [cleaned(v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, Iterator):
        return (cleaned(v) for v in value)
    return value


Render = TypeVar("Render", bound=Callable[..., str])


def for_terminal(render: Render) -> Render:
    """A text renderer given its arguments :func:`cleaned`: whatever stored text it shows is one line
    and runs no escape sequence, however its lines quote it."""
    @functools.wraps(render)
    def shown(*args: Any, **kwargs: Any) -> str:
        return render(*(cleaned(a) for a in args), **{k: cleaned(v) for k, v in kwargs.items()})

    return cast(Render, shown)
