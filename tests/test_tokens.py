"""Bearer tokens of the servers (``beliefdb token create | list | revoke``): each speaks for one
principal in one workspace, is printed once, and only its SHA-256 is stored; ``beliefdb.authenticate``
tells the servers who a token speaks for until it is revoked; only the schema owner manages them."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import psycopg
import pytest
from conftest import Cli
from psycopg.conninfo import make_conninfo

from beliefdb import api, errors


def _rows(db_url: str, query: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(db_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def test_create_prints_the_token_once_and_stores_only_its_hash(cli: Cli, db_url: str) -> None:
    made = cli.json("token", "create", "--principal", "support-bot", "--workspace", "default")
    assert set(made) == {"token", "id", "workspace", "principal", "read_only", "created_at"}
    assert made["token"].startswith("bdb_") and len(made["token"]) > 40
    assert (made["workspace"], made["principal"], made["read_only"]) == ("default", "support-bot", False)
    stored = _rows(db_url, "select t.id::text, t.token_sha256, t.principal, t.read_only, w.name, t.revoked_at "
                           "from beliefdb.api_token t join beliefdb.workspace w on w.id = t.workspace_id")
    assert stored == [(made["id"], hashlib.sha256(made["token"].encode()).digest(), "support-bot", False, "default",
                       None)]
    # the secret is nowhere in the database: not in the table, not in the audit chain
    dump = _rows(db_url, "select string_agg(t::text, ' ') from beliefdb.api_token t")[0][0]
    assert made["token"] not in dump and made["token"][4:] not in dump
    assert _rows(db_url, "select count(*) from beliefdb.audit_event where payload::text like %s",
                 (f"%{made['token'][4:]}%",)) == [(0,)]


def test_text_mode_prints_only_the_token_on_stdout(cli: Cli) -> None:
    result = cli("token", "create", "--principal", "alice", "--workspace", "default", "--read-only")
    token = result.stdout.strip()
    assert token.startswith("bdb_") and "\n" not in token
    assert "read-only" in result.stderr and "shown once" in result.stderr and token not in result.stderr


def test_the_workspace_defaults_as_every_command_s_does(cli: Cli) -> None:
    """Like every command acting in a workspace: BELIEFDB_WORKSPACE, else the default one."""
    cli("workspace", "create", "support")
    assert cli.json("token", "create", "--principal", "alice")["workspace"] == "default"
    made = cli.json("token", "create", "--principal", "bob", env={"BELIEFDB_WORKSPACE": "support"})
    assert made["workspace"] == "support"
    assert cli.json("token", "create", "--principal", "carol", "-w", "default",
                    env={"BELIEFDB_WORKSPACE": "support"})["workspace"] == "default"


def test_list_shows_no_secret_and_revoke_stops_the_token(cli: Cli, db_url: str) -> None:
    first = cli.json("token", "create", "--principal", "alice", "--workspace", "default")
    cli("workspace", "create", "other")
    second = cli.json("token", "create", "--principal", "bob", "--workspace", "other", "--read-only")
    listed = cli.json("token", "list")
    assert [(t["id"], t["workspace"], t["principal"], t["read_only"], t["revoked_at"]) for t in listed] == [
        (first["id"], "default", "alice", False, None), (second["id"], "other", "bob", True, None)]
    assert all("token" not in t for t in listed)
    assert [t["id"] for t in cli.json("token", "list", "--workspace", "other")] == [second["id"]]
    with api.authenticator(db_url) as gate:
        assert gate.identify(first["token"]).principal == "alice"
        revoked = cli.json("token", "revoke", first["id"][:8])
        assert revoked["id"] == first["id"] and revoked["revoked_at"] is not None
        with pytest.raises(errors.Unauthenticated):
            gate.identify(first["token"])  # at once: nothing is cached
        assert gate.identify(second["token"]).workspace == "other"
    # revoking again keeps the first moment
    assert cli.json("token", "revoke", first["id"])["revoked_at"] == revoked["revoked_at"]
    assert "revoked" in cli("token", "list").stdout



def test_listing_the_tokens_or_agents_of_an_unknown_workspace_is_an_error(cli: Cli) -> None:
    """An unknown workspace is a one-line error, as for every other command (they listed nothing, exit 0,
    so a misspelt name looked like a workspace without tokens)."""
    for what in ("token", "agent"):
        error = cli.error(what, "list", "--workspace", "nope", code="unknown_workspace")
        assert error["message"] == "unknown workspace 'nope'"
        assert cli.one_line_error(what, "list", "--workspace", "nope") == "error: unknown workspace 'nope'"
    assert cli.json("token", "list", "--workspace", "default") == cli.json("agent", "list", "-w", "default") == []


def test_authenticate_names_the_principal_and_workspace(db_url: str) -> None:
    made = api.create_token("default", "agent:42", read_only=True, url=db_url)
    with api.authenticator(db_url) as gate:
        who = gate.identify(made.token)
        assert (who.token_id, who.workspace, who.principal, who.read_only) == (made.id, "default", "agent:42", True)
        assert str(who.workspace_id) == _rows(db_url, "select id::text from beliefdb.workspace "
                                                      "where name = 'default'")[0][0]
        for bad in (None, "", "bdb_", made.token + "x", made.token[4:], "Bearer " + made.token, "bdb_" + "x" * 300):
            with pytest.raises(errors.Unauthenticated):
                gate.identify(bad)


def test_bad_requests_are_one_line_errors(cli: Cli) -> None:
    cli.error("token", "create", "--principal", "alice", "--workspace", "nowhere", code="unknown_workspace")
    cli.error("token", "create", "--principal", "al ice", "--workspace", "default", code="invalid_input")
    cli.error("token", "create", "--principal", "", "--workspace", "default", code="invalid_input")
    cli.error("token", "revoke", str(uuid.uuid4()), code="not_found")
    cli.error("token", "revoke", "bdb_secret", code="invalid_input")
    assert "unknown workspace" in cli.one_line_error("token", "create", "--principal", "a", "--workspace", "nowhere")


def test_the_application_role_cannot_read_or_write_tokens(db_url: str) -> None:
    api.create_token("default", "alice", url=db_url)
    with psycopg.connect(db_url) as conn:
        conn.execute("set role beliefdb_app")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("select token_sha256 from beliefdb.api_token")
        conn.rollback()
        conn.execute("set role beliefdb_app")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("insert into beliefdb.api_token (workspace_id, token_sha256, principal) "
                         "select id, sha256('x'), 'mallory' from beliefdb.workspace")


def test_managing_tokens_takes_the_schema_owner(db_url: str) -> None:
    """A login role per agent (granted beliefdb_app) can neither mint nor list tokens, so no agent can
    make itself a token that speaks for another principal."""
    role = f"agent_{uuid.uuid4().hex[:8]}"
    # every login but the owner's needs its password (the embedded server's pg_hba.conf)
    _rows(db_url, f"create role {role} login password 'agent-password'")
    try:
        _rows(db_url, f"grant beliefdb_app to {role}")
        url = make_conninfo(db_url, user=role, password="agent-password")
        with pytest.raises(errors.PermissionDenied, match="schema owner"):
            api.create_token("default", "alice", url=url)
        with pytest.raises(errors.PermissionDenied, match="schema owner"):
            api.list_tokens(url=url)
        # but it can authenticate a token (the servers may run as such a role only to authenticate)
        made = api.create_token("default", "alice", url=db_url)
        with api.authenticator(url) as gate:
            assert gate.identify(made.token).principal == "alice"
    finally:
        _rows(db_url, f"drop owned by {role}")
        _rows(db_url, f"drop role {role}")


def test_deleting_a_workspace_takes_its_tokens(cli: Cli, db_url: str) -> None:
    cli("workspace", "create", "gone")
    made = cli.json("token", "create", "--principal", "alice", "--workspace", "gone")
    cli("workspace", "delete", "gone")
    assert _rows(db_url, "select count(*) from beliefdb.api_token") == [(0,)]
    with api.authenticator(db_url) as gate, pytest.raises(errors.Unauthenticated):
        gate.identify(made["token"])


def test_making_and_revoking_a_token_is_audited(cli: Cli, db_url: str) -> None:
    made = cli.json("token", "create", "--principal", "alice", "--workspace", "default")
    cli("token", "revoke", made["id"])
    events = _rows(db_url, "select action, payload from beliefdb.audit_event where action like 'api_token.%%' "
                           "order by seq")
    assert [(a, p["keys"]) for a, p in events] == [("api_token.insert", [made["id"]]),
                                                    ("api_token.update", [made["id"]])]
    assert hashlib.sha256(made["token"].encode()).hexdigest() not in str(events)
    assert cli.json("audit", "verify")["ok"] is True


def _token_with_id(cli: Cli, db_url: str, principal: str, token_id: str) -> str:
    made = cli.json("token", "create", "--principal", principal, "--workspace", "default")
    _rows(db_url, "update beliefdb.api_token set id = %s where id = %s", (token_id, made["id"]))
    return str(made["token"])


def test_revoke_takes_a_prefix_of_4_or_more_characters_as_every_id_prefix(cli: Cli, db_url: str) -> None:
    """``token revoke 6`` revoked the one token whose id began with 6: an id prefix takes 4 or more
    characters everywhere (``why abc`` refuses it), since a shorter one names another token tomorrow."""
    secret = _token_with_id(cli, db_url, "alice", "6abc1234-0000-4000-8000-000000000001")
    for short in ("6", "6a", "6ab"):
        err = cli.error("token", "revoke", short, code="invalid_input")
        assert err["message"] == f"token id prefix {short} is too short: give at least 4 characters of the id", err
    assert cli.one_line_error("token", "revoke", "6") == (
        "error: token id prefix 6 is too short: give at least 4 characters of the id")
    with api.authenticator(db_url) as gate:
        assert gate.identify(secret).principal == "alice"  # still live
    assert cli.json("token", "revoke", "6abc")["id"] == "6abc1234-0000-4000-8000-000000000001"


def test_an_ambiguous_token_prefix_is_ambiguous_whatever_its_length(cli: Cli, db_url: str) -> None:
    _token_with_id(cli, db_url, "alice", "abcd1234-0000-4000-8000-000000000001")
    _token_with_id(cli, db_url, "bob", "abcd5678-0000-4000-8000-000000000002")
    for prefix in ("abcd", "abc"):
        err = cli.error("token", "revoke", prefix, code="ambiguous_id")
        assert err["message"].startswith(f"token id prefix {prefix} matches more than one token"), err
    assert [t["revoked_at"] for t in cli.json("token", "list")] == [None, None]


def test_revoking_a_revoked_token_says_it_already_was(cli: Cli, db_url: str) -> None:
    made = cli.json("token", "create", "--principal", "alice", "--workspace", "default")
    first = cli("token", "revoke", made["id"]).stdout.strip()
    assert first == f"revoked token {made['id']} (alice in workspace default)"
    again = cli.json("token", "revoke", made["id"][:8])
    assert again["already_revoked"] is True
    assert cli.json("token", "list")[0]["revoked_at"] == again["revoked_at"]
    line = cli("token", "revoke", made["id"]).stdout.strip()  # exit 0: the token is revoked, as asked
    assert line == (f"token {made['id']} (alice in workspace default) was already revoked at {again['revoked_at']}:"
                    " nothing changed"), line
