"""Appending a turn stores only that turn (issue 22): the conversation's version in force grows in
place by one line and one fragment, and N appends leave exactly what one ingest of the whole
conversation leaves (rule 18 of docs/rules.md: that ingest is then a no-op), compared through SQL."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.models import Turn

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SAID = [("Alice", "I live in Paris."), ("Bob", "Nice, how is it?"), ("Alice", "My daughter is 5."),
        ("Bob", "Good to know?"), ("Alice", "I work at Acme Corp now."), ("Alice", "I moved to Berlin."),
        ("Bob", "Why did you move?"), ("Alice", "My daughter turned 6 yesterday."),
        ("Alice", "My favourite food is croissants."), ("Alice", "I work at Globex now.")]
TURNS = [Turn(speaker, text, START + timedelta(days=i)) for i, (speaker, text) in enumerate(SAID)]
_workspaces = itertools.count()

STATE = {
    "beliefs": """select b.subject, b.attribute, b.value, b.status::text, b.valid_time::text, b.statement
                    from beliefdb.belief b join beliefdb.workspace w on w.id = b.workspace_id and w.name = %s
                   order by 1, 2, 3, 4, 5""",
    "fragments": """select f.start_offset, f.end_offset, f.text, f.speaker, f.spoken_at, f.search::text
                      from beliefdb.fragment f join beliefdb.workspace w on w.id = f.workspace_id and w.name = %s
                     order by 1, 2""",
    "versions": """select s.name, s.origin_type::text, v.version, v.content, v.sha256
                     from beliefdb.source_version v
                     join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
                     join beliefdb.workspace w on w.id = v.workspace_id and w.name = %s order by 1, 3""",
    "evidence": """select b.subject, b.value, e.quote, f.start_offset, f.end_offset, f.speaker, n.holds
                     from beliefdb.evidence e
                     join beliefdb.belief b on b.workspace_id = e.workspace_id and b.id = e.belief_id
                     join beliefdb.fragment f on f.workspace_id = e.workspace_id and f.id = e.fragment_id
                     join beliefdb.node n on n.workspace_id = b.workspace_id and n.id = b.id
                     join beliefdb.workspace w on w.id = e.workspace_id and w.name = %s order by 1, 2, 3, 4""",
    "supersessions": """select w1.value, w2.value from beliefdb.relation r
                          join beliefdb.belief w1 on w1.workspace_id = r.workspace_id and w1.id = r.from_belief
                          join beliefdb.belief w2 on w2.workspace_id = r.workspace_id and w2.id = r.to_belief
                          join beliefdb.workspace w on w.id = r.workspace_id and w.name = %s
                         where r.kind = 'supersedes' order by 1, 2""",
}


def state(conn: psycopg.Connection[Any], workspace: str) -> dict[str, list[tuple[Any, ...]]]:
    return {name: conn.execute(query, (workspace,)).fetchall() for name, query in STATE.items()}


@pytest.mark.slow
def test_n_appends_leave_what_one_ingest_of_the_conversation_leaves(db_url: str,
                                                                    postgresql: psycopg.Connection[Any]) -> None:
    n = next(_workspaces)
    appended, whole = f"appended{n}", f"whole{n}"
    with beliefdb.connect(db_url) as admin:
        admin.create_workspace(appended)
        admin.create_workspace(whole)
    with beliefdb.connect(db_url, workspace=appended) as db:
        reports = [db.remember_turn("chat", t.speaker, t.text, time=t.time, embed=False) for t in TURNS]
        assert [r.version for r in reports] == [1] * len(TURNS)
        assert [r.fragments for r in reports] == [1] * len(TURNS)  # one fragment written per turn
        # the whole conversation again is the text in force: nothing changes
        again = db.ingest_conversation(TURNS, source="chat", embed=False)
        assert not again.new_version and again.accepted == [] and again.note is not None
        assert "unchanged" in again.note
    with beliefdb.connect(db_url, workspace=whole) as db:
        db.ingest_conversation(TURNS, source="chat", embed=False)
    mine, theirs = state(postgresql, appended), state(postgresql, whole)
    assert len(mine["fragments"]) == len(TURNS) and len(mine["versions"]) == 1
    assert {(b[2], b[3]) for b in mine["beliefs"]} >= {("Berlin", "current"), ("Paris", "superseded"),
                                                     ("6", "current"), ("Globex", "current")}
    assert mine == theirs
    with beliefdb.connect(db_url, workspace=appended) as db:
        assert db.audit_verify().ok


@pytest.mark.slow
def test_an_append_that_does_not_extend_the_text_in_force_is_a_new_version(bdb: beliefdb.BeliefDB,
                                                                           postgresql: psycopg.Connection[Any]) -> None:
    bdb.remember_turn("chat", "Alice", "I live in Paris.", time=START, embed=False)
    bdb.retract(source="chat", version=1, reason="wrong chat")
    # the version in force is retracted: the turn is a new version (as before issue 22)
    report = bdb.remember_turn("chat", "Alice", "I moved to Berlin.", time=START + timedelta(days=1), embed=False)
    assert report.new_version and report.version == 2
    # a source version's text still cannot change otherwise
    with pytest.raises(psycopg.DatabaseError, match="immutable"):
        postgresql.execute("update beliefdb.source_version set content = content || ' (edited)' where version = 1")
    postgresql.rollback()
