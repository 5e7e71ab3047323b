"""What a DBA finds calling the API by hand in psql, on the story of docs/examples/01_story.sql:
arguments a person types (an empty or short id, a null) are refused with beliefdb's own error
code and a message naming the problem, never taken as a match of anything."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb
from pytest_postgresql import factories

from beliefdb.store.agents import create_agent, drop_agent
from tests.conftest import Cli, seeded_proc
from tests.test_regress_examples import EXAMPLES, run_script
from tests.test_team_owner_roles import team_database


def _write_story(url: str) -> None:
    run_script(url, (EXAMPLES / "01_story.sql").read_text(encoding="utf-8"))


# every test of this module starts from the story: each clones it from a template that holds it
story_proc = seeded_proc(_write_story)
postgresql = factories.postgresql("story_proc")


@pytest.fixture
def story(db_url: str) -> str:
    """This test's database, with the story of docs/examples/01_story.sql."""
    return db_url


def _app(url: str) -> psycopg.Connection[Any]:
    """An application session bound to the story's workspace, as alice."""
    conn = psycopg.connect(url, autocommit=True)
    conn.execute("select beliefdb.use_workspace('default')")
    conn.execute("select set_config('beliefdb.principal', 'dba:alice', false)")
    conn.execute("set role beliefdb_app")
    return conn


