"""Truth rule 8 as a property: random sequences of claims on one subject / attribute / scope, each from its
own source, settle exactly as a small, obviously correct Python reference says.

The reference follows the rule text (docs/rules.md, rule 8) and the order ``beliefdb._settle`` applies it in:

* a claim whose value equals a belief that is current (or conflicting) corroborates it: its source is
  added to that belief's evidence (no new belief), and since its rank may have changed it is settled
  again like a new belief;
* otherwise a new belief is compared with each current or conflicting rival of another value, oldest
  first: higher authority (the strongest source of the belief) wins; at equal authority the later
  valid-time start wins when both have one; otherwise the later recorded source version wins; equal
  on all counts is a tie. When any rival beats the belief, each rival that beats it supersedes it and
  it neither beats nor ties any rival; otherwise a beaten rival is superseded and a tie opens a
  conflict (reported once, when it opens);
* each claim is made by one of two principals, who owns the belief it creates (a claim corroborates a
  belief whoever owns it): a loser is superseded only when the principal of the claim owns it, otherwise
  the pair opens a conflict as a tie does (rule 17), and a belief that loses settles nothing else
  whoever owns it;
* a live belief is conflicting while one of its open ties is with a live rival, else current;
* only the sources whose quote still supports a belief count for its rank (rules 2 and 8): a drop (a new
  version of one of its sources without the quote, its fragment retracted, or its version retracted)
  takes that source out of it and settles nothing (a drop is drawn only for a live belief that keeps
  another source, so it still holds).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import url_at
from hypothesis import HealthCheck, given, settings

import beliefdb
from beliefdb import errors
from beliefdb.models import IngestReport
from beliefdb.store.workspaces import create_workspace
from tests.test_closure_reads import support_drift

TIERS = ("unverified", "agent", "user", "internal", "official")  # weakest first
VALUES = ("3 days", "7 days", "15 days")
DATES = (None, "2024-01-01T00:00:00+00:00", "2025-01-01T00:00:00+00:00")
PRINCIPALS = ("alice", "bob")


@dataclass(frozen=True)
class Claim:
    value: str
    authority: str
    valid_from: str | None
    principal: str = "alice"


DROPS = ("dropped", "fragment_retracted", "version_retracted")


@dataclass(frozen=True)
class Drop:
    pick: int                       # which (live belief, source) to drop, of those allowed
    way: str = "dropped"            # one of DROPS


@dataclass
class RefBelief:
    index: int                      # creation order
    value: str
    valid_from: str | None          # from the claim that created it; corroboration does not change it
    support: dict[int, str]         # step of each source whose quote still supports it -> its authority
    evidence_steps: list[int] = field(default_factory=list)   # every source that quoted it, dropped ones too
    owner: str = "alice"            # the principal of the claim that created it
    status: str = "current"

    @property
    def authority(self) -> int:
        return max(TIERS.index(a) for a in self.support.values())

    @property
    def recorded(self) -> int:
        """The step of its latest source version whose quote still supports it."""
        return max(self.support)


def compare(a: RefBelief, b: RefBelief) -> int:
    """Rule 8: 1 if a beats b, -1 if b beats a, 0 for a tie."""
    if a.authority != b.authority:
        return 1 if a.authority > b.authority else -1
    if a.valid_from is not None and b.valid_from is not None:
        # ISO strings with one offset compare like the moments they name
        return (a.valid_from > b.valid_from) - (a.valid_from < b.valid_from)
    return (a.recorded > b.recorded) - (a.recorded < b.recorded)


LIVE = ("current", "conflicting")


@dataclass
class Reference:
    beliefs: list[RefBelief] = field(default_factory=list)
    ties: set[frozenset[int]] = field(default_factory=set)

    def add(self, step: int, c: Claim) -> tuple[int, list[tuple[int, int]], list[tuple[int, int]]]:
        """Apply one claim; (the belief it went to, superseded (old, new), conflicts (belief, rival))."""
        # the same claim: the same value for the same valid time (a claim valid at another time is another belief)
        same = [b for b in self.beliefs if b.value == c.value and b.valid_from == c.valid_from and b.status in LIVE]
        if same:
            target = same[0]  # the oldest
            target.support[step] = c.authority
            target.evidence_steps.append(step)
        else:
            target = RefBelief(len(self.beliefs), c.value, c.valid_from, {step: c.authority}, [step], c.principal)
            self.beliefs.append(target)
        superseded, conflicts = self.settle(target, c.principal)
        for b in self.beliefs:
            if b.status in LIVE:
                tied = any(frozenset((b.index, o.index)) in self.ties for o in self.beliefs
                           if o.status in LIVE and o is not b)
                b.status = "conflicting" if tied else "current"
        return target.index, superseded, conflicts

    def drop(self, d: Drop) -> int | None:
        """The step whose source drops its quote (None: no live belief has two sources to drop one of)."""
        allowed = [(b, step) for b in self.beliefs if b.status in LIVE and len(b.support) >= 2
                   for step in sorted(b.support)]
        if not allowed:
            return None
        belief, step = allowed[d.pick % len(allowed)]
        del belief.support[step]
        return step

    def settle(self, x: RefBelief, actor: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        rivals = [b for b in self.beliefs if b.value != x.value and b.status in LIVE]  # oldest first
        superseded: list[tuple[int, int]] = []
        conflicts: list[tuple[int, int]] = []
        # a belief that loses, whoever owns it, loses to every rival that beats it, and beats or ties none
        winners = [r for r in rivals if compare(x, r) < 0]
        for rival in winners or rivals:
            outcome = compare(x, rival)
            winner, loser = (x, rival) if outcome > 0 else (rival, x)
            if outcome != 0 and loser.owner == actor:  # only a belief's owner lets it lose (rule 17)
                loser.status = "superseded"
                superseded.append((loser.index, winner.index))
            elif frozenset((x.index, rival.index)) not in self.ties:
                self.ties.add(frozenset((x.index, rival.index)))
                x.status = rival.status = "conflicting"
                conflicts.append((x.index, rival.index))
        return superseded, conflicts


claim_strategy = st.builds(Claim, st.sampled_from(VALUES), st.sampled_from(TIERS), st.sampled_from(DATES),
                           st.sampled_from(PRINCIPALS))
# a claim two times in three, else a drop
drop_strategy = st.builds(Drop, st.integers(0, 255), st.sampled_from(DROPS))
claims_strategy = st.lists(st.one_of(claim_strategy, claim_strategy, drop_strategy), min_size=1, max_size=6)


def run(db_url: str, claims: list[Claim | Drop]) -> None:
    """Ingest ``claims`` one source each into a fresh workspace (a drop: a new text of an earlier step's
    source without its quote) and compare with the reference."""
    name = "rule8-" + uuid.uuid4().hex[:12]
    ws = create_workspace(db_url, name).id
    reference = Reference()
    ids: dict[int, uuid.UUID] = {}  # reference index -> belief id
    dbs = {p: beliefdb.connect(db_url, workspace=name, principal=p) for p in PRINCIPALS}
    with dbs["alice"] as db, dbs["bob"], psycopg.connect(db_url, autocommit=True) as su:
        for step, c in enumerate(claims):
            if isinstance(c, Drop):
                if (dropped := reference.drop(c)) is None:
                    continue
                before = {b.id: b.status for b in db.beliefs(subject="return_policy", include_all=True)}
                source = claims[dropped]
                assert isinstance(source, Claim)
                cited_in = f"source-{dropped}"
                owner = dbs[source.principal]  # only a source's owner changes its text or retracts it (rule 17)
                if c.way == "dropped":
                    report = owner.ingest_text(f"Note {dropped}: nothing about returns.", source=cited_in,
                                            authority=source.authority, extractor="none")
                    assert report.new_version and report.superseded == [] and report.conflicts == [], (step, report)
                elif c.way == "fragment_retracted":
                    belief = next(ids[b.index] for b in reference.beliefs if dropped in b.evidence_steps)
                    (cited,) = [e for e in db.why(belief).evidence if e.source == cited_in]
                    owner.retract(fragment=cited.fragment_id, reason="misquoted")
                else:
                    owner.retract(source=cited_in, version=1, reason="withdrawn")
                after = {b.id: b.status for b in db.beliefs(subject="return_policy", include_all=True)}
                assert after == before, step  # a belief that keeps a source holds: nothing to settle
                assert support_drift(su, ws) == [], step
                continue
            quote = f"the return window is {c.value}."
            report = dbs[c.principal].remember(
                f"The return window is {c.value}.", "return_policy", "window", c.value, quote,
                source=f"source-{step}", text=f"Note {step}: {quote}", authority=c.authority, valid_from=c.valid_from)
            assert isinstance(report, IngestReport)
            index, superseded, conflicts = reference.add(step, c)
            assert report.rejected == []
            if index == len(reference.beliefs) - 1 and index not in ids:
                assert [a.value for a in report.accepted] == [c.value] and report.corroborated == [], (step, report)
                ids[index] = report.accepted[0].id
            else:
                assert report.accepted == [] and [k.id for k in report.corroborated] == [ids[index]], (step, report)
            assert [(s.old, s.new) for s in report.superseded] == [(ids[o], ids[n]) for o, n in superseded], step
            assert [(k.a, k.b) for k in report.conflicts] == [(ids[a], ids[b]) for a, b in conflicts], step
            # stored supports stay well-founded and agree with the holding (rule 2)
            assert support_drift(su, ws) == [], step

        stored = {b.id: b for b in db.beliefs(subject="return_policy", attribute="window", include_all=True)}
        expected = {ids[b.index]: (b.value, b.status, len(b.evidence_steps), b.owner) for b in reference.beliefs}
        assert {i: (b.value, b.status, b.evidence_count, b.owner) for i, b in stored.items()} == expected, claims


# The database fixture is per test, not per example; each example gets its own workspace instead, so
# examples never see each other's beliefs and the function-scoped fixture may be shared safely.
@pytest.mark.slow
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(claims=claims_strategy)
def test_settling_matches_the_reference(db_url: str, claims: list[Claim | Drop]) -> None:
    run(db_url, claims)


@pytest.mark.slow
def test_reference_examples(db_url: str) -> None:
    """Hand-picked sequences the property must cover, whatever hypothesis draws."""
    sequences: list[list[Claim | Drop]] = [
        # authority beats recency, then recency beats the weaker
        [Claim("7 days", "official", None), Claim("3 days", "unverified", None), Claim("15 days", "official", None)],
        # a tie, then a stronger claim supersedes both sides of it
        [Claim("7 days", "user", DATES[1]), Claim("3 days", "user", DATES[1]), Claim("15 days", "internal", None)],
        # three values of the same rank: every pair is a tie
        [Claim("7 days", "user", DATES[1]), Claim("3 days", "user", DATES[1]), Claim("15 days", "user", DATES[1])],
        # an earlier valid-time start loses even when ingested later; a claim without one wins by recency
        [Claim("7 days", "agent", DATES[2]), Claim("3 days", "agent", DATES[1]), Claim("15 days", "agent", None)],
        # corroboration of a superseded value makes a new belief
        [Claim("7 days", "user", None), Claim("3 days", "user", None), Claim("7 days", "user", None)],
        # corroboration by a stronger source raises the rank for later comparisons
        [Claim("7 days", "agent", None), Claim("7 days", "official", None), Claim("3 days", "internal", None)],
        # bob's 3 days loses to alice's 7 days (the later version) and her internal 7 days from 2024: both are
        # conflicts, bob's to settle; alice states 3 days again, which now beats her first 7 days but still
        # loses to the internal one: a belief that loses settles nothing else, whoever owns it
        [Claim("3 days", "user", None, "bob"), Claim("7 days", "user", None), Claim("7 days", "internal", DATES[1]),
         Claim("3 days", "user", None)],
        # ... and its source dropping the quote lowers it again: a later internal claim beats it by recency
        [Claim("7 days", "official", None), Claim("7 days", "internal", None), Drop(0),
         Claim("15 days", "internal", None)],
        [Claim("7 days", "official", None), Claim("7 days", "internal", None), Drop(0, "fragment_retracted"),
         Claim("15 days", "internal", None)],
        [Claim("7 days", "official", None), Claim("7 days", "internal", None), Drop(0, "version_retracted"),
         Claim("15 days", "internal", None)],
        # the official source dropped: a user claim valid from the same day ties it
        [Claim("7 days", "user", DATES[1]), Claim("7 days", "official", DATES[1]), Drop(1),
         Claim("3 days", "user", DATES[1])],
    ]
    for claims in sequences:
        run(db_url, claims)


def test_stronger_corroboration_resettles_an_open_tie(db_url: str) -> None:
    """Rule 8 holds after every change: two current beliefs with different values never stay tied once one
    of them has the stronger source. Here 7 and 3 days tie (user, same valid-time start); then an official
    source states 7 days. The 7-day belief now outranks the 3-day one, so the 3-day one must be superseded
    (and the 7-day one no longer conflicting) — not both left 'conflicting' with lowered confidence."""
    name = "rule8-" + uuid.uuid4().hex[:12]
    create_workspace(db_url, name)
    with beliefdb.connect(db_url, workspace=name) as db:
        seven = db.remember("7 days", "return_policy", "window", "7 days", "7 days", source="a",
                            text="within 7 days", authority="user", valid_from=DATES[1]).accepted[0].id
        three = db.remember("3 days", "return_policy", "window", "3 days", "3 days", source="b",
                            text="within 3 days", authority="user", valid_from=DATES[1]).accepted[0].id
        assert {b.status for b in db.beliefs(include_all=True)} == {"conflicting"}
        db.remember("7 days", "return_policy", "window", "7 days", "7 days", source="c",
                    text="Official: within 7 days", authority="official", valid_from=DATES[1])
        status: dict[Any, str] = {b.id: b.status for b in db.beliefs(include_all=True)}
        assert status == {seven: "current", three: "superseded"}, status


def test_a_belief_back_in_force_is_superseded_by_each_value_of_a_version_that_beats_it(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """10% is superseded by 24 months (a later source), which a new version of its source replaces by two
    values at once (12 months and 5%, a tie): 10% is current again and meets both, and both beat it. It is
    superseded by each, whatever the order of their random ids (it was by the first of them alone)."""
    for _ in range(6):   # (a fresh pair of ids each time)
        name = "rule8-" + uuid.uuid4().hex[:12]
        ws = create_workspace(db_url, name).id
        with beliefdb.connect(db_url, workspace=name) as db:
            ten = db.ingest_text("The shipping fee is 10%.", source="x.md").accepted[0].id
            db.ingest_text("The shipping fee is 24 months.", source="y.md")
            new = db.ingest_text("The shipping fee is 12 months.\nThe shipping fee is 5%.", source="y.md").accepted
            assert sorted(b.value for b in new) == ["12 months", "5%"]
            winners = postgresql.execute(
                "select r.from_belief from beliefdb.relation r"
                "  join beliefdb.node n on n.workspace_id = r.workspace_id and n.id = r.from_belief"
                " where r.workspace_id = %s and r.to_belief = %s and r.kind = 'supersedes' and n.holds",
                (ws, ten)).fetchall()
            postgresql.commit()
            assert sorted(w for (w,) in winners) == sorted(b.id for b in new)
            status = {b.value: b.status for b in db.beliefs(include_all=True)}
            assert status == {"10%": "superseded", "24 months": status["24 months"], "12 months": "conflicting",
                              "5%": "conflicting"}, status


def test_a_belief_that_loses_settles_nothing_else(
        db_url: str, alice: beliefdb.BeliefDB, bob: beliefdb.BeliefDB, postgresql: psycopg.Connection[Any]) -> None:
    """Bob's 3 days (user) and alice's 15 days (official) are both current: 15 days beats 3 days, but 3 days
    is bob's, so they are in conflict for bob to settle. Alice then states 7 days as a user, valid from the
    same day as 3 days: 15 days beats it, and it would tie 3 days. It is superseded by 15 days and opens no
    tie with 3 days (it did when it met 3 days first; met in the other order, it did not)."""
    three = bob.remember("3 days", "return_policy", "window", "3 days", "3 days", source="b", text="within 3 days",
                         authority="user", valid_from=DATES[1]).accepted[0].id
    fifteen = alice.remember("15 days", "return_policy", "window", "15 days", "15 days", source="c",
                             text="Official: within 15 days", authority="official").accepted[0].id
    report = alice.remember("7 days", "return_policy", "window", "7 days", "7 days", source="a",
                            text="within 7 days", authority="user", valid_from=DATES[1])
    seven = report.accepted[0].id
    assert [(s.old, s.new) for s in report.superseded] == [(seven, fifteen)] and report.conflicts == [], report
    ties = postgresql.execute(
        "select count(*) from beliefdb.relation where kind = 'conflicts_with' and %s in (from_belief, to_belief)",
        (seven,)).fetchone()
    items = postgresql.execute(
        "select count(*) from beliefdb.review_item where kind = 'conflict' and %s in (node, other_node)",
        (seven,)).fetchone()
    postgresql.commit()
    assert ties == (0,) and items == (0,)
    status = {b.id: b.status for b in alice.beliefs(include_all=True)}
    assert status == {three: "conflicting", fifteen: "conflicting", seven: "superseded"}, status


def _bob_loses_and_beats(db_url: str) -> tuple[str, dict[str, uuid.UUID], IngestReport]:
    """Bob's 7 days (internal, valid from January 2025); alice's 15 days (valid from June 2025) and 30 days
    (no valid time) a day later: 15 days beats 7 days (the later start), 30 days beats it (the later version)
    and ties 15 days (one moment), and 7 days is bob's: all three are conflicting. A day later alice states
    7 days again in a new source, which corroborates it: its version is now the latest, so it would beat 30
    days, but 15 days still beats it. Returns the workspace, the beliefs by value and that last report."""
    name = "rule8-" + uuid.uuid4().hex[:12]
    create_workspace(db_url, name)

    def remember(day: int, who: str, source: str, value: str, valid_from: str | None) -> IngestReport:
        with beliefdb.connect(url_at(db_url, f"2026-01-0{day}T00:00:00+00:00"), workspace=name,
                              principal=who) as db:
            return db.remember(f"Returns within {value}.", "return_policy", "window", value, value, source=source,
                               text=f"Returns are accepted within {value}.", authority="internal",
                               valid_from=valid_from)

    ids = {"7 days": remember(1, "bob", "n.md", "7 days", DATES[2]).accepted[0].id,
           "15 days": remember(2, "alice", "w.md", "15 days", "2025-06-01T00:00:00+00:00").accepted[0].id,
           "30 days": remember(2, "alice", "l.md", "30 days", None).accepted[0].id}
    return name, ids, remember(3, "alice", "n2.md", "7 days", DATES[2])


def test_a_belief_of_another_owner_that_loses_settles_nothing_else(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Rules 8 and 17: a belief that loses settles nothing else whoever owns it; its owner only decides
    whether it is superseded now or a person must choose. Bob's 7 days loses to alice's 15 days when alice
    corroborates it: it must not supersede alice's 30 days, which it now outranks (it did: the test that
    it settles nothing else was made only when the acting principal owned it)."""
    name, ids, report = _bob_loses_and_beats(db_url)
    seven, fifteen, thirty = ids["7 days"], ids["15 days"], ids["30 days"]
    assert [b.id for b in report.corroborated] == [seven], report
    assert report.superseded == [] and report.conflicts == [], report
    ws = postgresql.execute("select id from beliefdb.workspace where name = %s", (name,)).fetchone()
    supersessions = postgresql.execute(
        "select from_belief, to_belief from beliefdb.relation where workspace_id = %s and kind = 'supersedes'",
        ws).fetchall()
    postgresql.commit()
    assert supersessions == []
    with beliefdb.connect(db_url, workspace=name) as db:
        assert {b.id: b.status for b in db.beliefs(include_all=True)} == {
            seven: "conflicting", fifteen: "conflicting", thirty: "conflicting"}


