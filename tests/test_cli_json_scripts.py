"""A script that runs every command with ``--json`` and pipes stdout into ``jq`` gets exactly one JSON
document on stdout from each, whatever other options say it prints (README: "Every command but
``demo``, ``serve`` and ``mcp`` takes ``--json``")."""

from __future__ import annotations

import json

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
