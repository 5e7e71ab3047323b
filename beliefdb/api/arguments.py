"""Arguments of the wrong type, said as InvalidInput naming them, at the library's door.

A ``BeliefDB`` method given a number, bytes or None where it takes text (an agent's JSON, a caller's
slip) raised whatever Python met deep inside: ``ask(5)`` an AttributeError, ``beliefs(subject=5)`` a
TypeError, none of them a :class:`~beliefdb.errors.BeliefDBError`. :func:`check_text_arguments` wraps
each public method whose parameters are annotated as text (``str``, ``str | None``) or an id
(``str | UUID``, ``str | UUID | None``) so that such an argument is
:class:`~beliefdb.errors.InvalidInput` naming it (``question= must be a string, not int``), before
anything is read or written. The method's signature, docstring and result are its own.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from os import PathLike
from typing import Any
from uuid import UUID

from beliefdb import errors

__all__ = ["check_given", "check_opening", "check_text_arguments"]

#: annotation (as written: the modules use ``from __future__ import annotations``) -> (types, None allowed, said)
_CHECKED: dict[str, tuple[tuple[type, ...], bool, str]] = {
    "str": ((str,), False, "a string"),
    "str | None": ((str,), True, "a string"),
    "str | UUID": ((str, UUID), False, "an id (a str or a UUID)"),
    "str | UUID | None": ((str, UUID), True, "an id (a str or a UUID)"),
}
#: arguments the methods check themselves, in their own words (``expect=p.fingerprint`` uncalled: "call it"),
#: and methods that check every field of theirs (remember: "'value' must be a string, not int", at every door)
_OWN = frozenset({"expect"})
_OWN_METHODS = frozenset({"remember"})


def check_given(**named: object) -> None:
    """InvalidInput for a name given empty or blank (spaces only): it names nothing, and was answered as if
    nothing matched it (``beliefs(subject="")``: no beliefs; ``GET /beliefs?subject=``: 200 ``[]``) where every
    other argument given empty is refused."""
    for name, value in named.items():
        if isinstance(value, str) and not value.strip():
            said = "empty" if value == "" else f"blank ({value!r})"
            raise errors.InvalidInput(f"{errors.argument(name)} is {said}: it names no {name}")


def _problem(name: str, value: Any, rule: tuple[tuple[type, ...], bool, str]) -> str | None:
    types, optional, said = rule
    if isinstance(value, types) or (optional and value is None) or (UUID in types and _uuid_like(value)):
        return None
    return f"{errors.argument(name)} must be {said}, not {type(value).__name__}"


def _uuid_like(value: Any) -> bool:
    """An id of another library's UUID type (uuid_utils', which uuid7() makes): its text is a UUID."""
    if isinstance(value, (int, float, bytes)) or value is None:
        return False
    try:
        UUID(str(value))
    except ValueError:
        return False
    return True


def _checking(method: Callable[..., Any]) -> Callable[..., Any] | None:
    """``method`` checking its text arguments, or None when it takes none."""
    signature = inspect.signature(method)
    rules = {p.name: _CHECKED[p.annotation] for p in signature.parameters.values()
             if isinstance(p.annotation, str) and p.annotation in _CHECKED and p.name not in _OWN
             and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)}
    if not rules:
        return None

    @functools.wraps(method)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return method(*args, **kwargs)  # (Python's own error for a call that does not fit the signature)
        for name, rule in rules.items():
            if name in bound.arguments:  # (else its default)
                problem = _problem(name, bound.arguments[name], rule)
                if problem is not None:
                    raise errors.InvalidInput(problem)
        return method(*args, **kwargs)

    checked.checks_text_arguments = True  # type: ignore[attr-defined]
    return checked


def check_text_arguments(cls: type) -> None:
    """Wrap each public method of ``cls`` that takes text or ids, in place: where it is defined (``cls``
    or the part it inherits it from, so that each is still listed where it was)."""
    for name in dir(cls):
        if name.startswith("_") or name in _OWN_METHODS:
            continue
        owner = next(c for c in cls.__mro__ if name in vars(c))
        method = vars(owner)[name]
        if not inspect.isfunction(method) or getattr(method, "checks_text_arguments", False):
            continue
        checked = _checking(method)
        if checked is not None:
            setattr(owner, name, checked)


def check_opening(*, url: object, workspace: object, principal: object, home: object, max_size: object) -> None:
    """What opening memory is given (``connect``, ``BeliefDB``, ``aconnect``), of the wrong type: InvalidInput
    naming it, before any connection is opened (``workspace=5`` was an AttributeError, ``max_size=2.5``
    opened a memory)."""
    for name, value in (("url", url), ("workspace", workspace), ("principal", principal)):
        problem = _problem(name, value, _CHECKED["str | None"])
        if problem is not None:
            raise errors.InvalidInput(problem)
    if home is not None and not isinstance(home, str | PathLike):
        raise errors.InvalidInput(f"{errors.argument('home')} must be a path (a str or a Path), not"
                                  f" {type(home).__name__}")
    if isinstance(max_size, bool) or not _whole(max_size):
        raise errors.InvalidInput(f"{errors.argument('max_size')} must be a whole number, not"
                                  f" {type(max_size).__name__}")


def _whole(value: object) -> bool:
    """An int, or what stands for one (numpy's int64: ``operator.index`` takes it)."""
    try:
        operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True
