"""Hybrid retrieval: the dense candidates re-ordered by reciprocal-rank fusion with BM25.

MiniLM's vectors rank a passage by what it is about; they miss the one rare word a question shares
with its answer (a form number, a named office, a date). BM25 over the same candidates finds that
word. Fusing the two ranks (reciprocal-rank fusion) puts the passage both agree on first, without
mixing their incomparable scores. The dense cosine stays each node's score: σ, the evidence window
and the clarify rule read cosines, so fusion changes which chunks are retrieved, not how they are
judged.

Only the dense `pool` candidates are re-ordered: no second index of the corpus is kept. That is also
why this is not a BM25 library (rank_bm25, bm25s): those index the corpus themselves, a second copy
to keep in step with ingest, deprecation and other processes. The corpus's document frequencies
already live in `TermStats` (pipeline.ingest.term_stats), which the engine keeps current, and its terms are
the Snowball stemmer's (pipeline.language.text, .stemming); what is left is the Okapi formula below.

Measured, not fitted: the constants are the published defaults (k1 1.2, b 0.75; RRF k 60 from
Cormack, Clarke and Büttcher, SIGIR 2009) and the two rankings weigh the same. docs/evaluation.md,
"Hybrid retrieval", has the numbers.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence

from llama_index.core.schema import NodeWithScore

from pipeline.ingest.index import chunk_words
from pipeline.ingest.term_stats import TermStats
from pipeline.language import glossary
from pipeline.language.text import canonical_terms

BM25_K1 = 1.2
BM25_B = 0.75
RRF_K = 60


@functools.lru_cache(maxsize=8192)
def _term_counts(text: str) -> Mapping[str, int]:
    """A text's canonical term counts. The same chunks come back question after question: cached,
    fusion adds 1.7 ms to a warm ask's median instead of 4.3 (golden test × 3, measured when the cache came in). Cleared when
    the glossary, which folds synonyms into terms, changes."""
    return Counter(canonical_terms(text))


glossary.on_change(_term_counts.cache_clear)


def bm25_scores(query_terms: Sequence[str], texts: Sequence[str], stats: TermStats) -> list[float]:
    """Okapi BM25 of each text for the distinct query terms, with the corpus's idf; lengths are
    normalised by the texts' own mean length (the candidates stand in for the corpus)."""
    counts = [_term_counts(text) for text in texts]
    lengths = [sum(c.values()) for c in counts]
    mean_length = (sum(lengths) / len(lengths)) if lengths else 0.0
    wanted = list(dict.fromkeys(query_terms))
    scores = []
    for count, length in zip(counts, lengths, strict=True):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / mean_length) if mean_length else BM25_K1
        scores.append(sum(stats.idf(t) * count[t] * (BM25_K1 + 1) / (count[t] + norm) for t in wanted if count.get(t)))
    return scores


def fuse(nodes: list[NodeWithScore], query_terms: Sequence[str], stats: TermStats, keep: int) -> list[NodeWithScore]:
    """The `keep` best of `nodes` (given best-first by cosine) by reciprocal-rank fusion of their
    dense rank and their BM25 rank; ties keep the dense order."""
    if len(nodes) <= 1 or not query_terms:
        return nodes[:keep]
    lexical = bm25_scores(query_terms, [chunk_words(n) for n in nodes], stats)
    # A candidate with none of the question's words is not in BM25's ranking at all, as it would
    # not be retrieved by BM25 over the corpus; the dense order breaks ties (the sorts are stable).
    by_lexical = sorted((i for i in range(len(nodes)) if lexical[i] > 0), key=lambda i: -lexical[i])
    fused_score = [1 / (RRF_K + i) for i in range(len(nodes))]
    for rank, i in enumerate(by_lexical):
        fused_score[i] += 1 / (RRF_K + rank)
    fused = sorted(range(len(nodes)), key=lambda i: -fused_score[i])
    return [nodes[i] for i in fused[:keep]]
