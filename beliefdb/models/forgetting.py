"""Forgetting: what a forget took away, and where a forgotten subject's name is still written (typed by
people, in the stored source texts, in the texts waiting to be stored, in speakers' labels).

Rules cited as "rule N" are those of docs/rules.md.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from beliefdb.models.changes import Changes


@dataclass(frozen=True)
class Mention:
    """Where a forgotten subject's name is still written (``kind`` decision, action, outcome, run, step,
    review, correction, source, version or retraction: typed by people; belief: what a source said of
    another subject, or a belief whose ``field`` subject names the person, another spelling of their
    subject; its ``id``, the ``field`` that names it and its ``owner``). Forget leaves it: it is
    someone's own words, not text taken from what was forgotten, and the name may be another's; ``hint``
    says how to deal with it."""

    kind: str
    id: UUID
    field: str
    owner: str | None
    hint: str


@dataclass(frozen=True)
class TextMention:
    """Where a stored source text still names a forgotten subject once forget masked what it forgets
    (``masked``: where forget with ``mask_mentions`` masked the name): another speaker's turn ("Nice to meet
    you Maya"), another document. The ``source``'s name and its ``version`` (``id``: the version's), how
    many times (``count``), the ``excerpt`` around the first (the name masked in it, clipped with "…"), the
    source's ``owner``, and a ``hint``. The same names and matching rule as :class:`Mention`."""

    source: str
    version: int
    id: UUID
    count: int
    excerpt: str
    owner: str | None
    masked: bool
    hint: str


@dataclass(frozen=True)
class SpeakerMention:
    """A speaker of stored turns whose label names a forgotten subject ("Maya's mum", "Maya Lopez (guest)"):
    not the person by rule 14 (only a speaker whose name is the subject is), so their turns stay, their
    words. The label with the name masked (``speaker``), how many ``turns``, the ``sources`` they are in,
    ``masked`` (forget with ``mask_mentions`` masked the name in the label of each turn), and a ``hint``."""

    speaker: str
    turns: int
    sources: list[str]
    masked: bool
    hint: str


@dataclass(frozen=True)
class Kept:
    """What a forget left in a stored source text another principal owns (rule 17: only its owner, or a
    login granted ``beliefdb_eraser``, changes it): ``what`` stays there (``turn``: a forgotten subject's
    turns; ``quote``: a forgotten belief's quote), how many (``count``), in the ``source``'s ``version``
    (``id``: the version's), its ``owner`` and a ``hint``. Forget masks and forgets in the acting
    principal's own sources only."""

    what: str
    source: str
    version: int
    id: UUID
    count: int
    owner: str | None
    hint: str


#: the kinds of forget's mentions that are waiting texts', and every kind that is no typed text's
_PENDING = ("queued", "proposed")
_NOT_TYPED = ("text", "more", "speaker", "kept", *_PENDING)


@dataclass(frozen=True)
class PendingMention:
    """Where a text waiting to be stored still names a forgotten subject once forget masked what it forgets:
    ``kind`` queued (a job's document not ingested yet: ``id`` the job's) or proposed (a version proposed to a
    source's owner, a correction proposed to a belief's owner: ``id`` the review item's), the ``field`` that
    names it (text, content, statement or value), the ``source``'s name, its ``status``, whose call masking
    it is (``owner``: the job's submitter, the source's or the belief's owner), who wrote it (``by``), how
    many times (``count``), the ``excerpt`` around the first (the name masked in it; None to a principal who
    neither wrote nor owns the text, nor erases: forget's report quotes a text not stored yet to them only; a
    queued job's text is its submitter's and an eraser's to read, while a proposal's is in the review queue,
    which every principal of the workspace reads, docs/security.md), ``masked`` (forget with
    ``mask_mentions`` masked it there: a worker or an approval stores no name), a ``hint``, and how many of its
    turns (a queued conversation's, a proposed version's) have a speaker's label that names the subject
    (``speakers``: masked with the text)."""

    kind: str
    id: str
    field: str
    source: str | None
    status: str
    owner: str | None
    by: str | None
    count: int
    excerpt: str | None
    masked: bool
    hint: str
    speakers: int = 0


