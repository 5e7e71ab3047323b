"""The Citus design (beliefdb/scale, ``beliefdb scale citus``, docs/scale-out.md) against the catalog of
a migrated database. No Citus can be installed here, so every constraint Citus puts on tables
distributed by ``workspace_id`` is checked in the catalog Citus would read: unique keys and foreign
keys include the distribution column, no reference table points at a distributed one, no id comes
from a sequence, and every recursive query and every trigger statement stays in one workspace. The
part of the script that rewrites what Citus refuses is plain PostgreSQL: it is applied to a real
database here, which must then pass the same checks and still behave as before."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest
from conftest import Cli
from psycopg.conninfo import make_conninfo
from psycopg.types.json import Jsonb

import beliefdb
from beliefdb.db.connector import app_connection
from beliefdb.scale import citus, citus_sql
from beliefdb.store import ingest

pytestmark = pytest.mark.robustness

ROOT = Path(__file__).resolve().parent.parent
TABLES = "select relname from pg_class where relnamespace = 'beliefdb'::regnamespace and relkind in ('r', 'p')"
# the tables of workspace rows: those with a workspace_id, but the directories read by login (reference tables)
WITH_WORKSPACE = TABLES + """ and exists (select from pg_attribute a where a.attrelid = pg_class.oid
                                              and a.attname = 'workspace_id' and not a.attisdropped)""" + \
    "".join(f" and relname <> '{name}'" for name in citus.DIRECTORIES)
FOREIGN_KEYS = """
select k.conname, c.relname, r.relname,
       array(select a.attname::text from unnest(k.conkey) with ordinality u (n, i)
               join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n order by u.i),
       array(select a.attname::text from unnest(k.confkey) with ordinality u (n, i)
               join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n order by u.i),
       k.confdeltype::text, k.confupdtype::text,
       exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'workspace_id'),
       exists (select from pg_attribute a where a.attrelid = r.oid and a.attname = 'workspace_id')
  from pg_constraint k
  join pg_class c on c.oid = k.conrelid
  join pg_class r on r.oid = k.confrelid
 where k.contype = 'f' and c.relnamespace = 'beliefdb'::regnamespace
