"""One entry point: the CLI goes through ``beliefdb.api`` only, and BeliefDB can do everything the CLI
does (each method it gained is run here against the real database). Also the CLI's polish:
--version, completion, grouped --help, ``workspace delete`` and a demo that cleans up after itself."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from typer.testing import Result

import beliefdb
import beliefdb.cli
from beliefdb import api, errors
from beliefdb.db.server import EmbeddedServer
from beliefdb.models import (
    Changes,
    ConfidenceReport,
    Expired,
    Forgotten,
    IngestReport,
    Migration,
    OutcomeRecorded,
    ReviewResolution,
    RunTrace,
    WorkspaceDeleted,
)

PACKAGE = Path(beliefdb.__file__).resolve().parent

POLICY = """# Return policy
Owner: Operations

Returns are accepted within 7 days of delivery.
The restocking fee is 10%.
The refund method is store credit.
"""

def ok(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def workspace_names(conn: psycopg.Connection[Any]) -> set[str]:
    names = {str(r[0]) for r in conn.execute("select name from beliefdb.workspace").fetchall()}
    conn.rollback()
    return names


def rows_of(conn: psycopg.Connection[Any], workspace_id: UUID) -> int:
    """Rows of every table of the schema that carry this workspace's id (the workspace row included)."""
    tables = [str(r[0]) for r in conn.execute(
        """select table_name from information_schema.columns
            where table_schema = 'beliefdb' and column_name = 'workspace_id'
              and table_name in (select table_name from information_schema.tables
                                  where table_schema = 'beliefdb' and table_type = 'BASE TABLE')""").fetchall()]
    assert {"node", "source", "audit_event", "audit_head"} <= set(tables)
    total = 0
    for table in tables:
        row = conn.execute(sql.SQL("select count(*) from beliefdb.{} where workspace_id = %s").format(
            sql.Identifier(table)), (workspace_id,)).fetchone()
        assert row is not None
        total += int(row[0])
    row = conn.execute("select count(*) from beliefdb.workspace where id = %s", (workspace_id,)).fetchone()
    assert row is not None
    conn.rollback()
    return total + int(row[0])


# --- the import rule ----------------------------------------------------------------------------

ALLOWED = {"api", "models", "errors", "vocabulary", "cli_common"}


def _allowed(module: str) -> bool:
    """A beliefdb module a CLI module may import: the entry point, models, errors, the vocabulary (the
    options' choices), the renderers, and the other CLI modules."""
    return module in ALLOWED or module.startswith(("render", "cli"))


def _third_party(name: str) -> bool:
    top = name.split(".")[0]
    return top not in sys.stdlib_module_names and top not in ("typer", "beliefdb")


CLI_MODULES = sorted((PACKAGE / "cli").glob("*.py"))