@pytest.mark.parametrize("verdict", ["15 days wins", "rejected"])
def test_the_owner_settles_the_loss_and_nothing_rests_on_the_loser(
        db_url: str, postgresql: psycopg.Connection[Any], verdict: str) -> None:
    """Then bob settles his review item (rule 17): he lets 15 days supersede his 7 days, or rejects the item
    and keeps 7 days in conflict (he may not make alice's 15 days lose). Either way no supersession rests on
    7 days, which lost: alice's 30 days stays in its tie with 15 days, not superseded by a belief that lost."""
    name, ids, _ = _bob_loses_and_beats(db_url)
    seven, fifteen, thirty = ids["7 days"], ids["15 days"], ids["30 days"]
    with beliefdb.connect(url_at(db_url, "2026-01-04T00:00:00+00:00"), workspace=name, principal="bob") as bob:
        (item,) = [i for i in bob.review_items() if {i.node, i.other_node} == {seven, fifteen}]
        with pytest.raises(errors.NotOwner):
            bob.resolve_review(item.id, "approved", winner=seven)
        if verdict == "rejected":
            bob.resolve_review(item.id, "rejected")
        else:
            bob.resolve_review(item.id, "approved", winner=fifteen)
        status = {b.id: b.status for b in bob.beliefs(include_all=True)}
        pairs = sorted(sorted(str(n) for n in (i.node, i.other_node)) for i in bob.review_items())
    ws = postgresql.execute("select id from beliefdb.workspace where name = %s", (name,)).fetchone()
    supersessions = postgresql.execute(
        "select from_belief, to_belief from beliefdb.relation"
        " where workspace_id = %s and kind = 'supersedes' and ended_at is null", ws).fetchall()
    postgresql.commit()
    if verdict == "rejected":
        assert supersessions == []
        assert status == {seven: "conflicting", fifteen: "conflicting", thirty: "conflicting"}, status
        assert pairs == sorted(sorted(map(str, p)) for p in ((seven, thirty), (fifteen, thirty))), pairs
    else:
        assert supersessions == [(fifteen, seven)]
        assert status == {seven: "superseded", fifteen: "conflicting", thirty: "conflicting"}, status
        # the question 7 days against 30 days settled by itself; the tie of 15 and 30 days is still open
        assert pairs == [sorted(map(str, (fifteen, thirty)))], pairs