"""


def _names(conn: psycopg.Connection[Any], query: str) -> set[str]:
    return {r[0] for r in conn.execute(query).fetchall()}


@pytest.fixture
def design(db_url: str) -> citus.Design:
    with psycopg.connect(db_url) as conn:
        return citus.read(conn)


@pytest.fixture
def prepared(db_url: str, design: citus.Design) -> str:
    """This test's database with the script's plain-PostgreSQL part applied (no Citus calls)."""
    with psycopg.connect(db_url) as conn:
        conn.execute(citus_sql.prepare(design))
    return db_url


# --- tables ----------------------------------------------------------------------------------------

PLACEMENT = re.compile(r"^select create_(distributed|reference)_table\('beliefdb\.(\w+)'(.*)\);$", re.MULTILINE)


def test_the_script_places_every_table_exactly_once(postgresql: psycopg.Connection[Any],
                                                    design: citus.Design) -> None:
    placed = PLACEMENT.findall(citus_sql.script(design))
    counts = Counter(name for _, name, _ in placed)
    tables = _names(postgresql, TABLES)
    assert len(tables) >= 30
    assert set(counts) == tables and set(counts.values()) == {1}, counts
    # distributed: exactly the tables with workspace rows, all in one colocation group anchored on node
    calls = {name: rest for kind, name, rest in placed if kind == "distributed"}
    assert set(calls) == _names(postgresql, WITH_WORKSPACE)
    assert calls.pop("node") == ", 'workspace_id', colocate_with => 'none', shard_count => 64"
    assert set(calls.values()) == {", 'workspace_id', colocate_with => 'beliefdb.node'"}
    # Citus distributes a referenced table before the tables that reference it
    order = [name for _, name, _ in placed]
    for _, table, referenced, *_ in postgresql.execute(FOREIGN_KEYS).fetchall():
        if table != referenced:
            assert order.index(referenced) < order.index(table), (table, referenced)


def test_every_unique_key_of_a_distributed_table_includes_workspace_id(postgresql: psycopg.Connection[Any]) -> None:
    """Citus enforces uniqueness per shard only: a primary key, unique constraint or unique index of a
    distributed table must include the distribution column. Every distributed table also needs a
    primary key (the replica identity a non-blocking shard move replicates by)."""
    unique = postgresql.execute("""
        select c.relname, i.indexrelid::regclass::text,
               exists (select from unnest(i.indkey) k
                         join pg_attribute a on a.attrelid = c.oid and a.attnum = k
                        where a.attname = 'workspace_id')
          from pg_index i join pg_class c on c.oid = i.indrelid
         where c.relnamespace = 'beliefdb'::regnamespace and i.indisunique
           and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'workspace_id')
    """).fetchall()
    assert len(unique) > 30
    assert [(t, i) for t, i, ok in unique if not ok] == []
    exclusion = postgresql.execute(
        "select conname from pg_constraint where contype = 'x' and connamespace = 'beliefdb'::regnamespace").fetchall()
    assert exclusion == []
    without_key = _names(postgresql, WITH_WORKSPACE + """ and not exists (
        select from pg_constraint k where k.conrelid = pg_class.oid and k.contype = 'p')""")
    assert without_key == set()


def _citus_refuses(key: tuple[Any, ...]) -> str | None:
    """Why Citus would refuse this foreign key (its rules: docs/scale-out.md), or None."""
    _, _, _, columns, referenced_columns, on_delete, on_update, distributed, to_distributed = key
    if to_distributed and not distributed:
        return "from a reference table to a distributed one"
    if distributed and "workspace_id" in columns and (on_delete in ("n", "d") or on_update in ("n", "d", "c")):
        return "SET NULL, SET DEFAULT or ON UPDATE CASCADE on a key with the distribution column"
    if distributed and to_distributed and (
            "workspace_id" not in columns or "workspace_id" not in referenced_columns
            or columns.index("workspace_id") != referenced_columns.index("workspace_id")):
        return "between distributed tables, not on the distribution column at the same place"
    return None


def test_foreign_keys_between_distributed_tables_are_colocated_and_on_workspace_id(
        postgresql: psycopg.Connection[Any], design: citus.Design, prepared: str) -> None:
    """Both ends of every key between distributed tables are in the one colocation group (checked
    above), and the key includes workspace_id at the same place on both sides. Migrate leaves three
    ON DELETE SET NULL keys Citus refuses; after the script's rewrite none is left."""
    with psycopg.connect(prepared) as conn:
        keys = conn.execute(FOREIGN_KEYS).fetchall()
    assert sum(1 for k in keys if k[7] and k[8]) > 30
    assert {k[0]: _citus_refuses(k) for k in keys if _citus_refuses(k)} == {}
    assert {c.constraint for c in design.plan.foreign_keys} == {
        "correction_workspace_id_fragment_id_fkey", "correction_workspace_id_replacement_belief_id_fkey",
        "step_workspace_id_replay_of_fkey"}


def test_as_migrated_citus_would_refuse_exactly_the_keys_the_script_rewrites(
        postgresql: psycopg.Connection[Any], design: citus.Design) -> None:
    refused = {k[0]: _citus_refuses(k) for k in postgresql.execute(FOREIGN_KEYS).fetchall() if _citus_refuses(k)}
    assert set(refused) == {c.constraint for c in design.plan.foreign_keys}
    assert set(refused.values()) == {"SET NULL, SET DEFAULT or ON UPDATE CASCADE on a key with the distribution column"}


def test_no_foreign_key_from_a_reference_table_to_a_distributed_one(postgresql: psycopg.Connection[Any]) -> None:
    keys = postgresql.execute(FOREIGN_KEYS).fetchall()
    assert any(k[7] and not k[8] for k in keys)  # distributed tables do reference the workspace table
    assert [k[0] for k in keys if not k[7] and k[8]] == []


QUEUE_TABLES = ("job", "job_start")