@pytest.mark.parametrize("path", CLI_MODULES, ids=[p.name for p in CLI_MODULES])
def test_cli_modules_import_only_the_entry_point(path: Path) -> None:
    bad: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                ours = parts[0] == "beliefdb" and (len(parts) == 1 or not _allowed(parts[1]))
                if ours or _third_party(alias.name):
                    bad.append(f"import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            module = node.module or ""
            parts = module.split(".")
            if module == "beliefdb":
                bad += [f"from beliefdb import {a.name}" for a in node.names if not _allowed(a.name)]
            elif parts[0] == "beliefdb":
                if not _allowed(parts[1]):
                    bad.append(f"from {module} import ...")
            elif _third_party(module):
                bad.append(f"from {module} import ...")
    assert not bad, f"{path.name} imports {bad}"


def test_the_rule_sees_every_cli_module() -> None:
    assert {p.name for p in CLI_MODULES} >= {"__init__.py", "main.py", "common.py", "truth.py", "lifecycle.py",
                                             "repair.py", "retrieval.py", "calibrate.py", "operations.py"}


def test_the_package_is_typed() -> None:
    assert (PACKAGE / "py.typed").is_file()
    license_text = (PACKAGE.parent / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text


def test_the_packages_names_are_listed_before_they_are_loaded() -> None:
    """``import beliefdb`` loads its names on first use: dir() (tab completion, help()) listed none of them."""
    code = ("import beliefdb, sys; names = dir(beliefdb); assert 'beliefdb.api' not in sys.modules;"
            " print(' '.join(n for n in names if not n.startswith('_') or n == '__version__'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert set(out.stdout.split()) >= {"AsyncBeliefDB", "BeliefDB", "BeliefDBError", "__version__", "aconnect",
                                       "connect"}, out.stdout


def test_the_packages_listing_names_its_submodules_and_no_import_leftovers() -> None:
    """dir(beliefdb) listed what its own imports left (Any, TYPE_CHECKING, annotations, importlib) and none of
    the documented submodules (errors, models, api), so ``beliefdb.mo<TAB>`` completed nothing. It lists the
    public names and the package's public submodules now, and loading it still loads none of them."""
    code = ("import beliefdb, sys; names = dir(beliefdb);"
            " print([m for m in sys.modules if m.startswith('beliefdb.')]); print(' '.join(names))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded, listed = out.stdout.splitlines()
    names = set(listed.split())
    assert loaded == "[]", loaded
    assert names >= {"errors", "models", "api", "adapters", "graph", "settings", "vocabulary", "connect"}, names
    assert not names & {"Any", "TYPE_CHECKING", "annotations", "importlib", "_NAMES", "__main__"}, names
    assert all(hasattr(beliefdb, n) for n in names), names


# --- version, completion, grouped help ----------------------------------------------------------


def test_version(cli_without_db: Cli) -> None:
    result = cli_without_db("--version")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"beliefdb {metadata.version('beliefdb')}\n"
    assert api.version() == metadata.version("beliefdb")


def test_help_groups_the_commands_and_offers_completion(cli_without_db: Cli) -> None:
    result = cli_without_db("--help")
    assert result.exit_code == 0, result.output
    text = result.stdout
    panels = ["Memory", "Truth", "Decisions", "Review and repair", "Operations"]
    positions = [text.find(f"─ {panel} ─") for panel in panels]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), positions
    assert "--install-completion" in text and "--show-completion" in text and "--version" in text
    memory = text[positions[0]:positions[1]]
    assert all(command in memory for command in ("ingest", "beliefs", "why", "ask", "forget"))
    operations = text[positions[4]:]
    assert all(command in operations for command in ("migrate", "demo", "db", "workspace", "embed"))


# --- workspace delete ---------------------------------------------------------------------------


def test_workspace_delete_is_refused_while_it_has_data(cli: Cli, db_url: str, postgresql: psycopg.Connection[Any],
                                                       write_doc: Any) -> None:
    doc = write_doc("return-policy.md", POLICY)
    ok(cli("workspace", "create", "full", "--json"))
    n = len(ok(cli("ingest", str(doc), "-w", "full", "--no-embed", "--json"))["accepted"])
    (ws,) = [UUID(w["id"]) for w in ok(cli("workspace", "list", "--json")) if w["name"] == "full"]
    held = rows_of(postgresql, ws)

    refused = cli("workspace", "delete", "full", expect=None)
    assert refused.exit_code == 1, refused.output
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "--force" in lines[0], refused.stderr
    assert "1 source," in lines[0] and f"{n} beliefs" in lines[0]
    as_json = cli("workspace", "delete", "full", "--json", expect=None)
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["error"] == "workspace_not_empty"
    assert "full" in workspace_names(postgresql) and rows_of(postgresql, ws) == held

    gone = ok(cli("workspace", "delete", "full", "--force", "--json"))
    assert (gone["name"], gone["id"], gone["sources"], gone["beliefs"]) == ("full", str(ws), 1, n)
    assert "full" not in workspace_names(postgresql)
    assert rows_of(postgresql, ws) == 0
    # the other workspace is untouched
    with beliefdb.connect(db_url) as default:
        assert default.audit_verify().ok


def test_an_empty_workspace_is_deleted_without_force(cli: Cli, postgresql: psycopg.Connection[Any]) -> None:
    created = ok(cli("workspace", "create", "empty", "--json"))
    result = cli("workspace", "delete", "empty")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"deleted workspace empty ({created['id']})")
    assert "empty" not in workspace_names(postgresql)
    assert rows_of(postgresql, UUID(created["id"])) == 0
    missing = cli("workspace", "delete", "empty", "--json", expect=None)
    assert missing.exit_code == 1 and json.loads(missing.stdout)["error"] == "unknown_workspace"


def test_deleting_a_workspace_names_the_agent_logins_left_bound_to_it(cli: Cli, db_url: str,
                                                                      postgresql: psycopg.Connection[Any]) -> None:
    """The logins 'beliefdb agent create' bound to a workspace outlive it on purpose (their binding stays,
    so none can bind another workspace) and stay roles of the server: the deletion names each, with what
    drops it, through the library and the CLI (text and --json); it drops none itself."""
    stem = uuid4().hex[:8]
    library, text, as_json = [f"a_{stem}", f"b_{stem}"], f"c_{stem}", f"d_{stem}"
    everyone = [*library, text, as_json]

    def roles() -> list[str]:
        found = [r[0] for r in postgresql.execute("select rolname from pg_catalog.pg_roles where rolname = any(%s)"
                                                  " order by rolname", (everyone,))]
        postgresql.rollback()
        return found

    try:
        api.create_workspace("bound", url=db_url)
        for name in library:
            api.create_agent(name, "bound", url=db_url)
        gone = api.delete_workspace("bound", url=db_url)
        assert gone.agent_logins == library
        assert gone.hint is not None and "still bound to the deleted workspace 'bound'" in gone.hint
        assert f"beliefdb.api.drop_agent({library[0]!r}), beliefdb.api.drop_agent({library[1]!r})" in gone.hint
        assert roles() == library  # none dropped
        assert [(a.name, a.workspace) for a in api.list_agents(url=db_url)] == [(n, None) for n in library]

        for workspace, name in (("said", text), ("listed", as_json)):
            made = cli("workspace", "create", workspace, expect=None)
            assert made.exit_code == 0, made.output
            made = cli("agent", "create", name, "-w", workspace, expect=None)
            assert made.exit_code == 0, made.output
        said = cli("workspace", "delete", "said", expect=None)
        assert said.exit_code == 0, said.output
        first, second = said.stdout.strip().splitlines()
        assert first.startswith("deleted workspace said (")
        assert second.startswith(f"1 agent login still bound to the deleted workspace 'said': {text}")
        assert second.endswith(f"drop it with: beliefdb agent drop {text}")
        listed = cli("workspace", "delete", "listed", "--json", expect=None)
        assert listed.exit_code == 0, listed.output
        reported = json.loads(listed.stdout)
        assert reported["agent_logins"] == [as_json]
        assert reported["hint"].endswith(f"drop it with: beliefdb agent drop {as_json}")
        assert roles() == sorted(everyone)

        dropped = cli("agent", "drop", text, expect=None)  # the command it names
        assert dropped.exit_code == 0, dropped.output
        assert roles() == sorted([*library, as_json])
        empty = cli("workspace", "create", "empty", expect=None)
        assert empty.exit_code == 0, empty.output
        gone = api.delete_workspace("empty", url=db_url)  # no agent: nothing more said
        assert gone.agent_logins == [] and gone.hint is None
    finally:
        for name in everyone:
            postgresql.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(name)))
        postgresql.commit()


