"""The command line starts without what only some commands use: every ``beliefdb`` command paid ~40 ms
(of ~400) to import the rule and LLM extractors (their compiled patterns, the LLM's answer schema),
which only ingesting text uses, and more for the Citus planner (which reads and parses two SQL files)
and the picture builders. The extractors are imported when one is looked up by name
(:mod:`beliefdb.text.registry`), the others by the methods that use them; the commands that need them
still find and run them. Each test runs a fresh interpreter, since this process has imported them
long ago."""

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
# what only ``scale citus`` and the picture methods (why --format, impact --format, ...) import
ON_DEMAND_MODULES = ("beliefdb.scale.citus", "beliefdb.scale.citus_sql", "beliefdb.graph", "beliefdb.graph.read",
                     "beliefdb.graph.why", "beliefdb.graph.impact")


def _run(code: str) -> Any:
    """Run ``code`` in a fresh interpreter on this checkout (with no BELIEFDB_* setting of this machine);
    it ends with ``show(value)``, and the value comes back."""
    prelude = ("import json, sys\n"
               f"WATCHED = {EXTRACTOR_MODULES + ON_DEMAND_MODULES!r}\n"
               "def loaded(): return sorted(m for m in WATCHED if m in sys.modules)\n"
               "def show(value): print(json.dumps(value))\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("BELIEFDB_")}
    env["PYTHONPATH"] = str(PACKAGE.parent)
    done = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_cli_imports_no_extractor_planner_or_picture_builder() -> None:
    assert _run("import beliefdb.cli, beliefdb\nshow(loaded())") == []


def test_a_command_that_reads_imports_none_of_them(db_url: str) -> None:
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


def test_the_citus_planner_and_the_pictures_are_imported_by_their_commands(db_url: str, tmp_path: Path) -> None:
    doc = tmp_path / "returns.md"
    doc.write_text("The return window is 30 days.\n", encoding="utf-8")
    code = ("from typer.testing import CliRunner\nfrom beliefdb.cli import app\n"
            "runner = CliRunner()\n"
            f"db = ['--db', {db_url!r}]\n"
            "shards = runner.invoke(app, ['scale', 'citus', '--help'])\n"
            "assert shards.exit_code == 0 and 'default: 64' in shards.stdout, shards.output\n"
            f"done = runner.invoke(app, ['ingest', {str(doc)!r}, '--no-embed', '--json', *db])\n"
            "assert done.exit_code == 0, done.output\n"
            "def planner_and_pictures(): return [m for m in loaded() if not m.startswith('beliefdb.text.')]\n"
            "before = planner_and_pictures()\n"
            "plan = runner.invoke(app, ['scale', 'citus', '--json', *db])\n"
            "assert plan.exit_code == 0, plan.output\n"
            "after_plan = planner_and_pictures()\n"
            "belief = json.loads(done.stdout)['accepted'][0]['id']\n"
            "picture = runner.invoke(app, ['why', belief, '--format', 'mermaid', *db])\n"
            "assert picture.exit_code == 0, picture.output\n"
            "show([json.loads(plan.stdout)['shard_count'], before, after_plan, picture.stdout.splitlines()[:2],\n"
            "      planner_and_pictures()])")
    shards, before, after_plan, picture, after_picture = _run(code)
    assert (shards, before, after_plan) == (64, [], ["beliefdb.scale.citus", "beliefdb.scale.citus_sql"])
    assert picture == ["%% Why we believe: The return window is 30 days.", "flowchart LR"]
    assert set(after_picture) >= {"beliefdb.graph", "beliefdb.graph.why"}
