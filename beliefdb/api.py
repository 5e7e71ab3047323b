"""The library API: ``beliefdb.connect()`` and the BeliefDB object an agent uses."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from uuid import UUID

from beliefdb import audit, beliefs, ingest
from beliefdb.connector import DEFAULT_WORKSPACE, Database, resolve_url
from beliefdb.extract import Candidate
from beliefdb.models import AuditResult, Belief, IngestFailure, IngestReport, Why


class BeliefDB:
    """Memory bound to one workspace. Every method is one transaction.

    >>> db = connect(workspace="default")          # doctest: +SKIP
    >>> db.ingest("return-policy.md", authority="official")   # doctest: +SKIP
    """

    def __init__(self, database: Database) -> None:
        self.database = database

    @property
    def workspace(self) -> str:
        return self.database.workspace_name

    def ingest(self, *paths: str | Path, source: str | None = None, authority: str | None = None,
               label: str | None = None, version_label: str | None = None, claims: str | Path | None = None,
               extractor: str = "rules") -> list[IngestReport | IngestFailure]:
        """Ingest .txt/.md files; each file is one transaction and a bad file does not stop the others."""
        options = ingest.SourceOptions(name=source, authority=authority, provenance=label,
                                       version_label=version_label)
        return ingest.ingest_paths(self.database, [Path(p) for p in paths], options,
                                   claims=Path(claims) if claims is not None else None, extractor=extractor)

    def ingest_text(self, text: str, *, source: str, authority: str | None = None, label: str | None = None,
                    origin: str | None = None, version_label: str | None = None,
                    extractor: str = "rules") -> IngestReport:
        """Store ``text`` as the next version of ``source`` and extract beliefs from it."""
        options = ingest.SourceOptions(name=source, authority=authority, provenance=label, origin=origin,
                                       version_label=version_label)
        return ingest.ingest_text(self.database, text, options, extractor=extractor)

    def remember(self, statement: str, subject: str, attribute: str, value: str, quote: str, *, source: str,
                 text: str | None = None, kind: str = "fact", scope: Mapping[str, str] | None = None,
                 valid_from: str | None = None, valid_to: str | None = None, authority: str | None = None,
                 origin: str | None = None) -> IngestReport:
        """Remember one belief, through the same evidence gate as ingest.

        With ``text``, the text becomes the next version of ``source`` (e.g. a conversation turn) and the
        quote must be in it; without, the quote must be in the version of ``source`` in force.
        """
        candidate = Candidate(statement=statement, subject=subject, attribute=attribute, value=value,
                              quote=quote, kind=kind, scope=dict(scope or {}), valid_from=valid_from,
                              valid_to=valid_to)
        if text is not None:
            options = ingest.SourceOptions(name=source, authority=authority, origin=origin or "conversation")
            return ingest.ingest_text(self.database, text, options, candidates=[candidate], extractor="none")
        return ingest.remember_in_source(self.database, source, candidate)

    def beliefs(self, *, subject: str | None = None, attribute: str | None = None, include_all: bool = False,
                as_of: datetime | None = None) -> list[Belief]:
        """Current beliefs (or all with their status, or those believed at ``as_of``)."""
        return beliefs.list_beliefs(self.database, subject=subject, attribute=attribute,
                                    include_all=include_all, as_of=as_of)

    def why(self, belief: str | UUID) -> Why:
        """A belief with its evidence, confidence factors and supersession history."""
        return beliefs.why(self.database, belief)

    def audit_verify(self) -> AuditResult:
        return audit.verify(self.database)

    def close(self) -> None:
        self.database.close()

    def __enter__(self) -> BeliefDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(url: str | None = None, workspace: str = DEFAULT_WORKSPACE, *, principal: str | None = None,
            home: str | Path | None = None) -> BeliefDB:
    """Open beliefdb: ``url``, else ``BELIEFDB_URL``, else the embedded server under ``home``."""
    resolved = resolve_url(url, home=Path(home) if home is not None else None)
    return BeliefDB(Database(resolved, workspace, principal=principal))
