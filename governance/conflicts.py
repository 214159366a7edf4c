"""Conflicts between the library's chunks: pairs of sentences that state one thing with different facts.

The test for one pair is pipeline.language.statements.disagreement (close sentence embeddings,
mostly the same words, the same named groups, and amounts of one kind that share no value, or a
negation). Here it runs over many sentences at once: only sentences that hold an amount or a
negation can disagree, their stored sentence embeddings (pipeline.ingest.sentence_vectors) are
compared as one matrix product, and only the pairs close enough go through the word test.

Used where a conflict must reach people: the count of contradicting active pairs after each
approval (the scenario benchmark), the scan of a document before it is added or replaces another
(the Documents tab), and the conflict tickets reviewers resolve.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

import numpy as np
from llama_index.core.schema import TextNode

from pipeline.ingest.index import ACTIVE, ChunkIndex
from pipeline.language.statements import SAME_STATEMENT_COSINE, disagreement, statement_of
from pipeline.language.text import split_sentences

_BLOCK = 2048  # sentences per side of one matrix product: memory stays small on a large library


@dataclass(frozen=True)
class Conflict:
    """Two chunks whose sentences disagree; `what` names the difference ("pct 75 vs 60")."""

    chunks: tuple[str, str]
    docs: tuple[str, str]
    titles: tuple[str, str]
    sections: tuple[str, str]
    sentences: tuple[str, str]
    what: str

    @property
    def key(self) -> str:
        """The chunk pair, in a stable order: one conflict per pair of chunks."""
        return "|".join(sorted(self.chunks))

    def label(self) -> str:
        return (
            f"{self.titles[0]} §{self.sections[0]} ↔ {self.titles[1]} §{self.sections[1]} ({self.what}): "
            f"“{self.sentences[0]}” / “{self.sentences[1]}”"
        )

    def to_dict(self) -> dict:
        return {**asdict(self), "key": self.key}


@dataclass(frozen=True)
class _Sentence:
    chunk_id: str
    doc_id: str
    title: str
    section: str
    text: str


def _candidates(nodes: Iterable[TextNode], vectors: dict[str, np.ndarray]) -> tuple[list[_Sentence], np.ndarray]:
    """The sentences that can disagree with another (an amount or a negation), with their vectors."""
    found: list[_Sentence] = []
    rows: list[np.ndarray] = []
    for node in nodes:
        matrix = vectors.get(node.node_id)
        sentences = split_sentences(node.get_content())
        if matrix is None or len(matrix) != len(sentences):
            continue
        meta = node.metadata
        for position, sentence in enumerate(sentences):
            statement = statement_of(sentence)
            if statement.amounts or statement.negated:
                found.append(
                    _Sentence(
                        node.node_id,
                        str(meta.get("doc_id", "")),
                        str(meta.get("title", "")),
                        str(meta.get("section", "")),
                        sentence,
                    )
                )
                rows.append(matrix[position])
    dims = rows[0].shape[0] if rows else 0
    return found, (np.vstack(rows).astype(np.float32) if rows else np.zeros((0, dims), dtype=np.float32))


def _pairs(
    left: list[_Sentence], left_vectors: np.ndarray, right: list[_Sentence], right_vectors: np.ndarray, same: bool
) -> list[Conflict]:
    found: dict[str, Conflict] = {}
    for start in range(0, len(left), _BLOCK):
        block = left_vectors[start : start + _BLOCK]
        for other in range(0, len(right), _BLOCK):
            cosines = block @ right_vectors[other : other + _BLOCK].T
            for i, j in zip(*np.nonzero(cosines >= SAME_STATEMENT_COSINE), strict=True):
                a, b = left[start + int(i)], right[other + int(j)]
                if a.chunk_id == b.chunk_id or (same and start + int(i) >= other + int(j)):
                    continue  # one chunk's own sentences are the critic's business; each pair once
                what = disagreement(a.text, b.text, float(cosines[i, j]))
                if what:
                    conflict = Conflict(
                        (a.chunk_id, b.chunk_id),
                        (a.doc_id, b.doc_id),
                        (a.title, b.title),
                        (a.section, b.section),
                        (a.text, b.text),
                        what,
                    )
                    found.setdefault(conflict.key, conflict)
    return sorted(found.values(), key=lambda c: c.key)


def library_conflicts(index: ChunkIndex) -> list[Conflict]:
    """Every pair of active chunks that disagree, one conflict per pair."""
    nodes = index.get_nodes(where={"status": ACTIVE})
    vectors = index.sentence_vectors.get([(n.node_id, n.get_content()) for n in nodes])
    sentences, matrix = _candidates(nodes, vectors)
    return _pairs(sentences, matrix, sentences, matrix, same=True)


def conflicts_with(index: ChunkIndex, nodes: list[TextNode], exclude_doc: str = "") -> list[Conflict]:
    """The conflicts `nodes` (not indexed yet: an upload) would bring into the active library;
    the active chunks of `exclude_doc` (the document an upload replaces) are left out."""
    texts = [(n.node_id, n.get_content()) for n in nodes]
    distinct = list(dict.fromkeys(s for _, text in texts for s in split_sentences(text)))
    by_sentence = dict(zip(distinct, index.embed_texts(distinct), strict=True))
    vectors = {
        chunk_id: np.asarray([by_sentence[s] for s in split_sentences(text)], dtype=np.float32)
        for chunk_id, text in texts
        if split_sentences(text)
    }
    vectors = {k: v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9) for k, v in vectors.items()}
    mine, mine_matrix = _candidates(nodes, vectors)
    if not mine:
        return []
    active = [n for n in index.get_nodes(where={"status": ACTIVE}) if n.metadata.get("doc_id") != exclude_doc]
    theirs, their_matrix = _candidates(
        active, index.sentence_vectors.get([(n.node_id, n.get_content()) for n in active])
    )
    return _pairs(mine, mine_matrix, theirs, their_matrix, same=False)


def still_disagree(index: ChunkIndex, chunk_ids: list[str]) -> list[Conflict]:
    """The conflicts left among these chunks (the active ones): a conflict ticket's check."""
    nodes = [n for n in index.get_nodes(chunk_ids) if n.metadata.get("status") == ACTIVE]
    vectors = index.sentence_vectors.get([(n.node_id, n.get_content()) for n in nodes])
    sentences, matrix = _candidates(nodes, vectors)
    return _pairs(sentences, matrix, sentences, matrix, same=True)


