"""Which sentences the reader reads for a question, and what it made of each.

The candidates are the sentences of the retrieved chunks closest to the question by cosine (the
stored sentence vectors, pipeline.ingest.sentence_vectors), at most `limit` of them, each read with
its document title and section heading. One batch per question: the reader costs ~2 ms a pair in
bf16 on this CPU, so 24 pairs fit a chat turn's budget (docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from llama_index.core.schema import NodeWithScore

from pipeline.gate.reader import Reader, heading_for, passage
from pipeline.language.restatement import distinct
from pipeline.language.text import split_sentences

CANDIDATE_LIMIT = 24


@dataclass(frozen=True)
class Reading:
    """One candidate sentence and the reader's verdict on it."""

    chunk_id: str
    position: int  # the sentence's index in split_sentences(chunk text)
    sentence: str
    cosine: float  # the question's cosine with the sentence
    probability: float  # the reader's P(this sentence answers the question)


def heading_of(node: NodeWithScore) -> str:
    """The heading a chunk's sentences are read under: its document title and section."""
    meta = node.node.metadata
    return heading_for(str(meta.get("title") or ""), str(meta.get("section") or ""))


def is_fragment(sentence: str, heading: str, sentences_in_chunk: int) -> bool:
    """A line that states nothing by itself: the section's own heading repeated, or a short line
    among others (a list's lead-in word, a button's name). A chunk that is one short sentence is
    an answer (a FAQ's "In zone C.")."""
    if sentence.strip().lower() == heading.strip().lower():
        return True
    return len(sentence.split()) < 4 and sentences_in_chunk > 1


def candidates(
    nodes: list[NodeWithScore], cosines: dict[str, list[float]], limit: int = CANDIDATE_LIMIT
) -> list[tuple[NodeWithScore, int, str, float]]:
    """(chunk, position, sentence, cosine) of the `limit` sentences closest to the question, among
    the chunks' sentences that are not fragments; the same sentence in two chunks counts once."""
    found: list[tuple[NodeWithScore, int, str, float]] = []
    for node in nodes:
        sentences = split_sentences(node.node.get_content())
        scores = cosines.get(node.node.node_id)
        if scores is None or len(scores) != len(sentences):
            scores = [float(node.score or 0.0)] * len(sentences)
        section = str(node.node.metadata.get("section") or "")
        for position, (sentence, cosine) in enumerate(zip(sentences, scores, strict=True)):
            if not is_fragment(sentence, section, len(sentences)):
                found.append((node, position, sentence, float(cosine)))
    found.sort(key=lambda c: c[3], reverse=True)
    return distinct(found, lambda c: c[2])[:limit]


def read(
    reader: Reader,
    question: str,
    nodes: list[NodeWithScore],
    cosines: dict[str, list[float]],
    limit: int = CANDIDATE_LIMIT,
) -> list[Reading]:
    """The reader's verdict on each candidate sentence, most probable answer first."""
    chosen = candidates(nodes, cosines, limit)
    probabilities = reader.probabilities(question, [passage(s, heading_of(n)) for n, _, s, _ in chosen])
    readings = [
        Reading(n.node.node_id, position, sentence, round(cosine, 4), round(float(p), 4))
        for (n, position, sentence, cosine), p in zip(chosen, probabilities, strict=True)
    ]
    return sorted(readings, key=lambda r: r.probability, reverse=True)
