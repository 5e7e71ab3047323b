"""Every "rule N" beliefdb cites — in its code, SQL comments, help, messages and documents — is a rule
of docs/rules.md, and the package says where they are (``beliefdb rules N`` prints one)."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import Cli

from beliefdb import api
from beliefdb.errors import NotFound

ROOT = Path(__file__).resolve().parent.parent
# "rule 8", "rules 2 and 4", "rules 8, 15-19", "rules 6 and 7"
_CITATION = re.compile(r"\brules? (\d+(?:\s*(?:,|and|–|-)\s*\d+)*)", re.IGNORECASE)


def _cited(text: str) -> set[int]:
    numbers: set[int] = set()
    for m in _CITATION.finditer(text):
        for part in re.split(r"\s*(?:,|and)\s*", m.group(1)):
            ends = [int(n) for n in re.split(r"\s*[–-]\s*", part.strip())]
            numbers |= set(range(ends[0], ends[-1] + 1))
    return numbers


def _files() -> list[Path]:
    folders = ("beliefdb", "sql", "docs", "scripts", "bench")
    return [p for d in folders for p in (ROOT / d).rglob("*")
            if p.is_file() and p.suffix in {".py", ".sql", ".md"}] + [ROOT / "README.md"]


def test_the_citation_reader() -> None:
    assert _cited("see rule 8; rules 2 and 4; rules 15-17, 19") == {2, 4, 8, 15, 16, 17, 19}


def test_every_cited_rule_exists() -> None:
    numbers = {r.number for r in api.rules()}
    assert numbers == set(range(1, len(numbers) + 1)) and len(numbers) >= 19
    cited = {str(p.relative_to(ROOT)): _cited(p.read_text(encoding="utf-8")) - numbers for p in _files()}
    assert {name: sorted(bad) for name, bad in cited.items() if bad} == {}


def test_every_package_and_sql_file_that_cites_a_rule_says_where_the_rules_are() -> None:
    citing = [p for d in ("beliefdb", "sql") for p in (ROOT / d).rglob("*") if p.suffix in {".py", ".sql"}
              and _cited(p.read_text(encoding="utf-8"))]
    assert len(citing) > 25
    assert [str(p.relative_to(ROOT)) for p in citing if "docs/rules.md" not in p.read_text(encoding="utf-8")] == []


def test_rules_prints_one_rule_and_refuses_an_unknown_one(cli_without_db: Cli) -> None:
    out = cli_without_db("rules", "8").stdout
    assert out.startswith("8. Conflicts are settled by rule\n") and "9. " not in out
    (rule,) = cli_without_db.json("rules", "16")
    assert rule["number"] == 16 and rule["title"].startswith("Valid time") and "expired" in rule["text"]
    assert len(cli_without_db.json("rules")) == len(api.rules())
    failed = cli_without_db.error("rules", "99", code="not_found")
    assert failed["message"] == "there is no rule 99 (the rules are numbered 1 to 19)"
    assert cli_without_db.one_line_error("rules", "0") == "error: there is no rule 0 (the rules are numbered 1 to 19)"
    with pytest.raises(NotFound):
        api.rules(0)


def test_the_root_help_says_where_the_rules_are(cli_without_db: Cli) -> None:
    assert "beliefdb rules N" in cli_without_db("--help").stdout


@pytest.mark.slow
def test_the_wheel_carries_the_rules(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("beliefdb-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "beliefdb/rules.md" in names and "beliefdb/db/queries.sql" in names and "beliefdb/py.typed" in names