# --- the demo cleans up after itself --------------------------------------------------------------


@pytest.mark.slow
def test_the_demo_deletes_its_workspace_unless_kept(cli: Cli, postgresql: psycopg.Connection[Any]) -> None:
    before = workspace_names(postgresql)
    told = cli("demo")
    assert told.exit_code == 0, told.output
    assert "15 days" in told.stdout and "audit chain ok" in told.stdout
    assert "is deleted again ('beliefdb demo --keep' keeps it to explore)" in told.stdout
    assert "Explore it yourself" not in told.stdout
    assert workspace_names(postgresql) == before

    kept = cli("demo", "repair", "--keep")
    assert kept.exit_code == 0, kept.output
    (name,) = workspace_names(postgresql) - before
    assert name.startswith("demo-repair-") and f"beliefdb runs --workspace {name}" in kept.stdout
    assert "Audit chain: verified" in kept.stdout


# --- every BeliefDB method the CLI needed, against the real database ------------------------------


def test_ingest_preview_progress_and_embedding(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    doc = write_doc("return-policy.md", POLICY)
    seen: list[Path] = []
    (preview,) = bdb.ingest(doc, authority="official", preview=True, progress=seen.append)
    assert isinstance(preview, IngestReport) and preview.preview
    n = len(preview.accepted)
    assert n >= 3 and seen == [doc] and bdb.beliefs() == []
    (report,) = bdb.ingest(doc, authority="official", embed=False)
    assert isinstance(report, IngestReport) and len(report.accepted) == n
    calls: list[tuple[int, int]] = []
    embedded = bdb.embed(batch=2, progress=lambda done, total: calls.append((done, total)))
    assert (embedded.embedded, calls) == (n, [(min(done, n), n) for done in range(2, n + 2, 2)])
    assert bdb.embed().embedded == 0
    again = bdb.reembed()  # to the model it has: nothing to switch
    assert (again.model, again.embedded, again.switched) == (embedded.model, 0, False)


def test_lifecycle_reports_are_typed(bdb: beliefdb.BeliefDB, write_doc: Any) -> None:
    (report,) = bdb.ingest(write_doc("return-policy.md", POLICY), authority="official")
    assert isinstance(report, IngestReport)
    later = datetime(2031, 1, 1, tzinfo=UTC)
    preview = bdb.decay(now=later, preview=True)
    assert isinstance(preview, ConfidenceReport) and preview.preview and preview.beliefs == len(report.accepted)
    done = bdb.decay(now=later)
    assert replace(preview, preview=False) == done and done.now == later and done.lowered > 0
    recomputed = bdb.recompute(preview=True)
    assert isinstance(recomputed, ConfidenceReport) and recomputed.preview and recomputed.beliefs == done.beliefs

    expired = bdb.expire()
    assert isinstance(expired, Expired) and expired.expired == 0 and expired.beliefs == []
    assert isinstance(expired.changes, Changes) and expired.changes.flagged == []

    fee = next(a.id for a in report.accepted if "restocking" in a.statement)
    decision = bdb.decide("Charge the restocking fee", because=[fee])
    action = bdb.act(decision.id, "Invoice the fee")
    done_action = bdb.record_outcome(action.id, "succeeded")
    assert isinstance(done_action, OutcomeRecorded)
    assert (done_action.node, done_action.kind, done_action.outcome, done_action.status) == (
        action.id, "action", "succeeded", "done")
    disputed = bdb.record_outcome(str(decision.id)[:8], "disputed", note="the customer escalated")
    assert (disputed.node, disputed.kind, disputed.status) == (decision.id, "decision", None)

    would = bdb.forget(belief=fee, preview=True)
    assert isinstance(would, Forgotten) and would.preview and would.beliefs == 1
    assert would.would_flag == would.flagged == [decision.id]
    gone = bdb.forget(belief=fee)
    assert replace(would, preview=False) == gone and gone.redacted >= 1
    assert [d.status for d in bdb.decisions()] == ["needs_review"]


def test_review_resolution_and_run_trace_are_typed(bdb: beliefdb.BeliefDB) -> None:
    decision = bdb.decide("Waive the restocking fee")  # no reason: waits for a person
    (item,) = bdb.review_items()
    resolved = bdb.resolve_review(str(item.id)[:8], "approved", note="fine")
    assert isinstance(resolved, ReviewResolution)
    assert (resolved.item, resolved.node, resolved.status, resolved.correction) == (
        item.id, decision.id, "approved", None)

    with bdb.record_run(task="quote a fare", agent="travel-agent") as run:
        asked = run.step("user_input", {"text": "Book me a flight."})
        run.step("plan", {"cabin": "economy"}, inputs=[("initiates", asked)])
    found = bdb.run_trace(str(run.id)[:8])
    assert isinstance(found, RunTrace) and [s.kind for s in found.steps] == ["user_input", "plan"]
    assert [(i.step_id, i.node, i.edge) for i in found.inputs] == [(found.steps[1].id, asked, "initiates")]


def test_calibrate(bdb: beliefdb.BeliefDB, write_doc: Any, tmp_path: Path) -> None:
    (report,) = bdb.ingest(write_doc("return-policy.md", POLICY), authority="official")
    assert isinstance(report, IngestReport)
    labels = tmp_path / "labels.csv"
    labels.write_text("belief_id,correct\n" + "".join(
        f"{str(a.id)[:8]},{'yes' if n else 'no'}\n" for n, a in enumerate(report.accepted)), encoding="utf-8")
    result = bdb.calibrate(labels, bins=4)
    assert isinstance(result, api.Calibration)
    n = len(report.accepted)
    assert (result.count, result.correct, len(result.bins)) == (n, n - 1, 4)


def test_workspaces_through_beliefdb_and_the_module(bdb: beliefdb.BeliefDB, db_url: str, write_doc: Any,
                                                    postgresql: psycopg.Connection[Any]) -> None:
    other = bdb.create_workspace("other")
    assert [w.name for w in bdb.workspaces()] == ["default", "other"]
    assert bdb.workspace == "default"
    with beliefdb.connect(db_url, "other") as there:
        (report,) = there.ingest(write_doc("return-policy.md", POLICY), embed=False)
    assert isinstance(report, IngestReport)
    with pytest.raises(errors.InvalidInput, match="not empty") as refused:
        bdb.delete_workspace("other")
    assert refused.value.code == "workspace_not_empty"
    gone = bdb.delete_workspace("other", force=True)
    assert gone == WorkspaceDeleted(id=other.id, name="other", sources=1, beliefs=len(report.accepted),
                                    decisions=0, runs=0)
    assert rows_of(postgresql, other.id) == 0

    made = api.create_workspace("third", url=db_url, principal="ops")
    assert "third" in [w.name for w in api.list_workspaces(url=db_url)]
    assert api.delete_workspace("third", url=db_url) == WorkspaceDeleted(
        id=made.id, name="third", sources=0, beliefs=0, decisions=0, runs=0)
    with pytest.raises(errors.UnknownWorkspace):
        api.delete_workspace("third", url=db_url)


def test_schema_and_server_functions(db_url: str, embedded_server: EmbeddedServer, tmp_path: Path) -> None:
    done = api.migrate(db_url)
    assert isinstance(done, Migration) and done.before == done.after
    assert "beliefdb.workspace" in api.migration_sql()
    running = api.server_status(embedded_server.home)
    assert running.running and running.url is not None and running.pid is not None
    nowhere = api.server_status(tmp_path / "nowhere")
    assert not nowhere.running and not nowhere.initialized and nowhere.url is None


def test_connection_options_are_declared_once() -> None:
    """--db/--home/-w/--as are given to every memory command by cli.common.with_memory, not repeated
    in 30 signatures; only the commands that name a database but no workspace (operations, tokens,
    agents, serve, scale) declare --db/--home."""
    for path in CLI_MODULES:
        text = path.read_text(encoding="utf-8")
        if path.name == "common.py":
            continue
        assert "WorkspaceOpt = " not in text, path.name
        if path.name not in ("operations.py", "tokens.py", "agents.py", "serve.py", "scale.py"):
            assert "DbUrl" not in text, path.name