def test_a_loser_whose_conflict_closes_meets_the_rivals_it_did_not_settle(
        db_url: str, postgresql: psycopg.Connection[Any]) -> None:
    """Rules 3, 8 and 17: bob's 15 days (from June 2024) loses to alice's 3 days (from 2028) when both come back
    together, so it is only in conflict with it, for bob, and settles nothing else: not alice's 30 days (2024
    to 2027), which it outranks. When the 3 days stop holding, that conflict closes and 15 days is current
    again: it meets its rivals then, as a belief current again does, and supersedes the 30 days. Before, the
    two stayed current side by side, different values for one overlapping time, with nothing to review."""
    name = "gap-" + uuid.uuid4().hex[:8]
    create_workspace(db_url, name)

    def at(day: int, who: str) -> beliefdb.BeliefDB:
        return beliefdb.connect(url_at(db_url, f"2026-01-0{day}T00:00:00+00:00"), workspace=name, principal=who)

    def remember(day: int, who: str, source: str, value: str, authority: str, start: str,
                 end: str | None = None) -> uuid.UUID:
        with at(day, who) as db:
            return db.remember(f"Returns within {value}.", "return_policy", "window", value, value, source=source,
                               text=f"Returns are accepted within {value}.", authority=authority,
                               valid_from=start, valid_to=end).accepted[0].id

    remember(1, "alice", "s.md", "9 days", "official", "2027-02-01T00:00:00+00:00")
    fifteen = remember(2, "bob", "b.md", "15 days", "internal", "2024-06-01T00:00:00+00:00")  # loses to 9 days
    three = remember(3, "alice", "r.md", "3 days", "internal", "2028-01-01T00:00:00+00:00")   # loses to 9 days
    thirty = remember(4, "alice", "w.md", "30 days", "internal", "2024-01-01T00:00:00+00:00",
                      "2027-01-01T00:00:00+00:00")  # meets no live rival
    with at(5, "alice") as db:
        db.retract(source="s.md", reason="wrong")  # 15 and 3 days current again, settled with alice acting
        assert {b.id: b.status for b in db.beliefs(subject="return_policy", include_all=True)
                if b.id in (fifteen, three, thirty)} == {
            fifteen: "conflicting", three: "conflicting", thirty: "current"}
    with at(6, "alice") as db:
        db.retract(source="r.md", reason="wrong")  # 3 days stops holding: 15 days' only conflict closes
        status = {b.id: b.status for b in db.beliefs(subject="return_policy", include_all=True)}
    ws = postgresql.execute("select id from beliefdb.workspace where name = %s", (name,)).fetchone()
    supersessions = postgresql.execute(
        "select from_belief, to_belief from beliefdb.relation"
        " where workspace_id = %s and kind = 'supersedes' and ended_at is null", ws).fetchall()
    postgresql.commit()
    assert (status[fifteen], status[thirty]) == ("current", "superseded"), status
    assert (fifteen, thirty) in supersessions, supersessions