def _open_items(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    return conn.execute("select id, status from beliefdb.review_item where status = 'open' order by id").fetchall()


@pytest.mark.parametrize("ref", ["", "  ", None, "X"])
def test_review_resolve_refuses_an_item_reference_that_names_no_item(story: str, ref: str | None) -> None:
    with _app(story) as conn:
        # resolve the held action: a reference that matched every item would now match the flagged decision's
        assert len(_open_items(conn)) == 2
        conn.execute("select beliefdb.review_resolve((select id::text from beliefdb.review_item "
                     "where kind = 'action_held'), 'approved')")
        (left,) = _open_items(conn)
        ref = left[0].hex[:1] if ref == "X" else ref
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select beliefdb.review_resolve(%s, 'rejected')", (ref,))
        assert refused.value.sqlstate == "BD005", refused.value.diag.message_primary
        assert "review item" in (refused.value.diag.message_primary or "")
        assert _open_items(conn) == [left]


def test_review_resolve_refuses_a_null_verdict_with_its_own_code(story: str) -> None:
    with _app(story) as conn:
        item = conn.execute("select id::text from beliefdb.review_item where kind = 'action_held'").fetchone()
        assert item is not None
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select beliefdb.review_resolve(%s, null)", (item[0],))
        assert refused.value.sqlstate == "BD005"
        assert refused.value.diag.message_primary == "verdict must be approved or rejected"


@pytest.mark.parametrize("as_app", [True, False])
@pytest.mark.parametrize("query", [
    "select count(*) from beliefdb.beliefs_as_of(now())",
    "select beliefdb.resolve_belief((select id::text from beliefdb.belief limit 1))",
    "select beliefdb.resolve_node('abcd', null)",
    "select beliefdb.resolve_target('return-policy.md')",
    "select * from beliefdb.impact(array[(select id::text from beliefdb.belief limit 1)])",
    "select beliefdb.recall_warnings((select id from beliefdb.belief limit 1))",
    "select * from beliefdb.decay(null, 'decay', true)",
    "select * from beliefdb.expire()",
    "select * from beliefdb.jobs()",
    "select * from beliefdb.job_take('worker')",
    "select * from beliefdb.job_submit('ingest', '[]')",
    "select * from beliefdb.recall('returns')",
    "select * from beliefdb.recall_fragments('returns')",
    "select beliefdb.refresh_ranking_stats(false)",
    "select beliefdb.bulk_stage()",
    "select * from beliefdb.retract_preview('belief', 'abcd')",
    "select * from beliefdb.decide_in_run(gen_random_uuid(), 'title', '[]')",
    "select * from beliefdb.audit_verify()",
    "select * from beliefdb.audit_verify(null)",
])
def test_a_function_of_the_bound_workspace_refuses_with_none_bound(story: str, query: str, as_app: bool) -> None:
    """Not an empty answer (beliefs_as_of), nor "unknown belief" for an id the workspace has: the
    psql session forgot to bind one (docs/dba.md: "Functions without a p_workspace_id argument act
    on the bound workspace, even for a superuser"). With the hint the views give (impact and
    audit_verify gave none): what binds one."""
    with psycopg.connect(story, autocommit=True) as conn:
        if as_app:
            conn.execute("set role beliefdb_app")
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(query)  # type: ignore[arg-type]
        assert refused.value.sqlstate == "BD003"
        assert refused.value.diag.message_primary == "no workspace is bound to this session"
        assert refused.value.diag.message_hint == (
            "bind one first: in psql, select beliefdb.use_workspace('name'); the CLI (-w NAME) and the library"
            " (workspace=) bind one for you")


def test_audit_verify_of_null_is_the_bound_workspaces_for_an_agents_login(story: str) -> None:
    """audit_verify(null) as an agent's login said "no workspace is bound" although the login is bound
    (audit_verify() worked): null means the bound workspace, as the default does."""
    made = create_agent(story, f"agent_{uuid.uuid4().hex[:8]}", "default", "agent-verify-password")
    try:
        with psycopg.connect(made.url, autocommit=True) as conn:
            verified = conn.execute("select ok, events from beliefdb.audit_verify()").fetchone()
            assert verified is not None and verified[0] is True
            assert conn.execute("select ok, events from beliefdb.audit_verify(null)").fetchone() == verified
        with _app(story) as conn:
            assert conn.execute("select ok, events from beliefdb.audit_verify(null)").fetchone() == verified
    finally:
        drop_agent(story, made.name)


@pytest.mark.parametrize("action", ["forget", "retract", "correction.apply", "", None])
@pytest.mark.parametrize("preview", [False, True])
def test_decay_appends_no_audit_event_of_another_name(story: str, action: str | None, preview: bool) -> None:
    """decay is open to every agent; its p_action names its audit event, and only 'decay' or
    'recompute' may: any other would be an event of beliefdb's vocabulary that beliefdb did not make."""
    with _app(story) as conn:
        (before,) = conn.execute("select count(*) from beliefdb.audit_event").fetchone() or (0,)
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select * from beliefdb.decay(null, %s, %s)", (action, preview))
        assert refused.value.sqlstate == "BD005"
        assert refused.value.diag.message_primary == (
            f"decay's action is decay or recompute, not {'<NULL>' if action is None else action}")
        assert conn.execute("select count(*) from beliefdb.audit_event").fetchone() == (before,)


def test_a_dba_deletes_a_workspace_with_one_statement(story: str) -> None:
    """docs/dba.md: deleting a workspace "cascades to all its rows and its chain". The cascade
    removed the chain's head first, and the audit triggers of the rows it then deleted refused:
    "workspace ... has no audit chain"."""
    with psycopg.connect(story, autocommit=True) as conn:
        conn.execute("insert into beliefdb.workspace (name) values ('kept')")
        conn.execute("select beliefdb.use_workspace('kept')")
        conn.execute("select beliefdb.ingest_version('kept.md', 'Kept text.')")
        conn.execute("reset beliefdb.workspace_id")
        before = conn.execute("select count(*) from beliefdb.audit_event e join beliefdb.workspace w "
                              "on w.id = e.workspace_id where w.name = 'kept'").fetchone()
        conn.execute("delete from beliefdb.workspace where name = 'default'")
        assert conn.execute("select name from beliefdb.workspace").fetchall() == [("kept",)]
        for table in ("node", "source", "audit_event", "audit_head", "adjacency", "lexeme_frequency"):
            assert conn.execute(f"select count(*) from beliefdb.{table} t "
                                "where not exists (select from beliefdb.workspace w where w.id = t.workspace_id)"
                                ).fetchone() == (0,), table
        assert conn.execute("select count(*) from beliefdb.audit_event e join beliefdb.workspace w "
                            "on w.id = e.workspace_id where w.name = 'kept'").fetchone() == before
        assert conn.execute("select ok from beliefdb.audit_verify((select id from beliefdb.workspace "
                            "where name = 'kept'))").fetchone() == (True,)


@pytest.mark.parametrize("refs", [None, []])
def test_simulate_retraction_of_nothing_says_so(story: str, refs: list[str] | None) -> None:
    """It said "cannot delete from scalar" (22023), which names nothing the caller did."""
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select * from beliefdb.simulate_retraction(%s::text[])", (refs,))
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == "nothing to simulate: name a node, source or source version"


def test_simulate_retraction_with_no_workspace_bound(story: str) -> None:
    with psycopg.connect(story, autocommit=True) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select * from beliefdb.simulate_retraction(array['return-policy.md'])")
    assert refused.value.sqlstate == "BD003"


@pytest.mark.parametrize("function", ["retract", "retract_preview"])
def test_a_retraction_with_a_null_undo_is_refused_as_such(story: str, function: str) -> None:
    """It said "nothing to retract: source return-policy.md is unknown or already retracted", which
    it is not."""
    args = "'source', 'return-policy.md', 'x', null, null" if function == "retract" else \
        "'source', 'return-policy.md', null, null"
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute(f"select * from beliefdb.{function}({args})")  # type: ignore[arg-type]
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == "undo is true (restore) or false (retract), not null"


@pytest.mark.parametrize("function", ["retract", "retract_preview"])
def test_retracting_a_version_without_its_number_asks_for_it(story: str, function: str) -> None:
    """It said "unknown version <NULL> of source 'return-policy.md'" (BD004)."""
    args = "'version', 'return-policy.md', 'x'" if function == "retract" else "'version', 'return-policy.md'"
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute(f"select * from beliefdb.{function}({args})")  # type: ignore[arg-type]
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == (
        "retracting a version needs its number (p_version): source 'return-policy.md' has versions 1 to 2")


def test_apply_correction_needs_the_revision_its_preview_showed(story: str) -> None:
    """Rule 7: "A correction preview shows the revision it saw; the apply must bring it back." A
    null revision skipped the check (null <> n is not true) and the correction was applied."""
    with _app(story) as conn:
        belief = conn.execute("select id::text from beliefdb.belief where value = '15 days'").fetchone()
        assert belief is not None
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select * from beliefdb.apply_correction(%s, 'Returns within 30 days.', '30 days', "
                         "'legal', 'typo', null)", (belief[0],))
        assert refused.value.sqlstate == "BD005"
        assert refused.value.diag.message_primary == (
            "a correction needs the revision its preview showed (beliefdb.correction_preview)")
        assert conn.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
        assert conn.execute("select status from beliefdb.belief where id = %s", (belief[0],)).fetchone() == ("current",)


@pytest.mark.parametrize(("statement", "reviewer", "message"), [
    (None, "legal", "a correction needs the new statement"),
    ("  ", "legal", "a correction needs the new statement"),
    ("Returns within 30 days.", None, "a correction needs a reviewer"),
    ("Returns within 30 days.", "", "a correction needs a reviewer"),
])
def test_apply_correction_names_what_is_missing(story: str, statement: str | None, reviewer: str | None,
                                                message: str) -> None:
    """As the library says it (beliefdb/store/corrections.py), not a not-null or check violation of
    source_version, fragment or correction."""
    with _app(story) as conn:
        belief = conn.execute("select id::text, revision from beliefdb.belief where value = '15 days'").fetchone()
        assert belief is not None
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select * from beliefdb.apply_correction(%s, %s, '30 days', %s, 'typo', %s)",
                         (belief[0], statement, reviewer, belief[1]))
        assert refused.value.sqlstate == "BD005"
        assert refused.value.diag.message_primary == message


