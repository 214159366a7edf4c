"""Inverse document frequencies over the active chunks: how much a query term says; and the words
the chunks are written in, as written, for spelling correction (pipeline.language.spelling).

Counting them means reading every active chunk's text back from Chroma (about 35 s at 100k
chunks), so the counts are also kept on disk (`<home>/term_stats.json`) under a fingerprint of
the index they were counted from; a process that starts on the same index loads them instead.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import re
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from pipeline.language import glossary, stemming
from pipeline.language import text as _text
from pipeline.language.text import canonical_terms, tokens

FORMAT = 2
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def analyzer_version() -> str:
    """A digest of the tokenizer's and the stemmer's source and the glossary in use: counts made by
    another version of any of them are not reused."""
    source = inspect.getsource(_text) + inspect.getsource(stemming) + glossary.active().fingerprint()
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]


class TermStats:
    def __init__(self, texts: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._df: Counter[str] = Counter()
        self._words: Counter[str] = Counter()
        self._n = 0
        self.rebuild(texts)

    def rebuild(self, texts: Iterable[str]) -> None:
        df: Counter[str] = Counter()
        words: Counter[str] = Counter()
        n = 0
        for text in texts:
            df.update(set(canonical_terms(text)))
            words.update({w for w in tokens(text) if _WORD.fullmatch(w)})
            n += 1
        with self._lock:
            self._df, self._words, self._n = df, words, n

    @property
    def documents(self) -> int:
        return self._n

    def knows(self, term: str) -> bool:
        return term in self._df

    @property
    def words(self) -> Counter[str]:
        """Lower-case words as the chunks write them (letters and hyphens) → the number of chunks
        holding each. A new Counter after every rebuild or load; do not change it."""
        return self._words

    def idf(self, term: str) -> float:
        """Smoothed idf; a term never seen in the corpus weighs the most."""
        n = max(self._n, 1)
        return math.log((n + 1) / (self._df.get(term, 0) + 0.5)) + 1.0

    # -- persistence ------------------------------------------------------------------------------
    def save(self, path: Path, fingerprint: dict) -> None:
        """Write the counts with the fingerprint of the index they describe (temp file + rename,
        so a reader never sees half a file and a crash leaves the previous one)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            payload = {
                "format": FORMAT,
                "analyzer": analyzer_version(),
                "fingerprint": fingerprint,
                "documents": self._n,
                "df": dict(self._df),
                "words": dict(self._words),
            }
        fd, tmp = tempfile.mkstemp(prefix=".term_stats.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(payload, out, separators=(",", ":"))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def load(self, path: Path, fingerprint: dict) -> bool:
        """Adopt the counts stored at `path` if they were made from an index with this fingerprint
        (and by this tokenizer); False, leaving the current counts, when missing, stale or unreadable."""
        try:
            payload = json.loads(Path(path).read_text(encoding="utf-8"))
            if (
                payload.get("format") != FORMAT
                or payload.get("analyzer") != analyzer_version()
                or payload.get("fingerprint") != fingerprint
            ):
                return False
            df, n = Counter({str(k): int(v) for k, v in payload["df"].items()}), int(payload["documents"])
            words = Counter({str(k): int(v) for k, v in payload["words"].items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False
        with self._lock:
            self._df, self._words, self._n = df, words, n
        return True
