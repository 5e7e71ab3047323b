"""An auditor's login reads and never writes (docs/dba.md, "An auditor that must not write"): a login granted
``beliefdb_reader`` binds a workspace by the setting, reads its views and tables under the same row-level
security as ``beliefdb_app`` (rule 13 of docs/rules.md), and calls the API functions that only read
(sql/api/80_privileges.sql, the reader's allow-list); a write, directly or through a function, is refused.
There was no such role: every member of ``beliefdb_app`` can write, and a role granted ``select`` by hand saw no
rows and lost the grant at the next migration."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import make_conninfo

import beliefdb
from beliefdb.store.workspaces import create_workspace

# what a function the reader may call calls and the reader may not, on purpose: expire_before_read processes
# what expired (expire) and impact simulates a retraction (simulate_retraction) for every other session only,
# never for a reader (beliefdb.read_only_session)
GUARDED_CALLS = [("expire_before_read", "expire"), ("impact", "simulate_retraction")]

# the functions a reader may call that are volatile: none writes (expire_before_read and impact take the
# path of a read-only transaction for a reader, beliefdb.read_only_session; recall and recall_fragments set
# settings of their transaction only; use_workspace refuses any login but the schema owner's)
VOLATILE_READS = ["expire_before_read", "recall", "recall_fragments", "use_workspace"]


@dataclass(frozen=True)
class Reader:
    url: str  # the reader's login
    login: str  # its role
    admin: str  # the test database as its superuser
    mine: str  # workspace A's belief
    other: str  # workspace B's belief


@pytest.fixture
def reader(db_url: str) -> Iterator[Reader]:
    """Workspaces A and B with a belief each, and a login granted beliefdb_reader only (dropped after)."""
    ids = []
    for name in ("A", "B"):
        create_workspace(db_url, name)
        with beliefdb.connect(db_url, workspace=name, principal="alice") as db:
            (belief,) = db.remember(f"{name}: returns within 7 days", "return_policy", "window", "7 days",
                                    "Returns are accepted within 7 days.", source="policy.md",
                                    text=f"From {name}. Returns are accepted within 7 days.").accepted
            ids.append(str(belief.id))
    role, password = f"auditor_{secrets.token_hex(4)}", secrets.token_hex(12)
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(role), sql.Literal(password)))
        conn.execute(sql.SQL("grant beliefdb_reader to {}").format(sql.Identifier(role)))
    try:
        yield Reader(make_conninfo(db_url, user=role, password=password), role, db_url, ids[0], ids[1])
    finally:
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


@contextmanager
def bound(url: str, workspace: str) -> Iterator[psycopg.Connection[Any]]:
    """The reader's session bound to a workspace as docs/dba.md says (the setting, by the workspace's name)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', (select id::text from beliefdb.workspace"
                     " where name = %s), false)", (workspace,))
        yield conn


