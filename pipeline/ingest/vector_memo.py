"""The embeddings of recently embedded texts, kept in memory for a while.

An admin's upload is embedded sentence by sentence up to three times: checking it for conflicts
with the library (governance.conflicts), the critic pairing its sentences by meaning, and adding
it (the sentence vectors stored beside the index). The same model gives the same text the same
vector, so each sentence needs embedding once. This memo keeps the most recently used vectors,
bounded in count and in text length, in this process only: it is a cache, never state. Losing it
(a restart, another worker process) costs time, not answers.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

import numpy as np


class VectorMemo:
    """text → vector for up to `max_texts` texts of at most `max_chars` characters each, the least
    recently used dropped first. Safe to share between threads; `max_texts=0` keeps nothing."""

    def __init__(self, max_texts: int, max_chars: int = 2000) -> None:
        self.max_texts = max_texts
        self.max_chars = max_chars
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._vectors)

    def known(self, texts: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors kept for those of `texts` that have one (each now the most recently used)."""
        found = {}
        with self._lock:
            for text in texts:
                vector = self._vectors.get(text)
                if vector is not None:
                    self._vectors.move_to_end(text)
                    found[text] = vector
        return found

    def keep(self, pairs: Iterable[tuple[str, np.ndarray | list[float]]]) -> None:
        """Remember each (text, vector); the oldest go once there are more than `max_texts`."""
        if self.max_texts <= 0:
            return
        with self._lock:
            for text, vector in pairs:
                if len(text) <= self.max_chars:
                    self._vectors[text] = np.asarray(vector, dtype=np.float32)
                    self._vectors.move_to_end(text)
            while len(self._vectors) > self.max_texts:
                self._vectors.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()
