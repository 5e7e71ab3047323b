"""docs/api-reference.md is generated from what the package exports: it may not drift from the
BeliefDB methods, the operations of beliefdb.api, the result types and the exceptions."""

from __future__ import annotations

import inspect
from pathlib import Path
from types import ModuleType

from conftest import load_script

from beliefdb import api, errors, models

ROOT = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    return load_script("api_reference", ROOT / "scripts" / "api_reference.py")


def test_api_reference_matches_the_package(tmp_path: Path) -> None:
    fresh = tmp_path / "api-reference.md"
    _generator().main(["--output", str(fresh)])
    checked_in = ROOT / "docs" / "api-reference.md"
    assert checked_in.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), (
        "docs/api-reference.md is out of date with the package: regenerate it with "
        "`python scripts/api_reference.py` and commit the result")


def test_every_export_is_in_the_reference_and_documented() -> None:
    text = _generator().render()
    public = [n for k in api.BeliefDB.__mro__[:-1] for n, v in vars(k).items() if not n.startswith("_") and callable(v)]
    assert len(public) > 35
    for name in public:
        assert f"- `{name}(self" in text, name
        assert inspect.getdoc(getattr(api.BeliefDB, name)), f"BeliefDB.{name} has no docstring"
    for name in api.__all__:
        value = getattr(api, name)
        if inspect.isfunction(value):
            assert f"{name}(" in text and inspect.getdoc(value), name
    for name in models.__all__:
        assert f"- `{name}` (" in text, name
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, errors.BeliefDBError):
            assert f"- `{value.__name__}(" in text and f"code `{value.code}`" in text, value.__name__


def test_a_summary_stops_where_the_doctest_starts() -> None:
    """A docstring's doctest lines are code, not prose: BeliefDB's summary ran them into its sentence
    (">>> db = connect(...) # doctest: +SKIP >>> db.ingest(...)")."""
    text = _generator().render()
    assert ">>>" not in text and "doctest" not in text
    assert "the source texts (``source_excerpts``) from :class:`~beliefdb.api.texts.Texts`.\n" in text