def test_a_reader_reads_its_workspace_and_writes_nothing(reader: Reader) -> None:
    with psycopg.connect(reader.url, autocommit=True) as conn:  # (nothing bound yet: the hints say how, in psql)
        (ws,) = conn.execute("select id::text from beliefdb.workspace where name = 'A'").fetchone() or ("",)
        with pytest.raises(psycopg.Error) as unbound:
            conn.execute("select * from beliefdb.current_beliefs")
        assert (unbound.value.diag.message_hint or "").startswith(
            "bind one first: in psql, select set_config('beliefdb.workspace_id', (select id::text from")
        with pytest.raises(psycopg.Error) as hidden:
            conn.execute("select * from beliefdb.audit_verify(%s)", (ws,))
        hint = hidden.value.diag.message_hint or ""
        assert hint == ("this session sees the bound workspace's chain only, and none is bound: bind this one,"
                        f" select set_config('beliefdb.workspace_id', '{ws}', false), then select * from"
                        " beliefdb.audit_verify()")
        for statement in hint.split(": bind this one, ")[1].split(", then "):
            conn.execute(statement)
        assert conn.execute("select ok from beliefdb.audit_verify()").fetchone() == (True,)
    with bound(reader.url, "A") as conn:
        assert conn.execute("select id::text from beliefdb.current_beliefs").fetchall() == [(reader.mine,)]
        assert conn.execute("select distinct belief_id::text, quote from beliefdb.belief_evidence").fetchall() == [
            (reader.mine, "Returns are accepted within 7 days.")]
        # why's confidence, and the audit chain verified
        factors = conn.execute("select factor from beliefdb.explain_confidence(%s)", (reader.mine[:8],)).fetchall()
        assert factors[-1] == ("confidence",)
        assert conn.execute("select ok from beliefdb.audit_verify()").fetchone() == (True,)
        # the review queue read from an item on, and the queue's totals (both were refused: "permission denied
        # for function resolve_review_item", job_totals)
        with pytest.raises(psycopg.Error, match="unknown review item a134") as unknown:
            conn.execute("select count(*) from beliefdb.review_items(p_after => 'a134')")
        assert unknown.value.sqlstate == "BD004"
        assert conn.execute("select sum(jobs) from beliefdb.job_totals()").fetchone() == (0,)
        # nothing of B, whatever it asks
        assert conn.execute("select count(*) from beliefdb.belief where id = %s", (reader.other,)).fetchone() == (0,)
        with pytest.raises(psycopg.Error) as unknown:
            conn.execute("select beliefdb.explain_confidence(%s)", (reader.other,))
        assert unknown.value.sqlstate == "BD004"
        # no write: neither a table's nor a function's
        for statement in ("insert into beliefdb.source (name) values ('mine.md')",
                          "update beliefdb.belief set value = '1 day'",
                          "delete from beliefdb.audit_event",
                          "insert into beliefdb.workspace (name) values ('C')",
                          "select beliefdb.forget('source', 'policy.md')",
                          "select beliefdb.retract('source', 'policy.md', 'audit')",
                          "select beliefdb.ingest_version('notes.md', 'Returns are accepted within 9 days.')",
                          "select beliefdb.retract_preview('source', 'policy.md')",
                          "select beliefdb.lock_workspace()"):
            with pytest.raises(pg_errors.InsufficientPrivilege):
                conn.execute(statement)
    with bound(reader.url, "B") as conn:  # another workspace is bound as an auditor binds one
        assert conn.execute("select id::text from beliefdb.current_beliefs").fetchall() == [(reader.other,)]


def test_a_reader_processes_no_expiry(reader: Reader) -> None:
    """What is due to expire is processed by a writer (rule 16), as the owner, before every read: a reader's read
    takes the read-only path instead (beliefdb.read_only_session), as on a standby, and writes nothing."""
    with psycopg.connect(reader.admin, autocommit=True) as conn:
        conn.execute("update beliefdb.belief set valid_time = tstzrange(null, now() - interval '1 second')"
                     " where id = %s", (reader.mine,))
        events = conn.execute("select count(*) from beliefdb.audit_event").fetchone()
    with bound(reader.url, "A") as conn:
        assert conn.execute("select beliefdb.expire_before_read()").fetchone() == (False,)
        assert conn.execute("select count(*) from beliefdb.current_beliefs").fetchone() == (0,)  # (its time ended)
        assert conn.execute("select effect from beliefdb.impact(array[%s])", (reader.mine,)).fetchall() == [
            ("stops_holding",)]
        # what only a rolled-back retraction answers (a source version's impact) is refused, not run
        with pytest.raises(pg_errors.InsufficientPrivilege, match="write lock") as refused:
            conn.execute("select * from beliefdb.impact(array[(select id::text from beliefdb.source_version)])")
        assert refused.value.diag.message_hint is not None
    with psycopg.connect(reader.admin, autocommit=True) as conn:
        assert conn.execute("select status::text from beliefdb.belief where id = %s", (reader.mine,)).fetchone() == (
            "current",)
        assert conn.execute("select count(*) from beliefdb.audit_event").fetchone() == events