def restatement_test(index: ChunkIndex) -> Callable[[tuple[str, str], tuple[str, str]], bool]:
    """Whether two (chunk id, sentence) pairs of the index disagree, reading their stored sentence
    embeddings (each chunk's read once); governance.rule_search takes it as `restates`."""
    texts: dict[str, list[str]] = {}
    vectors: dict[str, np.ndarray] = {}

    def vector(chunk_id: str, sentence: str) -> np.ndarray | None:
        if chunk_id not in texts:
            nodes = index.get_nodes([chunk_id])
            text = nodes[0].get_content() if nodes else ""
            texts[chunk_id] = [" ".join(s.split()) for s in split_sentences(text)]
            vectors.update(index.sentence_vectors.get([(chunk_id, text)]) if text else {})
        sentences, matrix, sentence = texts[chunk_id], vectors.get(chunk_id), " ".join(sentence.split())
        if matrix is None or sentence not in sentences or len(matrix) != len(sentences):
            return None  # not one of the sentences split_sentences reads in the chunk
        return matrix[sentences.index(sentence)]

    def restates(a: tuple[str, str], b: tuple[str, str]) -> bool:
        if a[0] == b[0]:
            return False
        va, vb = vector(*a), vector(*b)
        return va is not None and vb is not None and bool(disagreement(a[1], b[1], float(va @ vb)))

    return restates
