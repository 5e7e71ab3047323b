"""Decisions, actions and derived beliefs through :class:`~beliefdb.BeliefDB` (it inherits them from
:class:`Decisions`): what is built on beliefs, and what happened after (rules 2, 4 and 19 of docs/rules.md)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from beliefdb.db.connector import Database
from beliefdb.models import Action, Decision, DerivedBelief, OutcomeRecorded, Recorded, RunDecision
from beliefdb.store import citations, decisions, lifecycle


class Decisions:
    """The decision methods of :class:`~beliefdb.BeliefDB` (one transaction each)."""

    database: Database

    def decide(self, title: str, *, because: Sequence[str | UUID] = (),
               all_of: Sequence[Sequence[str | UUID]] = (), idempotency_key: str | None = None) -> Recorded:
        """Record a decision: each ``because`` belief alone justifies it; each ``all_of`` group jointly.
        ``idempotency_key`` makes a retry safe (rule 18): the same title and reasons again with the key record
        nothing and return the decision it recorded, ``already_applied``; another request with it raises
        :class:`~beliefdb.errors.IdempotencyKeyReused`."""
        return decisions.decide(self.database, title, because=because, all_of=all_of, idempotency_key=idempotency_key)

    def decide_in_run(self, run: str | UUID, title: str, *, because: Sequence[str | UUID] = (),
                      all_of: Sequence[Sequence[str | UUID]] = (), idempotency_key: str | None = None) -> RunDecision:
        """Record a decision of a run (rule 19: a search hit is not evidence): it may cite only beliefs the
        run's reads (``ask``/``why`` with ``run``) returned and that are current and production's (rule 15);
        any other citation is refused and named. With none left it needs review ("No source-backed answer yet").
        ``idempotency_key`` as :meth:`decide`'s (the same run too; a replay names what was refused then)."""
        return citations.decide_in_run(self.database, run, title, because=because, all_of=all_of,
                                       idempotency_key=idempotency_key)

    def act(self, decision: str | UUID, description: str, *, idempotency_key: str | None = None) -> Recorded:
        """Record an action carrying out a decision. ``idempotency_key`` makes a retry safe (rule 18): the same
        decision and description again with it return the action it recorded, ``already_applied``."""
        return decisions.act(self.database, decision, description, idempotency_key=idempotency_key)

    def derive(self, statement: str, subject: str, attribute: str, value: str, sources: Sequence[str | UUID],
               *, kind: str = "fact") -> DerivedBelief:
        """Record a belief derived from others (it holds while all of them are current). The same
        derivation again (this principal's, from the same beliefs) returns the belief it made. It is
        embedded once stored; when that has to wait, ``embedding_deferred`` says why."""
        return decisions.derive(self.database, statement, subject, attribute, value, sources, kind=kind)

    def decisions(self, status: str | None = None, of: str | UUID | None = None, *, limit: int | None = None,
                  after: str | UUID | None = None) -> list[Decision]:
        """Decisions (of this status; the one a decision or action id ``of`` names), oldest first, with reasons:
        at most ``limit`` (all when None), those after the decision ``after`` (the last one of the page before)."""
        return decisions.list_decisions(self.database, status, of, limit=limit, after=after)

    def actions(self, status: str | None = None, *, limit: int | None = None,
                after: str | UUID | None = None) -> list[Action]:
        """Actions (with this status), oldest first: at most ``limit`` (all when None), those after the action
        ``after`` (the last one of the page before)."""
        return decisions.list_actions(self.database, status, limit=limit, after=after)

    def record_outcome(self, node: str | UUID, outcome: str, *, note: str | None = None,
                       idempotency_key: str | None = None) -> OutcomeRecorded:
        """Record what actually happened after a decision or action (succeeded, failed, rolled_back or
        disputed; audited). An action's status follows its outcome. ``idempotency_key`` makes a retry safe
        (rule 18): the same node, outcome and note again with it return the outcome it recorded,
        ``already_applied``."""
        return lifecycle.record_outcome(self.database, node, outcome, note, idempotency_key=idempotency_key)