def test_the_reader_role_may_only_read(postgresql: psycopg.Connection[Any]) -> None:
    """From the catalog: beliefdb_reader writes no relation, reads what beliefdb_app reads under a policy of
    its own workspace, and may call only functions beliefdb_app may, none that writes."""
    role = postgresql.execute("select rolsuper, rolbypassrls, rolcanlogin from pg_catalog.pg_roles"
                              " where rolname = 'beliefdb_reader'").fetchone()
    assert role == (False, False, False)
    rows = postgresql.execute("""
        select c.relname,
               has_table_privilege('beliefdb_reader', c.oid, 'insert, update, delete, truncate, references, trigger')
                or has_any_column_privilege('beliefdb_reader', c.oid, 'insert, update, references')
                or (c.relkind = 'S' and has_sequence_privilege('beliefdb_reader', c.oid, 'usage, update')),
               has_table_privilege('beliefdb_reader', c.oid, 'select'),
               has_table_privilege('beliefdb_app', c.oid, 'select'),
               c.relkind in ('v', 'm') or not exists (select from pg_catalog.pg_attribute a
                                                       where a.attrelid = c.oid and a.attname = 'workspace_id')
                or (c.relrowsecurity and exists (select from pg_catalog.pg_policies p
                                                  where p.schemaname = 'beliefdb' and p.tablename = c.relname
                                                    and 'beliefdb_reader' = any(p.roles)
                                                    and p.cmd in ('ALL', 'SELECT')
                                                    and p.qual like '%current_workspace_id()%'))
          from pg_catalog.pg_class c
         where c.relnamespace = 'beliefdb'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S')
    """).fetchall()
    assert [name for name, writes, _, _, _ in rows if writes] == []
    assert sorted(name for name, _, reads, _, _ in rows if reads) == sorted(name for name, _, _, app, _ in rows if app)
    assert [name for name, _, reads, _, confined in rows if reads and not confined] == []
    functions = postgresql.execute("""
        select p.proname, p.provolatile = 'v', has_function_privilege('beliefdb_app', p.oid, 'execute')
          from pg_catalog.pg_proc p
         where p.pronamespace = 'beliefdb'::regnamespace and has_function_privilege('beliefdb_reader', p.oid, 'execute')
           and not exists (select from pg_catalog.pg_depend d
                            where d.classid = 'pg_catalog.pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
    """).fetchall()
    assert len(functions) > 50 and all(app for _, _, app in functions)
    assert sorted(name for name, volatile, _ in functions if volatile) == VOLATILE_READS


