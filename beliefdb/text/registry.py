"""Extractors by name: the plug-in registry ``beliefdb ingest --extractor NAME`` chooses from.
Nothing else imports the implementations."""

from __future__ import annotations

from typing import Final

from beliefdb.errors import InvalidInput
from beliefdb.text.extractor import Extractor, NoExtractor
from beliefdb.text.llm import LLMExtractor
from beliefdb.text.rules import RuleExtractor

__all__ = ["EXTRACTORS", "get_extractor"]

EXTRACTORS: Final[dict[str, type[Extractor]]] = {
    cls.name: cls for cls in (NoExtractor, RuleExtractor, LLMExtractor)}


def get_extractor(name: str) -> Extractor:
    """A new extractor by its registered name; InvalidInput names the choices for an unknown one.

    An extractor reads its configuration when it is created (``llm`` refuses with InvalidInput when
    ``BELIEFDB_LLM_URL`` is not set), never when it is imported.
    """
    cls = EXTRACTORS.get(name)
    if cls is None:
        raise InvalidInput(f"unknown extractor '{name}' (choose from: {', '.join(sorted(EXTRACTORS))})")
    return cls()
