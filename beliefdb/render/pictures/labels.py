"""What the renderers write for a node: its label shortened, and its marks in words (the truth rules they
name are in docs/rules.md)."""

from __future__ import annotations

import unicodedata

from beliefdb.models.graph import GraphNode, ReviewMark
from beliefdb.render.terminal import REORDERING

#: the longest label a drawn node shows (the whole one is in the model, and in the text output)
WIDTH = 80

#: how an impact picture's title begins
IMPACT_TITLE = "If this were wrong"

#: each mark in words, as the pictures' legends and the text output say it
MARK_WORDS = {
    "focus": "asked about", "flagged": "flagged: needs review", "held": "held", "superseded": "superseded",
    "retracted": "retracted", "corrected": "corrected", "expired": "expired", "quarantined": "quarantined",
    "invalidated": "invalidated by a repair", "replay": "to replay", "stops_holding": "would stop holding",
    "stops_current": "would stop being current (still holds)", "would_flag": "would be flagged",
    "would_hold": "would be held", "survives": "survives on other support",
    "becomes_current": "would be current again", "forgotten": "reasons forgotten",
}

#: what "current again" comes to for a decision or an action, by its status: it would hold again, and
#: what a person decided stays so (rule 4): a rejected decision and a cancelled action are never carried
#: out again, a flag or a hold stays until a person clears it, and what was done stays done
_HOLDS_AGAIN = {
    "needs_review": "stays flagged until a person reviews it", "rejected": "rejected: stays rejected",
    "held": "held: stays held until a person releases it", "cancelled": "cancelled: stays cancelled",
    "done": "done", "failed": "failed", "rolled_back": "rolled back",
}

#: what the review queue and ``why`` say of a flagged decision that holds now: its flag stays until a
#: person resolves it (rule 4), who should know its support came back
HOLDS_AGAIN = "holds again: its support came back; approve to release its actions, or reject"


def mark_words(node: GraphNode, mark: str) -> str:
    """A node's mark in words, as the text output and a drawn node say it: a decision or an action
    current again would hold again, with what its status keeps (``(rejected: stays rejected)``)."""
    if mark == "becomes_current" and node.kind in ("decision", "action"):
        kept = _HOLDS_AGAIN.get(node.status)
        return "would hold again" + (f" ({kept})" if kept else "")
    return MARK_WORDS.get(mark, mark)


def shorten(text: str, width: int = WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis; control characters (a
    terminal's escape sequences, NUL) and what reorders or breaks a line (a bidi override) are spaces."""
    flat = " ".join("".join(" " if unicodedata.category(ch) == "Cc" or ch in REORDERING else ch
                            for ch in text).split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def version_label(version: int, label: str | None) -> str | None:
    """A source version's label when it says more than its number (``v2`` of version 2 says nothing more)."""
    return label if label and label.strip().casefold() != f"v{version}" else None


def version_name(version: int, label: str | None) -> str:
    """A source version in words: ``version 2``, ``version 1 (v3.2)``."""
    more = version_label(version, label)
    return f"version {version}" + (f" ({more})" if more else "")


def short_id(node: GraphNode) -> str:
    return str(node.id)[:8]


def caption(node: GraphNode) -> list[str]:
    """The lines a drawn node shows: its kind and label, then its status and marks."""
    state = [node.status] + [mark_words(node, m) for m in node.marks if m not in ("focus", node.status)]
    return [f"{node.kind}: {shorten(node.label)}", shorten(", ".join(dict.fromkeys(state)))]


def review_words(item: ReviewMark) -> str:
    """A review item's status in words, with who resolved it, when, and their note: ``approved by alice at
    2026-03-02T10:00:00+00:00: checked the receipt`` (``open``, while it is)."""
    said = item.status + (f" by {item.by}" if item.by else "") + (f" at {item.at.isoformat()}" if item.at else "")
    return shorten(said + (f": {item.note}" if item.note else ""), 400)


def verdict_line(item: ReviewMark) -> str:
    """The verdict that set a decision's or action's status, as its node in a why picture says it."""
    return f"{review_words(item)} (review item {str(item.id)[:8]})"


def review_item_lines(item: ReviewMark) -> list[str]:
    """What ``why`` of a review item's id says first: which item it is, what it is about, its status (who
    resolved it, when, their note) and why it was opened."""
    return [f"review item {item.id} ({item.kind}, about the {item.node_kind or 'source'}"
            f" {item.node or item.source_id}): {review_words(item)}",
            f"  opened: {shorten(item.reason or '', 400)}"]