def test_the_auditors_statements_of_dba_md_run(reader: Reader) -> None:
    """docs/dba.md's psql for an auditor, run as the reader (workspace A for 'default', A's belief for '0f3a'):
    each statement answers, and each one the page says is refused is refused with its words; its block that
    verifies every workspace's chain does."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "dba.md").read_text(encoding="utf-8")
    section = doc[doc.index("**An auditor that must not write.**"):doc.index("**Backup and restore.**")]
    blocks = re.findall(r"```sql\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 3 and "grant beliefdb_reader to auditor;" in blocks[0]
    statements = [line for line in blocks[1].splitlines() if line.strip()]
    assert len(statements) >= 6
    with psycopg.connect(reader.url, autocommit=True) as conn:
        for line in statements:
            statement, _, said = line.partition("--")
            statement = statement.replace("'default'", "'A'").replace("'0f3a'", f"'{reader.mine[:8]}'")
            if "ERROR:" in said:
                with pytest.raises(pg_errors.InsufficientPrivilege) as refused:
                    conn.execute(statement)
                assert said.split("ERROR:")[1].strip() == str(refused.value.diag.message_primary), line
            else:
                assert conn.execute(statement).fetchall(), line
        # every workspace's chain, each bound in turn, one notice each (and none is left bound)
        notices: list[str] = []
        conn.add_notice_handler(lambda notice: notices.append(notice.message_primary or ""))
        conn.execute("select set_config('beliefdb.workspace_id', '', false)")
        conn.execute(blocks[2])
        assert [n for n in notices if n.startswith(("A:", "B:"))] == ["A: ok t, 4 events", "B: ok t, 4 events"]
        assert conn.execute("select beliefdb.current_workspace_id()").fetchone() == (None,)


def test_what_the_reader_may_call_calls_only_what_it_may(postgresql: psycopg.Connection[Any]) -> None:
    """A function granted to the reader that runs as its caller, or a view it may read, runs what it calls with
    the reader's privileges: each must be granted to it too (review_items called resolve_review_item, added
    with the role and granted to beliefdb_app only: "permission denied for function resolve_review_item"). One
    that runs with its owner's rights may call any internal function, but no API function kept from the reader
    (one that writes). Only the two calls guarded on purpose (GUARDED_CALLS) are kept from it."""
    calls = postgresql.execute(r"""
        select g.proname, c.proname
          from pg_catalog.pg_proc g
          join pg_catalog.pg_proc c on c.pronamespace = 'beliefdb'::regnamespace
                                   and g.prosrc ~ ('beliefdb\.' || c.proname || '\s*\(')
         where g.pronamespace = 'beliefdb'::regnamespace
           and has_function_privilege('beliefdb_reader', g.oid, 'execute')
           and not has_function_privilege('beliefdb_reader', c.oid, 'execute')
           and (not g.prosecdef or c.proname !~ '^_')
        union
        select v.relname, p.proname
          from pg_catalog.pg_class v
          join pg_catalog.pg_rewrite r on r.ev_class = v.oid
          join pg_catalog.pg_depend d on d.classid = 'pg_catalog.pg_rewrite'::regclass and d.objid = r.oid
                                     and d.refclassid = 'pg_catalog.pg_proc'::regclass
          join pg_catalog.pg_proc p on p.oid = d.refobjid
         where v.relnamespace = 'beliefdb'::regnamespace and p.pronamespace = 'beliefdb'::regnamespace
           and has_table_privilege('beliefdb_reader', v.oid, 'select')
           and not has_function_privilege('beliefdb_reader', p.oid, 'execute')
         order by 1, 2
    """).fetchall()
    assert calls == GUARDED_CALLS


def test_a_readers_login_reads_with_the_command_line_and_writes_nothing(reader: Reader, cli: Cli) -> None:
    """beliefdb's commands act as beliefdb_app, which an auditor's login may not: they said "this database user
    cannot act as beliefdb_app: ... grant beliefdb_app to <user>", the write access it must not have. A login of
    beliefdb_reader (and not beliefdb_app) acts as beliefdb_reader: its reads answer, in any workspace it may bind
    (a login made by hand binds any), and a write is refused by the database, said as an auditor's."""
    assert reader.mine[:8] in cli("beliefs", "--db", reader.url, "-w", "A").stdout
    assert reader.other[:8] in cli("beliefs", "--db", reader.url, "-w", "B").stdout
    assert cli("audit", "verify", "--db", reader.url, "-w", "A").stdout.startswith("audit chain ok")
    assert "Returns are accepted within 7 days." in cli("why", reader.mine[:8], "--db", reader.url, "-w", "A").stdout
    cli("jobs", "--db", reader.url, "-w", "A")
    refused = cli.error("forget", "--source", "policy.md", "--preview", "--db", reader.url, "-w", "A",
                        code="permission_denied")
    login = reader.login
    assert refused["message"].startswith(f"login {login} is a read-only auditor's (beliefdb_reader): it reads and"
                                         " never writes"), refused
    with psycopg.connect(reader.admin, autocommit=True) as conn:
        assert conn.execute("select count(*) from beliefdb.source where name = 'mine.md'").fetchone() == (0,)
        # a login of neither role is told both, and exits 1
        conn.execute(sql.SQL("revoke beliefdb_reader from {}").format(sql.Identifier(login)))
    line = cli.one_line_error("beliefs", "--db", reader.url, "-w", "A")
    assert line == (f"error: login {login} is a member of neither beliefdb_app, which the CLI and the library act as,"
                    f" nor beliefdb_reader (an auditor's, which only reads): run 'beliefdb migrate' as the schema owner"
                    f" and 'grant beliefdb_app to {login}' (or 'grant beliefdb_reader to {login}' to read only)")


