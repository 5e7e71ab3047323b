"""docs/sql-reference.md is generated from the catalog of a freshly migrated database: it may not
drift from what sql/ really creates and grants."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

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