@pytest.mark.parametrize("call", [
    "select * from beliefdb.forget('subject', 'order_1042', null)",
    "select * from beliefdb.decay(null, 'decay', null)",
])
def test_a_null_preview_is_not_taken_for_the_change(story: str, call: str) -> None:
    """forget(..., p_preview => null) erased (if null then ... is false), decay's wrote: a change that
    cannot be undone, from an argument that says nothing. Refused, and nothing written."""
    with _app(story) as conn:
        (before,) = conn.execute("select count(*) from beliefdb.audit_event").fetchone() or (0,)
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(call)  # type: ignore[arg-type]
        assert refused.value.sqlstate == "BD005"
        assert refused.value.diag.message_primary == "preview is true or false, not null"
        assert conn.execute("select count(*) from beliefdb.audit_event").fetchone() == (before,)
        assert conn.execute("select count(*) from beliefdb.belief where subject = 'order_1042'").fetchone() == (2,)


@pytest.fixture
def createrole_owner(embedded_server: Any, postgresql_proc: Any) -> Iterator[str]:
    """A database whose owner is a createrole login, no superuser (tests/test_team_owner_roles.py)."""
    with team_database(embedded_server.status().url, createrole=True) as url:
        yield url


def test_an_agent_is_told_its_own_temporary_table_is_in_the_way(createrole_owner: str) -> None:
    """docs/dba.md (Limits): "One created beforehand by the session's own role is dropped and made
    again". With an owner that is no superuser, an agent's login that made pg_temp.beliefdb_changes
    or a bulk staging table got "must be owner of table ..." (42501) from every write."""
    Cli({"BELIEFDB_URL": createrole_owner})("migrate")
    made = create_agent(createrole_owner, f"agent_{uuid.uuid4().hex[:8]}", "default", "agent-temp-password")
    try:
        with psycopg.connect(made.url, autocommit=True) as conn:
            for table, call in (("beliefdb_changes", "select beliefdb.ingest_version('notes.md', 'A note.')"),
                                ("beliefdb_bulk_claim", "select beliefdb.bulk_stage()")):
                conn.execute(f"create temporary table {table} (x integer)")  # type: ignore[arg-type]
                with pytest.raises(psycopg.Error) as refused:
                    conn.execute(call)  # type: ignore[arg-type]
                assert refused.value.sqlstate == "BD005", refused.value
                assert refused.value.diag.message_primary == (
                    f"this session made a temporary table pg_temp.{table} of its own, and beliefdb's functions"
                    " use that name for theirs")
                conn.execute(refused.value.diag.message_hint or "")  # what the hint says
                conn.execute(call)  # type: ignore[arg-type]
    finally:
        drop_agent(createrole_owner, made.name)