def test_a_read_only_login_confined_to_one_workspace(reader: Reader, cli: Cli) -> None:
    """agent create --read-only: an auditor of one workspace, granted beliefdb_reader and bound as an agent's
    login is. It sees that workspace alone in the directory, binds no other, and writes nothing; agent list
    says it only reads. (A login granted beliefdb_reader by hand binds any workspace it names.)"""
    name = f"audit_{secrets.token_hex(4)}"
    try:
        made = cli.json("agent", "create", name, "-w", "A", "--read-only")
        assert made["read_only"] is True
        with psycopg.connect(made["url"], autocommit=True) as conn:
            assert conn.execute("select name from beliefdb.workspace").fetchall() == [("A",)]
            assert conn.execute("select id::text from beliefdb.current_beliefs").fetchall() == [(reader.mine,)]
            assert conn.execute("select ok from beliefdb.audit_verify()").fetchone() == (True,)  # (bound by its login)
            with pytest.raises(pg_errors.InsufficientPrivilege):
                conn.execute("select beliefdb.retract('source', 'policy.md', 'audit')")
        with psycopg.connect(reader.admin, autocommit=True) as conn:
            other = conn.execute("select id::text from beliefdb.workspace where name = 'B'").fetchone()
            assert conn.execute("select pg_has_role(%s, 'beliefdb_app', 'member')", (name,)).fetchone() == (False,)
        with psycopg.connect(made["url"], autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", other)
            with pytest.raises(pg_errors.InsufficientPrivilege, match="cannot act in another"):
                conn.execute("select count(*) from beliefdb.belief")
        assert reader.mine[:8] in cli("beliefs", "--db", made["url"]).stdout
        cli.error("beliefs", "--db", made["url"], "-w", "B", code="permission_denied")
        (listed,) = [a for a in cli.json("agent", "list") if a["name"] == name]
        assert (listed["workspace"], listed["read_only"]) == ("A", True)
        assert f"{name}\tA\t" in cli("agent", "list").stdout and "(read only)" in cli("agent", "list").stdout
    finally:
        cli("agent", "drop", name, expect=None)


def test_a_grant_by_hand_to_the_reader_is_named_when_a_migration_takes_it_back(cli: Cli, db_url: str) -> None:
    """docs/dba.md: a migration names each role it revoked from; a grant by hand to beliefdb_reader (or
    beliefdb_app) was taken back unsaid."""
    with psycopg.connect(db_url, autocommit=True) as conn:
        conn.execute("grant execute on function beliefdb.forget(text,text,boolean,text[],boolean) to beliefdb_reader")
        conn.execute("grant update (value) on beliefdb.belief to beliefdb_reader")
    done = cli.json("migrate")
    assert done["revoked"] == [
        "beliefdb revoked privileges not on beliefdb's allow-list from role beliefdb_reader: on 1 function, 1 table"
        " (hint: beliefdb_reader holds what beliefdb grants it (sql/api/80_privileges.sql), no more: a grant to it by"
        " hand is taken back by every migration)"]
    with psycopg.connect(db_url, autocommit=True) as conn:
        assert conn.execute("select has_function_privilege('beliefdb_reader', 'beliefdb.forget(text,text,boolean,"
                            "text[],boolean)', 'execute'), has_column_privilege('beliefdb_reader', 'beliefdb.belief',"
                            " 'value', 'update')").fetchone() == (False, False)
    assert cli.json("migrate")["revoked"] == []
