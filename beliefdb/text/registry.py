"""Extractors by name: the plug-in registry ``beliefdb ingest --extractor NAME`` chooses from.
Nothing else imports the implementations.

An implementation is imported the first time it is looked up, not with this module: the rule and
LLM extractors (compiled patterns, the LLM's answer schema) cost every ``beliefdb`` command ~40 ms
to import, and only ingesting text uses them. Checking a name (``name in EXTRACTORS``) or listing
the names imports none of them."""

from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final

from beliefdb.errors import InvalidInput
from beliefdb.text.extractor import Extractor

__all__ = ["EXTRACTORS", "extractor_build", "get_extractor"]


class _Registry(Mapping[str, type[Extractor]]):
    """Extractor classes by name, each named as ``module:Class`` and imported when first looked up."""

    def __init__(self, implementations: Mapping[str, str]) -> None:
        self._implementations = dict(implementations)

    def __getitem__(self, name: str) -> type[Extractor]:
        module, _, attribute = self._implementations[name].partition(":")
        cls = getattr(importlib.import_module(module), attribute)
        # (an entry naming another extractor, or no extractor, is a mistake here, not the user's)
        if not (isinstance(cls, type) and issubclass(cls, Extractor) and cls.name == name):
            raise TypeError(f"the extractor registered as '{name}' is {cls!r}")
        return cls

    def __contains__(self, name: object) -> bool:  # (Mapping's would look the extractor up, importing it)
        return name in self._implementations

    def __iter__(self) -> Iterator[str]:
        return iter(self._implementations)

    def __len__(self) -> int:
        return len(self._implementations)


EXTRACTORS: Final[Mapping[str, type[Extractor]]] = _Registry({
    "none": "beliefdb.text.extractor:NoExtractor",
    "rules": "beliefdb.text.rules:RuleExtractor",
    "llm": "beliefdb.text.llm:LLMExtractor",
})


def get_extractor(name: str) -> Extractor:
    """A new extractor by its registered name; InvalidInput names the choices for an unknown one.

    An extractor reads its configuration when it is created (``llm`` refuses with InvalidInput when
    ``BELIEFDB_LLM_URL`` is not set), never when it is imported.
    """
    if name not in EXTRACTORS:
        raise InvalidInput(f"unknown extractor '{name}' (choose from: {', '.join(sorted(EXTRACTORS))})")
    return EXTRACTORS[name]()


def extractor_build(name: str) -> str:
    """What a text read by the extractor ``name`` depends on in this installation: its name and a digest
    of this package's code (the rules and their names, the model's prompt and answer schema). A queued
    text its source holds in force already is not queued again only when a done job read it with the
    same build (beliefdb.job_submit): after an upgrade that reads text differently, a drop folder
    submitted again is read again, as a direct ingest would read it."""
    return f"{name}:{_code_digest()}"


@functools.cache
def _code_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
