"""A script that runs every command with ``--json`` and pipes stdout into ``jq`` gets exactly one JSON
document on stdout from each, whatever other options say it prints (README: "Every command but
``demo``, ``serve`` and ``mcp`` takes ``--json``")."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli


def test_migrate_sql_with_json_prints_the_script_in_one_json_object(cli_without_db: Cli) -> None:
    """``migrate --sql --json`` printed the SQL script itself on stdout: ``jq`` failed on ``BEGIN;``. The
    script is the ``sql`` of one JSON object, the same text ``--sql`` prints, and still needs no database."""
    result = cli_without_db("migrate", "--sql", "--json")
    document = json.loads(result.stdout)
    assert set(document) == {"sql"}
    assert document["sql"].rstrip("\n") == cli_without_db("migrate", "--sql").stdout.rstrip("\n")
    assert "create table beliefdb.belief" in document["sql"].lower()


def test_scale_citus_sql_with_json_prints_the_script_in_one_json_object(cli: Cli) -> None:
    """``scale citus --sql --json`` printed the Citus script itself on stdout; it is the ``sql`` of one
    JSON object, the same text ``--sql`` prints."""
    document = json.loads(cli("scale", "citus", "--sql", "--json").stdout)
    assert set(document) == {"sql"}
    assert document["sql"] == cli("scale", "citus", "--sql").stdout
    assert document["sql"].startswith("-- beliefdb on Citus")


#: the commands whose --json failure is their own report, not {"error", "message"}: exit 1 all the same
REPORTS = ["`ingest` of several files", "`audit verify`", "`db restore`", "`migrate --check`",
           "`worker --once` or `--until-empty`", "`db vector-index`", "`ask`"]


def test_the_readme_names_the_commands_whose_json_failure_is_their_report(cli: Cli, tmp_path: Path) -> None:
    """README said every --json error comes as {"error", "message"}, while a command whose answer is a
    report prints that report with exit 1 (a script testing .message after exit 1 read null): it names
    them, and ingest of a good and a bad file is one such list, the bad file's entry with both."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    said = " ".join(readme.split("Every command but ", 1)[1].split("; every command that acts", 1)[0].split())
    assert all(name in said for name in REPORTS), [name for name in REPORTS if name not in said]
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text("Returns are accepted within 30 days of delivery.\n", encoding="utf-8")
    bad.write_bytes(b"\xff\xfe\x00bad")
    result = cli("ingest", good, bad, "--json", expect=1)
    reports = json.loads(result.stdout)
    assert isinstance(reports, list) and len(reports) == 2
    assert reports[0]["source"] == "good.md"
    assert set(reports[1]) == {"path", "error", "message"} and reports[1]["error"] == "invalid_input"
