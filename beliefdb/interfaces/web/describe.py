"""What a change did (or a preview says it would do), in words a person reads: each node it names by
its statement, title or description, grouped by effect. Nothing here decides what holds: the groups are
the database's own answer (:class:`~beliefdb.models.Changes`, a correction preview)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from uuid import UUID

from beliefdb.api import BeliefDB
from beliefdb.db.reports import changes as change_report
from beliefdb.models import Changes, CorrectionPreview, ImpactRow, ReviewResolution, StillSupported


@dataclass(frozen=True)
class Item:
    id: UUID
    kind: str
    label: str
    note: str = ""


@dataclass(frozen=True)
class Group:
    heading: str
    #: the mark the picture gives these nodes (svg.MARK_WORDS)
    mark: str
    items: list[Item] = field(default_factory=list)
    #: nodes without a page of their own (quotes) counted, not listed
    unnamed: int = 0
    #: what the page's list of this group is called (the mark when empty)
    ident: str = ""
    #: how many nodes the whole group names (a long group lists only a page of them), and where the
    #: page starts in it; -1: as many as listed
    total: int = -1
    first: int = 0

    @property
    def count(self) -> int:
        """How many nodes the group names, listed here or not."""
        return self.total if self.total >= 0 else len(self.items) + self.unnamed

    @property
    def listed(self) -> int:
        return len(self.items) + self.unnamed


#: the most nodes a page lists of one group of a change (a retraction of a large source names thousands)
LIST_LIMIT = 100


class Names:
    """The statement, title or description of the beliefs, decisions and actions a page names: those of
    ``ids`` read at once, any other when first asked for (never the whole workspace: a page of a large
    one took as long as listing every node)."""

    def __init__(self, db: BeliefDB, ids: Iterable[UUID] = ()) -> None:
        self.db = db
        self.known: dict[UUID, tuple[str, str]] = {}
        self.asked: set[UUID] = set()
        self.read(ids)

    def read(self, ids: Iterable[UUID]) -> None:
        wanted = [i for i in dict.fromkeys(ids) if i not in self.asked]
        if wanted:
            self.asked.update(wanted)
            self.known.update((n.id, (n.kind, n.label)) for n in self.db.labels(wanted))

    def items(self, ids: Iterable[UUID]) -> tuple[list[Item], int]:
        ids = list(ids)
        self.read(ids)
        named, unnamed = [], 0
        for i in ids:
            if i in self.known:
                kind, label = self.known[i]
                named.append(Item(i, kind, label))
            else:
                unnamed += 1
        return named, unnamed

    def label(self, node: UUID) -> str:
        self.read([node])
        return self.known.get(node, ("", str(node)[:8]))[1]

    def surviving(self, rows: Iterable[StillSupported]) -> list[Item]:
        rows = list(rows)
        self.read([i for r in rows for i in (r.decision, *(b for group in r.by for b in group))])
        return [Item(r.decision, "decision", self.label(r.decision),
                     "still supported by " + "; or ".join(" and ".join(f"“{self.label(b)}”" for b in group)
                                                          for group in r.by))
                for r in rows]


def changes(c: Changes, names: Names, *, preview: bool, offset: int = 0, limit: int = LIST_LIMIT) -> list[Group]:
    """The groups of a change report (``preview``: in the conditional), each listing at most ``limit`` of
    its nodes from ``offset`` in it (only theirs are read) and counting them all."""
    groups = []
    for heading, mark, ids in (
        ("would stop being current" if preview else "stopped being current", "stops_current", c.stopped_current),
        ("would stop holding" if preview else "stopped holding", "stops_holding", c.stopped_holding),
        ("decisions that would be flagged" if preview else "decisions flagged", "would_flag" if preview
         else "flagged", c.flagged),
        ("actions that would be held" if preview else "actions held", "would_hold" if preview else "held", c.held),
        # what comes back: the ↺ of the CLI and of the pictures, never the ✓ of a decision that survives
        ("would be current again" if preview else "current again", "becomes_current", c.became_current),
        ("would hold again" if preview else "holding again", "holds_again", c.started_holding),
    ):
        if ids:
            items, unnamed = names.items(ids[offset:offset + limit])
            shown = {"stops_current": "stops_holding", "holds_again": "becomes_current"}.get(mark, mark)
            groups.append(Group(heading, shown, items, unnamed, ident=mark, total=len(ids), first=offset))
    if c.survives:
        kept = names.surviving(c.survives[offset:offset + limit])
        groups.append(Group("decisions that lose a reason but survive on other support", "survives", kept,
                            total=len(c.survives), first=offset))
    return groups


def correction(p: CorrectionPreview, names: Names) -> list[Group]:
    """What a correction preview says applying it would change (for another principal's belief: what
    the owner's approval of the proposal would change, ``if_approved``), each group listing at most
    :data:`LIST_LIMIT` of its nodes and counting them all."""
    if p.proposed:
        return impact(p.if_approved or [], names)
    return _listed((("decisions that would be flagged", "would_flag", p.would_flag),
                    ("actions that would be held", "would_hold", p.would_hold)), p.still_supported, names)


def impact(rows: Iterable[ImpactRow], names: Names) -> list[Group]:
    """The rows of an impact dry run, grouped as a preview's (at most :data:`LIST_LIMIT` of each listed):
    what would stop holding, stop being current and still hold (a corrected belief, superseded by its
    replacement), be current again (when anything would), be flagged and held, and what survives."""
    rows = list(rows)
    by = {effect: [r.node for r in rows if r.effect == effect]
          for effect in ("stops_holding", "stops_current", "becomes_current", "flag", "hold")}
    kept = [StillSupported(r.node, [[UUID(str(x)) for x in g] for g in r.detail.get("by", [])])
            for r in rows if r.effect == "survives"]
    again = [("would be current again", "becomes_current", by["becomes_current"])] if by["becomes_current"] else []
    return _listed((("would stop holding", "stops_holding", by["stops_holding"]),
                    ("would stop being current (still holds)", "stops_current", by["stops_current"]), *again,
                    ("decisions that would be flagged", "would_flag", by["flag"]),
                    ("actions that would be held", "would_hold", by["hold"])), kept, names)


def _listed(groups: Iterable[tuple[str, str, list[UUID]]], kept: list[StillSupported], names: Names) -> list[Group]:
    limit = LIST_LIMIT
    listed = []
    for heading, mark, ids in groups:
        items, unnamed = names.items(ids[:limit])
        listed.append(Group(heading, mark, items, unnamed, total=len(ids)))
    listed.append(Group("decisions that lose a reason but survive on other support", "survives",
                        names.surviving(kept[:limit]), total=len(kept)))
    return listed


def resolution(done: ReviewResolution, names: Names) -> tuple[str, list[Group]]:
    """What approving or rejecting a review item did, as ``review approve`` says it: who won a conflict,
    and what an approved conflict, correction, version or retraction changed (the database's change report)."""
    said = f"Review item {str(done.item)[:8]} ({done.kind.replace('_', ' ')}) {done.status}."
    report = None
    if done.correction:  # an approved proposed correction
        report = done.correction.get("changes")
        replacement = done.correction.get("replacement")
        if replacement:
            said += f" The correction is applied: “{names.label(UUID(str(replacement)))}” replaces it."
    elif done.applied and done.kind == "conflict":
        winner, loser = (names.label(UUID(str(done.applied[k]))) for k in ("winner", "loser"))
        said += f" “{winner}” won: it supersedes “{loser}”."
        report = done.applied  # (beside the winner and loser, what the loss flagged and held)
    elif done.applied and done.kind == "version_proposed":  # an ingest report
        report = done.applied.get("changes")
        said += f" Version {done.applied.get('version')} of {done.applied.get('source')} is applied."
    elif done.applied:  # a retraction's change report
        report = done.applied
        said += " The retraction is applied."
    return said, changes(change_report(report), names, preview=False) if report else []

