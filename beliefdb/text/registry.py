"""Extractors by name: the plug-in registry ``beliefdb ingest --extractor NAME`` chooses from.
Nothing else imports the implementations.

An implementation is imported the first time it is looked up, not with this module: the rule and
LLM extractors (compiled patterns, the LLM's answer schema) cost every ``beliefdb`` command ~40 ms
to import, and only ingesting text uses them. Checking a name (``name in EXTRACTORS``) or listing
the names imports none of them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Final

from beliefdb.errors import InvalidInput
from beliefdb.text.extractor import Extractor, NoExtractor

__all__ = ["EXTRACTORS", "get_extractor"]


def _none() -> type[Extractor]:
    return NoExtractor


def _rules() -> type[Extractor]:
    from beliefdb.text.rules import RuleExtractor

    return RuleExtractor


def _llm() -> type[Extractor]:
    from beliefdb.text.llm import LLMExtractor

    return LLMExtractor


class _Registry(Mapping[str, type[Extractor]]):
    """Extractor classes by name, each imported by its loader when it is first looked up."""

    def __init__(self, loaders: Mapping[str, Callable[[], type[Extractor]]]) -> None:
        self._loaders = dict(loaders)

    def __getitem__(self, name: str) -> type[Extractor]:
        cls = self._loaders[name]()
        if cls.name != name:  # a loader returning another extractor is a mistake here, not the user's
            raise TypeError(f"the extractor registered as '{name}' calls itself '{cls.name}'")
        return cls

    def __contains__(self, name: object) -> bool:  # (Mapping's would look the extractor up, importing it)
        return name in self._loaders

    def __iter__(self) -> Iterator[str]:
        return iter(self._loaders)

    def __len__(self) -> int:
        return len(self._loaders)


EXTRACTORS: Final[Mapping[str, type[Extractor]]] = _Registry({"none": _none, "rules": _rules, "llm": _llm})


def get_extractor(name: str) -> Extractor:
    """A new extractor by its registered name; InvalidInput names the choices for an unknown one.

    An extractor reads its configuration when it is created (``llm`` refuses with InvalidInput when
    ``BELIEFDB_LLM_URL`` is not set), never when it is imported.
    """
    if name not in EXTRACTORS:
        raise InvalidInput(f"unknown extractor '{name}' (choose from: {', '.join(sorted(EXTRACTORS))})")
    return EXTRACTORS[name]()