def test_no_id_of_a_distributed_table_comes_from_a_sequence(postgresql: psycopg.Connection[Any]) -> None:
    """A sequence lives on one node: ids from it would be shared across workspaces and nodes. Ids are
    gen_random_uuid(); the audit chain's seq is counted per workspace by its head row."""
    defaults = postgresql.execute("""
        select c.relname, a.attname, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated
          from pg_attribute a
          join pg_class c on c.oid = a.attrelid
          left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped
    """).fetchall()
    assert any(expr and "gen_random_uuid" in expr for _, _, expr, _, _ in defaults)
    # (not yet: the queue's ids, an identity column giving the order of submission; docs/scale-out.md)
    assert [(t, c) for t, c, expr, identity, _ in defaults
            if ((expr and "nextval" in expr) or identity) and t not in QUEUE_TABLES] == []
    assert postgresql.execute("select count(*) from pg_class where relkind = 'S'"
                              " and relnamespace = 'beliefdb'::regnamespace"
                              " and relname not in ('job_id_seq', 'job_start_id_seq')").fetchone() == (0,)


# --- what runs inside one workspace ------------------------------------------------------------------

KEYWORDS = {"where", "on", "set", "join", "left", "right", "inner", "full", "cross", "using", "order", "group",
            "limit", "returning", "values", "select", "natural", "for", "union", "except", "intersect", "having",
            "offset", "window", "lateral"}
REFERENCE = re.compile(r"\b(from|join|update|into|using)\s+beliefdb\.(\w+)(?:\s+(?:as\s+)?(\w+))?")
# one workspace value: a parameter or variable (or a record field of one), the row's own, the session's
ONE_VALUE = (r"(?:(?:p|v)_\w+(?:\.workspace_id)?|new\.workspace_id|old\.workspace_id|\$\d+"
             r"|\(\s*select\s+beliefdb\.current_workspace_id\(\)\s*\)|beliefdb\.current_workspace_id\(\)"
             r"|any\s*\(\s*(?:p|v)_\w+\s*\))")


def _plain(body: str) -> str:
    """A body without comments and with empty string literals, in lower case."""
    return re.sub(r"'(?:[^']|'')*'", "''", re.sub(r"--[^\n]*", " ", body)).lower()


def unpinned(statement: str, distributed: set[str]) -> list[str]:
    """The distributed tables a statement reads or writes without pinning them to one workspace value
    (``alias.workspace_id = <one value>``, or equal to a pinned alias's). An insert is judged by what it
    inserts: its values, or the tables its select reads. A coarse check of the text, not a parser: it
    sees what Citus's router planner needs, a workspace filter it can prune shards by."""
    refs = []
    for m in REFERENCE.finditer(statement):
        alias = m.group(3) if m.group(3) and m.group(3) not in KEYWORDS else m.group(2)
        refs.append((m.group(2), alias, m.group(1)))
    pinned: set[str] = set()
    changed = True
    while changed:
        changed = False
        for table, alias, kind in refs:
            if alias in pinned or table not in distributed:
                continue
            column = rf"(?:\b{alias}\.)?workspace_id" if alias == table else rf"\b{alias}\.workspace_id"
            sides = [ONE_VALUE] + [rf"\b{b}\.workspace_id\b" for b in pinned]
            if kind == "into" or any(re.search(rf"{column}\s*=\s*{v}", statement)
                                     or re.search(rf"{v}\s*=\s*{column}\b", statement) for v in sides):
                pinned.add(alias)
                changed = True
    return sorted({table for table, alias, _ in refs if table in distributed and alias not in pinned})


def test_the_workspace_check_can_fail() -> None:
    distributed = {"node", "justification", "adjacency"}
    assert unpinned("update beliefdb.justification j set unmet = 0 from new_rows n"
                    " where j.workspace_id = n.workspace_id and j.id = n.id", distributed) == ["justification"]
    assert unpinned("delete from beliefdb.adjacency x using old_rows o where x.workspace_id = o.workspace_id",
                    distributed) == ["adjacency"]
    assert unpinned("select n.id from beliefdb.node n join beliefdb.justification j on j.workspace_id ="
                    " n.workspace_id where n.workspace_id = v_ws", distributed) == []
    assert unpinned("update beliefdb.node set holds = true where workspace_id = p_workspace_id", distributed) == []
    assert unpinned("select count(*) from beliefdb.node n where n.id = any(p_ids)", distributed) == ["node"]


