"""Write docs/sql-reference.md: every function, view and table of schema ``beliefdb`` as a freshly
migrated database has them, with its ``comment on`` text, its signature and result type, grouped by
the file of ``sql/`` that creates it (named with its section: ``schema/``, ``internal/`` or ``api/``),
and whether the application role ``beliefdb_app`` may use it, and a function whether the reader's role
``beliefdb_reader`` may call it (read from the catalog: ``has_function_privilege`` / ``has_table_privilege``).

    python scripts/sql_reference.py                 # starts a scratch embedded server, migrates it
    python scripts/sql_reference.py --url URL       # reads an already migrated database
    python scripts/sql_reference.py --output FILE   # somewhere else than docs/sql-reference.md

tests/test_sql_reference.py regenerates it and fails when the checked-in file differs.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import psycopg

from beliefdb.db import migrate

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "docs" / "sql-reference.md"
APP_ROLE = "beliefdb_app"
READER_ROLE = "beliefdb_reader"

# the order a migration applies them: the tables (revisions), then the re-applied files; each a path
# relative to sql/ whose folder is its section
FILE_ORDER = migrate.SQL_FILES
SECTIONS = {
    "schema": "the schema, types, tables and the rows every installation starts with",
    "internal": "what the application never calls: internals named with a leading underscore, and"
                " trigger functions with their triggers",
    "api": "what the application role and DBAs call, the views, and the grants",
}

_CREATE = re.compile(
    r"^\s*create\s+(?:or\s+replace\s+)?(?P<what>function|procedure|view|table|type)\s+"
    r"(?:if\s+not\s+exists\s+)?beliefdb\.(?P<name>\w+)",
    re.IGNORECASE | re.MULTILINE,
)

# an object a file creates from a template (`create or replace function beliefdb.%1$I()`, run by format()) has no
# name in the file but a prefix: a literal the name is built from (`'_audit_rows_' || t.name`)
_TEMPLATE = re.compile(r"create\s+(?:or\s+replace\s+)?(?P<what>function|procedure|view|table)\s+beliefdb\.%",
                       re.IGNORECASE)
_PREFIX = re.compile(r"'(?P<prefix>\w+)'\s*\|\|")

#: where an object no file of sql/ creates is listed (its own heading, in no section)
NOT_IN_SQL = "(not in sql/)"

FUNCTIONS = """
select p.proname as name,
       pg_get_function_arguments(p.oid) as arguments,
       pg_get_function_identity_arguments(p.oid) as identity,
       pg_get_function_result(p.oid) as result,
       p.prokind as kind,
       p.prosecdef as security_definer,
       coalesce(obj_description(p.oid, 'pg_proc'), '') as comment,
       has_function_privilege(%(role)s, p.oid, 'execute') as granted,
       has_function_privilege(%(reader)s, p.oid, 'execute') as reader
  from pg_proc p
  join pg_namespace n on n.oid = p.pronamespace
 where n.nspname = 'beliefdb'
   and not exists (select from pg_depend d where d.objid = p.oid and d.deptype = 'e')
 order by p.proname, pg_get_function_identity_arguments(p.oid)
