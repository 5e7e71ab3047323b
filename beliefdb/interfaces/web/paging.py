"""The pages of a long answer: what a page says it shows ("Showing 101–200 of 2,432 ...") and the
links to the pages before and after it, with the same query. The totals are the whole answer's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

#: how many marked nodes an impact picture draws and lists at once (a large source's retraction marks
#: thousands: all of them took seconds and megabytes)
IMPACT_LIMIT = 100
#: the most items a page asks for at once (?limit=)
MAX_LIMIT = 2000
#: the furthest a page starts (the database's integer range)
MAX_OFFSET = 2**31 - 1


def url(path: str, params: Sequence[tuple[str, str | None]]) -> str:
    kept = [(k, v) for k, v in params if v]
    return f"{path}?{urlencode(kept)}" if kept else path


@dataclass(frozen=True)
class Paging:
    said: str
    previous: str = ""
    next: str = ""
    first: str = ""


def paging(path: str, params: list[tuple[str, str]], *, offset: int, shown: int, total: int, limit: int,
           default_limit: int, one: str, many: str, order: str = "", more: bool = False, counted: str = "",
           always: bool = False, none: str = "", far: str = "") -> Paging:
    """What the page of ``shown`` of ``total`` items from ``offset`` says (``one``/``many``: the item in
    words; ``order``: how they are ordered, appended), and the links to the pages around it. ``more``: the
    count stopped at ``total`` (said "more than", with ``counted`` after it); ``always``: said even when the
    page shows them all; ``none`` and ``far``: what a page with none says (``far`` with ``{total}``: none
    this far, though some are)."""
    kept = [*params, ("limit", str(limit) if limit != default_limit else "")]
    tail = f", {order}." if order else "."
    counted_total = f"more than {total:,}{counted}" if more else f"{total:,}"
    first, last = offset + 1, offset + shown
    if total == 0:
        return Paging(none or f"No {many}.")
    if shown == 0:
        return Paging(far.format(total=counted_total) if far else f"No {many} this far: there are {counted_total}.",
                      first=url(path, kept))
    if total <= shown and offset == 0 and not more and not always:
        return Paging("")  # all of them: nothing to say
    said = (f"Showing {one} {first:,} of {counted_total}{tail}" if shown == 1
            else f"Showing {many} {first:,}–{last:,} of {counted_total}{tail}")
    previous = url(path, [*kept, ("offset", str(max(offset - limit, 0)) if offset > limit else "")]) \
        if offset > 0 else ""
    following = url(path, [*kept, ("offset", str(last))]) if last < total or more else ""
    return Paging(said, previous, following)
