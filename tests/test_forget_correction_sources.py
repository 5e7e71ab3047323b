"""Forgetting (rule 14 of docs/rules.md) and the source a correction makes of its reviewer's text
(``correction:<uuid>``, rule 6): when the correction goes with what forget takes (its replacement, the
subject, a belief that corroborated it), its hidden source goes too, version, fragment, redaction rows and
the audit events naming it, in the same transaction, counted in the report as a source's are. Left, it
was an empty shell, its text all masked, that still counted as a source of the workspace and kept the
reviewer's label. It stays while something still rests on it: the replacement, when only the corrected
belief is forgotten; a belief quoting another version of it."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

import beliefdb
from beliefdb.models.changes import CorrectionResult
from beliefdb.models.ingest import Accepted

TEAM = "# Team\nThe team grows by one.\n"
FIXED = "The team grows by two with Porto hires."


def correct(bdb: beliefdb.BeliefDB) -> tuple[Accepted, CorrectionResult]:
    """A belief of team.md, corrected by reviewer ana: the belief and the correction's result."""
    team = bdb.remember("The team grows by one.", "team", "growth", "one", "The team grows by one",
                        source="team.md", text=TEAM).accepted[0]
    fixed = bdb.apply_correction(team.id, FIXED, reviewer="ana", value="two", reason="the Porto office said so",
                                 expect_revision=1)
    return team, fixed


def hidden(conn: psycopg.Connection[Any]) -> list[tuple[Any, ...]]:
    """What is left of the correction sources: each one's name, its versions' labels and texts."""
    return conn.execute(
        "select s.name, v.label, v.content from beliefdb.source s"
        " left join beliefdb.source_version v on v.workspace_id = s.workspace_id and v.source_id = s.id"
        " where s.name like 'correction:%' order by s.name, v.version").fetchall()


def count(conn: psycopg.Connection[Any], sql: str, *params: object) -> int:
    """The one number a ``select count(*)`` answers."""
    row = conn.execute(sql, params or None).fetchone()
    assert row is not None
    return int(row[0])


def left_of(conn: psycopg.Connection[Any], name: str) -> dict[str, int]:
    """How many rows of each kind still belong to (or name) the source called ``name``: its fragments, the
    fragment nodes left without a fragment, the redactions, and the audit events whose payload names it."""
    return {
        "fragments": count(conn, "select count(*) from beliefdb.fragment f join beliefdb.source_version v"
                                 " on v.workspace_id = f.workspace_id and v.id = f.source_version_id"
                                 " join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id"
                                 " where s.name = %s", name),
        "fragment nodes": count(conn, "select count(*) from beliefdb.node n where n.kind = 'fragment' and not exists"
                                      " (select from beliefdb.fragment f"
                                      "   where f.workspace_id = n.workspace_id and f.id = n.id)"),
        "redactions": count(conn, "select count(*) from beliefdb.redaction"),
        "audit": count(conn, "select count(*) from beliefdb.audit_event where payload::text like %s", f"%{name}%"),
    }


@pytest.mark.parametrize("how", ["replacement", "subject"])
def test_the_hidden_source_of_a_forgotten_correction_goes_with_it(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any], how: str) -> None:
    """Forgetting the replacement (or the subject both beliefs are of) takes the correction, and with it
    its source: no source, version, label, fragment or redaction of it stays, and the report counts its
    version and fragment as a forgotten source's (the preview the same, to the fingerprint)."""
    _, fixed = correct(bdb)
    postgresql.commit()
    [(name, label, _)] = hidden(postgresql)
    assert label == "reviewer ana"
    belief, subject = (str(fixed.replacement), None) if how == "replacement" else (None, "team")
    before = count(postgresql, "select count(*) from beliefdb.fragment")
    preview = bdb.forget(belief=belief, subject=subject, preview=True)
    done = bdb.forget(belief=belief, subject=subject)
    assert done.fingerprint() == preview.fingerprint()
    postgresql.commit()
    assert hidden(postgresql) == []
    left = left_of(postgresql, name)
    assert (left["fragments"], left["fragment nodes"]) == (0, 0), left
    gone = before - count(postgresql, "select count(*) from beliefdb.fragment")
    assert (done.versions, done.fragments) == (1, gone), done
    # (forgetting the subject masks its quote in team.md: that redaction is team.md's, and stays)
    assert count(postgresql,
                 "select count(*) from beliefdb.redaction r join beliefdb.source_version v"
                 " on v.workspace_id = r.workspace_id and v.id = r.source_version_id"
                 " join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id"
                 " where s.name <> 'team.md'") == 0
    assert done.redacted == (1 if how == "subject" else 0)
    assert bdb.audit_verify().ok


