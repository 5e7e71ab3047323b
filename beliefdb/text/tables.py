"""Markdown tables for the rule extractor: a header row, a separator row (``|---|:--:|``), then rows; each
cell of a row but the first is a belief about the section the table stands in, its attribute the
column's header, scoped by the row's first cell (the first column's header the scope's key), quoting the
whole row ("| EU | 3 days | 5 EUR |" under "| Region | Delivery time | Cost |": ``delivery_time`` = ``3 days``
and ``cost`` = ``5 EUR``, scope ``{"region": "EU"}``); a header in any script is the attribute as written
(``配送时间``, as a key's name). A table of two columns headed "Property" and "Value" (or such words in another
language, :data:`KEY_HEADERS`, :data:`VALUE_HEADERS`) is a list of ``Key: value`` lines: the first cell names
the attribute. A row
of another width than its header, and an empty cell, say nothing; a cell under a header with no letter or
digit ("—") says nothing either, and is reported (:func:`unnamed_cells`)."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Final, NamedTuple

from beliefdb.text.extractor import Candidate, any_script_name, normalise_name
from beliefdb.text.fragments import LINE_BREAKS
from beliefdb.text.naming import cjk_name, is_cjk, kind_of, short_qualifiers

_LINE_BREAK: Final = re.compile(f"\r\n|[{LINE_BREAKS}]")

__all__ = ["TableRow", "column_name", "is_table_rule", "row_candidates", "table_rows", "unnamed_cells"]

_SEPARATOR: Final = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*")
_PIPE: Final = re.compile(r"(?<!\\)\|")


class TableRow(NamedTuple):
    header: list[str]
    cells: list[str]
    end: int  # where the row's line ends, its trailing whitespace left out


def _cell_spans(line: str) -> list[tuple[int, int]] | None:
    """Where the cells of a table line are in it (its outer pipes optional; each cell without the spaces
    around it), or None when it has no pipe."""
    lo, hi = len(line) - len(line.lstrip()), len(line.rstrip())
    if "|" not in line[lo:hi]:
        return None
    if line.startswith("|", lo):
        lo += 1
    if line[lo:hi].endswith("|") and not line[lo:hi].endswith("\\|"):
        hi -= 1
    bounds = [lo - 1, *(m.start() for m in _PIPE.finditer(line, lo, hi)), hi]
    spans = []
    for a, b in pairwise(bounds):
        cell = line[a + 1:b]
        begin = a + 1 + len(cell) - len(cell.lstrip())
        spans.append((begin, begin + len(cell.strip())))
    return spans


def _cells(line: str) -> list[str] | None:
    """The cells of a table line (its outer pipes optional), or None when it has no pipe."""
    spans = _cell_spans(line)
    return None if spans is None else [line[a:b] for a, b in spans]


def is_table_rule(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, a whole line but its whitespace, is a table's row of dashes or the header
    row above one: the titles of its columns, no statement."""
    if "|" not in text[start:end]:
        return False
    if _SEPARATOR.fullmatch(text, start, end):
        return True
    after = _LINE_BREAK.match(text, end)
    if after is None:
        return False
    nxt = _LINE_BREAK.search(text, after.end())
    return _SEPARATOR.fullmatch(text, after.end(), nxt.start() if nxt else len(text)) is not None


def table_rows(text: str) -> dict[int, TableRow]:
    """The body rows of ``text``'s markdown tables, by where each row's text starts."""
    lines: list[tuple[int, str]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        lines.append((pos, line))
        pos += len(line)
    rows: dict[int, TableRow] = {}
    i = 0
    while i + 1 < len(lines):
        header = _cells(lines[i][1])
        if header is None or len(header) < 2 or not _SEPARATOR.fullmatch(lines[i + 1][1].rstrip("\r\n")) \
                or len(_cells(lines[i + 1][1]) or []) != len(header):
            i += 1
            continue
        i += 2
        while i < len(lines) and (cells := _cells(lines[i][1])) is not None:
            start, line = lines[i]
            stripped = line.lstrip()
            if len(cells) == len(header):
                begin = start + len(line) - len(stripped)
                rows[begin] = TableRow(header, cells, begin + len(stripped.rstrip()))
            i += 1
    return rows


def column_name(header: str) -> str:
    """The attribute a column's header names: its name as earlier releases named it (:func:`normalise_name`;
    "Maximum" and "Minimum" spelled "Max" and "Min" since 2026-12-08),
    or, where that is nothing, a CJK one unspaced as a CJK key's, another in its own script; '' for none."""
    return normalise_name(short_qualifiers(header), singular=False) or (
        cjk_name(header) if any(is_cjk(ch) for ch in header) else any_script_name(header, singular=False))


def unnamed_cells(text: str, start: int, row: TableRow) -> list[tuple[int, int, str]]:
    """The cells of the row starting at ``start`` that say something under a header that names nothing
    (:func:`column_name`): each as (start, end, header), its offsets in ``text``, the first cell (the row's
    key) never."""
    spans = _cell_spans(text[start:row.end]) or []
    return [(start + a, start + b, header) for (a, b), header in list(zip(spans, row.header, strict=True))[1:]
            if a < b and not column_name(header)]


#: the header of a second and last column that names no attribute of its own, in the languages the
#: extractor reads: its table is a list of ``Key: value`` lines, each row's first cell naming the attribute
#: ("| Packed weight | 2.1 kg |" under "| Property | Value |": ``packed_weight`` = ``2.1 kg``)
VALUE_HEADERS: Final = frozenset({"value", "values", "wert", "werte", "valor", "valores", "valeur", "valeurs",
                                  "valore", "valori", "waarde", "值", "数值", "取值"})

#: the header of a first column that names what each row's value is ("| Region | Value |" is no such list:
#: a value by region)
KEY_HEADERS: Final = frozenset({"property", "attribute", "field", "key", "name", "parameter", "setting", "feature",
                                "characteristic", "specification", "spec", "item", "eigenschaft", "merkmal",
                                "propiedad", "característica", "atributo", "campo", "propriété",
                                "caractéristique", "attribut", "champ", "proprietà", "caratteristica", "属性", "项目",
                                "参数", "名称", "特性"})


def row_candidates(text: str, start: int, row: TableRow, subject: str) -> list[Candidate]:
    """The beliefs of the row starting at ``start``, about ``subject`` (the section's)."""
    key, value_cells = row.cells[0], row.cells[1:]
    scope_key = normalise_name(row.header[0], singular=False) or "row"  # (as stored before: "| 地区 |" is "row")
    if not key:
        return []
    quote = text[start:row.end]
    if (len(row.header) == 2 and row.header[1].strip().lower() in VALUE_HEADERS
            and row.header[0].strip().lower() in KEY_HEADERS):
        # (every row's attribute was "value", scoped by its first cell: no name said what it was)
        attribute, value = column_name(key), value_cells[0]
        return [Candidate(statement=f"{key}: {value}", subject=subject, attribute=attribute, value=value, quote=quote,
                          kind=kind_of(attribute), start=start, end=row.end)] if attribute and value else []
    out = []
    for header, value in zip(row.header[1:], value_cells, strict=True):
        attribute = column_name(header)
        if not attribute or not value:
            continue
        out.append(Candidate(statement=f"{key}: {header} {value}", subject=subject, attribute=attribute, value=value,
                             quote=quote, kind=kind_of(attribute), scope={scope_key: key}, start=start, end=row.end))
    return out
