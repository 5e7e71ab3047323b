"""docs/sql-reference.md is generated from the catalog of a freshly migrated database: it may not
drift from what sql/ really creates and grants."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    return load_script("sql_reference", ROOT / "scripts" / "sql_reference.py")


def test_sql_reference_matches_the_catalog(db_url: str, tmp_path: Path) -> None:
    generator = _generator()
    fresh = tmp_path / "sql-reference.md"
    generator.main(["--url", db_url, "--output", str(fresh)])
    checked_in = ROOT / "docs" / "sql-reference.md"
    assert checked_in.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), (
        "docs/sql-reference.md is out of date with sql/: regenerate it with "
        "`python scripts/sql_reference.py` and commit the result"
    )


def test_sql_reference_marks_the_application_role(db_url: str) -> None:
    text = _generator().render(db_url)
    assert "`beliefdb.ingest_version(" in text
    line = next(x for x in text.splitlines() if x.startswith("- `beliefdb._audit_append("))
    assert "**app**" not in line  # an audit internal: not granted
    line = next(x for x in text.splitlines() if x.startswith("- `beliefdb.retract("))
    assert "**app**" in line


def test_every_object_is_listed_under_the_file_that_creates_it(db_url: str) -> None:
    """The audit triggers' functions (``_audit_rows_<table>``, made from one template by format() in
    internal/28_audit.sql) were listed under "(not in sql/)", whose index row said ``| (not in sql |`` and whose
    heading ``*(not in sql*:``: its "/" was read as a section's. Each is under its file, and every index row
    names one of the three sections."""
    generator = _generator()
    text = generator.render(db_url)
    assert generator.NOT_IN_SQL not in text
    line = next(x for x in text.split("## internal/28_audit.sql", 1)[1].splitlines()
                if x.startswith("- `beliefdb._audit_rows_belief()`"))
    assert line.startswith("- `beliefdb._audit_rows_belief()`: Trigger: append one audit event")
    rows = [x for x in text.splitlines() if x.startswith("| ") and "](#" in x]
    assert rows and {x.split(" | ", 1)[0].removeprefix("| ") for x in rows} == set(generator.SECTIONS)


def test_an_object_no_file_creates_is_listed_in_no_section(postgresql: psycopg.Connection[Any], db_url: str) -> None:
    """A function a DBA put in schema beliefdb by hand is under its own heading, in no section."""
    postgresql.execute("create function beliefdb.by_hand() returns int language sql as 'select 1'")
    postgresql.commit()
    text = _generator().render(db_url)
    assert "|  | [`(not in sql/)`](#not-in-sql) |  |" in text.splitlines()
    heading = text.split("## (not in sql/)\n\n", 1)[1]
    assert heading.startswith("### Functions\n\n- `beliefdb.by_hand() → integer` · **app**"), heading[:200]
    assert "(not in sql*" not in text
