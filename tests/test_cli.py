"""The beliefdb command line, end to end against a real PostgreSQL: ingest -> beliefs -> why,
workspaces, migrate, demo and --help, in text and --json modes."""

from __future__ import annotations

import inspect
import json
import shutil
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer
from conftest import Cli
from psycopg import sql

import beliefdb.cli
import beliefdb.errors
from beliefdb.db import migrate as migrate_mod

V1 = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"
V2 = "# Return policy\n\nReturns are accepted within 15 days of delivery.\n"
Q7 = "Returns are accepted within 7 days of delivery."
Q15 = "Returns are accepted within 15 days of delivery."

# The keys the issue names for `ingest --json` ...
INGEST_KEYS = {"source", "version", "new_version", "fragments", "accepted", "rejected", "corroborated",
               "superseded", "conflicts"}
ACCEPTED_KEYS = {"id", "statement", "quote", "start", "end"}
REJECTED_KEYS = {"statement", "quote", "reason"}
SUPERSEDED_KEYS = {"old", "new"}
# The implementation adds more on top (path, reverified, unsupported, unchanged; accepted items carry
# subject/attribute/value): every key the issue names must be there, extras are allowed.

WHY_KEYS = {"belief", "evidence", "confidence", "replaced", "replaced_by", "conflicts"}
BELIEF_KEYS = {"id", "statement", "subject", "attribute", "value", "kind", "scope", "valid_time", "confidence",
               "confidence_kind", "status", "revision", "owner", "recorded_at", "evidence_count"}
EVIDENCE_KEYS = {"quote", "start", "end", "source", "version", "origin_type"}

def ingest_json(cli: Cli, *args: str) -> dict[str, Any]:
    report = cli.json("ingest", *args)
    assert isinstance(report, dict), report
    return report


