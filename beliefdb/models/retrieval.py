"""What ``ask`` answers, and what an embedding job did."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar
from uuid import UUID

from beliefdb.models.beliefs import Belief, Evidence


@dataclass(frozen=True)
class Replaced:
    """History, never current: a belief that the answer it is shown under replaced, directly or
    through the values between them (``steps`` back), with its own evidence, and what replaced it and
    when (``beliefdb.replaced_on``: when the belief that replaced it became valid, a turn's date, if
    that is after this one became valid; else when the replacement was recorded)."""

    belief: Belief
    evidence: list[Evidence]
    replaced_by: UUID
    replaced_by_value: str
    replaced_on: datetime
    steps: int


@dataclass(frozen=True)
class Answer:
    """A belief returned by ask, with what a caller needs to trust it or not."""

    belief: Belief
    evidence: list[Evidence]
    warnings: list[str]
    conflicts: list[dict[str, Any]]
    replaced: list[dict[str, Any]]
    provenance: str
    low_confidence: bool
    score: float
    similarity: float | None
    matched_by: list[str]
    #: the values it replaced, the latest first, each a context item of its own right after it
    history: list[Replaced] = field(default_factory=list)


@dataclass(frozen=True)
class FragmentHit:
    """Unextracted text: a fragment of a source in force that matches the question and that no belief
    quotes, in whole or in part. Not a belief: nothing checked it against the truth rules, and nothing may cite it."""

    fragment_id: UUID
    text: str
    source: str
    version: int
    version_label: str | None
    start_offset: int
    end_offset: int
    recorded_at: datetime
    speaker: str | None
    spoken_at: datetime | None
    authority: str
    provenance: str
    score: float
    kind: str = "fragment"


#: the line between the unextracted text and the beliefs after it (``AskResult.fragments_after``:
#: found by vector or by name alone), which would otherwise read as part of that text
BELIEFS_AFTER_TEXT = "Beliefs that match by meaning or by a subject's name only, not by the question's words:"

_Shown = TypeVar("_Shown")


def ask_parts(beliefs: Sequence[_Shown], fragments: bool,
              fragments_after: int) -> Iterator[_Shown | Literal["fragments", "separator"]]:
    """The order an answer of ask is shown in, the prompt-ready context and the command line's text alike:
    the beliefs the question's words match, then the unextracted text (``fragments``: whether there is any),
    then the line :data:`BELIEFS_AFTER_TEXT` (first when nothing matched the words), then the beliefs found by
    meaning or by a name alone (``AskResult.fragments_after``); the text last when every belief matched."""
    for i, belief in enumerate(beliefs):
        if i == fragments_after:
            if fragments:
                yield "fragments"
            # (set apart from the text, from the beliefs the words match, or, when nothing matched the
            # words, said first: beliefs near the question in meaning alone may not answer it at all)
            yield "separator"
        yield belief
    if fragments and fragments_after >= len(beliefs):
        yield "fragments"


@dataclass(frozen=True)
class AskResult:
    status: str  # ok | no_match | memory_unavailable: of beliefs; fragments are not beliefs
    question: str
    #: the moment the answer is as of, in UTC as every moment an answer gives back, whatever offset it was
    #: asked with (a moment without one was read as local time)
    as_of: datetime | None
    beliefs: list[Answer] = field(default_factory=list)
    context: str = ""
    degraded: str | None = None
    reason: str | None = None
    #: ask's fallback when fewer than k beliefs match the question's words: unextracted text
    fragments: list[FragmentHit] = field(default_factory=list)
    #: where the fragments are shown: after this many of ``beliefs`` (those that share a word with the
    #: question besides their subject's name where it is a person's, written as a name in the question
    #: or a speaker's of the turns they quote, listed first), before the rest (found by vector or name
    #: alone), fragments or not; one numbering runs across both
    fragments_after: int = 0
    #: why nothing matched, when memory can say: an as-of moment before the workspace recorded anything;
    #: or, with beliefs, that none of them shares a word with the question (found by meaning or name alone)
    hint: str | None = None
    #: with memory_unavailable, the code of the error that kept memory from answering (``reason`` its
    #: message): ``workspace_busy`` (another writer held the workspace: try again soon) or
    #: ``database_unavailable``, which the servers answer as they answer that error of any other call
    error: str | None = None

    def __post_init__(self) -> None:
        if self.as_of is not None and self.as_of.tzinfo is not None:
            # (the first hours of year 1 east of UTC have no UTC moment to name: as given)
            with contextlib.suppress(OverflowError):
                object.__setattr__(self, "as_of", self.as_of.astimezone(UTC))


@dataclass(frozen=True)
class EmbedReport:
    model: str
    embedded: int
    missing: int
    switched: bool = False
    index: str | None = None