def test_audit_verify_catches_events_cut_off_with_the_head_deleted(story: str) -> None:
    """docs/dba.md: audit_verify "catches events cut off the end (the head no longer matches)". With
    the head row deleted too, the shortened chain verified."""
    with psycopg.connect(story, autocommit=True) as conn:
        ws = conn.execute("select id from beliefdb.workspace where name = 'default'").fetchone()
        assert ws is not None
        (events,) = conn.execute("select count(*) from beliefdb.audit_event where workspace_id = %s", ws).fetchone() \
            or (0,)
        conn.execute("delete from beliefdb.audit_event where workspace_id = %s and seq > %s", (ws[0], events - 3))
        conn.execute("delete from beliefdb.audit_head where workspace_id = %s", ws)
        assert conn.execute("select ok, events, first_broken from beliefdb.audit_verify(%s)", ws).fetchone() == (
            False, events - 3, events - 2)


@pytest.mark.parametrize(("call", "message"), [
    ("select * from beliefdb.decide(null, '[]')", "a decision needs a title"),
    ("select * from beliefdb.decide(' ', '[]')", "a decision needs a title"),
    ("select * from beliefdb.act((select id::text from beliefdb.decision limit 1), '')",
     "an action needs a description"),
    ("select * from beliefdb.act((select id::text from beliefdb.decision limit 1), null)",
     "an action needs a description"),
    ("select * from beliefdb.derive('', 's', 'a', 'v', array[(select id::text from beliefdb.belief limit 1)])",
     "a derived belief needs a statement, a subject and an attribute"),
    ("select * from beliefdb.derive('st', null, 'a', 'v', array[(select id::text from beliefdb.belief limit 1)])",
     "a derived belief needs a statement, a subject and an attribute"),
    ("select * from beliefdb.derive('st', 's', 'a', 'v', array[(select id::text from beliefdb.belief limit 1)], "
     "'bogus')", "unknown belief kind bogus (choose from: fact, rule, policy, preference, procedure, event,"
     " observation, other)"),
])
def test_recording_by_hand_names_what_is_missing(story: str, call: str, message: str) -> None:
    """Not "new row for relation "decision" violates check constraint "decision_title_check"" or a
    not-null violation (23514, 23502): beliefdb's invalid_input, naming the argument."""
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute(call)  # type: ignore[arg-type]
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == message


