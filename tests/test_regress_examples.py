"""The psql examples of docs/dba.md, run pg_regress style: every ``docs/examples/NN_name.sql`` runs
statement by statement, as ``psql -X -a -q`` would, on a fresh migrated database, and its echo and
results must equal ``NN_name.out``. ``BELIEFDB_REGRESS_UPDATE=1`` rewrites the .out files.

psql is not needed. The format, written by :func:`run_script`:

- each statement is echoed as written (with the comments before it), then its result;
- a result with columns is printed aligned like psql's: centred headers, numbers right-aligned,
  a multi-line value continued with ``+``, then ``(N rows)`` and a blank line; trailing spaces
  are dropped; a command without columns prints nothing (psql's quiet mode);
- a notice, warning or error prints as psql's ``VERBOSITY verbose`` does, less the ``LOCATION``
  line (``ERROR:  BD004: text``, ``DETAIL:  ...``, ``HINT:  ...``), with every uuid in its text
  written ``<uuid>``, and the script goes on;
- ``\\ir NN_name.sql`` runs another example first (typically the story of ``01_story.sql``);
  unlike psql, only the errors of what it includes are printed, and its ``\\gset`` variables
  carry over;
- ``\\gset [prefix]`` in place of the ``;`` stores the columns of a one-row result as variables,
  and ``:name`` / ``:'name'`` substitute them (raw / as a literal), as in psql.

Every session starts with ``beliefdb.now`` fixed at 2026-11-30 09:00 UTC (``CLOCK``), so what
beliefdb stamps with its clock is the same on every run. Ids are random: examples store them
with ``\\gset`` and print counts, statuses and values instead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from psycopg import pq
from psycopg.conninfo import make_conninfo

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
CLOCK = "2026-11-30T09:00:00Z"
# int2, int4, int8, oid, float4, float8, money, numeric: right-aligned, as psql does
NUMERIC_OIDS = {20, 21, 23, 26, 700, 701, 790, 1700}


@dataclass
class Statement:
    echo: str  # as written, with the comments before it
    sql: str  # what is sent (without the terminator)
    gset: str | None  # the \gset prefix ("" for none), or None for a plain statement
    include: str | None = None  # \ir FILE: run that example first, quietly


def split_script(text: str) -> tuple[list[Statement], str]:
    """Statements of a psql script, split where psql would (``;`` or ``\\gset`` outside quotes,
    comments and dollar quotes), and what trails the last one."""
    statements: list[Statement] = []
    start = 0  # where the current echo begins
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c in "'\"":
            j = i + 1
            while j < n:
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:  # doubled quote
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
        elif c == "$" and (tag := re.match(r"\$(?:[A-Za-z_]\w*)?\$", text[i:])) is not None:
            j = text.find(tag.group(), i + len(tag.group()))
            i = n if j < 0 else j + len(tag.group())
        elif c == ";":
            end = _line_end(text, i + 1)
            statements.append(Statement(text[start:end].rstrip("\n"), text[start:i], None))
            start = i = end
        elif c == "\\":
            meta = re.match(r"\\(\w+)[ \t]*([\w.]*)[ \t]*", text[i:])
            if meta is None or meta.group(1) not in ("gset", "ir"):
                raise ValueError(f"unsupported psql meta-command at offset {i}: {text[i : i + 20]!r}")
            end = _line_end(text, i + meta.end())
            echo = text[start:end].rstrip("\n")
            if meta.group(1) == "ir":
                statements.append(Statement(echo, text[start:i], None, meta.group(2)))
            else:
                statements.append(Statement(echo, text[start:i], meta.group(2)))
            start = i = end
        else:
            i += 1
    return statements, text[start:]


def _line_end(text: str, i: int) -> int:
    """Past the end of the line at ``i`` if only blanks or a comment are left on it, else ``i``."""
    m = re.match(r"[ \t]*(?:--[^\n]*)?(?:\n|$)", text[i:])
    return i + m.end() if m else i


def substitute(sql: str, variables: dict[str, str]) -> str:
    def repl(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if name not in variables:
            return m.group(0)
        value = variables[name]
        return "'" + value.replace("'", "''") + "'" if m.group(1) else value

    return re.sub(r"(?<![:\w]):(?:'(\w+)'|(\w+))", repl, sql)


def render_table(names: list[str], numeric: list[bool], rows: list[list[str]]) -> list[str]:
    cells = [[value.split("\n") for value in row] for row in rows]
    widths = [len(name) for name in names]
    for row in cells:
        for k, lines in enumerate(row):
            widths[k] = max(widths[k], *(len(x) for x in lines))
    out = []
    header = []
    for k, name in enumerate(names):
        left = (widths[k] - len(name)) // 2
        header.append(" " + (" " * left + name).ljust(widths[k]) + " ")
    out.append("|".join(header).rstrip())
    out.append("+".join("-" * (w + 2) for w in widths))
    for row in cells:
        height = max((len(lines) for lines in row), default=1)
        for h in range(height):
            parts = []
            for k, lines in enumerate(row):
                text = lines[h] if h < len(lines) else ""
                text = text.rjust(widths[k]) if numeric[k] else text.ljust(widths[k])
                parts.append(" " + text + ("+" if h + 1 < len(lines) else " "))
            out.append("|".join(parts).rstrip())
    out.append("(1 row)" if len(rows) == 1 else f"({len(rows)} rows)")
    out.append("")
    return out


_SEVERITY = pq.DiagnosticField.SEVERITY_NONLOCALIZED
_FIELDS = ((pq.DiagnosticField.MESSAGE_DETAIL, "DETAIL"), (pq.DiagnosticField.MESSAGE_HINT, "HINT"))


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _message(res: pq.PGresult) -> list[str]:
    """An error or notice as psql prints it with VERBOSITY verbose (less the LOCATION line), the
    random ids in its text written ``<uuid>``."""
    severity = (res.error_field(_SEVERITY) or b"ERROR").decode()
    code = (res.error_field(pq.DiagnosticField.SQLSTATE) or b"").decode()
    primary = (res.error_field(pq.DiagnosticField.MESSAGE_PRIMARY) or b"").decode()
    lines = [f"{severity}:  {code + ': ' if code and code != '00000' else ''}{primary}"]
    for field, label in _FIELDS:
        value = res.error_field(field)
        if value:
            lines.append(f"{label}:  {value.decode()}")
    return [_UUID.sub("<uuid>", line) for line in lines]


def run_script(url: str, text: str, base: Path = EXAMPLES) -> str:
    """Run a psql script on ``url`` and return what ``psql -X -a -q`` would print (see above)."""
    conn = pq.PGconn.connect(make_conninfo(url, options=f"-c beliefdb.now={CLOCK}").encode())
    if conn.status != pq.ConnStatus.OK:
        raise RuntimeError(conn.get_error_message())
    out: list[str] = []
    conn.notice_handler = lambda res: out.extend(_message(res))
    try:
        _run(conn, text, base, out, {}, quiet=False)
    finally:
        conn.finish()
    return "\n".join(out).rstrip("\n") + "\n"


def _run(conn: pq.PGconn, text: str, base: Path, out: list[str], variables: dict[str, str], quiet: bool) -> None:
    statements, trailer = split_script(text)
    for statement in statements:
        if not quiet:
            out.extend(statement.echo.split("\n"))
        if statement.include is not None:
            # psql would echo the included file too; here only its errors show
            included: list[str] = []
            _run(conn, (base / statement.include).read_text(encoding="utf-8"), base, included, variables, quiet=True)
            out.extend(included)
            continue
        res = conn.exec_(substitute(statement.sql, variables).encode())
        if res.status == pq.ExecStatus.FATAL_ERROR:
            out.extend(_message(res))
        elif res.status == pq.ExecStatus.TUPLES_OK:
            names = [(res.fname(k) or b"").decode() for k in range(res.nfields)]
            rows = [[(res.get_value(r, k) or b"").decode() for k in range(res.nfields)] for r in range(res.ntuples)]
            if statement.gset is not None:
                if len(rows) != 1:
                    out.append("more than one row returned for \\gset" if rows else "no rows returned for \\gset")
                else:
                    for name, value in zip(names, rows[0], strict=True):
                        variables[statement.gset + name] = value
            elif not quiet:
                numeric = [res.ftype(k) in NUMERIC_OIDS for k in range(res.nfields)]
                out.extend(render_table(names, numeric, rows))
    if trailer.strip() and not quiet:
        out.extend(trailer.rstrip("\n").split("\n"))


SCRIPTS = sorted(EXAMPLES.glob("*.sql"))


def test_examples_exist() -> None:
    assert SCRIPTS, f"no examples in {EXAMPLES}"


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_example(script: Path, db_url: str) -> None:
    actual = run_script(db_url, script.read_text(encoding="utf-8"))
    expected_path = script.with_suffix(".out")
    if os.environ.get("BELIEFDB_REGRESS_UPDATE") == "1":
        expected_path.write_text(actual, encoding="utf-8")
        return
    assert expected_path.exists(), f"{expected_path} is missing: run with BELIEFDB_REGRESS_UPDATE=1 to write it"
    expected = expected_path.read_text(encoding="utf-8")
    assert actual == expected, (
        f"{script.name} no longer prints {expected_path.name}. If the change is intended, rewrite it with "
        f"BELIEFDB_REGRESS_UPDATE=1 pytest tests/test_regress_examples.py -k {script.stem} and review the diff"
    )


def test_runner_format() -> None:
    statements, trailer = split_script("select 1; -- a\n-- c\nselect ';' as x, $q$;$q$ \\gset p_\nselect 2;\n-- end\n")
    assert [s.sql.strip() for s in statements] == ["select 1", "-- c\nselect ';' as x, $q$;$q$", "select 2"]
    assert statements[0].echo == "select 1; -- a"
    assert statements[1].gset == "p_"
    assert trailer == "-- end\n"
    assert substitute("select :'a', :b, x::text, ':c'", {"a": "it's", "b": "2"}) == "select 'it''s', 2, x::text, ':c'"
    assert render_table(["n", "text"], [True, False], [["1", "a\nbc"], ["10", "d"]]) == [
        " n  | text",
        "----+------",
        "  1 | a   +",
        "    | bc",
        " 10 | d",
        "(2 rows)",
        "",
    ]
