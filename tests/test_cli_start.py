"""The command line starts without the text extractors: every ``beliefdb`` command paid ~40 ms (of
~400) to import the rule and LLM extractors (their compiled patterns, the LLM's answer schema), which
only ingesting text uses. They are imported when an extractor is looked up by name
(:mod:`beliefdb.text.registry`), and ingesting still finds and runs them. Each test runs a fresh
interpreter, since this process has imported them long ago."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import beliefdb

PACKAGE = Path(beliefdb.__file__).resolve().parent

# what only the extractors import: the rule extractor and the helpers only it reads, the LLM extractor
# and its answer schema
EXTRACTOR_MODULES = ("beliefdb.text.rules", "beliefdb.text.self_statements", "beliefdb.text.clauses",
                     "beliefdb.text.mentions", "beliefdb.text.kin",
                     "beliefdb.text.llm", "beliefdb.text.llm_schema")


def _run(code: str) -> Any:
    """Run ``code`` in a fresh interpreter on this checkout (with no BELIEFDB_* setting of this machine);
    it ends with ``show(value)``, and the value comes back."""
    prelude = ("import json, sys\n"
               f"WATCHED = {EXTRACTOR_MODULES!r}\n"
               "def loaded(): return sorted(m for m in WATCHED if m in sys.modules)\n"
               "def show(value): print(json.dumps(value))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    env["PYTHONPATH"] = str(PACKAGE.parent)
    done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_cli_imports_no_extractor() -> None:
    assert _run("import beliefdb.cli, beliefdb\nshow(loaded())") == []


def test_a_command_that_reads_imports_no_extractor(db_url: str) -> None:
    code = ("from typer.testing import CliRunner\nfrom beliefdb.cli import app\n"
            "runner = CliRunner()\n"
            "codes = [runner.invoke(app, argv).exit_code for argv in\n"
            f"         (['--help'], ['beliefs', '--help'], ['beliefs', '--json', '--db', {db_url!r}])]\n"
            "show([codes, loaded()])")
    assert _run(code) == [[0, 0, 0], []]


def test_checking_an_extractor_name_imports_no_extractor() -> None:
    code = ("from beliefdb.text.registry import EXTRACTORS\n"
            "show(['llm' in EXTRACTORS, 'gpt' in EXTRACTORS, sorted(EXTRACTORS), len(EXTRACTORS), loaded()])")
    assert _run(code) == [True, False, ["llm", "none", "rules"], 3, []]


def test_an_extractor_is_imported_when_it_is_chosen() -> None:
    code = ("from beliefdb.text.registry import EXTRACTORS, get_extractor\n"
            "none = type(get_extractor('none')).__name__\nafter_none = loaded()\n"
            "rules = type(get_extractor('rules')).__name__\nafter_rules = loaded()\n"
            "llm = EXTRACTORS['llm'].__name__\n"
            "show([none, after_none, rules, 'beliefdb.text.llm' in after_rules, llm, 'beliefdb.text.llm' in loaded()])")
    assert _run(code) == ["NoExtractor", [], "RuleExtractor", False, "LLMExtractor", True]


def test_ingest_from_a_fresh_start_still_extracts(db_url: str, tmp_path: Path) -> None:
    """The command that needs an extractor imports it and extracts as before (rules, the default)."""
    doc = tmp_path / "returns.md"
    doc.write_text("The return window is 30 days.\n", encoding="utf-8")
    code = ("from typer.testing import CliRunner\nfrom beliefdb.cli import app\n"
            f"done = CliRunner().invoke(app, ['ingest', {str(doc)!r}, '--no-embed', '--json', '--db', {db_url!r}])\n"
            "assert done.exit_code == 0, done.output\n"
            "report = json.loads(done.stdout)\n"
            "show([[b['statement'] for b in report['accepted']],\n"
            "      'beliefdb.text.rules' in sys.modules, 'beliefdb.text.llm' in sys.modules])")
    assert _run(code) == [["The return window is 30 days."], True, False]
