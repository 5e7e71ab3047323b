"""Which database beliefdb uses, and making it ready: ``--db``, else ``--home``'s embedded server, else
``BELIEFDB_URL``, else the embedded server of ``BELIEFDB_HOME`` (started on first use), migrated to this
package's schema when it is not already (saying so on stderr: one line, from which revision to which).

It sits above the connector, the server and migrate, so none of them imports another in a circle.
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

from beliefdb import settings
from beliefdb.db.migrate import is_current, upgrade, upgrade_found
from beliefdb.db.server import EmbeddedServer
from beliefdb.errors import InvalidInput, spelled


def resolve_url(url: str | None = None, *, home: Path | None = None, migrate: bool = True) -> str:
    """``url``; else the embedded server of ``home`` when one is given (the caller's word wins over
    ``BELIEFDB_URL``, a standing default); else ``BELIEFDB_URL``; else the embedded server of
    ``BELIEFDB_HOME`` (or the default home). An embedded server is started and migrated on first use
    (``migrate`` False: started only, its schema left as it is, e.g. for a backup taken before an upgrade).
    ``url`` and ``home`` together name two databases: InvalidInput."""
    if url and home is not None:
        raise InvalidInput(f"{spelled('url= and home=', '--db and --home')} name two databases: give one")
    chosen = url or (None if home is not None else settings.load().url)
    if chosen:
        return chosen
    embedded_url = EmbeddedServer(home).start()
    if migrate:
        ensure_migrated(embedded_url)
    return embedded_url


def ensure_migrated(url: str) -> str | None:
    """Upgrade ``url`` to this package's schema unless it already holds exactly that (cheap check).
    An upgrade of a schema that was there (a package upgraded since it was last used) is said on stderr
    in one line, from which revision to which: there is no downgrade, and a person should know (a new
    database, migrated from nothing, says nothing). What was said, or None."""
    if is_current(url):
        return None
    done = upgrade_found(url)
    if done.found is None or done.was_current:
        return None
    if done.found != done.head:
        said = f"migrated the embedded database from revision {done.found} to {done.head}"
    else:  # (the same revision: another release's functions, replaced by this one's)
        said = f"re-applied this beliefdb's functions to the embedded database (revision {done.head})"
    said = (f"note: beliefdb {said}, this package's schema (there is no downgrade: docs/operations.md,"
            " \"Upgrading\")")
    print(said, file=sys.stderr, flush=True)
    return said


@contextlib.contextmanager
def scratch_database(prefix: str = "beliefdb-scratch-") -> Iterator[str]:
    """A throw-away embedded server in a new temporary folder, migrated; yields the URL of its
    beliefdb database, then stops the server and deletes the folder (benchmarks, experiments)."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    server = EmbeddedServer(home)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs' runtime-dir warning inside the wheel
            url = server.start()
        upgrade(url)
        yield url
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.stop()
        shutil.rmtree(home, ignore_errors=True)