@dataclass(frozen=True)
class Forgotten:
    """What forgetting a source, a subject or a belief took away (``preview``: would take away).
    ``would_flag`` is ``flagged`` under the name a preview gives it. ``jobs`` and ``proposals``: the jobs
    (queued, failed or done) and the proposed versions whose text or turns it masked, or cleared (a
    forgotten source's jobs). ``mentions``: where people typed a forgotten subject's name, left as typed.
    ``text_mentions``: where the stored source texts still name it (``mask_mentions``: where they named it,
    masked), counted in each version; ``pending_mentions``: where the texts waiting to be stored (queued,
    proposed) name it; ``speaker_mentions``: the speakers whose label names it, their turns kept. Each lists
    the first 100; ``mentions_total``, ``text_mentions_total``, ``pending_mentions_total`` and
    ``speaker_mentions_total`` say how many there are in all, ``text_mentions_count`` and
    ``pending_mentions_count`` how many times (what ``mask_mentions`` masks: every one),
    ``speaker_mentions_count`` how many stored turns the labels label (``mask_mentions``: the turns whose
    label it masked, every one; the waiting turns' are each pending mention's ``speakers``).
    ``labels_masked``: with ``mask_mentions``, how many turns' speaker labels it masked (would mask), stored
    and waiting to be stored, every one (the fingerprint counts them). ``kept``: where a forgotten
    subject's turns or a forgotten belief's quote stay in a source another principal owns (rule 17): the
    first 100 by version, ``kept_total`` entries and ``kept_count`` turns and quotes in all."""

    target: str
    versions: int
    fragments: int
    beliefs: int
    evidence: int
    embeddings: int
    redacted: int
    flagged: list[UUID]
    would_flag: list[UUID]
    held: list[UUID]
    changes: Changes
    preview: bool = False
    jobs: int = 0
    proposals: int = 0
    labels_masked: int = 0
    mentions: list[Mention] = field(default_factory=list)
    text_mentions: list[TextMention] = field(default_factory=list)
    pending_mentions: list[PendingMention] = field(default_factory=list)
    text_mentions_total: int = 0
    text_mentions_count: int = 0
    pending_mentions_total: int = 0
    pending_mentions_count: int = 0
    speaker_mentions: list[SpeakerMention] = field(default_factory=list)
    speaker_mentions_total: int = 0
    speaker_mentions_count: int = 0
    mentions_total: int = 0
    kept: list[Kept] = field(default_factory=list)
    kept_total: int = 0
    kept_count: int = 0

    def __post_init__(self) -> None:
        # (read from SQL as jsonb objects: the source texts' of kind text, and the waiting texts' of kind
        # queued and proposed, in the same array)
        given = self.mentions or []
        object.__setattr__(self, "mentions", [m if isinstance(m, Mention) else Mention(
            kind=m["kind"], id=UUID(str(m["id"])), field=m["field"], owner=m.get("owner"), hint=m["hint"])
            for m in given if isinstance(m, Mention) or m["kind"] not in _NOT_TYPED])
        waiting: list[Any] = [m for m in given if isinstance(m, dict) and m["kind"] in _PENDING]
        waiting += list(self.pending_mentions or [])
        object.__setattr__(self, "pending_mentions", [m if isinstance(m, PendingMention) else PendingMention(
            kind=m["kind"], id=str(m["id"]), field=m["field"], source=m.get("source"), status=m["status"],
            owner=m.get("owner"), by=m.get("by"), count=int(m["count"]), excerpt=m["excerpt"], masked=bool(m["masked"]),
            hint=m["hint"], speakers=int(m.get("speakers") or 0)) for m in waiting])
        in_text = [m for m in given if isinstance(m, dict) and m["kind"] == "text"] + list(self.text_mentions or [])
        object.__setattr__(self, "text_mentions", [m if isinstance(m, TextMention) else TextMention(
            source=m["source"], version=int(m["version"]), id=UUID(str(m["id"])), count=int(m["count"]),
            excerpt=m["excerpt"], owner=m.get("owner"), masked=bool(m["masked"]), hint=m["hint"])
            for m in in_text])
        kept = [m for m in given if isinstance(m, dict) and m["kind"] == "kept"] + list(self.kept or [])
        object.__setattr__(self, "kept", [m if isinstance(m, Kept) else Kept(
            what=m["what"], source=m["source"], version=int(m["version"]), id=UUID(str(m["id"])),
            count=int(m["count"]), owner=m.get("owner"), hint=m["hint"]) for m in kept])
        labels: list[Any] = [m for m in given if isinstance(m, dict) and m["kind"] == "speaker"]
        labels += list(self.speaker_mentions or [])
        object.__setattr__(self, "speaker_mentions", [m if isinstance(m, SpeakerMention) else SpeakerMention(
            speaker=m["speaker"], turns=int(m["turns"]), sources=list(m["sources"]), masked=bool(m["masked"]),
            hint=m["hint"]) for m in labels])
        # (how many in all: an entry of kind more follows a listing it cut, else the listing is all)
        more = {m["of"]: m for m in given if isinstance(m, dict) and m["kind"] == "more"}
        for of, field_name, listed in (("text", "text_mentions", self.text_mentions),
                                       ("pending", "pending_mentions", self.pending_mentions),
                                       ("kept", "kept", self.kept)):
            if of in more:
                total, count = int(more[of]["total"]), int(more[of]["count"])
            else:
                total = getattr(self, f"{field_name}_total") or len(listed)
                count = getattr(self, f"{field_name}_count") or sum(m.count for m in listed)
            object.__setattr__(self, f"{field_name}_total", total)
            object.__setattr__(self, f"{field_name}_count", count)
        # (a speaker's count is of turns: those whose label names the subject, masked with mask_mentions)
        if "speaker" in more:
            speakers, turns = int(more["speaker"]["total"]), int(more["speaker"]["count"])
        else:
            speakers = self.speaker_mentions_total or len(self.speaker_mentions)
            turns = self.speaker_mentions_count or sum(s.turns for s in self.speaker_mentions)
        object.__setattr__(self, "speaker_mentions_total", speakers)
        object.__setattr__(self, "speaker_mentions_count", turns)
        typed = int(more["typed"]["total"]) if "typed" in more else self.mentions_total or len(self.mentions)
        object.__setattr__(self, "mentions_total", typed)

    def fingerprint(self) -> str:
        """What this report says would go (or went), in a few characters a client carries back from a
        preview: what is forgotten, the counts (the jobs and proposals it masks too: a queued text masked
        alone changes no other; the speaker labels it masks), and the change to what rested on it, whose
        nodes name each belief and fragment that goes (``forget(expect=...)``, as a retraction's)."""
        parts = [self.target, self.versions, self.fragments, self.beliefs, self.evidence, self.embeddings,
                 self.redacted, self.jobs, self.proposals, self.labels_masked, self.changes.fingerprint()]
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
