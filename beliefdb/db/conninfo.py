"""What libpq says of a connection string it cannot read, without the password it may quote.

libpq's error for a connection string it cannot parse, or for an option it cannot use, quotes what it could not
read: a word of the keyword form without its "=" (``missing "=" after "app:hunter2"``), a percent-escape of the
password (``invalid percent-encoded token: "hunter2%zz"``), the port a user name with an unescaped '@' left
behind (``postgresql://admin@srv:hunter2@host``: ``invalid integer value "hunter2@host" for connection option
"port"``, or psycopg's ``failed to resolve host 'hunter2@host'``), a query parameter, or the whole URL.
beliefdb says these errors in one line: :func:`masked` is that line as it shows it."""

from __future__ import annotations

import functools
import re
from typing import Final

from psycopg import pq

from beliefdb.settings import MASK, masked_url

#: words of libpq's messages for a connection string it cannot read or an option value it cannot use
_CONNINFO_ERROR: Final = re.compile(r'after "|key/value separator|percent-encoded|unexpected spaces found in|'
                                    r"\bin URI\b|invalid integer value|invalid port number")
_QUOTED: Final = re.compile(r'"([^"]*)"')
#: psycopg's words for a host name it could not resolve, up to the name's last '@'
_UNRESOLVED: Final = re.compile(r"""(failed to resolve host (['"]))(?:(?!\2).)*@""")


@functools.cache
def _keywords() -> frozenset[str]:
    """libpq's connection keywords: no secret, and what such a message names to help (``port``)."""
    return frozenset(option.keyword.decode() for option in pq.Conninfo.get_defaults())


def _shown(quoted: re.Match[str]) -> str:
    text = quoted.group(1)
    if len(text) <= 1 or text in _keywords():
        return quoted.group(0)  # ('"="', '"]"', a keyword)
    return f'"{masked_url(text)}"' if "://" in text else f'"{MASK}"'


def masked(message: str) -> str:
    """``message`` with what a libpq connection-string error quotes masked (a URL: its password), but a
    keyword of libpq's or a single character; a host name that could not be resolved up to its last '@' (the
    rest of a password with an unescaped '@': libpq ended the user part at the first); any other message as
    it is (a host name it could not reach)."""
    message = _UNRESOLVED.sub(lambda m: f"{m.group(1)}{MASK}@", message)
    return _QUOTED.sub(_shown, message) if _CONNINFO_ERROR.search(message) else message