"""

RELATIONS = """
select c.relname as name,
       c.relkind as kind,
       coalesce(obj_description(c.oid, 'pg_class'), '') as comment,
       array_remove(array[
           case when has_table_privilege(%(role)s, c.oid, 'select') then 'select' end,
           case when has_table_privilege(%(role)s, c.oid, 'insert') then 'insert' end,
           case when has_any_column_privilege(%(role)s, c.oid, 'insert')
                 and not has_table_privilege(%(role)s, c.oid, 'insert') then 'insert (some columns)' end,
           case when has_table_privilege(%(role)s, c.oid, 'update') then 'update' end,
           case when has_any_column_privilege(%(role)s, c.oid, 'update')
                 and not has_table_privilege(%(role)s, c.oid, 'update') then 'update (some columns)' end,
           case when has_table_privilege(%(role)s, c.oid, 'delete') then 'delete' end], null) as privileges,
       c.relrowsecurity as row_security,
       (select string_agg(format('%%s %%s', a.attname, format_type(a.atttypid, a.atttypmod)), ', '
                          order by a.attnum)
          from pg_attribute a
         where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = 'beliefdb' and c.relkind in ('r', 'p', 'v', 'm')
   and c.relname <> 'alembic_version'  -- its comment is the fingerprint of sql/: not documentation
   and not exists (select from pg_depend d where d.objid = c.oid and d.deptype = 'e')
 order by c.relname
"""


class Places:
    """Which file of sql/ creates each object: by its name, or, made from a template, by its name's prefix."""

    def __init__(self) -> None:
        self.named: dict[tuple[str, str], str] = {}  # (kind, name): file (the first that creates it)
        self.prefixed: list[tuple[str, str, str]] = []  # (kind, prefix, file)

    def file(self, kind: str, name: str) -> str:
        """The file that creates it; NOT_IN_SQL when none does."""
        return self.named.get((kind, name)) or next(
            (file for of, prefix, file in self.prefixed if of == kind and name.startswith(prefix)), NOT_IN_SQL)


def file_of_objects(sql_dir: Path) -> tuple[Places, dict[str, str]]:
    """Which file of sql/ creates each object (first creation wins), and each file's first
    header line (its concern)."""
    where = Places()
    concern: dict[str, str] = {}
    for name in FILE_ORDER:
        text = (sql_dir / name).read_text(encoding="utf-8")
        header = []
        for line in text.splitlines():
            if not line.startswith("--"):
                break
            header.append(line.lstrip("-").strip())
        first = re.sub(r"^beliefdb:\s*", "", " ".join(header))
        sentence = re.match(r"(.+?\.)(\s|$)", first)
        concern[name] = (sentence[1] if sentence else first).strip()
        for match in _CREATE.finditer(text):
            what = match["what"].lower()
            kind = "function" if what in ("function", "procedure") else what
            where.named.setdefault((kind, match["name"]), name)
        for match in _TEMPLATE.finditer(text):
            what = match["what"].lower()
            kind = "function" if what in ("function", "procedure") else what
            where.prefixed += [(kind, prefix, name) for prefix in _PREFIX.findall(text)]
    return where, concern


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def section(name: str) -> str:
    """The section of a file of sql/: the folder it is in (none for NOT_IN_SQL, whose "/" is no folder's)."""
    return name.split("/", 1)[0] if name in FILE_ORDER else ""


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def render(url: str) -> str:
    """The reference, as Markdown, for the migrated database at ``url``."""
    where, concern = file_of_objects(migrate.sql_dir())
    with psycopg.connect(url) as conn:
        conn.row_factory = psycopg.rows.dict_row
        functions = conn.execute(FUNCTIONS, {"role": APP_ROLE, "reader": READER_ROLE}).fetchall()
        relations = conn.execute(RELATIONS, {"role": APP_ROLE}).fetchall()

    by_file: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for row in relations:
        kind = "view" if row["kind"] in ("v", "m") else "table"
        by_file[where.file(kind, row["name"])][kind].append(row)
    for row in functions:
        kind = "trigger" if row["result"] == "trigger" else "function"
        by_file[where.file("function", row["name"])][kind].append(row)

    granted = sum(1 for f in functions if f["granted"] and f["result"] != "trigger")
    readable = sum(1 for f in functions if f["reader"] and f["result"] != "trigger")
    out: list[str] = [
        "# SQL reference",
        "",
        "<!-- Generated by scripts/sql_reference.py from the catalog of a freshly migrated database."
        " Do not edit: run `python scripts/sql_reference.py`. -->",
        "",
        "Every function, view and table of schema `beliefdb`, as a fresh `beliefdb migrate` creates them,"
        " grouped by the file of `sql/` that defines them, in the order a migration applies them. The text"
        " of each entry is its `comment on`; **app** marks what the application role `beliefdb_app` may"
        " call or read (from `has_function_privilege` / `has_table_privilege`), **reader** what the reader's"
        " role `beliefdb_reader` may call (it reads what `beliefdb_app` reads, and writes nothing), and"
        " *definer* a function that runs with its owner's rights. The narrative is [dba.md](dba.md).",
        "",
        "The files of `sql/` are in three sections, numbered across them in the order they apply: "
        + "; ".join(f"`{name}/`, {what}" for name, what in SECTIONS.items()) + ".",
        "",
        f"{len(functions)} functions ({granted} callable by `beliefdb_app`, {readable} by `beliefdb_reader`,"
        " not counting triggers),"
        f" {sum(1 for r in relations if r['kind'] in ('v', 'm'))} views,"
        f" {sum(1 for r in relations if r['kind'] in ('r', 'p'))} tables.",
        "",
    ]
    files = [f for f in FILE_ORDER if f in by_file] + [f for f in by_file if f not in FILE_ORDER]
    out.append("| section | file | concern |")
    out.append("|---|---|---|")
    for name in files:
        out.append(f"| {section(name)} | [`{name}`](#{anchor(name)}) | {_cell(concern.get(name, ''))} |")
    out.append("")
    for name in files:
        groups = by_file[name]
        out.append(f"## {name}")
        out.append("")
        lead = f"*{section(name)}*: {concern.get(name, '')}" if section(name) else concern.get(name, "")
        if lead:
            out.append(lead)
            out.append("")
        for kind, title in (("table", "Tables"), ("view", "Views")):
            if not groups.get(kind):
                continue
            out.append(f"### {title}")
            out.append("")
            out.append(f"| {kind} | `beliefdb_app` may | row security | what it holds |")
            out.append("|---|---|---|---|")
            for row in groups[kind]:
                privileges = ", ".join(row["privileges"]) or "—"
                rls = "yes" if row["row_security"] else ""
                out.append(f"| `{row['name']}` | {privileges} | {rls} | {_cell(row['comment'])} |")
            out.append("")
            for row in groups[kind]:
                out.append(f"- `{row['name']}` ({_cell(row['columns'] or '')})")
            out.append("")
        if groups.get("function"):
            out.append("### Functions")
            out.append("")
            for row in groups["function"]:
                marks = []
                if row["granted"]:
                    marks.append("**app**")
                if row["reader"]:
                    marks.append("**reader**")
                if row["security_definer"]:
                    marks.append("*definer*")
                args = _cell(row["arguments"])
                head = f"- `beliefdb.{row['name']}({args}) → {_cell(row['result'])}`"
                if marks:
                    head += " · " + " · ".join(marks)
                out.append(head)
                out.append(f"  {_cell(row['comment']) or '(no comment)'}")
            out.append("")
        if groups.get("trigger"):
            out.append("### Trigger functions")
            out.append("")
            for row in groups["trigger"]:
                out.append(f"- `beliefdb.{row['name']}()`: {_cell(row['comment']) or '(no comment)'}")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a migrated database (default: a scratch embedded server)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    if args.url:
        text = render(args.url)
    else:
        from beliefdb.db.bootstrap import scratch_database

        with scratch_database("beliefdb-sqlref-") as url:
            text = render(url)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