def _recursive_terms(text: str) -> list[tuple[str, str]]:
    """(name, recursive term) of every recursive common table expression in ``text``."""
    text, found = _plain(text), []
    for start in re.finditer(r"\bwith\s+recursive\b", text):
        at = start.end()
        while (m := re.compile(r"\s*(\w+)\s*(?:\([^)]*\))?\s+as\s*(?:not\s+)?(?:materialized\s*)?\(").match(text, at)):
            depth, end = 1, m.end()
            while depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            body, level, parts, last = text[m.end():end - 1], 0, [], 0
            for i, ch in enumerate(body):
                level += {"(": 1, ")": -1}.get(ch, 0)
                if level == 0 and (u := re.compile(r"\bunion(?:\s+all)?\b").match(body, i)):
                    parts.append(body[last:i])
                    last = u.end()
            recursive = body[last:] if parts else ""
            if re.search(rf"\b{m.group(1)}\b", recursive):
                found.append((m.group(1), recursive))
            if not (comma := re.compile(r"\s*,").match(text, end)):
                break
            at = comma.end()
    return found


def test_every_recursive_query_stays_in_one_workspace(postgresql: psycopg.Connection[Any]) -> None:
    """Citus runs a recursive CTE only in a query that goes to one shard: each recursive term must
    filter every distributed table it reads by one workspace value (or join it to one that is)."""
    distributed = _names(postgresql, WITH_WORKSPACE)
    texts = [(f"function {n}", b) for n, b in postgresql.execute(
        "select proname, prosrc from pg_proc where pronamespace = 'beliefdb'::regnamespace and prolang in"
        " (select oid from pg_language where lanname in ('sql', 'plpgsql'))")]
    texts += [(f"view {n}", d) for n, d in postgresql.execute(
        "select viewname, definition from pg_views where schemaname = 'beliefdb'")]
    terms = [(where, name, term) for where, text in texts for name, term in _recursive_terms(text)]
    assert {(where, name) for where, name, _ in terms} >= {
        ("function repair_plan", "reach"), ("function _influenced_by", "influencing")}
    for where, name, term in terms:
        if not re.search(r"\bbeliefdb\.", term):
            continue  # a walk over PostgreSQL's catalog (role membership: _is_eraser), not workspace rows
        assert re.search(r"\bworkspace_id\b", term), (where, name)
        assert unpinned(term, distributed) == [], (where, name, term)


# Trigger functions, and internals they call, with statements that join a distributed table to a
# transition table (new_rows, old_rows, changed_rows) or to unnest() of arrays by workspace_id instead of
# pinning it to one workspace value. Citus prunes shards only by constants and parameters, so such a
# statement goes to every shard, and a trigger on a shard may not run remote tasks: before beliefdb runs
# on Citus each needs a loop per workspace, as the row audit and decision_reasons_changed have (docs/scale-
# out.md, "What does not work unchanged"). The list only shrinks: a function fixed must leave it.
NOT_PINNED_YET = {"adjacency_of_edges", "adjacency_of_justifications", "adjacency_of_nodes", "adjacency_of_relations",
                  "node_current_unmet", "recount_unmet", "_refresh_leaf_entries", "_refresh_leaf_standing",
                  "_refresh_support_edges", "lexemes_removed"}