def count(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(sql.SQL("select count(*) from beliefdb.{}").format(sql.Identifier(table))).fetchone()
    conn.rollback()
    assert row is not None
    return int(row[0])


# --- ingest -> beliefs -> why ------------------------------------------------------------------


def test_ingest_json_has_exactly_the_documented_keys(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", V1)
    claims = write_doc("claims.jsonl", json.dumps({
        "statement": "Returns are accepted within 30 days.", "subject": "return_policy", "attribute": "window",
        "value": "30 days", "quote": "Returns are accepted within 30 days."}) + "\n")
    report = ingest_json(cli, str(doc), "--authority", "official", "--claims", str(claims))

    assert set(report) >= INGEST_KEYS
    assert report["source"] == "return-policy.md"
    assert report["version"] == 1
    assert report["new_version"] is True
    assert isinstance(report["fragments"], int) and report["fragments"] >= 2
    (accepted,) = report["accepted"]
    assert set(accepted) >= ACCEPTED_KEYS
    assert accepted["quote"] == Q7
    assert V1[accepted["start"]:accepted["end"]] == Q7
    assert (accepted["subject"], accepted["attribute"], accepted["value"]) == ("return_policy", "window", "7 days")
    (rejected,) = report["rejected"]  # the made-up claim is not in the text
    assert set(rejected) >= REJECTED_KEYS
    assert rejected["quote"] == "Returns are accepted within 30 days."
    assert "not in the source" in rejected["reason"]
    assert report["corroborated"] == report["superseded"] == report["conflicts"] == []


@pytest.mark.slow
def test_ingest_beliefs_why_flow_through_the_cli(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", V1)
    first = ingest_json(cli, str(doc), "--authority", "official", "--version-label", "v3.2")
    (seven,) = first["accepted"]
    between = datetime.now(UTC)

    current = cli.json("beliefs")
    assert [b["id"] for b in current] == [seven["id"]]
    assert set(current[0]) >= BELIEF_KEYS
    assert (current[0]["value"], current[0]["status"]) == ("7 days", "current")

    time.sleep(0.01)
    doc.write_text(V2, encoding="utf-8")
    second = ingest_json(cli, str(doc), "--version-label", "v3.3")
    assert (second["version"], second["new_version"]) == (2, True)
    (fifteen,) = second["accepted"]
    assert fifteen["quote"] == Q15 and V2[fifteen["start"]:fifteen["end"]] == Q15
    assert second["superseded"] == [{"old": seven["id"], "new": fifteen["id"]}]
    assert all(set(s) >= SUPERSEDED_KEYS for s in second["superseded"])

    # current beliefs: only 15 days; --all shows the superseded one too
    window = cli.json("beliefs", "--subject", "return_policy", "--attribute", "window")
    assert [(b["id"], b["value"]) for b in window] == [(fifteen["id"], "15 days")]
    every = cli.json("beliefs", "--all")
    assert {b["value"]: b["status"] for b in every} == {"7 days": "superseded", "15 days": "current"}
    # filters really filter
    assert cli.json("beliefs", "--subject", "nothing_like_this") == []
    assert cli.json("beliefs", "--attribute", "nothing_like_this", "--all") == []
    # as of a moment between the two versions: the 7-day rule
    then = cli.json("beliefs", "--as-of", between.isoformat())
    assert [(b["id"], b["value"]) for b in then] == [(seven["id"], "7 days")]

    # why: belief, evidence (quote, offsets, source, version, origin type), factors, history both ways
    why15 = cli.json("why", fifteen["id"])
    assert set(why15) >= WHY_KEYS
    assert why15["belief"]["id"] == fifteen["id"]
    (ev,) = why15["evidence"]
    assert set(ev) >= EVIDENCE_KEYS
    assert (ev["quote"], ev["start"], ev["end"]) == (Q15, fifteen["start"], fifteen["end"])
    assert (ev["source"], ev["version"], ev["origin_type"]) == ("return-policy.md", 2, "document")
    assert why15["confidence"], "why must show the confidence factors"
    assert all({"factor", "detail", "weight"} <= set(f) for f in why15["confidence"])
    assert "authority" in {f["factor"] for f in why15["confidence"]}
    assert [h["old_belief"] for h in why15["replaced"]] == [seven["id"]]
    assert why15["replaced_by"] == []

    why7 = cli.json("why", seven["id"])
    assert why7["belief"]["status"] == "superseded"
    assert [h["new_belief"] for h in why7["replaced_by"]] == [fifteen["id"]]
    assert why7["replaced"] == []
    assert [e["quote"] for e in why7["evidence"]] == [Q7]
    assert why7["evidence"][0]["version"] == 1


@pytest.mark.slow
def test_text_output_is_readable(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", V1)
    result = cli("ingest", str(doc), "--authority", "official")
    start = V1.index(Q7)
    assert Q7 in result.stdout
    assert f"[{start}, {start + len(Q7)})" in result.stdout
    assert "return_policy / window = 7 days" in result.stdout
    assert result.stderr == ""

    listed = cli("beliefs")
    assert "return_policy / window = 7 days" in listed.stdout
    assert Q7 in listed.stdout
    belief_id = cli.json("beliefs")[0]["id"]
    assert belief_id[:8] in listed.stdout

    why = cli("why", belief_id)
    assert belief_id in why.stdout
    assert Q7 in why.stdout
    assert f"chars [{start}, {start + len(Q7)})" in why.stdout
    assert "return-policy.md v1" in why.stdout
    assert "document" in why.stdout and "official" in why.stdout
    assert "confidence factors:" in why.stdout and "authority" in why.stdout
    assert "history:" in why.stdout

    again = cli("ingest", str(doc))
    assert "unchanged" in again.stdout


def test_no_beliefs_is_said_in_text_and_an_empty_list_in_json(cli: Cli) -> None:
    result = cli("beliefs")
    assert "(no beliefs)" in result.stdout
    assert cli.json("beliefs") == []


@pytest.mark.slow
def test_why_shows_supersession_history_in_text(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", V1)
    (seven,) = ingest_json(cli, str(doc))["accepted"]
    doc.write_text(V2, encoding="utf-8")
    (fifteen,) = ingest_json(cli, str(doc))["accepted"]

    new = cli("why", fifteen["id"])
    assert f"replaced {seven['id'][:8]}" in new.stdout and "(7 days)" in new.stdout
    old = cli("why", seven["id"])
    assert f"replaced by {fifteen['id'][:8]}" in old.stdout and "(15 days)" in old.stdout
    assert "superseded" in old.stdout


@pytest.mark.slow
def test_progress_bar_with_more_than_three_files(cli: Cli, write_doc: Any,
                                                 postgresql: psycopg.Connection[Any]) -> None:
    docs = [write_doc(f"doc{i}.md", f"The fee of plan{i} is {i} euros.\n") for i in range(5)]
    result = cli("ingest", *map(str, docs))
    # every file's report is on stdout, whole and in order, not broken by the progress bar
    headers = [line for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert headers == [f"{d}: source '{d.name}' version 1" for d in docs]
    for i in range(5):
        assert f"plan{i} / fee = {i} euros" in result.stdout
    assert "ingesting" not in result.stdout  # the bar goes to stderr
    assert "ingesting 5 files" in result.stderr  # (said once where stderr is no terminal: a bare "ingesting" was)
    assert count(postgresql, "source") == 5
    assert count(postgresql, "belief") == 5

    # --json with many files: no bar at all, one parseable list
    more = [write_doc(f"more{i}.md", f"The fee of extra{i} is {i} euros.\n") for i in range(4)]
    reports = cli.json("ingest", *map(str, more))
    assert [r["source"] for r in reports] == [d.name for d in more]
    assert all(set(r) >= INGEST_KEYS for r in reports)


@pytest.mark.slow
def test_why_accepts_full_id_prefix_and_uppercase(cli: Cli, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", V1)
    (seven,) = ingest_json(cli, str(doc))["accepted"]
    full = seven["id"]
    for ref in (full, full[:8], full.upper(), full[:8].upper()):
        shown = cli.json("why", ref)
        assert shown["belief"]["id"] == full, ref
    text = cli("why", full[:8])
    assert f"belief {full}" in text.stdout


# --- workspaces ---------------------------------------------------------------------------------


def test_workspace_create_and_list(cli: Cli) -> None:
    created = cli("workspace", "create", "team-a")
    assert "created workspace team-a" in created.stdout

    as_json = cli.json("workspace", "create", "team_b.2")
    assert set(as_json) == {"id", "name", "created_at"}
    assert as_json["name"] == "team_b.2"

    listed = cli("workspace", "list")
    names = [line.split("\t")[0] for line in listed.stdout.splitlines()]
    assert names == sorted(["default", "team-a", "team_b.2"])
    assert as_json["id"] in listed.stdout

    rows = cli.json("workspace", "list")
    assert [w["name"] for w in rows] == sorted(["default", "team-a", "team_b.2"])
    assert all(set(w) == {"id", "name", "created_at"} for w in rows)
    assert {w["name"]: w["id"] for w in rows}["team_b.2"] == as_json["id"]
    assert len({w["id"] for w in rows}) == 3


def test_duplicate_workspace_name_is_an_error(cli: Cli, postgresql: psycopg.Connection[Any]) -> None:
    cli("workspace", "create", "dup")
    before = count(postgresql, "workspace")

    again = cli.fail("workspace", "create", "dup")
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1, again.stderr
    assert lines[0].startswith("error:") and "dup" in lines[0] and "already exists" in lines[0]

    as_json = cli.fail("workspace", "create", "dup", "--json")
    err = json.loads(as_json.stdout)
    assert set(err) == {"error", "message"} and "dup" in err["message"]
    assert count(postgresql, "workspace") == before


@pytest.mark.slow
def test_workspace_option_and_env_select_the_workspace(cli: Cli, write_doc: Any) -> None:
    cli("workspace", "create", "ws-a")
    doc = write_doc("return-policy.md", V1)
    (seven,) = ingest_json(cli, str(doc), "--workspace", "ws-a")["accepted"]

    # invisible from the default workspace ...
    assert cli.json("beliefs", "--all") == []
    hidden = cli.fail("why", seven["id"], "--json")
    assert json.loads(hidden.stdout)["error"] == "unknown_belief"
    # ... visible with --workspace, -w and BELIEFDB_WORKSPACE
    assert [b["id"] for b in cli.json("beliefs", "--workspace", "ws-a")] == [seven["id"]]
    assert [b["id"] for b in cli.json("beliefs", "-w", "ws-a")] == [seven["id"]]
    assert [b["id"] for b in cli.json("beliefs", env={"BELIEFDB_WORKSPACE": "ws-a"})] == [seven["id"]]
    assert cli.json("why", seven["id"][:8], env={"BELIEFDB_WORKSPACE": "ws-a"})["belief"]["id"] == seven["id"]
    # the option wins over the environment
    assert cli.json("beliefs", "-w", "default", env={"BELIEFDB_WORKSPACE": "ws-a"}) == []

    # ingesting the same file in the default workspace makes an independent source there
    default_report = ingest_json(cli, str(doc))
    assert (default_report["version"], default_report["new_version"]) == (1, True)
    (other,) = default_report["accepted"]
    assert other["id"] != seven["id"]
    assert [b["id"] for b in cli.json("beliefs")] == [other["id"]]

    # audit chains are per workspace, and each verifies
    audit_a = cli.json("audit", "verify", env={"BELIEFDB_WORKSPACE": "ws-a"})
    assert set(audit_a) == {"ok", "events", "first_broken", "problem"}
    assert audit_a["ok"] is True and audit_a["events"] >= 1 and audit_a["first_broken"] is None


def test_audit_verify_text_and_json(cli: Cli, write_doc: Any) -> None:
    ingest_json(cli, str(write_doc("return-policy.md", V1)))
    text = cli("audit", "verify")
    assert "audit chain ok" in text.stdout
    verdict = cli.json("audit", "verify")
    assert set(verdict) == {"ok", "events", "first_broken", "problem"}
    assert verdict["ok"] is True and verdict["events"] >= 1 and verdict["first_broken"] is None


# --- migrate ------------------------------------------------------------------------------------


@pytest.fixture
def empty_db_url(db_url: str) -> Any:
    """A URL of a brand-new, never-migrated database on the same server (dropped afterwards)."""
    name = f"bdb_cli_empty_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    url = psycopg.conninfo.make_conninfo(db_url, dbname=name)
    yield url
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.mark.slow
def test_migrate_twice_says_already_current(cli: Cli, empty_db_url: str) -> None:
    head = migrate_mod.head_revision()
    first = cli("migrate", "--db", empty_db_url)
    assert f"schema at revision {head}" in first.stdout
    assert "already current" not in first.stdout
    assert migrate_mod.current_revision(empty_db_url) == head

    second = cli("migrate", "--db", empty_db_url)
    assert "already current" in second.stdout

    assert cli.json("migrate", "--db", empty_db_url) == {"before": head, "after": head, "refreshed": False,
                                                         "revoked": []}
    # the migrated database is usable at once
    assert cli.json("beliefs", "--db", empty_db_url) == []


def test_migrate_on_the_test_database_is_already_current(cli: Cli) -> None:
    result = cli("migrate")
    assert "already current" in result.stdout


def test_migrate_says_when_it_brought_the_functions_up_to_date_at_the_same_revision(cli: Cli, db_url: str) -> None:
    """A database at the head revision whose functions, views or grants are another beliefdb's (migrate
    --check: "not this beliefdb's: run beliefdb migrate") was migrated, and migrate said "already current"."""
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute("comment on table beliefdb.alembic_version is 'beliefdb schema an-older-package'")
    head = migrate_mod.head_revision()
    assert cli("migrate").stdout.strip() == (
        f"schema at revision {head} (its functions, views and grants applied again: the database's were another build's"
        " of this revision)")
    assert cli.json("migrate") == {"before": head, "after": head, "refreshed": False, "revoked": []}
    assert cli("migrate").stdout.strip() == f"schema at revision {head} (already current)"


def test_migrate_sql_prints_the_schema(cli: Cli, empty_db_url: str) -> None:
    result = cli("migrate", "--sql", "--db", empty_db_url)
    assert "create table beliefdb.belief" in result.stdout.lower()
    assert "create table beliefdb.evidence" in result.stdout.lower()
    # printing the SQL runs nothing
    assert migrate_mod.current_revision(empty_db_url) is None


def test_migrate_sql_needs_no_database(cli_without_db: Cli, tmp_path: Path) -> None:
    """Printing the SQL neither connects nor starts the embedded server."""
    home = tmp_path / "home"
    result = cli_without_db("migrate", "--sql", env={"BELIEFDB_HOME": str(home)})
    assert "create table beliefdb.belief" in result.stdout.lower()
    assert not home.exists()


def test_a_database_whose_grants_are_missing_is_a_one_line_error_naming_migrate(cli: Cli, db_url: str) -> None:
    """A database migrated only part of the way (``migrate --sql --to`` an older revision, or restored
    without beliefdb's roles) has beliefdb's tables without their grants: every command says to run
    ``beliefdb migrate``, in one line and with exit 1, never with psycopg's traceback."""
    with psycopg.connect(db_url, autocommit=True) as admin:
        admin.execute("revoke usage on schema beliefdb from beliefdb_app")
    for command in (["ingest", "README.md"], ["beliefs"], ["workspace", "list"]):
        line = cli.one_line_error(*command)
        assert "beliefdb migrate" in line, line
        err = cli.error(*command, code="database_unavailable")
        assert "beliefdb migrate" in err["message"], err


def test_serve_refuses_a_bad_port_or_log_level_in_one_line(cli_without_db: Cli, tmp_path: Path) -> None:
    """serve --port 99999 (or -5) and --log-level bogus crashed with uvicorn's traceback, after starting the
    embedded server: refused first, in one line, starting nothing, as usage errors (exit 2)."""
    for port in ("99999", "-5"):
        assert cli_without_db("serve", "--port", port, expect=2).stderr == (
            f"error: --port must be 0 to 65535, not {port} (see beliefdb serve --help)\n")
    assert cli_without_db("serve", "--log-level", "bogus", expect=2).stderr == (
        "error: --log-level: 'bogus' is not one of 'critical', 'error', 'warning', 'info', 'debug', 'trace'."
        " (see beliefdb serve --help)\n")
    assert not (tmp_path / "beliefdb-home").exists()  # no embedded server was started
    from beliefdb.api import servers
    with pytest.raises(beliefdb.errors.InvalidInput, match="port must be 0 to 65535, not 70000"):
        servers.serve(port=70000)


def test_serve_on_a_port_in_use_says_so_in_one_line(cli: Cli, tmp_path: Path) -> None:
    """serve on a busy port exited 3 with uvicorn's "[Errno 98] error while attempting to bind": one
    beliefdb line names the port and how to choose another, before the database is opened."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = cli("serve", "--port", str(port), "--home", tmp_path / "home", expect=1, env={"BELIEFDB_URL": None})
        assert result.stderr.strip().splitlines() == [
            f"error: port {port} on 127.0.0.1 is already in use (another beliefdb serve, or another program):"
            " choose another with --port, e.g. --port 0 for any free one"]
    assert not (tmp_path / "home").exists()  # no embedded server was started


def test_beliefs_as_of_bad_timestamp_is_a_one_line_error(cli: Cli) -> None:
    result = cli.fail("beliefs", "--as-of", "last tuesday")
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error:") and "last tuesday" in lines[0] and "--as-of" in lines[0]
    err = cli.fail("beliefs", "--as-of", "last tuesday", "--json")
    assert json.loads(err.stdout)["error"] == "invalid_input"


# --- demo ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_tells_the_story_quickly(cli: Cli, db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    workspaces_before = count(postgresql, "workspace")
    started = time.monotonic()
    result = cli("demo", "--keep", "--db", db_url)
    elapsed = time.monotonic() - started
    assert elapsed < 20, f"demo took {elapsed:.1f}s"
    out = result.stdout
    assert "superseded" in out
    assert "15 days" in out and "7 days" in out
    assert "audit chain ok" in out
    assert "BROKEN" not in out
    # it used a new throw-away workspace and left the default one alone
    assert count(postgresql, "workspace") == workspaces_before + 1
    assert cli.json("beliefs", "--all") == []
    demo_ws = next(w["name"] for w in cli.json("workspace", "list") if w["name"] != "default")
    assert demo_ws in out
    window = cli.json("beliefs", "-w", demo_ws, "--subject", "return_policy", "--attribute", "window")
    assert [b["value"] for b in window] == ["15 days"]
    # running it twice is fine: a second workspace
    cli("demo", "--keep", "--db", db_url)
    assert count(postgresql, "workspace") == workspaces_before + 2


# --- help ---------------------------------------------------------------------------------------


def _all_commands() -> list[tuple[list[str], Any]]:
    # typer (>= 0.20) vendors its own click, so look at the commands by shape, not by class
    found: list[tuple[list[str], Any]] = []

    def walk(path: list[str], command: Any) -> None:
        found.append((path, command))
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk([*path, name], sub)

    walk([], typer.main.get_command(beliefdb.cli.app))
    return found


ALL_COMMANDS = _all_commands()


def _flat(text: str) -> str:
    # rich wraps help into boxes; drop the box characters so words can be searched
    return " ".join(text.replace("│", " ").replace("╭", " ").replace("╰", " ").split())


@pytest.mark.parametrize(("path", "command"), ALL_COMMANDS, ids=[" ".join(p) or "beliefdb" for p, _ in ALL_COMMANDS])
def test_every_command_has_help_mentioning_its_options(cli_without_db: Cli, path: list[str], command: Any) -> None:
    result = cli_without_db(*path, "--help")
    text = _flat(result.stdout)
    assert "Usage:" in text
    for param in command.params:
        if param.param_type_name == "option":
            assert any(opt in text for opt in param.opts), (path, param.opts)
            if getattr(param, "show_envvar", False) and param.envvar:
                assert str(param.envvar) in text, (path, param.envvar)
    for name in getattr(command, "commands", {}):
        assert name in text, (path, name)


#: what the README says takes no --json: the story and the two servers
NO_JSON = {("demo",), ("serve",), ("mcp",)}


def test_every_command_but_the_story_and_the_servers_takes_json() -> None:
    """README: "Every command but ... takes --json"; 'db url' took none, where 'db start', 'db stop' and
    'db status' do (what it prints: tests/test_embedded.py)."""
    leaves = {tuple(p) for p, c in ALL_COMMANDS if not getattr(c, "commands", None)}
    lacking = {tuple(p) for p, c in ALL_COMMANDS
               if tuple(p) in leaves and not any("--json" in o.opts for o in c.params)}
    assert lacking == NO_JSON
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert all(f"`{p[0]}`" in readme.split("Every command but ", 1)[1].split(" takes `--json`", 1)[0]
               for p in NO_JSON)



def test_every_options_help_is_shown_as_written(cli_without_db: Cli) -> None:
    """--help shows each option's text whole: rich takes '[word]' for a style tag and drops it, so the
    ingest --format help showed "' Speaker: text' lines" for '[time] Speaker: text' (written '\\[' it
    shows as '[')."""
    for path, command in ALL_COMMANDS:
        shown = _flat(cli_without_db(*path, "--help", env={"COLUMNS": "2000"}).stdout)
        for param in command.params:
            written = " ".join((getattr(param, "help", None) or "").replace("\\[", "[").split())
            assert written in shown, (path, param.opts, written)


def test_ingest_help_says_a_transcript_may_use_the_full_width_colon(cli_without_db: Cli) -> None:
    """A transcript's speaker lines may end the name with the full-width colon of CJK chat ("张伟：..."):
    --format chat reads them, and its help says so."""
    shown = _flat(cli_without_db("ingest", "--help", env={"COLUMNS": "2000"}).stdout)
    assert "the colon may be the full-width '：' of CJK chat ('张伟：text')" in shown


def test_ingest_help_says_the_extractor_runs_beside_the_claims(cli_without_db: Cli) -> None:
    """ingest FILE --claims runs the extractor too (rules by default), its beliefs stored beside the claims
    (a trial got a claim's dated belief and the rules' undated one of the same line): --claims's help says
    so, and that --extractor none stores only the claims; so does README."""
    shown = _flat(cli_without_db("ingest", "--help", env={"COLUMNS": "2000"}).stdout)
    assert ("The --extractor (rules by default) runs too and adds what it extracts beside the claims:"
            " --extractor none stores only the claims.") in shown
    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8").split())
    assert "what it extracts is stored beside the claims: give `--extractor none` to store the claims alone" in readme


EXPECTED_HELP = {
    (): ["ingest", "beliefs", "why", "migrate", "demo", "db", "workspace", "audit"],
    ("ingest",): ["--claims", "--authority", "--source", "--label", "--version-label", "--extractor", "--db",
                  "BELIEFDB_URL", "--workspace", "BELIEFDB_WORKSPACE", "--home", "BELIEFDB_HOME", "--json"],
    ("beliefs",): ["--subject", "--attribute", "--all", "--as-of", "--workspace", "--db", "--json"],
    ("why",): ["--workspace", "--db", "--json", "prefix"],
    ("migrate",): ["--sql", "--db", "--json"],
    ("demo",): ["--db", "--home"],
    ("db",): ["status", "start", "stop", "url"],
    ("db", "status"): ["--home", "BELIEFDB_HOME", "--json"],
    ("db", "start"): ["--home", "--json"],
    ("db", "stop"): ["--home", "--json"],
    ("db", "url"): ["--home", "--json"],
    ("workspace",): ["create", "list"],
    ("workspace", "create"): ["--db", "--json"],
    ("workspace", "list"): ["--db", "--json"],
    ("audit",): ["verify"],
    ("audit", "verify"): ["--workspace", "--db", "--json"],
}


def test_expected_commands_exist_and_mention_their_options(cli_without_db: Cli) -> None:
    assert len(ALL_COMMANDS) >= len(EXPECTED_HELP)
    assert {tuple(p) for p, _ in ALL_COMMANDS} >= set(EXPECTED_HELP)
    for path, words in EXPECTED_HELP.items():
        result = cli_without_db(*path, "--help")
        text = _flat(result.stdout)
        missing = [w for w in words if w not in text]
        assert not missing, (path, missing)


@pytest.mark.slow
def test_python_dash_m_and_console_script_help() -> None:
    module = subprocess.run([sys.executable, "-m", "beliefdb", "--help"], capture_output=True, text=True,
                            timeout=60, check=False)
    assert module.returncode == 0, module.stderr
    assert "ingest" in module.stdout and "beliefs" in module.stdout
    assert "Usage: beliefdb" in module.stdout  # the program name, not __main__.py

    script = shutil.which("beliefdb")
    assert script is not None, "the beliefdb console script is not on PATH"
    console = subprocess.run([script, "ingest", "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert console.returncode == 0, console.stderr
    assert "--claims" in console.stdout


def test_no_arguments_shows_help(cli_without_db: Cli) -> None:
    result = cli_without_db(expect=None)
    # no_args_is_help: usage is shown (click exits 2 for a group invoked without a command since 8.2)
    assert "Usage:" in result.output
    assert "ingest" in result.output


def test_help_shows_each_paragraph_of_a_description_unbroken(cli_without_db: Cli) -> None:
    # a docstring's paragraphs are written over several lines; a group's listing of its commands and
    # a command's own help show each on one line for the terminal to wrap (typer kept the breaks:
    # ragged at any width)
    for path, command in ALL_COMMANDS:
        paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(command.help or "").split("\n\n") if p.strip()]
        own = cli_without_db(*path, "--help", env={"COLUMNS": "2000"}).stdout
        assert all(p in own for p in paragraphs), (path, [p for p in paragraphs if p not in own])
        for name, sub in getattr(command, "commands", {}).items():
            first = " ".join(inspect.cleandoc(sub.help or "").split("\n\n")[0].split())
            assert first and first in own, (path, name)


def test_db_url_of_a_home_that_does_not_exist_says_so_and_creates_nothing(cli_without_db: Cli, tmp_path: Path) -> None:
    """db url --home /nonexistent/x created the folders and a new embedded server there: it names the home
    that does not exist (or holds no server yet) and how to make one, and creates nothing."""
    missing = tmp_path / "nonexistent" / "x"
    line = cli_without_db.one_line_error("db", "url", "--home", missing)
    assert line == (f"error: the beliefdb home {missing} does not exist: nothing was created (make one with"
                    f" 'beliefdb db start --home {missing}', or give the home you meant)")
    assert cli_without_db.error("db", "url", "--home", missing, code="not_found")
    assert not (tmp_path / "nonexistent").exists()
    (tmp_path / "empty").mkdir()
    assert "has no embedded server yet" in cli_without_db.one_line_error("db", "url", "--home", tmp_path / "empty")
    assert list((tmp_path / "empty").iterdir()) == []


def test_why_caps_a_huge_quote_in_text_and_json_keeps_it_whole(cli: Cli, db_url: str) -> None:
    """A turn of megabytes is one quote: `why` printed it whole (a user trial, 6.4 MB on the terminal)."""
    quote = "Maya said: " + "blah " * 3_000 + "the plan is annual."
    with beliefdb.connect(db_url) as memory:
        (belief,) = memory.remember("Maya's plan is annual.", "maya", "plan", "annual", quote, source="chat.md",
                                    text=quote + "\n").accepted
    text = cli("why", str(belief.id)).stdout
    assert len(text) < 5_000 and f"{len(quote) - 2_000:,} more characters: --json has it whole" in text, text[-600:]
    assert cli.json("why", str(belief.id))["evidence"][0]["quote"] == quote


def test_why_says_when_the_stored_confidence_was_computed_as_of_another_moment(cli: Cli, db_url: str) -> None:
    """After `decay --now` a quarter ahead, `why` showed confidence 0.45 above factors that gave 0.90 (a
    user trial): its factors are as of now, the stored value as of the decay's moment."""
    with beliefdb.connect(db_url) as memory:
        (belief,) = memory.remember("Returns within 7 days.", "return_policy", "window", "7 days",
                                    "Returns within 7 days", source="policy.md", text="Returns within 7 days.\n",
                                    kind="policy").accepted
    assert "computed as of another moment" not in cli("why", str(belief.id)).stdout
    cli("decay", "--now", "2099-01-01T00:00:00Z")
    text = cli("why", str(belief.id)).stdout
    assert "note: the stored confidence 0.00 was computed as of another moment" in text, text
