"""Corrections are evidence, not edits; preview, then apply atomically (docs/rules.md, rules 6 and 7).

The world of every test: belief X (return window 7 days, from an internal note) and belief Y
(restocking fee, from another source). D1 rests on X alone and has an action; D2 rests on X or
Y; D3 rests on Y alone. Correcting X must flag exactly D1, hold exactly its action, and report D2
as still supported by Y. The world is written once, into a template database (conftest.seeded_proc),
and every test starts from a fresh clone of it; a correction settled against rivals of its belief,
on an empty database, is in tests/test_corrections_rivals.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
import pytest
from conftest import SEEDS, Cli, seeded_proc
from pytest_postgresql import factories

import beliefdb
from beliefdb import errors
from beliefdb.models import StillSupported
from beliefdb.store import corrections

OLD_QUOTE = "Returns are accepted within 7 days of delivery."
NEW_TEXT = "Returns are accepted within 14 days of delivery (reviewer: the note had a typo)."
POLICY_WEIGHT = 0.42  # a correction's confidence comes from confidence_policy, set to this in the tests


@dataclass(frozen=True)
class World:
    x: UUID
    y: UUID
    d1: UUID
    a1: UUID
    d2: UUID
    d3: UUID
    a3: UUID


class Su:
    """The superuser connection of the test database, one committed statement at a time."""

    def __init__(self, conn: psycopg.Connection[Any], workspace_id: str) -> None:
        self.conn = conn
        self.ws = workspace_id

    def all(self, query: str, params: Any = None) -> list[tuple[Any, ...]]:
        cur = self.conn.execute(query, params)
        rows = cur.fetchall() if cur.description else []
        self.conn.commit()
        return rows

    def one(self, query: str, params: Any = None) -> Any:
        rows = self.all(query, params)
        assert len(rows) == 1, rows
        return rows[0][0]

    def counts(self) -> dict[str, int]:
        tables = ("correction", "belief", "source", "source_version", "fragment", "evidence", "relation", "node",
                  "justification", "review_item", "audit_event")
        return {t: self.one(f"select count(*) from beliefdb.{t} where workspace_id = %s", (self.ws,))
                for t in tables}


def weighted_su(conn: psycopg.Connection[Any], bdb: beliefdb.BeliefDB) -> Su:
    """``conn`` (the superuser's) on ``bdb``'s workspace, with the weight of a correction set to POLICY_WEIGHT."""
    s = Su(conn, bdb.database.workspace_id)
    s.all("update beliefdb.confidence_policy set weight = %s where factor = 'correction' and key = 'human_correction'",
          (POLICY_WEIGHT,))
    return s


@pytest.fixture
def su(postgresql: psycopg.Connection[Any], bdb: beliefdb.BeliefDB) -> Su:
    return weighted_su(postgresql, bdb)


def write_world(bdb: beliefdb.BeliefDB) -> World:
    x = bdb.remember("Returns within 7 days", "return_policy", "window", "7 days", OLD_QUOTE, source="internal-note",
                     text=f"Note. {OLD_QUOTE}", authority="internal").accepted[0].id
    y = bdb.remember("Restocking fee 5%", "restocking", "fee", "5%", "A restocking fee of 5% applies.",
                     source="fees", text="Fees. A restocking fee of 5% applies.", authority="internal").accepted[0].id
    d1 = bdb.decide("Refuse the return of order 1042", because=[x]).id
    a1 = bdb.act(d1, "email the customer a refusal").id
    d2 = bdb.decide("Keep the returns desk staffed", because=[x, y]).id
    d3 = bdb.decide("Charge the fee on order 77", because=[y]).id
    a3 = bdb.act(d3, "invoice the fee").id
    return World(x, y, d1, a1, d2, d3, a3)


def _seed(url: str) -> World:
    with beliefdb.connect(url) as bdb:
        return write_world(bdb)


# every test of this module starts from the world: each clones it from a template that holds it
world_proc = seeded_proc(_seed)
postgresql = factories.postgresql("world_proc")


@pytest.fixture
def world(postgresql: psycopg.Connection[Any]) -> World:
    """The world of the module's docstring: this test's database holds it."""
    written: World = SEEDS[postgresql.info.dbname]
    return written


def statuses(db: beliefdb.BeliefDB) -> tuple[dict[UUID, str], dict[UUID, str]]:
    return {d.id: d.status for d in db.decisions()}, {a.id: a.status for a in db.actions()}


def revision(db: beliefdb.BeliefDB, belief: UUID) -> int:
    return db.why(belief).belief.revision


# ---------------------------------------------------------------------------------------------
# preview (rule 7)


def test_preview_shows_flags_holds_and_what_other_support_keeps(bdb: beliefdb.BeliefDB, su: Su,
                                                                world: World) -> None:
    before = su.counts()
    seen = bdb.preview_correction(world.x)
    assert seen.belief == world.x
    assert seen.revision == revision(bdb, world.x)
    assert seen.would_flag == [world.d1]
    assert seen.would_hold == [world.a1]
    assert seen.still_supported == [StillSupported(decision=world.d2, by=[[world.y]])]
    assert su.counts() == before  # a preview writes nothing
    assert statuses(bdb) == ({world.d1: "active", world.d2: "active", world.d3: "active"},
                             {world.a1: "scheduled", world.a3: "scheduled"})


BLANK = ("", "   ", "\t\n")
REFUSED = "a correction needs the new statement"


@pytest.mark.parametrize("statement", BLANK, ids=["empty", "spaces", "tab and newline"])
def test_a_preview_refuses_a_blank_statement_as_the_apply_does(bdb: beliefdb.BeliefDB, su: Su, world: World,
                                                                statement: str) -> None:
    """Rule 7: the preview is what the apply does, refusals included. A blank statement is refused by the
    apply; its preview answered a full report (an empty one read as no statement, the belief's own; one of
    spaces previewed a correction to spaces). Now both refuse it alike and write nothing; a preview without
    a statement (None) still shows what depends on the belief."""
    before = su.counts()
    with pytest.raises(errors.InvalidInput) as applied:
        bdb.apply_correction(world.x, statement, reviewer="rita", expect_revision=revision(bdb, world.x))
    with pytest.raises(errors.InvalidInput) as previewed:
        bdb.preview_correction(world.x, statement)
    with pytest.raises(errors.InvalidInput) as with_a_value:
        bdb.preview_correction(world.x, statement, "14 days")
    assert previewed.value.message == with_a_value.value.message == applied.value.message == REFUSED
    assert su.counts() == before
    assert bdb.preview_correction(world.x).would_flag == [world.d1]


@pytest.mark.parametrize("statement", BLANK[:2], ids=["empty", "spaces"])
def test_the_sql_preview_refuses_a_blank_statement_as_the_sql_apply_does(bdb: beliefdb.BeliefDB, su: Su,
                                                                        world: World, statement: str) -> None:
    """The same in SQL, where the apply's check lives (beliefdb.apply_correction): a psql caller's preview
    refuses what its apply refuses, with the same code (BD005) and words, an unknown belief or not."""
    before = su.counts()
    said = {}
    for door, call in (("apply", "select * from beliefdb.apply_correction(%s, %s, null, 'rita', null, 1)"),
                       ("preview", "select * from beliefdb.correction_preview(%s, %s)"),
                       ("preview with a value", "select * from beliefdb.correction_preview(%s, %s, '14 days')")):
        for belief in (str(world.x), "ffffffff"):
            with pytest.raises(errors.InvalidInput) as refused, bdb.database.transaction() as conn:
                conn.execute(call, (belief, statement))
            said[door, belief] = refused.value.message
    assert set(said.values()) == {REFUSED}, said
    assert su.counts() == before


def test_preview_reaches_through_derived_beliefs(bdb: beliefdb.BeliefDB, world: World) -> None:
    derived = bdb.derive("Late returns are refused", "return_policy", "late", "refused", [world.x]).id
    d4 = bdb.decide("Refuse late returns", because=[derived]).id
    a4 = bdb.act(d4, "update the FAQ").id
    seen = bdb.preview_correction(world.x)
    assert set(seen.would_flag) == {world.d1, d4}
    assert set(seen.would_hold) == {world.a1, a4}
    result = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=seen.revision)
    assert set(result.flagged) == {world.d1, d4} and set(result.held) == {world.a1, a4}
    assert {b.id: b.status for b in bdb.beliefs(include_all=True)}[derived] == "unsupported"


# ---------------------------------------------------------------------------------------------
# apply (rule 6)


def test_apply_records_the_correction_as_evidence_not_an_edit(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    old = bdb.why(world.x).belief
    assert abs(old.confidence - POLICY_WEIGHT) > 0.1  # so the replacement's confidence cannot be the old one's
    seen = bdb.preview_correction(world.x)
    result = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=seen.revision,
                                  value="14 days", reason="typo in the note")
    assert result.already_applied is False
    assert result.superseded == [world.x]

    # the correction record
    row = su.all("""select belief_id, belief_revision, reviewer, new_statement, new_value, reason,
                           fragment_id, replacement_belief_id
                      from beliefdb.correction where id = %s""", (result.correction,))
    assert len(row) == 1
    belief_id, belief_revision, reviewer, new_statement, new_value, reason, fragment_id, replacement = row[0]
    assert (belief_id, belief_revision, reviewer, new_statement, new_value, reason, replacement) == (
        world.x, seen.revision, "rita", NEW_TEXT, "14 days", "typo in the note", result.replacement)
    assert su.one("select kind::text from beliefdb.node where id = %s", (result.correction,)) == "correction"

    # a human_reviewer source whose version text is exactly the reviewer's statement
    origin, content, frag_text, start, end = su.all(
        """select s.origin_type::text, v.content, f.text, f.start_offset, f.end_offset
             from beliefdb.fragment f
             join beliefdb.source_version v on v.workspace_id = f.workspace_id and v.id = f.source_version_id
             join beliefdb.source s on s.workspace_id = v.workspace_id and s.id = v.source_id
            where f.id = %s""", (fragment_id,))[0]
    assert (origin, content, frag_text, start, end) == ("human_reviewer", NEW_TEXT, NEW_TEXT, 0, len(NEW_TEXT))

    # the replacement: human_correction, confidence from the policy, evidence only from that fragment
    why = bdb.why(result.replacement)
    new = why.belief
    assert (new.subject, new.attribute, new.value, new.statement) == ("return_policy", "window", "14 days", NEW_TEXT)
    assert new.confidence_kind == "human_correction"
    assert new.confidence == pytest.approx(POLICY_WEIGHT)
    assert new.status == "current"
    assert [e.quote for e in why.evidence] == [NEW_TEXT]
    assert OLD_QUOTE not in [e.quote for e in why.evidence]
    assert [(e.fragment_id, e.origin_type) for e in why.evidence] == [(fragment_id, "human_reviewer")]
    reasons = su.all("""select j.id, array_agg(a.antecedent) from beliefdb.justification j
                          join beliefdb.justification_antecedent a
                            on a.workspace_id = j.workspace_id and a.justification_id = j.id
                         where j.consequent = %s group by j.id""", (result.replacement,))
    assert [sorted(ants) for _, ants in reasons] == [[fragment_id]]
    assert [h.old_belief for h in why.replaced] == [world.x]

    # the old belief: superseded, kept with its own evidence, with a supersedes relation
    old_why = bdb.why(world.x)
    assert old_why.belief.status == "superseded"
    assert [e.quote for e in old_why.evidence] == [OLD_QUOTE]
    assert [h.new_belief for h in old_why.replaced_by] == [result.replacement]
    assert su.one("""select count(*) from beliefdb.relation
                      where from_belief = %s and to_belief = %s and kind = 'supersedes'""",
                  (result.replacement, world.x)) == 1
    assert [b.id for b in bdb.beliefs(subject="return_policy")] == [result.replacement]

    # dependants: exactly D1 flagged and its action held; D2 still holds through Y
    assert result.flagged == [world.d1] and result.held == [world.a1]
    assert statuses(bdb) == ({world.d1: "needs_review", world.d2: "active", world.d3: "active"},
                             {world.a1: "held", world.a3: "scheduled"})
    assert {(i.kind, i.node) for i in bdb.review_items()} == {("decision_flagged", world.d1),
                                                              ("action_held", world.a1)}
    assert su.one("select count(*) from beliefdb.audit_event where workspace_id = %s and action = 'correction.apply'",
                  (su.ws,)) == 1
    assert bdb.audit_verify().ok


def test_a_decision_citing_the_replacement_holds(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    result = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=revision(bdb, world.x))
    d = bdb.decide("Accept the return of order 1043", because=[result.replacement])
    assert d.status == "active"
    assert su.one("select holds from beliefdb.node where id = %s", (result.replacement,)) is True


def test_a_superseded_belief_cannot_be_corrected(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    first = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=revision(bdb, world.x))
    before = su.counts()
    with pytest.raises(errors.InvalidInput):
        bdb.apply_correction(world.x, "Something else entirely.", reviewer="sam",
                             expect_revision=revision(bdb, world.x))
    assert su.counts() == before
    # correcting the replacement is the way
    again = bdb.apply_correction(first.replacement, "Returns: 15 days.", reviewer="sam",
                                 expect_revision=revision(bdb, first.replacement))
    assert again.already_applied is False and again.superseded == [first.replacement]


def test_a_belief_superseded_since_the_preview_is_not_correctable_whatever_the_revision(
        bdb: beliefdb.BeliefDB, cli: Cli, su: Su, world: World) -> None:
    """Corrected by another between the preview and the apply, the belief is not_correctable, naming what
    replaced it (what a preview says now), whatever revision the apply brings: it was a
    stale_correction_preview ("preview the correction again"), whose new preview then refused it."""
    seen = bdb.preview_correction(world.x, NEW_TEXT, value="14 days")
    other = bdb.apply_correction(world.x, "Returns within 30 days.", value="30 days", reviewer="sam",
                                 expect_revision=seen.revision)
    before = su.counts()
    for expect in (seen.revision, revision(bdb, world.x), revision(bdb, world.x) + 5):
        with pytest.raises(errors.NotCorrectable) as refused:
            bdb.apply_correction(world.x, NEW_TEXT, value="14 days", reviewer="rita", expect_revision=expect)
        assert str(other.replacement) in str(refused.value)
    with pytest.raises(errors.NotCorrectable) as previewed:
        bdb.preview_correction(world.x, NEW_TEXT, value="14 days")
    err = cli.error("correct", str(world.x), NEW_TEXT, "--value", "14 days", "--reviewer", "rita", "--apply",
                    "--expect-revision", str(seen.revision), code="not_correctable")
    assert err["message"] == str(previewed.value) == str(refused.value)
    assert su.counts() == before


# ---------------------------------------------------------------------------------------------
# stale, already applied, atomic (rule 7)


def test_a_stale_revision_is_refused_and_writes_nothing(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    seen = bdb.preview_correction(world.x)
    # the belief changes after the preview: its source is withdrawn and restored
    bdb.retract(source="internal-note", reason="checking")
    bdb.retract(source="internal-note", reason="", undo=True)
    assert revision(bdb, world.x) != seen.revision
    before = su.counts()
    decisions_before = statuses(bdb)

    with pytest.raises(errors.StaleCorrectionPreview):
        bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=seen.revision)
    with pytest.raises(errors.StaleCorrectionPreview):
        bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=revision(bdb, world.x) + 1)

    assert su.counts() == before
    assert statuses(bdb) == decisions_before
    assert bdb.why(world.x).belief.status == "current"
    # a fresh preview can be applied
    fresh = bdb.preview_correction(world.x)
    assert not bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=fresh.revision).already_applied
    assert bdb.audit_verify().ok


def test_the_same_apply_twice_is_already_applied(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    rev = revision(bdb, world.x)
    first = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev)
    after_first = su.counts()
    second = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev)
    assert second.already_applied is True
    assert (second.correction, second.replacement, second.superseded) == (first.correction, first.replacement,
                                                                          [world.x])
    counts = su.counts()
    assert {k: v for k, v in counts.items() if k != "audit_event"} == \
        {k: v for k, v in after_first.items() if k != "audit_event"}
    assert su.one("select count(*) from beliefdb.belief where confidence_kind = 'human_correction'") == 1
    assert bdb.audit_verify().ok


def test_a_repeated_apply_reruns_the_dependency_check(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    """If the flags had been lost after the correction committed, retrying the apply heals them."""
    rev = revision(bdb, world.x)
    first = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev,
                                 idempotency_key="k-1")
    assert first.flagged == [world.d1]
    su.all("update beliefdb.decision set status = 'active' where id = %s", (world.d1,))
    su.all("update beliefdb.action set status = 'scheduled' where id = %s", (world.a1,))
    su.all("delete from beliefdb.review_item where workspace_id = %s", (su.ws,))

    again = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev, idempotency_key="k-1")
    assert again.already_applied is True
    assert again.flagged == [world.d1] and again.held == [world.a1]
    assert statuses(bdb) == ({world.d1: "needs_review", world.d2: "active", world.d3: "active"},
                             {world.a1: "held", world.a3: "scheduled"})
    assert {(i.kind, i.node) for i in bdb.review_items()} == {("decision_flagged", world.d1),
                                                              ("action_held", world.a1)}


def test_an_idempotency_key_names_one_request(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    """The same key with a different text (or revision) is another request: refused, nothing written
    (it used to answer already_applied and drop the new text); the same request again is a repeat."""
    rev = revision(bdb, world.x)
    first = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev, idempotency_key="retry-7")
    before = su.counts()
    for text, at in (("A different text.", rev), (NEW_TEXT, rev + 5)):
        with pytest.raises(errors.IdempotencyKeyReused, match="retry-7"):
            bdb.apply_correction(world.x, text, reviewer="rita", expect_revision=at, idempotency_key="retry-7")
    assert su.counts() == before
    assert su.one("select count(*) from beliefdb.belief where statement = 'A different text.'") == 0
    second = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev, idempotency_key="retry-7")
    assert second.already_applied is True
    assert (second.correction, second.replacement) == (first.correction, first.replacement)


def test_a_crash_inside_apply_leaves_nothing(bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    rev = revision(bdb, world.x)
    before = su.counts()
    decisions_before = statuses(bdb)

    class Crash(Exception):
        pass

    with pytest.raises(Crash), bdb.database.transaction() as conn:
        result = corrections.apply(bdb.database, world.x, NEW_TEXT, reviewer="rita", expect_revision=rev,
                                   conn=conn)
        # inside the transaction the correction is complete ...
        row = conn.execute("select count(*) from beliefdb.correction where id = %s", (result.correction,)).fetchone()
        assert row == (1,)
        assert result.flagged == [world.d1]
        raise Crash  # ... and then the process dies before commit

    assert su.counts() == before
    assert statuses(bdb) == decisions_before
    assert bdb.why(world.x).belief.status == "current"
    assert bdb.why(world.x).belief.revision == rev
    # and the same correction applies cleanly afterwards, not as already applied
    assert bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=rev).already_applied is False
    assert bdb.audit_verify().ok


# ---------------------------------------------------------------------------------------------
# the command line


def test_cli_preview_then_apply(cli: Cli, bdb: beliefdb.BeliefDB, world: World) -> None:
    seen = cli.json("correct", str(world.x), NEW_TEXT, "--reviewer", "rita", "--preview")
    assert set(seen) == {"belief", "revision", "would_flag", "would_hold", "still_supported", "owner", "proposed",
                         "changes", "if_approved"}
    assert seen["belief"] == str(world.x)
    assert seen["would_flag"] == [str(world.d1)] and seen["would_hold"] == [str(world.a1)]
    assert seen["still_supported"] == [{"decision": str(world.d2), "by": [[str(world.y)]]}]

    args = ("correct", str(world.x), NEW_TEXT, "--reviewer", "rita", "--value", "14 days", "--apply",
            "--expect-revision", str(seen["revision"]))
    applied = cli.json(*args)
    assert set(applied) == {"correction", "replacement", "superseded", "flagged", "held", "already_applied", "proposed",
                            "review_item", "owner", "changes", "embedding_deferred"}
    assert applied["embedding_deferred"] is None  # (the replacement is embedded: nothing waits)
    assert applied["changes"] == seen["changes"]  # the preview was exactly the apply
    assert applied["superseded"] == [str(world.x)]
    assert applied["flagged"] == [str(world.d1)] and applied["held"] == [str(world.a1)]
    assert applied["already_applied"] is False
    assert bdb.why(applied["replacement"]).belief.confidence_kind == "human_correction"

    again = cli.json(*args)
    assert again["already_applied"] is True
    assert (again["correction"], again["replacement"]) == (applied["correction"], applied["replacement"])


def test_cli_stale_apply_fails_with_its_code(cli: Cli, bdb: beliefdb.BeliefDB, su: Su, world: World) -> None:
    rev = revision(bdb, world.x)
    before = su.counts()
    result = cli.fail("correct", str(world.x), NEW_TEXT, "--reviewer", "rita", "--apply",
                      "--expect-revision", str(rev + 1), "--json")
    assert json.loads(result.stdout)["error"] == "stale_correction_preview"
    assert su.counts() == before


def test_cli_preview_refuses_a_blank_statement_as_the_apply_does(cli: Cli, bdb: beliefdb.BeliefDB, su: Su,
                                                                 world: World) -> None:
    """``correct ID '' --preview`` exited 0 with a full report while ``--apply`` exits 1 with invalid_input:
    the preview refuses it the same way, in text and in JSON, and writes nothing."""
    before = su.counts()
    rev = str(revision(bdb, world.x))
    for statement in BLANK:
        applied = cli.error("correct", str(world.x), statement, "--reviewer", "rita", "--apply",
                            "--expect-revision", rev, code="invalid_input")
        previewed = cli.error("correct", str(world.x), statement, "--preview", code="invalid_input")
        assert previewed == applied == {"error": "invalid_input", "message": REFUSED}
        assert cli.one_line_error("correct", str(world.x), statement, "--preview") == f"error: {REFUSED}"
        assert cli.one_line_error("correct", str(world.x), statement, "--reviewer", "rita", "--apply",
                                  "--expect-revision", rev) == f"error: {REFUSED}"
    assert su.counts() == before


def test_cli_apply_needs_the_revision(cli: Cli, world: World) -> None:
    result = cli.fail("correct", str(world.x), NEW_TEXT, "--reviewer", "rita", "--apply", "--json")
    assert json.loads(result.stdout)["error"] == "invalid_input"


def test_retracting_the_correction_makes_the_old_belief_current_again(bdb: beliefdb.BeliefDB, su: Su,
                                                                      world: World) -> None:
    """Rule 3: if the superseding belief stops holding, the older one is current again."""
    result = bdb.apply_correction(world.x, NEW_TEXT, reviewer="rita", expect_revision=revision(bdb, world.x))
    changes = bdb.retract(fragment=str(result.correction), reason="the reviewer was wrong")
    assert result.replacement in changes.stopped_holding
    assert world.d1 in changes.started_holding and world.a1 in changes.started_holding
    status = {b.id: b.status for b in bdb.beliefs(include_all=True)}
    assert (status[world.x], status[result.replacement]) == ("current", "unsupported")
    assert [b.id for b in bdb.beliefs(subject="return_policy")] == [world.x]
    assert {d.id: d.holds for d in bdb.decisions()}[world.d1] is True
    assert statuses(bdb)[0][world.d1] == "needs_review"  # flags stay until a person clears them
    assert bdb.audit_verify().ok


def test_a_retracted_belief_is_not_corrected_and_the_error_says_how_to_go_on(
        bdb: beliefdb.BeliefDB, world: World, postgresql: psycopg.Connection[Any]) -> None:
    """A superseded belief is corrected through the belief that replaced it; a retracted one has no
    such belief (nothing replaced it): the error says to restore it first (the code before sent the
    user to "the belief that replaced it"), and nothing is written."""
    bdb.retract(belief=world.x, reason="wrong")
    for attempt in (lambda: bdb.preview_correction(world.x, NEW_TEXT, value="14 days"),
                    lambda: bdb.apply_correction(world.x, NEW_TEXT, value="14 days", reviewer="rita",
                                                 expect_revision=2)):
        with pytest.raises(errors.InvalidInput) as refused:
            attempt()
        assert "is retracted" in str(refused.value) and "replaced it" not in str(refused.value)
        assert "restore it" in str(refused.value)
    assert postgresql.execute("select count(*) from beliefdb.correction").fetchone() == (0,)