def test_every_trigger_stays_in_one_workspace_but_the_known_ones(prepared: str) -> None:
    with psycopg.connect(prepared) as conn:
        distributed = _names(conn, WITH_WORKSPACE)
        bodies = dict(conn.execute("""
            select p.proname, string_agg(p.prosrc, ';') from pg_proc p
             where p.pronamespace in ('beliefdb'::regnamespace, 'beliefdb_citus'::regnamespace)
               and p.prolang in (select oid from pg_language where lanname in ('sql', 'plpgsql'))
             group by p.proname""").fetchall())
        triggered = _names(conn, """
            select p.proname from pg_trigger t join pg_proc p on p.oid = t.tgfoid join pg_class c on c.oid = t.tgrelid
             where not t.tgisinternal and c.relnamespace = 'beliefdb'::regnamespace""")
    reached, todo = set(triggered), list(triggered)
    while todo:  # and what they call
        for called in re.findall(r"beliefdb(?:_citus)?\.(\w+)\s*\(", _plain(bodies[todo.pop()])):
            if called in bodies and called not in reached:
                reached.add(called)
                todo.append(called)
    assert {"_audit_rows_node", "_audit_append", "create_node", "correction_workspace_id_fragment_id_fkey"} <= reached
    found = {name for name in reached for statement in _plain(bodies[name]).split(";")
             if unpinned(statement, distributed)}
    assert found == NOT_PINNED_YET


# --- the rewritten part, applied --------------------------------------------------------------------------


def test_policies_have_no_subquery_and_still_keep_workspaces_apart(prepared: str) -> None:
    """Citus refuses a policy with a subquery on a distributed table; the script compares workspace_id
    with beliefdb.current_workspace_id() directly. Every distributed table keeps its policy, and a
    session still sees and writes its own workspace only."""
    with psycopg.connect(prepared) as conn:
        policies = conn.execute("""
            select c.relname, p.polqual::text ~ 'SUBLINK' or p.polwithcheck::text ~ 'SUBLINK', c.relrowsecurity
              from pg_policy p join pg_class c on c.oid = p.polrelid
             where c.relnamespace = 'beliefdb'::regnamespace""").fetchall()
        distributed = _names(conn, WITH_WORKSPACE)
        other = conn.execute("select (beliefdb_citus.create_workspace('other')).id").fetchone()
        conn.commit()
    # the directories read by login keep theirs too (the application role may not read them at all)
    assert {t for t, _, _ in policies} == distributed | set(citus.DIRECTORIES)
    assert [t for t, subquery, enabled in policies if subquery or not enabled] == []
    assert other is not None
    with beliefdb.connect(prepared) as db:
        ingest.ingest_text(db.database, "Price: 3 EUR\n", ingest.SourceOptions(name="prices"), embed=False)
    with app_connection(prepared, str(other[0])) as conn:
        assert conn.execute("select count(*) from beliefdb.belief").fetchone() == (0,)
        # (and it writes no table itself: embeddings too go through functions bound to its workspace)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
            conn.execute("insert into beliefdb.embedding_model (workspace_id, model, dim)"
                         " select id, 'm', 3 from beliefdb.workspace where name = 'default'")


def _workspace(url: str, name: str = "default") -> UUID:
    with psycopg.connect(url) as conn:
        row = conn.execute("select id from beliefdb.workspace where name = %s", (name,)).fetchone()
    assert row is not None
    return UUID(str(row[0]))


def test_every_workspace_function_has_one_routed_wrapper(prepared: str, design: citus.Design) -> None:
    script = citus_sql.script(design)
    routed = re.findall(r"^select create_distributed_function\('beliefdb_citus\.(\w+)\((.*)\)', 'p_workspace_id',"
                        r" colocate_with => 'beliefdb\.node', force_delegation => true\);$", script, re.MULTILINE)
    scoped = [r for r in design.plan.functions if r.route == "workspace"]
    assert len(scoped) >= 40
    assert Counter(name for name, _ in routed) == Counter(r.function.split(".")[1].split("(")[0] for r in scoped)
    with psycopg.connect(prepared) as conn:
        for r in scoped:
            # the wrapper exists, takes the workspace id, and the application role may call it when it
            # may call the original
            assert r.wrapper is not None and r.wrapper.startswith("beliefdb_citus.")
            assert "uuid" in r.wrapper.split("(")[1]
            assert conn.execute("select has_function_privilege('beliefdb_app', %s::regprocedure, 'execute')",
                                (r.wrapper,)).fetchone() == (r.granted,), r
    assert {"beliefdb.authenticate(bytea)", "beliefdb.bulk_analyze()", "beliefdb.ensure_vector_index(integer)"} == {
        r.function for r in design.plan.functions if r.route == "coordinator"}


