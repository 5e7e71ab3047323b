"""What a remote caller of ``beliefdb serve`` (HTTP, and MCP over HTTP) sees of a file an operator's
machine read: its name, not its path there. That path says where an operator keeps files (their home,
their folders, their clients' names), and a remote caller can do nothing with it (no door of the server
takes a path); the CLI and a local ``beliefdb mcp``, the operator's own, show it whole."""

from __future__ import annotations

import re
from dataclasses import replace

from beliefdb.models import ReviewItem


def file_name(path: str) -> str:
    """The last part of ``path``, split at ``/`` or ``\\`` (a Windows path read elsewhere)."""
    return re.split(r"[\\/]", path)[-1]


#: an address in a job's recorded error (the llm or embedding endpoint a worker used: the server's own)
_ADDRESS = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]+", re.IGNORECASE)


def job_error(error: str | None) -> str | None:
    """A job's recorded error as a remote caller sees it: the addresses in it (the endpoint a worker's
    extractor or embedder was refused by, written there for the operator) as "<server address>"."""
    return _ADDRESS.sub("<server address>", error) if error else error


def review_items(items: list[ReviewItem]) -> list[ReviewItem]:
    """The review items as a remote caller sees them: a document proposed to its source's owner (its
    proposal, the text as it would be stored) names the file it was read from by its name."""
    return [replace(i, proposal={**i.proposal, "path": file_name(str(i.proposal["path"]))})
            if i.proposal is not None and i.proposal.get("path") else i for i in items]