def test_a_belief_that_rested_on_the_correction_text_goes_and_its_audit_events_are_redacted(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Another belief may quote the reviewer's text (remembered in its source, by name): forgetting the
    replacement masks the text it quotes, so it goes as any belief over masked words does, and the source
    goes with the correction; the audit events that named the source keep their hashes only."""
    _, fixed = correct(bdb)
    postgresql.commit()
    [(name, _, _)] = hidden(postgresql)
    hires = bdb.remember("Porto hires.", "porto", "hires", "yes", "Porto hires", source=name).accepted[0]
    postgresql.commit()
    assert left_of(postgresql, name)["audit"] > 0
    preview = bdb.forget(belief=str(fixed.replacement), preview=True)
    done = bdb.forget(belief=str(fixed.replacement))
    assert done.fingerprint() == preview.fingerprint()
    postgresql.commit()
    assert hidden(postgresql) == []
    assert done.beliefs == 2 and done.versions == 1, done
    assert hires.id not in {b.id for b in bdb.beliefs(include_all=True)}
    assert left_of(postgresql, name) == {"fragments": 0, "fragment nodes": 0, "redactions": 0, "audit": 0}
    assert bdb.audit_verify().ok


def test_forgetting_the_corrected_belief_keeps_the_source_its_replacement_rests_on(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The correction goes with the belief it corrected, but its replacement stands on the reviewer's
    fragment: the source stays, its text as the reviewer typed it, and the report counts no version."""
    team, fixed = correct(bdb)
    postgresql.commit()
    done = bdb.forget(belief=str(team.id))
    postgresql.commit()
    [(_, label, content)] = hidden(postgresql)
    assert (label, content) == ("reviewer ana", FIXED)
    assert done.versions == 0
    assert [(b.id, b.status) for b in bdb.beliefs()] == [(fixed.replacement, "current")]


def test_a_correction_source_with_another_version_stays(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A correction's source that holds another text as its next version (ingested before such sources were
    closed to other texts: tests/test_correction_source_reserved.py) is no longer the correction's alone,
    and stays with that version when the correction goes."""
    _, fixed = correct(bdb)
    postgresql.commit()
    [(name, _, _)] = hidden(postgresql)
    postgresql.execute("insert into beliefdb.source_version (workspace_id, source_id, version, content, sha256)"
                       " select s.workspace_id, s.id, 2, 'Lisbon hires too.' || chr(10), ''::bytea"
                       "   from beliefdb.source s where s.name = %s", (name,))
    postgresql.commit()
    done = bdb.forget(belief=str(fixed.replacement))
    postgresql.commit()
    assert done.versions == 0
    assert [c for _, _, c in hidden(postgresql)][-1] == "Lisbon hires too.\n"


def test_another_principals_correction_source_is_not_deleted_without_the_right(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """The source is its owner's (rule 17): one the acting principal does not own is refused, naming its
    owner, as another's source would be, and nothing is forgotten."""
    _, fixed = correct(bdb)
    postgresql.execute("update beliefdb.source set owner = 'carol' where name like 'correction:%'")
    postgresql.commit()
    with pytest.raises(beliefdb.errors.NotOwner, match="carol"):
        bdb.forget(belief=str(fixed.replacement), preview=True)
    with pytest.raises(beliefdb.errors.NotOwner, match="carol"):
        bdb.forget(belief=str(fixed.replacement))
    postgresql.commit()
    assert [label for _, label, _ in hidden(postgresql)] == ["reviewer ana"]


def test_a_withdrawn_corrections_source_goes_with_its_retraction_reason(
        bdb: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """A correction is withdrawn by retracting its source (docs/dba.md, Corrections): the reason given is
    about the reviewer's text. Forgetting the replacement takes the source, its retraction's history and
    the reason its retract event kept, which named nothing left (its payload keeps its hash only)."""
    _, fixed = correct(bdb)
    postgresql.commit()
    [(name, _, _)] = hidden(postgresql)
    bdb.retract(source=name, reason="the Porto memo was a draft")
    postgresql.commit()
    bdb.forget(belief=str(fixed.replacement))
    postgresql.commit()
    assert hidden(postgresql) == []
    for table in ("audit_event", "retraction_period", "source"):
        left = count(postgresql, f"select count(*) from beliefdb.{table} t where t::text like '%%Porto memo%%'")
        assert left == 0, table
    assert bdb.audit_verify().ok
