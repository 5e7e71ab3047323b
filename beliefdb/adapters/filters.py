"""LangGraph's search filter over an item's value, compared as typed (JSON) values: what
``BaseStore.search(filter=...)`` means in LangGraph's own stores, where they agree.

A filter maps fields of the item's value to conditions:

* a plain value matches an equal one: ``{"value": 5}``. Numbers equal numbers (``5 == 5.0``), strings
  strings; a boolean is not a number (``True`` is not ``1``, as in JSON and PostgresStore's jsonb);
  an object matches an object holding those keys with matching values (``{"scope": {"region": "EU"}}``,
  InMemoryStore's nested match), a list a list of as many matching items;
* ``{"$op": operand, ...}`` applies LangGraph's operators, all of which must hold: ``$eq``, ``$ne``
  (equality as above; ``$ne`` holds for a missing field, as in InMemoryStore), and ``$gt``, ``$gte``,
  ``$lt``, ``$lte``, which compare a number with a number and a string with a string (by code point).
  A missing field, or one of the other type, does not match: InMemoryStore raises there (it compares
  through ``float()``), PostgresStore finds no match. Objects nest operators too:
  ``{"scope": {"region": {"$ne": "EU"}}}``.

Any other operator (``$in``, ``$nin``, ``$and``, ``$or``... which LangGraph's stores do not have
either), a comparison with an operand that is not a number or a string, and a filter that is no
mapping (``filter="value"``, a list) are refused by
:func:`check` before anything is read, in one line (``InvalidInput``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from typing import Any

from beliefdb import errors

__all__ = ["OPERATORS", "check", "matches"]

_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le,
}
#: the operators of LangGraph's stores (InMemoryStore, PostgresStore, SqliteStore)
OPERATORS = ("$eq", "$ne", *_ORDER)


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _is_operators(condition: Any) -> bool:
    return isinstance(condition, Mapping) and any(str(k).startswith("$") for k in condition)


def check(wanted: Mapping[str, Any] | None) -> None:
    """Refuse a filter with an operator LangGraph does not have, or an ordering against an operand that
    is not a finite number or a string, whether or not any item would reach that condition; and a filter
    that is no mapping of fields to conditions (a text, a list)."""
    if wanted is not None and not isinstance(wanted, Mapping):
        raise errors.InvalidInput(f"a search filter maps fields to conditions ({{'value': 5}}), not"
                                  f" {type(wanted).__name__}")
    for field, condition in (wanted or {}).items():
        if str(field).startswith("$"):
            raise errors.InvalidInput(f"unknown filter operator {field!r}: a filter maps fields to conditions "
                                      f"(operators: {', '.join(OPERATORS)})")
        _check(str(field), condition)


def _check(path: str, condition: Any) -> None:
    if _is_operators(condition):
        for name, operand in condition.items():
            if name not in OPERATORS:
                raise errors.InvalidInput(f"unknown filter operator {name!r} on {path!r} "
                                          f"(operators: {', '.join(OPERATORS)})")
            if name in _ORDER and not (isinstance(operand, str) or (_number(operand) and math.isfinite(operand))):
                kind = str(operand) if _number(operand) else type(operand).__name__
                raise errors.InvalidInput(f"{name} on {path!r} compares a number or a string, not {kind}")
    elif isinstance(condition, Mapping):
        for key, inner in condition.items():
            _check(f"{path}.{key}", inner)
    elif isinstance(condition, list | tuple):
        for inner in condition:
            _check(path, inner)


def matches(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a filter :func:`check` accepted."""
    return all(_holds(value.get(field), condition) for field, condition in (wanted or {}).items())


def _holds(got: Any, condition: Any) -> bool:
    if _is_operators(condition):
        return all(_applies(got, name, operand) for name, operand in condition.items())
    if isinstance(condition, Mapping):
        return isinstance(got, Mapping) and all(_holds(got.get(k), v) for k, v in condition.items())
    if isinstance(condition, list | tuple):
        return (isinstance(got, list | tuple) and len(got) == len(condition)
                and all(_holds(g, c) for g, c in zip(got, condition, strict=True)))
    return _same(got, condition)


def _applies(got: Any, name: str, operand: Any) -> bool:
    if name == "$eq":
        return _same(got, operand)
    if name == "$ne":
        return not _same(got, operand)
    if (_number(got) and _number(operand)) or (isinstance(got, str) and isinstance(operand, str)):
        return _ORDER[name](got, operand)
    return False


def _same(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value, a boolean only to a boolean, objects and lists item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _number(a) or _number(b):
        return _number(a) and _number(b) and a == b
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return (isinstance(a, Mapping) and isinstance(b, Mapping) and a.keys() == b.keys()
                and all(_same(a[k], b[k]) for k in a))
    if isinstance(a, list | tuple) or isinstance(b, list | tuple):
        return (isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b, strict=True)))
    return bool(a == b)
