"""beliefdb's exceptions. Each has a stable code that the CLI prints with ``--json``."""

from __future__ import annotations


class BeliefDBError(Exception):
    """Base of every error beliefdb raises on purpose."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(BeliefDBError):
    """The caller's input cannot be used (bad file, bad JSONL line, bad option)."""

    code = "invalid_input"


class NotFound(BeliefDBError):
    """An id, name or file that does not exist."""

    code = "not_found"


class UnknownWorkspace(NotFound):
    code = "unknown_workspace"


class UnknownBelief(NotFound):
    code = "unknown_belief"


class AmbiguousId(BeliefDBError):
    code = "ambiguous_id"


class EvidenceMismatch(BeliefDBError):
    """The database refused evidence whose quote is not the source text at its offsets."""

    code = "evidence_mismatch"


class IntegrityViolation(BeliefDBError):
    """A rule the database keeps (supersession cycle, duplicate name, ...) was broken."""

    code = "integrity_violation"


class DatabaseUnavailable(BeliefDBError):
    """The database cannot be reached or started."""

    code = "database_unavailable"


class PermissionDenied(BeliefDBError):
    code = "permission_denied"


class NotOwner(PermissionDenied):
    """Only a belief's owner may change its status: propose a correction or raise a conflict."""

    code = "not_owner"


class StaleCorrectionPreview(BeliefDBError):
    """The belief changed since the preview: preview again, then apply with the new revision."""

    code = "stale_correction_preview"


class ExtractorUnavailable(BeliefDBError):
    """An extractor's service (e.g. the LLM endpoint) failed or kept answering unusably; nothing was stored."""

    code = "extractor_unavailable"
