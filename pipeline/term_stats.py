"""Inverse document frequencies over the active chunks: how much a query term says."""

from __future__ import annotations

import math
import threading
from collections import Counter
from typing import Iterable

from pipeline.text import canonical_terms


class TermStats:
    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._df: Counter[str] = Counter()
        self._n = 0
        self.rebuild(texts)

    def rebuild(self, texts: Iterable[str]) -> None:
        df: Counter[str] = Counter()
        n = 0
        for text in texts:
            df.update(set(canonical_terms(text)))
            n += 1
        with self._lock:
            self._df, self._n = df, n

    @property
    def documents(self) -> int:
        return self._n

    def knows(self, term: str) -> bool:
        return term in self._df

    def idf(self, term: str) -> float:
        """Smoothed idf; a term never seen in the corpus weighs the most."""
        n = max(self._n, 1)
        return math.log((n + 1) / (self._df.get(term, 0) + 0.5)) + 1.0