def test_a_routed_call_acts_in_the_workspace_it_names(prepared: str) -> None:
    """A call delegated to a worker finds no session setting there: the wrapper binds the workspace it
    is given. From a session bound to nothing, it reads and writes exactly what the bound call would."""
    default = _workspace(prepared)
    with beliefdb.connect(prepared) as db:
        report = ingest.ingest_text(db.database, "Price: 3 EUR\nStock: 12 units\n", ingest.SourceOptions(name="shop"),
                                    embed=False)
        price, stock = (a.id for a in report.accepted)
        bound = db.impact(price)
    with app_connection(prepared) as conn:  # bound to no workspace
        assert conn.execute("select count(*) from beliefdb.belief").fetchone() == (0,)
        assert conn.execute("select beliefdb_citus.resolve_belief(%s, %s)", (default, str(price)[:8])).fetchone() \
            == (price,)
        routed = conn.execute("select node, kind, effect from beliefdb_citus.impact(%s, %s)",
                              (default, [str(price)])).fetchall()
        assert routed == [(r.node, r.kind, r.effect) for r in bound] and routed
        decision = conn.execute("select (beliefdb_citus.decide(%s, 'restock', %s)).id",
                                (default, Jsonb([[str(stock)]]))).fetchone()
        ok = conn.execute("select ok, events from beliefdb_citus.audit_verify(%s)", (default,)).fetchone()
    assert decision is not None and ok is not None and ok[0]
    with beliefdb.connect(prepared) as db:
        assert [d.id for d in db.decisions()] == [decision[0]]


def test_a_routed_call_refuses_a_workspace_other_than_the_sessions(prepared: str) -> None:
    with psycopg.connect(prepared) as conn:
        other = conn.execute("select (beliefdb_citus.create_workspace('other')).id").fetchone()
        conn.commit()
    assert other is not None
    with app_connection(prepared, str(_workspace(prepared))) as conn:
        with pytest.raises(psycopg.Error, match="bound to workspace") as refused:
            conn.execute("select * from beliefdb_citus.audit_verify(%s)", (other[0],))
        assert refused.value.sqlstate == "BD005"
    with app_connection(prepared) as conn, pytest.raises(psycopg.Error, match="workspace id") as missing:
        conn.execute("select * from beliefdb_citus.audit_verify(null)")
    assert missing.value.sqlstate == "BD003"


def test_a_workspace_created_on_citus_starts_its_audit_chain(prepared: str) -> None:
    """The trigger that starts the chain cannot stay on a reference table: create_workspace does what it did."""
    with app_connection(prepared) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("insert into beliefdb.workspace (name) values ('direct')")
    with app_connection(prepared) as conn:
        created = conn.execute("select (beliefdb_citus.create_workspace('support-bot')).id").fetchone()
        conn.commit()
    assert created is not None
    with psycopg.connect(prepared) as conn:
        assert conn.execute("select tgname from pg_trigger where tgrelid = 'beliefdb.workspace'::regclass"
                            " and not tgisinternal").fetchall() == []
        first = conn.execute("""select w.name, e.seq, e.action, e.payload from beliefdb.audit_event e
                                  join beliefdb.workspace w on w.id = e.workspace_id
                                 where e.seq = 1 order by w.name""").fetchall()
    # the same first event as the trigger gave the default workspace when migrate created it
    assert first == [("default", 1, "workspace.insert", {"name": "default"}),
                     ("support-bot", 1, "workspace.insert", {"name": "support-bot"})]
    with beliefdb.connect(prepared, "support-bot") as db:
        ingest.ingest_text(db.database, "Price: 3 EUR\n", ingest.SourceOptions(name="prices"), embed=False)
        result = db.audit_verify()
    assert result.ok and result.events > 1