@pytest.mark.parametrize("source", ["", None])
def test_ingesting_into_a_source_without_a_name_says_so(story: str, source: str | None) -> None:
    """Not "source <NULL> has empty text" for a text that is not empty, nor "violates check
    constraint source_name_check"."""
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select beliefdb.ingest_version(%s, 'Returns within 30 days.')", (source,))
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == "a source needs a name"


def test_beliefs_as_of_no_moment_is_refused_not_empty(story: str) -> None:
    """beliefs_as_of(null) answered no rows: as if nothing had ever been believed."""
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select count(*) from beliefdb.beliefs_as_of(null)")
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == "beliefs as of when? give a moment (now() for now)"


@pytest.mark.parametrize("moment", ["infinity", "-infinity"])
def test_decay_at_no_real_moment_is_refused(story: str, moment: str) -> None:
    """It said "cannot convert infinity to integer" (22003)."""
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select * from beliefdb.decay(%s::timestamptz, 'decay', true)", (moment,))
    assert refused.value.sqlstate == "BD005"
    assert refused.value.diag.message_primary == f"decay needs a moment in time, not {moment}"


@pytest.mark.parametrize("belief", [str(uuid.UUID(int=1)), "another workspace's"])
def test_recall_warnings_of_an_unknown_belief_is_not_found(story: str, belief: str) -> None:
    """It answered no conflicts, nothing replaced and no provenance: the warnings of a belief that
    has none, for an id that names no belief of the bound workspace."""
    with psycopg.connect(story, autocommit=True) as owner:
        owner.execute("insert into beliefdb.workspace (name) values ('other')")
    if belief != str(uuid.UUID(int=1)):
        with psycopg.connect(story, autocommit=True) as other:
            other.execute("select beliefdb.use_workspace('other')")
            claims = [{"statement": "returns within 30 days", "subject": "return_policy", "attribute": "window",
                       "value": "30 days", "quote": "Returns within 30 days.", "start": 0, "end": 23}]
            other.execute("select beliefdb.ingest_version('notes.md', 'Returns within 30 days.', p_claims => %s)",
                          (Jsonb(claims),))
            row = other.execute("select id::text from beliefdb.belief where workspace_id = "
                                "beliefdb.current_workspace_id()").fetchone()
            assert row is not None
            belief = row[0]
    with _app(story) as conn, pytest.raises(psycopg.Error) as refused:
        conn.execute("select beliefdb.recall_warnings(%s)", (belief,))
    assert refused.value.sqlstate == "BD004"
    assert refused.value.diag.message_primary == f"unknown belief {belief}"


@pytest.mark.parametrize("workspace", ["other", "none", "nowhere"])
def test_audit_verify_of_a_chain_the_session_cannot_see_is_refused(story: str, workspace: str) -> None:
    """As the application role, another workspace's chain is hidden by row-level security: it
    answered ok with 0 events, a clean bill for a chain it never read (with none bound too)."""
    with psycopg.connect(story, autocommit=True) as owner:
        (other,) = owner.execute("insert into beliefdb.workspace (name) values ('other') returning id").fetchone() \
            or (None,)
        # the schema's owner reads every chain: the other workspace's first event verifies
        assert owner.execute("select ok, events, first_broken from beliefdb.audit_verify(%s)",
                             (other,)).fetchone() == (True, 1, None)
    with _app(story) as conn:
        if workspace == "none":
            conn.execute("reset beliefdb.workspace_id")
            call, message = "select * from beliefdb.audit_verify()", "no workspace is bound to this session"
        else:
            ws = other if workspace == "other" else uuid.uuid4()
            call, message = (f"select * from beliefdb.audit_verify('{ws}')",
                             f"workspace {ws} has no audit chain this session can see")
        with pytest.raises(psycopg.Error) as refused:
            conn.execute(call)  # type: ignore[arg-type]
        assert refused.value.sqlstate == "BD003"
        assert refused.value.diag.message_primary == message


