"""The table of combining marks the extractor's patterns use agrees with Python's own Unicode data."""

from __future__ import annotations

import re
import sys
import unicodedata

from beliefdb.text.marks import MARKS, UNICODE_VERSION

_MARK = re.compile(f"[{MARKS}]")


def test_every_character_of_the_table_is_a_mark() -> None:
    marked = [c for c in range(sys.maxunicode + 1) if _MARK.fullmatch(chr(c))]
    assert marked, "the table matches nothing"
    # (on a later Unicode a code point never changes from a mark to a letter: the table stays a subset)
    assert [hex(c) for c in marked if unicodedata.category(chr(c))[0] != "M"] == []


def test_the_table_holds_every_mark_of_its_unicode_version() -> None:
    missing = [hex(c) for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c))[0] == "M" and not _MARK.fullmatch(chr(c))]
    if unicodedata.unidata_version == UNICODE_VERSION:
        assert missing == []
    else:  # (a later Python's Unicode adds marks the table may lack; what it has must still be marks)
        assert len(missing) < 200, missing
