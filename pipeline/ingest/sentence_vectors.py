"""Embeddings of each chunk's sentences, kept beside the Chroma index.

The synthesiser picks the sentences that answer a question. Word overlap alone picks the sentence
that repeats the question's words ("The student is responsible for…") over the one that answers
it ("…at most 20 students"); MiniLM's question-to-sentence similarity tells them apart. Embedding
a chunk's sentences at question time costs ~10 ms a sentence on a 2-core CPU, so they are embedded
once, when the chunk is added, and stored here: one SQLite row per chunk id, float16. A chunk id
carries its content hash, so a stored row never goes stale; rows of chunks added without sentence
vectors (older indexes, precomputed vectors) are filled the first time a question needs them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

from pipeline.language.text import split_sentences

FILENAME = "warrant_sentence_vectors.sqlite"
EmbedBatch = Callable[[list[str]], list[list[float]]]
Row = tuple[str, int, int, bytes]  # chunk id, sentences, dims, float16 vectors


def sentence_cosines(vectors: dict[str, np.ndarray], embedding: list[float]) -> dict[str, list[float]]:
    """chunk id → cosine of a question with each of the chunk's sentences (both sides normalised:
    the stored rows are, and so are the embedding model's question vectors)."""
    query = np.asarray(embedding, dtype=np.float32)
    return {chunk_id: (matrix @ query).tolist() for chunk_id, matrix in vectors.items()}


class SentenceVectorStore:
    """chunk id → (sentences × dims) matrix of normalised sentence embeddings."""

    def __init__(self, folder: Path, embed_batch: EmbedBatch) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILENAME
        self._embed_batch = embed_batch
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS sentence_vectors "
            "(chunk_id TEXT PRIMARY KEY, sentences INTEGER, dims INTEGER, vectors BLOB)"
        )

    def compute(self, chunks: Iterable[tuple[str, str]]) -> None:
        """Embed and store the sentences of (chunk id, text) pairs not stored yet."""
        self._embed_and_store(self.missing(chunks))

    def missing(self, chunks: Iterable[tuple[str, str]]) -> list[tuple[str, list[str]]]:
        """(chunk id, its sentences) of the (chunk id, text) pairs whose vectors are not stored yet."""
        chunks = list(chunks)
        known = self._known([cid for cid, _ in chunks])
        return [(cid, split_sentences(text)) for cid, text in chunks if cid not in known]

    @staticmethod
    def rows(todo: list[tuple[str, list[str]]], vectors: dict[str, list[float]]) -> list[Row]:
        """Rows for `put_rows` from (chunk id, sentences) and each sentence's vector."""
        if not vectors:
            return []
        dims = len(next(iter(vectors.values())))
        rows = []
        for cid, sentences in todo:
            block = np.asarray([vectors[s] for s in sentences], dtype=np.float32).reshape(len(sentences), dims)
            rows.append((cid, len(sentences), dims, block.astype(np.float16).tobytes()))
        return rows

    def _embed_and_store(self, todo: list[tuple[str, list[str]]]) -> None:
        # A sentence repeated within or across chunks (a standard clause) is embedded once.
        distinct = list(dict.fromkeys(s for _, sentences in todo for s in sentences))
        if not distinct:
            return
        vectors = dict(zip(distinct, self._embed_batch(distinct), strict=True))
        self.put_rows(self.rows(todo, vectors))

    def put_rows(self, rows: list[Row]) -> None:
        """(chunk id, sentences, dims, float16 bytes) rows; benchmarks store precomputed vectors so."""
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO sentence_vectors VALUES (?, ?, ?, ?)", rows)

    def get(self, chunks: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        """Vectors for each (chunk id, text); the ones not stored yet are computed first."""
        found = self._read([cid for cid, _ in chunks])
        missing = [(cid, text) for cid, text in chunks if cid not in found]
        if missing:
            self._embed_and_store([(cid, split_sentences(text)) for cid, text in missing])
            found.update(self._read([cid for cid, _ in missing]))
        return found

    def delete(self, ids: list[str]) -> None:
        if ids:
            with self._lock:
                self._db.executemany("DELETE FROM sentence_vectors WHERE chunk_id = ?", [(i,) for i in ids])

    def all_rows(self, batch: int = 500) -> Iterator[Row]:
        """Every stored row (chunk id, sentences, dims, float16 bytes), in chunk id order, read in
        batches (a backup copies them so a restore need not embed again)."""
        last = ""
        while True:
            with self._lock:
                rows = self._db.execute(
                    "SELECT chunk_id, sentences, dims, vectors FROM sentence_vectors WHERE chunk_id > ? "
                    "ORDER BY chunk_id LIMIT ?",
                    (last, batch),
                ).fetchall()
            if not rows:
                return
            yield from rows
            last = rows[-1][0]

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM sentence_vectors").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _known(self, ids: list[str]) -> set[str]:
        return set(self._read(ids, with_vectors=False))

    def _read(self, ids: list[str], with_vectors: bool = True) -> dict:
        out: dict = {}
        if not ids:
            return out
        columns = "chunk_id, sentences, dims" + (", vectors" if with_vectors else "")
        with self._lock:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ",".join("?" * len(part))
                for row in self._db.execute(
                    f"SELECT {columns} FROM sentence_vectors WHERE chunk_id IN ({marks})", part
                ):
                    if with_vectors:
                        matrix = np.frombuffer(row[3], dtype=np.float16).reshape(row[1], row[2])
                        out[row[0]] = matrix.astype(np.float32)
                    else:
                        out[row[0]] = None
        return out