@pytest.mark.parametrize("workspace", ["chain deleted", "no such workspace"])
def test_audit_verify_tells_a_superuser_the_chain_is_gone(story: str, workspace: str) -> None:
    """A superuser who deleted a workspace's whole chain (events and head) was told "the application
    role sees the bound workspace's chain only": a superuser sees every chain. Its hint now says the
    chain was deleted, or that no workspace has the id; the application role's hint stays."""
    with psycopg.connect(story) as conn:
        (ws,) = conn.execute("select id from beliefdb.workspace where name = 'default'").fetchone() or (None,)
        if workspace == "chain deleted":
            conn.execute("delete from beliefdb.audit_event where workspace_id = %s", (ws,))
            conn.execute("delete from beliefdb.audit_head where workspace_id = %s", (ws,))
        else:
            ws = uuid.uuid4()
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("select * from beliefdb.audit_verify(%s)", (ws,))
        assert refused.value.sqlstate == "BD003"
        assert refused.value.diag.message_primary == f"workspace {ws} has no audit chain this session can see"
        hint = refused.value.diag.message_hint or ""
        assert "application role" not in hint, hint
        if workspace == "chain deleted":
            assert "this workspace's is gone: its events and head" in hint and "were deleted" in hint, hint
        else:
            assert "no workspace has this id" in hint, hint
        conn.rollback()
        # the application role, bound to another workspace, is told what it sees
        conn.execute("set local role beliefdb_app")
        with pytest.raises(psycopg.Error) as hidden:
            conn.execute("select * from beliefdb.audit_verify(%s)", (uuid.uuid4(),))
        assert "this session sees no workspace with this id" in (hidden.value.diag.message_hint or "")


def test_reason_live_at_of_no_justification_is_false(story: str) -> None:
    """reason_live_at(unknown workspace, unknown justification, now()) answered true: a reason with no
    antecedent to check. An id that names no justification was no live reason; a real one's answer is
    what it was (every antecedent belief believed then, no decision of it flagged then)."""
    with psycopg.connect(story, autocommit=True) as conn:
        assert conn.execute("select beliefdb.reason_live_at(gen_random_uuid(), gen_random_uuid(), now())"
                            ).fetchone() == (False,)
        rows = conn.execute("""
            select beliefdb.reason_live_at(j.workspace_id, j.id, m.at),
                   not exists (select from beliefdb.justification_antecedent y
                                 join beliefdb.belief b on b.workspace_id = y.workspace_id and b.id = y.antecedent
                                where y.workspace_id = j.workspace_id and y.justification_id = j.id
                                  and not beliefdb.believed_at(b, m.at))
                   and not exists (select from beliefdb.justification_antecedent y
                                     join beliefdb.review_item r on r.workspace_id = y.workspace_id
                                                                and r.node = y.antecedent
                                    where y.workspace_id = j.workspace_id and y.justification_id = j.id
                                      and r.kind = 'decision_flagged' and r.created_at <= m.at
                                      and (r.resolved_at is null or r.resolved_at > m.at))
              from beliefdb.justification j
             cross join (select j2.created_at as at from beliefdb.justification j2
                         union select now()) m""").fetchall()
        assert rows and all(live == was for live, was in rows)
        assert {live for live, _ in rows} == {True, False}
        (ws, justification) = conn.execute("select workspace_id, id from beliefdb.justification limit 1").fetchone() \
            or (None, None)
        assert conn.execute("select beliefdb.reason_live_at(gen_random_uuid(), %s, now())",
                            (justification,)).fetchone() == (False,)
    # another workspace's reason, which row-level security hides from the application role
    with _app(story) as conn:
        conn.execute("select set_config('beliefdb.workspace_id', %s, false)", (str(uuid.uuid4()),))
        assert conn.execute("select beliefdb.reason_live_at(%s, %s, now())", (ws, justification)).fetchone() == (
            False,)