@pytest.mark.slow  # a correction embeds its replacement: the embedding model loads
def test_deleting_what_a_correction_names_still_clears_the_reference(prepared: str) -> None:
    """ON DELETE SET NULL became ON DELETE NO ACTION plus a trigger that nulls first: a DBA's delete of a
    correction's replacement keeps the correction and clears its reference, as before; without the trigger
    the key would refuse the delete. (beliefdb's forget takes the correction with its replacement.)"""
    with beliefdb.connect(prepared) as db:
        report = ingest.ingest_text(db.database, "Price: 3 EUR\nStock: 12 units\n", ingest.SourceOptions(name="shop"),
                                    embed=False)
        price, stock = (a.id for a in report.accepted)
        first = db.apply_correction(price, "Price: 4 EUR", reviewer="ana", expect_revision=1, value="4 EUR")
        second = db.apply_correction(stock, "Stock: 11 units", reviewer="ana", expect_revision=1, value="11 units")
    with psycopg.connect(prepared) as conn:
        conn.execute("delete from beliefdb.node where id = %s", (first.replacement,))
        assert conn.execute("select replacement_belief_id from beliefdb.correction where id = %s",
                            (first.correction,)).fetchone() == (None,)
        conn.execute("drop trigger correction_workspace_id_replacement_belief_id_fkey on beliefdb.belief")
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute("delete from beliefdb.node where id = %s", (second.replacement,))


# --- the command -----------------------------------------------------------------------------------------


def test_scale_citus_prints_the_plan_and_the_script(cli: Cli, db_url: str, design: citus.Design) -> None:
    result = cli("scale", "citus", "--sql")
    assert result.exit_code == 0, result.output
    assert result.stdout == citus_sql.script(design)
    assert result.stdout.rstrip().endswith("commit;")
    plan = cli.json("scale", "citus", "--shard-count", "128")
    assert plan["shard_count"] == 128 and plan["anchor"] == "beliefdb.node"
    assert len([t for t in plan["tables"] if t["placement"] == "distributed"]) == len(design.distributed())
    text = cli("scale", "citus").stdout
    assert "reference tables (6" in text and "beliefdb_citus.create_workspace" in text


def test_scale_citus_refuses_a_database_without_beliefdb(cli: Cli, db_url: str) -> None:
    bare = make_conninfo(db_url, dbname="postgres")
    line = cli.one_line_error("scale", "citus", "--sql", "--db", bare)
    assert "run 'beliefdb migrate'" in line
    assert cli.error("scale", "citus", "--db", bare, code="not_found")
    assert cli("scale", "citus", "--shard-count", "0", expect=2).stderr.startswith("error: --shard-count: ")


def test_the_scale_out_doc_names_what_the_plan_places(design: citus.Design) -> None:
    doc = (ROOT / "docs" / "scale-out.md").read_text(encoding="utf-8")
    for table in design.reference():
        assert f"`{table.removeprefix('beliefdb.')}`" in doc, table
    for name in NOT_PINNED_YET:
        assert f"`{name}`" in doc, name
    assert f"{len(design.distributed())} tables" in doc
    # the counts it gives, as the catalog has them (they drifted: 28 policies for 32, 5 reference tables
    # for 6, 43 routed functions for 79)
    flat = " ".join(doc.split())
    assert f"the {len(design.plan.rewritten_policies)} row-level security policies with a subquery" in flat
    assert f"for the {len(design.reference())} tables without a workspace" in flat
    assert f"for the {len(design.distributed())} tables with one" in flat
    routes: dict[str, list[str]] = {}
    for r in design.plan.functions:
        routes.setdefault(r.route, []).append(r.function.removeprefix("beliefdb.").split("(")[0])
    said = flat[flat.index("`beliefdb scale citus` prints this from the catalog:"):]
    said = said[:said.index("Internal (underscored)")]
    assert f"{len(routes['workspace'])} functions routed by workspace" in said
    assert f"{len(routes['workspace'])} wrappers." in flat
    for route, words in (("row", "that take a row"), ("coordinator", "on the coordinator"),
                         ("anywhere", "that read no workspace table")):
        assert f"{len(routes[route])} {words}" in said, route
        named = said[said.index(words):]
        named = named[named.index("(`"):named.index(")")] if route != "row" else \
            named[named.index("(`"):named.index("`)") + 1]
        assert sorted(re.findall(r"`(\w+)`", named)) == sorted(routes[route]), route
