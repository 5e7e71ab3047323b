"""A small Python model of the truth rules (docs/rules.md) for tests/test_model.py: one subject, sentences
whose claim is fixed by their words, sources of a fixed world and authority, two principals. Readings
chosen where the rules leave room are marked READING (and listed in test_model.py). Where the rules leave
an order open the model asks ``choose``; the test keeps every state some choice leads to."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from uuid import UUID

LIVE = ("current", "conflicting")
AUTHORITY = {"internal": 1, "official": 2}  # only the order matters
MOMENTS = ("2026-01-01T00:00:00+00:00", "2026-01-20T00:00:00+00:00", "2026-02-20T00:00:00+00:00",
           "2026-03-20T00:00:00+00:00", "2026-04-20T00:00:00+00:00", "2026-05-20T00:00:00+00:00")


@dataclass(frozen=True)
class Claim:
    value: str
    valid_from: str | None = None   # ISO strings in one offset compare like the moments they name
    valid_to: str | None = None

    def overlaps(self, other: Claim) -> bool:
        return ((self.valid_from is None or other.valid_to is None or self.valid_from < other.valid_to)
                and (other.valid_from is None or self.valid_to is None or other.valid_from < self.valid_to))


SENTENCES: dict[str, tuple[str, Claim]] = {
    # the rule extractor reads these four (tests/test_model.py checks it)
    "P7": ("Returns are accepted within 7 days of delivery.", Claim("7 days")),
    "P15": ("Returns are accepted within 15 days of delivery.", Claim("15 days")),
    "P30": ("Returns are accepted within 30 days of delivery.", Claim("30 days")),
    "W15": ("The return window is 15 days.", Claim("15 days")),
    # and none of these: they are remembered with their valid time
    "SALE30": ("During the winter sale, returns are accepted within 30 days.",
               Claim("30 days", None, "2026-02-15T00:00:00+00:00")),
    "JUNE15": ("From June 2025, returns are accepted within 15 days.", Claim("15 days", "2025-06-01T00:00:00+00:00")),
    "JAN7": ("From January 2025, returns are accepted within 7 days.", Claim("7 days", "2025-01-01T00:00:00+00:00")),
    "SPRING15": ("From March 2026 to mid-April, returns are accepted within 15 days.",
                 Claim("15 days", "2026-03-01T00:00:00+00:00", "2026-04-15T00:00:00+00:00")),
    "OLD7": ("Until the end of 2025, returns are accepted within 7 days.",
             Claim("7 days", None, "2026-01-01T00:00:00+00:00")),
}
PLAIN = ("P7", "P15", "P30", "W15")
FILLER = "Thank you for shopping with us."
KEY_OF = {text: key for key, (text, _) in SENTENCES.items()}
# name -> (world, authority); a reviewer's correction is a source of its own, official (READING)
SOURCES = {"a.md": ("production", "internal"), "b.md": ("production", "official"),
           "c.md": ("production", "internal"), "fix.md": ("fixture", "official"),
           "fix2.md": ("fixture", "internal")}


def text_of(keys: Iterable[str], filler: bool = False) -> str:
    return "\n".join([SENTENCES[k][0] for k in keys] + ([FILLER] if filler else [])) + "\n"


def extracted(text: str) -> list[str]:
    """The sentences of ``text`` the rule extractor turns into claims, in order."""
    return [KEY_OF[line] for line in text.splitlines() if KEY_OF.get(line) in PLAIN]


def masked(text: str, quotes: Iterable[str], kept: Iterable[str] = ()) -> str:
    """``text`` with every occurrence of the quotes masked, but those within an occurrence of a kept text."""
    spans = [(i, i + len(k)) for k in kept for i in range(len(text)) if text.startswith(k, i)]
    out = list(text)
    for q in quotes:
        for i in (i for i in range(len(text)) if text.startswith(q, i)):
            if not any(a <= i and i + len(q) <= b for a, b in spans):
                out[i:i + len(q)] = "\u2588" * len(q)
    return "".join(out)


class Refused(Exception):
    """What the database must refuse (named as its error class)."""


@dataclass
class Version:
    text: str                  # as ingested (its identity)
    moment: str
    masked: set[str] = field(default_factory=set)   # quotes a forgotten belief took out of it
    retracted: bool = False


@dataclass
class Source:
    owner: str
    world: str
    authority: str
    versions: list[Version] = field(default_factory=list)
    retracted: bool = False


@dataclass
class Belief:
    id: UUID
    claim: Claim
    world: str
    owner: str
    recorded: str
    evidence: set[tuple[str, int, str]]    # (source, version number, quote)
    status: str = "current"                # as last settled or evaluated
    holds: bool = False
    current: bool = False


@dataclass
class Decision:
    reasons: list[UUID]
    status: str = "active"
    holds: bool = False
    owner: str = ""            # rule 17: only its owner clears its flag


@dataclass
class Action:
    decision: UUID
    status: str = "scheduled"
    released: bool = False     # a person released it: only a new flag may hold it again
    owner: str = ""            # rule 17: only its owner releases or cancels it when held


@dataclass(frozen=True)
class Item:
    kind: str
    node: UUID | None = None
    other: UUID | None = None
    source: str | None = None
    proposer: str | None = None
    extra: str | None = None                   # proposed text, value, or undo
    payload: tuple[object, ...] = ()

    @property
    def key(self) -> tuple[object, ...]:
        # a tie is a pair: which side the item names first is the database's business
        node, other = (self.node, self.other)
        if self.kind == "conflict" and node is not None and other is not None:
            node, other = sorted((node, other), key=str)
        return (self.kind, node, other, self.source, self.proposer, self.extra)


@dataclass
class Report:  # what an ingest says it did
    proposed: bool = False
    new_version: bool = False
    accepted: list[tuple[UUID, str]] = field(default_factory=list)
    corroborated: list[UUID] = field(default_factory=list)
    unchanged: list[UUID] = field(default_factory=list)
    rejected: int = 0


class Model:
    def __init__(self, clock: str) -> None:
        self.clock = clock
        self.sources: dict[str, Source] = {}
        self.beliefs: dict[UUID, Belief] = {}
        self.supersedes: set[tuple[UUID, UUID]] = set()    # (winner, loser), in effect
        self.ended: list[tuple[UUID, UUID]] = []            # supersessions that ended (history)
        self.ties: set[frozenset[UUID]] = set()
        self.decisions: dict[UUID, Decision] = {}
        self.actions: dict[UUID, Action] = {}
        self.items: list[Item] = []                         # open review items
        self.choose: Callable[[int], int] = lambda n: 0
        self.ids: list[UUID] = []                           # ids the database gave what this operation creates
        self.actor = ""                                     # the principal of the operation under way

    # --- rules 2, 3, 8, 15, 16: what holds, what is current, who wins ---------------------------

    def in_force(self, name: str) -> int | None:
        """Rule 2: the latest version of a source that is not retracted, the source not retracted."""
        s = self.sources[name]
        return None if s.retracted else max((n for n, v in enumerate(s.versions, 1) if not v.retracted), default=None)

    def supported(self, b: Belief) -> bool:
        return any(self.in_force(s) == v for s, v, _ in b.evidence)

    def expired(self, b: Belief) -> bool:
        """Rule 16: its valid time has ended (one that has not started yet is current)."""
        return b.claim.valid_to is not None and b.claim.valid_to <= self.clock

    def partners(self, i: UUID) -> list[UUID]:
        return [o for pair in self.ties if i in pair for o in pair if o != i]

    def rank(self, b: Belief) -> tuple[int, str]:
        """Rules 2, 5 and 8: a belief's authority is that of the strongest source whose quote still supports
        it (its version in force: a version that dropped the quote, or a retracted source, counts for
        nothing), its recorded version the latest of those versions."""
        stated = [(s, v) for s, v, _ in b.evidence if self.in_force(s) == v]
        return (max((AUTHORITY[self.sources[s].authority] for s, _ in stated), default=0),
                max((self.sources[s].versions[v - 1].moment for s, v in stated), default=""))

    def compare(self, a: Belief, b: Belief) -> int:
        """Rule 8: higher authority; then the later valid-time start, or, when either has none, the later
        recorded source version; equal on all counts is a tie."""
        (aa, ar), (ba, br) = self.rank(a), self.rank(b)
        x, y = ((aa, ba) if aa != ba else (a.claim.valid_from, b.claim.valid_from)
                if a.claim.valid_from is not None and b.claim.valid_from is not None else (ar, br))
        return (x > y) - (x < y)

    def loser_is_superseded(self, winner: Belief, loser: Belief) -> bool:
        """Rules 8 and 17: the loser is superseded when the principal acting owns it (only a belief's owner
        lets it lose); a rival of another principal's belief is a conflict for its owner to settle."""
        return loser.owner == self.actor

    def settle(self, x: UUID) -> list[UUID]:
        """Rule 8 between a belief that is current and its rivals (oldest first: READING)."""
        b = self.beliefs[x]
        if b.status not in LIVE:
            return []
        rivals = sorted((r for r in self.beliefs.values()
                         if r.id != x and r.world == b.world and r.claim.value != b.claim.value
                         and r.claim.overlaps(b.claim) and r.status in LIVE), key=lambda r: (r.recorded, r.id))
        touched: list[UUID] = []
        # a belief that loses, whoever owns it, loses to every rival that beats it (superseded by each, or
        # in conflict with each when the principal acting does not own it), and beats or ties none
        winners = [r for r in rivals if self.compare(b, r) < 0]
        for r in winners or rivals:
            c = self.compare(b, r)
            winner, loser = (b, r) if c > 0 else (r, b)
            if c != 0 and self.loser_is_superseded(winner, loser):
                self.supersede(winner.id, loser.id)
                loser.status = "superseded"
                touched += [loser.id, winner.id]
                continue
            pair = frozenset((x, r.id))
            self.ties.add(pair)
            b.status = r.status = "conflicting"
            touched.append(r.id)
            # READING: every open tie has an open review item (one per tie, also when it opens again)
            if not any(i.kind == "conflict" and {i.node, i.other} == pair for i in self.items):
                self.items.append(Item("conflict", x, r.id))
        return touched

    def supersede(self, winner: UUID, loser: UUID) -> None:
        """Rule 3: supersession in effect stays acyclic. A supersession into the winner whose superseder no
        longer holds, and that the loser leads to, would close a cycle with this one: it ends first (kept
        as history); any other cycle is refused."""
        reach = {loser} | self.beneath(loser)
        stale = sorted((w, lo) for w, lo in self.supersedes
                       if lo == winner and w in reach and not self.beliefs[w].holds)
        self.supersedes -= set(stale)
        self.ended += stale
        if winner in {loser} | self.beneath(loser):
            raise Refused("IntegrityViolation")
        self.supersedes.add((winner, loser))

    def closure(self, seeds: Iterable[UUID]) -> set[UUID]:
        """Beliefs whose standing may follow from these: what they supersede and what they are tied with."""
        out, todo = set(), [s for s in seeds if s in self.beliefs]
        while todo:
            i = todo.pop()
            if i in out:
                continue
            out.add(i)
            todo += [lo for w, lo in self.supersedes if w == i] + self.partners(i)
        return out

    def evaluate(self, subset: Iterable[UUID]) -> tuple[list[UUID], list[UUID]]:
        """Rules 2, 3, 16 for these beliefs (the others as they stand); returns those current again, and
        those whose open conflicts closed."""
        subset = sorted(set(subset) & set(self.beliefs))
        holds = {i: self.supported(self.beliefs[i]) for i in subset}

        def held(i: UUID) -> bool:
            return holds[i] if i in holds else self.beliefs[i].holds

        sup = {i: any(held(w) for w, lo in self.supersedes if lo == i) for i in subset}
        cur = {i: holds[i] and not sup[i] and not self.expired(self.beliefs[i]) for i in subset}

        def live(o: UUID) -> bool:
            return cur[o] if o in cur else self.beliefs[o].status in LIVE

        revived, untied = [], []
        for i in subset:
            b = self.beliefs[i]
            status = ("superseded" if sup[i] else "unsupported" if not holds[i] else "expired"
                      if self.expired(b) else "conflicting" if any(live(o) for o in self.partners(i)) else "current")
            if cur[i] and not b.current:
                revived.append(i)
            elif b.status == "conflicting" and status == "current":
                untied.append(i)
            b.holds, b.current, b.status = holds[i], cur[i], status
        self.review()
        return revived, untied

    def propagate(self, subset: Iterable[UUID]) -> None:
        """Evaluate; a belief current again meets its rivals like a new one (rule 3), in any order; then
        so does one whose open conflicts closed (one that lost to another principal's rival settled
        nothing else, rule 8: the rivals it left are still to settle)."""
        revived, untied = self.evaluate(subset)
        touched: list[UUID] = []
        while revived:
            touched += self.settle(revived.pop(self.choose(len(revived))))
        while untied:
            touched += self.settle(untied.pop(self.choose(len(untied))))
        if touched:
            self.propagate(self.closure(touched))

    def everything(self) -> None:
        self.propagate(self.beliefs)

    # --- rule 4 and the review queue -------------------------------------------------------------

    def review(self) -> None:
        """Decisions that no longer hold are flagged, their actions held; settled questions close."""
        for i, d in self.decisions.items():
            held, d.holds = d.holds, any(r in self.beliefs and self.beliefs[r].current for r in d.reasons)
            # approved, it is flagged again when it loses its last support again (it held since)
            if not d.holds and (d.status == "active" or (d.status == "approved" and held)):
                if d.status == "approved":  # a new flag: what a person released may be held again
                    for a in self.actions.values():
                        if a.decision == i:
                            a.released = False
                d.status = "needs_review"
                self.items.append(Item("decision_flagged", i))
        for i, a in self.actions.items():
            if self.decisions[a.decision].status == "needs_review" and a.status == "scheduled" and not a.released:
                a.status = "held"
                self.items.append(Item("action_held", i))

        def settled(item: Item) -> bool:
            if item.kind == "conflict":
                return any(self.beliefs[n].status != "conflicting" for n in (item.node, item.other))  # type: ignore
            if item.kind == "correction_proposed":
                return self.beliefs[item.node].status not in LIVE  # type: ignore[index]
            return False

        self.items = [i for i in self.items if not settled(i)]

    def settle_proposals(self, name: str) -> None:
        """Rule 17: a proposed retraction the source already has closes, and a proposed text once it is the
        version in force (READING: its latest version, the source not retracted; a text it had before and
        dropped is still a question, and so is one a retracted source was given)."""
        s = self.sources[name]

        def settled(item: Item) -> bool:
            if item.kind == "version_proposed":
                return (n := self.in_force(name)) is not None and s.versions[n - 1].text == item.extra
            return item.kind == "retraction_proposed" and s.retracted == (item.extra == "False")

        self.items = [i for i in self.items if i.source != name or not settled(i)]

    # --- operations --------------------------------------------------------------------------------

    def new_id(self) -> UUID:
        if not self.ids:
            raise Refused("the model made more new nodes than the database reported")
        return self.ids.pop(0)

    def ingest(self, actor: str, name: str, text: str, claims: list[str], via: str) -> Report:
        """A text for a source (rules 15, 17, 18): a proposal if another principal's source would get a
        new version; the text in force again only adds claims; a retracted text changes nothing."""
        self.actor = actor
        world, authority = SOURCES[name]
        source = self.sources.get(name)
        if source is None:
            source = self.sources[name] = Source(actor, world, authority)
        elif source.owner != actor:
            known = [n for n, v in enumerate(source.versions, 1) if v.text == text]
            # (the text in force, a retracted text or any text of a retracted source changes no version)
            if not any(source.retracted or source.versions[n - 1].retracted or n == self.in_force(name)
                       for n in known):
                payload = (text, tuple(claims), via)
                if not any(i.kind == "version_proposed" and i.source == name and i.proposer == actor
                           and i.payload == payload for i in self.items):
                    self.items.append(Item("version_proposed", source=name, proposer=actor, extra=text,
                                           payload=payload))
                return Report(proposed=True)
        return self.core(actor, name, text, claims)

    def core(self, actor: str, name: str, text: str, claims: list[str]) -> Report:
        source = self.sources[name]
        known = [n for n, v in enumerate(source.versions, 1) if v.text == text]
        if known and known[-1] == self.in_force(name):
            return self.add_claims(actor, name, known[-1], claims, Report())
        if known and (source.retracted or source.versions[known[-1] - 1].retracted):
            return Report()
        before = self.in_force(name)
        # rule 14: a line forgotten in a version of the source (here a quote is a whole line) stays
        # forgotten in a text that has it again
        lines = set(text.splitlines())
        source.versions.append(Version(text, self.clock,
                                       masked={q for v in source.versions for q in v.masked if q in lines}))
        number = len(source.versions)
        new = source.versions[-1]
        # rule 2: a belief whose quote the new version repeats keeps its support through it
        for b in self.beliefs.values():
            for s, v, q in list(b.evidence):
                if s == name and v < number and q not in source.versions[v - 1].masked and q not in new.masked \
                        and q in text:
                    b.evidence.add((name, number, q))
        self.settle_proposals(name)
        # one propagation for the claims and the shift in force: what rests on the new version or on
        # the one in force before it is evaluated with what the claims touched
        moved = [b.id for b in self.beliefs.values()
                 if any(s == name and (v >= number - 1 or v == before) for s, v, _ in b.evidence)]
        return self.add_claims(actor, name, number, claims, Report(new_version=True), moved)

    def add_claims(self, actor: str, name: str, number: int, claims: list[str], report: Report,
                   moved: Iterable[UUID] = ()) -> Report:
        """READING: a version's claims meet their rivals as they stood when it arrived (what it drops is
        still current for them), if it is in force; then one propagation evaluates what they touched with
        what moved in or out of force (``moved``), so that a belief the version brings back meets its
        rivals as the version leaves them (rules 3 and 8: one whose text it dropped meets no rival).
        READING: the claims of one text that say the same are one belief, also in a text not in force (the
        history a retracted source's new text makes is one belief per claim, which its other sentences of
        that claim corroborate), also when settling an earlier one of them superseded it (rule 18: the same
        words of one version rank the same, so a second belief would only lose again)."""
        source, touched, history, made = self.sources[name], [], set(), set()
        version = source.versions[number - 1]
        for key in claims:
            quote, claim = SENTENCES[key]
            if quote in version.masked or quote not in version.text:  # rule 1 (a forgotten quote is masked)
                report.rejected += 1
                continue
            evidence = (name, number, quote)
            same = [b for b in self.beliefs.values() if b.claim == claim and b.world == source.world]
            again = [b for b in same if evidence in b.evidence]
            if again:  # rule 18: recorded from this very fragment before
                report.unchanged.append(again[self.choose(len(again))].id)
                touched.append(report.unchanged[-1])
                continue
            live = [b for b in same if b.status in (*LIVE, "expired") or b.id in history]
            if not live and self.in_force(name) == number:
                # rule 18: one current belief per claim. A superseded one that this version brings back
                # (what supersedes it rests only on quotes of this source's other versions, which this one
                # neither repeats nor says again) takes the claim's evidence
                said = {SENTENCES[k][1] for k in claims}
                live = [b for b in same if b.status == "superseded" and self.falls_back(b, name, number, said)]
            if not live:
                live = [b for b in same if b.status == "superseded" and b.id in made]
            if live:
                b = min(live, key=lambda o: (o.recorded, o.id))  # the database's order: uuids compare as bytes
                b.evidence.add(evidence)
                report.corroborated.append(b.id)
            else:
                b = Belief(self.new_id(), claim, source.world, actor, self.clock, {evidence})
                self.beliefs[b.id] = b
                b.status = ("current" if self.in_force(name) == number and not self.expired(b)
                            else "expired" if self.in_force(name) == number else "unsupported")
                report.accepted.append((b.id, claim.value))
                if self.in_force(name) != number:
                    history.add(b.id)
            made.add(b.id)
            # a version that is not in force (a retracted source's new text) is history: its claims, new
            # or corroborating, change nothing anyone settled
            touched += [b.id, *(self.settle(b.id) if self.in_force(name) == number else [])]
        self.propagate(self.closure([*touched, *moved]))
        self.everything()
        return report

    def falls_back(self, b: Belief, name: str, number: int, said: set[Claim]) -> bool:
        """Whether superseded ``b`` is current again once version ``number`` of ``name`` is in force: every
        belief that supersedes it and holds rests only on quotes of ``name``'s other versions (this one's
        repeated quotes went forward to it already) and is no claim the version makes (``said``)."""
        winners = [self.beliefs[w] for w, lo in self.supersedes if lo == b.id and self.beliefs[w].holds]
        return bool(winners) and all(
            w.evidence and w.claim not in said and all(s == name and v != number for s, v, _ in w.evidence)
            for w in winners)

    def retract(self, actor: str, name: str, undo: bool) -> bool:
        """Rules 5, 17: only the owner retracts or restores a source; anyone else proposes it."""
        self.actor = actor
        source = self.sources[name]
        if source.owner != actor:
            if not any(i.kind == "retraction_proposed" and i.source == name and i.proposer == actor
                       and i.extra == str(undo) for i in self.items):
                self.items.append(Item("retraction_proposed", source=name, proposer=actor, extra=str(undo)))
            self.review()
            return True
        source.retracted = not undo
        self.settle_proposals(name)
        self.everything()
        return False

    def retract_version(self, actor: str, name: str, number: int, undo: bool) -> None:
        """Rules 2 and 5: the owner retracts (or restores) one version; the one before it in force is back
        in force while it is retracted."""
        self.actor = actor
        self.sources[name].versions[number - 1].retracted = not undo
        self.settle_proposals(name)
        self.everything()

    def correct(self, actor: str, belief: UUID, statement: str, value: str, revision: int) -> bool:
        """Rules 6, 17: the owner's correction supersedes the belief with a replacement supported by the
        reviewer's text only; anyone else's is proposed to the owner, for a belief that is current."""
        self.actor = actor
        b = self.beliefs[belief]
        if b.status in ("superseded", "retracted"):  # a conflict with the belief's state (HTTP 409)
            raise Refused("NotCorrectable")
        if b.owner != actor:
            if b.status not in LIVE:  # a proposal about a belief that is not current would close at once
                raise Refused("NotCorrectable")
            if not any(i.kind == "correction_proposed" and i.node == belief and i.proposer == actor
                       and i.payload == (statement, value, revision) for i in self.items):
                self.items.append(Item("correction_proposed", belief, proposer=actor, extra=value,
                                       payload=(statement, value, revision)))
            self.review()
            return True
        new = self.new_id()
        name = f"correction:{new}"
        self.sources[name] = Source(actor, b.world, "official", [Version(statement, self.clock)])
        self.beliefs[new] = Belief(new, Claim(value, b.claim.valid_from, b.claim.valid_to), b.world, actor,
                                   self.clock, {(name, 1, statement)})
        self.supersedes.add((new, belief))
        self.everything()
        touched = self.settle(new)
        if touched:
            self.propagate(self.closure([new, *touched]))
        return False

    def forget(self, actor: str, belief: UUID) -> int:
        """Rule 14: the belief goes with its evidence and its quotes (masked in every text holding them that
        the actor owns: rule 17), and (READING) every belief that held only through it; what rested on it is
        re-evaluated."""
        self.actor = actor
        b = self.beliefs[belief]
        if b.owner != actor:
            raise Refused("NotOwner")
        quotes = {q for _, _, q in b.evidence}
        # the same words in any stored text of the workspace are the same data: every source holding them
        # (its own evidence's sources, and those whose text still says them: not where they are masked already)
        sources = {s for s, _, _ in b.evidence} | {
            n for n, s in self.sources.items()
            if any(q in v.text and q not in v.masked for v in s.versions for q in quotes)}
        # another belief's quote, elsewhere than a forgotten quote, is its own: kept, and an occurrence within
        # it with it (the same words here, where a quote is a whole sentence; ``masked`` keeps an occurrence
        # within a longer kept text too, as the database does)
        kept = {(s, n, q) for o in self.beliefs.values() if o.id != belief for s, n, q in o.evidence
                if s in sources} - b.evidence
        # rule 17: a forget masks quotes only in the sources the acting principal owns (and the proposals
        # to them); in another's source the words stay, theirs to forget
        sources = {s for s in sources if self.sources[s].owner == actor}
        for s in sources:
            for n, v in enumerate(self.sources[s].versions, start=1):
                v.masked |= {q for q in quotes if q in v.text and (s, n, q) not in kept}
        words = {q for _, _, q in kept}

        def unmasked(keys: tuple[str, ...], text: str) -> tuple[str, ...]:
            # (a proposal keeps no claim over a masked span: its quote is no longer in the text)
            return tuple(k for k in keys if SENTENCES[k][0] in text)

        self.items = [i if not (i.kind == "version_proposed" and i.source in sources
                                and any(q in (i.extra or "") for q in quotes))
                      else Item(i.kind, source=i.source, proposer=i.proposer,
                                extra=masked(i.extra or "", quotes, words),
                                payload=(masked(str(i.payload[0]), quotes, words),
                                         unmasked(i.payload[1], masked(str(i.payload[0]), quotes, words)),
                                         *i.payload[2:]))
                      for i in self.items]
        del self.beliefs[belief]
        self.supersedes = {(w, lo) for w, lo in self.supersedes if belief not in (w, lo)}
        self.ended = [(w, lo) for w, lo in self.ended if belief not in (w, lo)]
        self.ties = {p for p in self.ties if belief not in p}
        self.items = [i for i in self.items if belief not in (i.node, i.other)]
        for d in self.decisions.values():
            d.reasons = [r for r in d.reasons if r != belief]
        self.everything()
        return 1  # beliefs forgotten

    def decide(self, actor: str, reasons: list[UUID]) -> UUID:
        """Rules 4, 19: a decision holds while one of its reasons is current; none: needs review. Rule 15:
        a decision is production history, and rests on no fixture material (refused, nothing recorded)."""
        self.actor = actor
        if any(r in self.beliefs and self.beliefs[r].world != "production" for r in reasons):
            raise Refused("IntegrityViolation")
        i = self.new_id()
        d = self.decisions[i] = Decision(list(reasons), owner=actor)
        if not reasons:
            d.status = "needs_review"
            self.items.append(Item("decision_flagged", i))
        self.review()
        return i

    def act(self, actor: str, decision: UUID) -> UUID:
        """Rule 4: nothing carries out a rejected decision, nor one with no reason left (READING: a
        decision whose reasons were all forgotten is one without reasons) until a person approves it;
        an action on a flagged decision is held at once."""
        self.actor = actor
        d = self.decisions[decision]
        if d.status == "rejected" or (d.status == "needs_review" and not d.reasons):
            raise Refused("InvalidInput")
        i = self.new_id()
        self.actions[i] = Action(decision, owner=actor)
        self.review()
        return i

    def advance(self, moment: str) -> None:
        self.clock = moment
        self.everything()

    def resolve(self, actor: str, item: Item, verdict: str, winner: UUID | None = None,
                stale: bool = False) -> Report:
        """Rules 4, 8, 17: a person approves or rejects an open review item."""
        self.actor = actor
        approved = verdict == "approved"
        loser = item.other if winner == item.node else item.node
        if item.kind == "correction_proposed" and self.beliefs[item.node].owner != actor:  # type: ignore[index]
            raise Refused("NotOwner")
        if item.kind == "conflict" and approved and self.beliefs[loser].owner != actor:  # type: ignore[index]
            raise Refused("NotOwner")
        # rejected, both stay conflicting: one of their owners says so, no third principal
        if item.kind == "conflict" and not approved and actor not in (
                self.beliefs[item.node].owner, self.beliefs[item.other].owner):  # type: ignore[index]
            raise Refused("NotOwner")
        if item.kind in ("version_proposed", "retraction_proposed") and self.sources[item.source].owner != actor:  # type: ignore[index]
            raise Refused("NotOwner")
        # a flag's verdict changes the decision's status, and a hold's its action's: both the decision's
        # owner's (the hold is there because the decision lost its support), whoever made the action
        if item.kind == "decision_flagged" and self.decisions[item.node].owner != actor:  # type: ignore[index]
            raise Refused("NotOwner")
        if item.kind == "action_held" and self.decisions[self.actions[item.node].decision].owner != actor:  # type: ignore[index]
            raise Refused("NotOwner")
        if item.kind == "correction_proposed" and approved and stale:
            raise Refused("StaleCorrectionPreview")
        self.items.remove(item)
        report = Report()
        if item.kind == "decision_flagged":
            self.decisions[item.node].status = verdict  # type: ignore[index]
            # rejected: every action of it not finished is cancelled, one a person released too
            for i, a in self.actions.items():
                if a.decision == item.node and (a.status == "held" or (not approved and a.status == "scheduled")):
                    a.status, a.released = ("scheduled", True) if approved else ("cancelled", False)
                    self.items = [x for x in self.items if not (x.kind == "action_held" and x.node == i)]
        elif item.kind == "action_held":
            a = self.actions[item.node]  # type: ignore[index]
            a.status, a.released = ("scheduled", True) if approved else ("cancelled", False)
        elif not approved:
            pass
        elif item.kind == "correction_proposed":
            statement, value, revision = item.payload
            self.correct(actor, item.node, str(statement), str(value), int(revision))  # type: ignore[arg-type]
        elif item.kind == "version_proposed":
            text, claims, _ = item.payload
            report = self.core(actor, item.source, str(text), list(claims))  # type: ignore[arg-type]
        elif item.kind == "retraction_proposed":
            self.sources[item.source].retracted = item.extra != "True"  # type: ignore[index]
            self.settle_proposals(item.source)  # type: ignore[arg-type]
            self.everything()
        elif item.kind == "conflict":
            self.supersede(winner, loser)  # type: ignore[arg-type]
            self.everything()
        self.review()
        return report

    def beneath(self, x: UUID) -> set[UUID]:
        """What ``x`` supersedes, directly or not."""
        out, todo = set(), [x]
        while todo:
            i = todo.pop()
            for w, lo in self.supersedes:
                if w == i and lo not in out:
                    out.add(lo)
                    todo.append(lo)
        return out

    # --- what the database is compared with ------------------------------------------------------

    def observe(self) -> dict[str, object]:
        return {
            "beliefs": {i: (b.claim.value, b.status, b.holds, b.current, b.owner, b.world)
                        for i, b in self.beliefs.items()},
            "decisions": {i: (d.status, d.holds) for i, d in self.decisions.items()},
            "actions": {i: a.status for i, a in self.actions.items()},
            "items": sorted((i.key for i in self.items), key=repr),
        }

    def fingerprint(self) -> str:
        """The whole state, hidden parts included (to tell apart states the choices led to)."""
        return repr((self.observe(), sorted(self.supersedes), sorted(self.ended), sorted(sorted(p) for p in self.ties),
                     sorted((i, sorted(b.evidence), b.recorded) for i, b in self.beliefs.items()),
                     sorted(repr(i) for i in self.items),
                     sorted((n, s.retracted, [(v.text, sorted(v.masked), v.retracted) for v in s.versions])
                            for n, s in self.sources.items())))


# --- reasons without a quote (tests/test_as_of_reasons.py) ----------------------------------------


@dataclass(frozen=True)
class Reasoned:
    """A belief held by one reason without a quote: derived from ``rests_on`` (every one needed), or, with
    ``said``, an agent's memory written by a step that the user's input ``said`` initiated and that read
    ``rests_on``."""
    rests_on: frozenset[UUID]
    said: UUID | None = None


def reasons_current(quoted: set[UUID], reasoned: dict[UUID, Reasoned], retracted: set[UUID]) -> set[UUID]:
    """Rules 2 and 3: which of the ``reasoned`` beliefs are current, given the quoted beliefs current now and
    what is retracted (beliefs and user inputs). A user's input is a premise while it is not retracted; a step
    holds while its input holds and what it read is current; a belief holds by its reason while every
    antecedent is current, and (one subject and attribute each: no rival, no valid time) is then current.
    The least fixpoint: nothing holds by support that only comes back to it."""
    current: set[UUID] = set()
    grew = True
    while grew:
        grew = False
        for i, r in reasoned.items():
            if (i not in current and i not in retracted and (r.said is None or r.said not in retracted)
                    and r.rests_on <= quoted | current):
                current.add(i)
                grew = True
    return current