def test_a_bulk_batch_says_nothing_but_its_answer(story: str) -> None:
    """bulk_stage printed three NOTICEs in psql (schema "pg_temp" does not exist, skipping; then, in
    a later transaction, table "beliefdb_bulk_document" does not exist, skipping ...), and
    bulk_ingest_batch one more (table "beliefdb_audit_batch" does not exist)."""
    with _app(story) as conn:
        notices: list[str] = []
        conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
        for n in range(2):
            with conn.transaction():
                conn.execute("select beliefdb.bulk_stage()")
                conn.execute("select beliefdb.bulk_stage()")  # again in the same transaction: empty again
                conn.execute("insert into pg_temp.beliefdb_bulk_document (n, source, content) values (1, %s, %s)",
                             (f"bulk-{n}.md", "Returns are accepted within 9 days."))
                assert len(conn.execute("select * from beliefdb.bulk_ingest_batch()").fetchall()) == 1
        assert notices == []


def test_a_bulk_claim_whose_valid_time_is_empty_is_refused(story: str) -> None:
    """A claim staged for bulk_ingest_batch that ends when it starts is no valid time (PostgreSQL keeps
    [t, t) as 'empty', read back as valid always): refused in the words the one-by-one path uses, and
    nothing of the batch is stored."""
    text = "Returns are accepted within 9 days."
    with _app(story) as conn:
        before = conn.execute("select count(*) from beliefdb.belief").fetchone()
        with pytest.raises(psycopg.Error) as refused, conn.transaction():
            conn.execute("select beliefdb.bulk_stage()")
            conn.execute("insert into pg_temp.beliefdb_bulk_document (n, source, content) values (1, 'empty.md', %s)",
                         (text,))
            conn.execute("insert into pg_temp.beliefdb_bulk_fragment values (1, 0, %s)", (len(text),))
            conn.execute("""insert into pg_temp.beliefdb_bulk_claim
                            values (1, 0, %s, 'returns', 'window', '9 days', %s, 0, %s, 'fact', '{}',
                                    '2026-03-01T00:00:00Z', '2026-03-01T00:00:00Z')""", (text, text, len(text)))
            conn.execute("select * from beliefdb.bulk_ingest_batch()")
        assert refused.value.sqlstate == "BD005"
        assert (refused.value.diag.message_primary or "").startswith("valid time is empty: valid_to (")
        assert conn.execute("select count(*) from beliefdb.belief").fetchone() == before
        assert conn.execute("select count(*) from beliefdb.source where name = 'empty.md'").fetchone() == (0,)



def test_a_dba_reads_the_status_a_decision_and_its_action_had_at_a_moment(story: str) -> None:
    """The as-of pictures' rule for decisions and actions (from their review items) is SQL a DBA
    calls: the refusal was active and its email scheduled before v3.3 (2026-12-01 09:00), flagged
    and held after; approved, and the email back to scheduled, once a person approved them."""
    before, flagged, approved = "2026-11-30T12:00:00Z", "2026-12-02T12:00:00Z", "2026-12-04T12:00:00Z"
    status = """select beliefdb.decision_status_at(d, %(at)s), beliefdb.action_status_at(a, %(at)s)
                  from beliefdb.decision d join beliefdb.action a on a.decision_id = d.id
                 where d.title = 'Refuse the return of order 1042'"""
    with _app(story) as conn:
        conn.execute("set beliefdb.now = '2026-12-03T09:00:00Z'")
        for kind in ("action_held", "decision_flagged"):
            conn.execute("select beliefdb.review_resolve((select id::text from beliefdb.review_item "
                         "where kind = %s and status = 'open'), 'approved')", (kind,))
        assert conn.execute(status, {"at": before}).fetchone() == ("active", "scheduled")
        assert conn.execute(status, {"at": flagged}).fetchone() == ("needs_review", "held")
        assert conn.execute(status, {"at": approved}).fetchone() == ("approved", "scheduled")
