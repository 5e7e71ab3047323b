"""The SQL statements beliefdb sends from Python, by name.

They live in ``beliefdb/db/queries.sql``, in procrastinate's format: each block starts with a
``-- name --`` line and a ``-- description`` line, then the statement (``%s`` or ``%(name)s``
placeholders; a trailing ``;`` is dropped). The file is parsed once, at import; a duplicate
name, a block without a description or statement, or anything but comments before the first
block is an error. Modules send ``Q.name`` (or ``Q["name"]``); an unknown name raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import LiteralString, cast

# "-- name --" and the comment lines right after it (the description)
_BLOCK = re.compile(r"^-- ([a-z0-9_]+) --[ \t]*\n((?:--(?: .*)?\n)*)", re.MULTILINE)


class QueryFileError(ValueError):
    """queries.sql is malformed (duplicate name, missing description or statement)."""


def parse(text: str, origin: str = "queries.sql") -> dict[str, LiteralString]:
    """The named statements of a file in procrastinate's queries.sql format."""
    parts = _BLOCK.split(text if text.endswith("\n") else text + "\n")
    header, rest = parts[0], parts[1:]
    for line in header.splitlines():
        if line.strip() and not line.lstrip().startswith("--"):
            raise QueryFileError(f"{origin}: statement text before the first '-- name --' line: {line.strip()!r}")
    queries: dict[str, LiteralString] = {}
    for name, description, body in zip(rest[0::3], rest[1::3], rest[2::3], strict=True):
        if name in queries:
            raise QueryFileError(f"{origin}: query {name!r} is defined twice")
        if not description.strip("-\n \t"):
            raise QueryFileError(f"{origin}: query {name!r} has no description line")
        statement = body.strip().removesuffix(";").rstrip()
        if not statement:
            raise QueryFileError(f"{origin}: query {name!r} has no statement")
        # the file ships with the package: its statements are as trusted as literals in the code
        queries[name] = cast(LiteralString, statement)
    return queries


class Queries(Mapping[str, LiteralString]):
    """Named statements; ``Q.name`` and ``Q["name"]`` raise for a name the file does not define."""

    def __init__(self, queries: Mapping[str, LiteralString]) -> None:
        self._queries = dict(queries)

    def __getitem__(self, name: str) -> LiteralString:
        try:
            return self._queries[name]
        except KeyError:
            raise KeyError(f"no query named {name!r} in beliefdb/queries.sql") from None

    def __getattr__(self, name: str) -> LiteralString:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._queries[name]
        except KeyError:
            raise AttributeError(f"no query named {name!r} in beliefdb/queries.sql") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._queries)

    def __len__(self) -> int:
        return len(self._queries)


def load() -> Queries:
    """beliefdb/queries.sql, parsed."""
    return Queries(parse(resources.files("beliefdb.db").joinpath("queries.sql").read_text(encoding="utf-8")))


Q = load()
