"""The support score σ and the answer / clarify / abstain decision.

σ = λ1·sim + λ2·coverage + λ3·consistency, where
- sim is the best retrieval relevance (cosine of query and chunk embeddings),
- coverage is the idf-weighted share of the query's information needs (content terms, numbers)
  found in the evidence that will be used,
- consistency is 1 unless the evidence disagrees with itself: the same statement with different
  amounts, dates or counts, or the same statement with and without a negation.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import List, Optional

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import Field, PrivateAttr

from pipeline import glossary
from pipeline.answer_type import unmet_focus_in
from pipeline.question_parts import question_parts
from pipeline.records import SupportScore
from pipeline.term_stats import TermStats
from pipeline.text import (
    canonical_terms,
    canonical_terms_with_surface,
    has_negation,
    is_currency,
    is_generic,
    is_number,
    named_in,
    quantities,
    split_sentences,
)
from pipeline.word_rarity import specificity

def chroma_cosine(score: Optional[float]) -> float:
    """Chroma returns exp(-distance); with cosine space that is exp(cos - 1)."""
    if score is None or score <= 0:
        return 0.0
    return max(0.0, min(1.0, 1.0 + math.log(score)))


@dataclass(frozen=True)
class GateResult:
    decision: str  # "answer" | "clarify" | "abstain"
    support: SupportScore
    evidence: list[NodeWithScore]
    reason: str


def _evidence_window(nodes: list[NodeWithScore], margin: float, limit: int) -> list[NodeWithScore]:
    """The chunks close enough to the best one to be used as evidence."""
    if not nodes:
        return []
    best = nodes[0].score or 0.0
    return [n for n in nodes[:limit] if (n.score or 0.0) >= best - margin]


@dataclass(frozen=True)
class _Statement:
    """What the conflict check compares, computed once per sentence (not once per pair)."""

    terms: frozenset[str]
    named: frozenset[str]
    amounts: dict  # quantity kind -> its values; bare numbers ("n:") left out
    negated: bool


@functools.lru_cache(maxsize=32768)  # evidence chunks recur across questions
def _statement(sentence: str) -> _Statement:
    amounts: dict[str, set[str]] = {}
    for q in quantities(sentence):
        if not q.startswith("n:"):
            amounts.setdefault(q.split(":")[0], set()).add(q)
    terms = frozenset(t for t in canonical_terms(sentence)
                      if not any(ch.isdigit() for ch in t) and not is_currency(t))
    # programme and role names (the glossary's named_groups): two statements naming different
    # ones are about different things
    return _Statement(terms, named_in(sentence), amounts, has_negation(sentence))


glossary.on_change(_statement.cache_clear)  # its terms and names come from the glossary in use


def _statement_conflicts(a: _Statement, b: _Statement) -> bool:
    """Same statement (nearly the same words, same named things) with different facts."""
    if len(a.terms) < 2 or len(b.terms) < 2:
        return False
    overlap = len(a.terms & b.terms) / len(a.terms | b.terms)
    if overlap < 0.6 or a.named != b.named:
        return False
    if any(a.amounts[kind] != b.amounts[kind] for kind in a.amounts.keys() & b.amounts.keys()):
        return True
    return overlap >= 0.8 and a.negated != b.negated


def consistency_of(texts: list[str]) -> float:
    """1.0 when the chunks agree; falls with each pair of conflicting statements between chunks."""
    statements = [[_statement(s) for s in split_sentences(t)] for t in texts]
    conflicts = 0
    for i in range(len(statements)):
        for j in range(i + 1, len(statements)):
            if any(_statement_conflicts(a, b) for a in statements[i] for b in statements[j]):
                conflicts += 1
    return 1.0 / (1.0 + conflicts)


def query_needs(query: str) -> tuple[list[str], set[str]]:
    """The information needs of a query: its distinct content terms and its quantities."""
    terms = list(dict.fromkeys(canonical_terms(query)))
    return terms, quantities(query)


MISSING_KEY_PENALTY = 0.5


def term_weight(term: str, surface: str, stats: TermStats) -> float:
    """How much a query term says: corpus idf times its specificity in general English."""
    weight = stats.idf(term) * specificity(surface)
    return weight * (0.5 if is_generic(term) else 1.0)


def coverage_of(query: str, evidence_texts: list[str], stats: TermStats) -> tuple[float, tuple[str, ...]]:
    """Weighted share of the query's needs found in the evidence, and the needs not found."""
    terms_by_text = [set(canonical_terms(text)) for text in evidence_texts]
    evidence_terms: set[str] = set().union(*terms_by_text)
    evidence_quantities: set[str] = set()
    for text in evidence_texts:
        evidence_quantities.update(quantities(text))
    evidence_numbers = {q.split(":", 1)[1] for q in evidence_quantities}
    total = found = heaviest = heaviest_missing = 0.0
    missing: list[str] = []
    seen: set[str] = set()
    found_weights: dict[str, float] = {}
    for term, surface in canonical_terms_with_surface(query):
        if term in seen or is_number(term):
            continue
        seen.add(term)
        weight = term_weight(term, surface, stats)
        total += weight
        heaviest = max(heaviest, weight)
        if term in evidence_terms:
            found += weight
            found_weights[term] = weight
        else:
            missing.append(surface)
            heaviest_missing = max(heaviest_missing, weight)
    low = query.lower()
    # in the order the question says them, so the abstention names them the same way every run
    for q in sorted(quantities(query), key=lambda q: (low.find(q.split(":", 1)[1]), q)):
        value = q.split(":", 1)[1]
        if value in seen:
            continue
        seen.add(value)
        # A number in a question is usually the asker's situation ("in week 6"), not a need;
        # it counts like an ordinary word and is not the decisive missing need.
        weight = 0.5 * stats.idf(value)
        total += weight
        if value in evidence_numbers:
            found += weight
        else:
            missing.append(value)
    if total == 0:
        return 0.0, tuple(missing)
    focus = unmet_focus_in(query, evidence_terms, evidence_quantities) or _apart(query, found_weights, terms_by_text)
    if focus is not None:
        # The one thing the question asks for is not in the evidence: nothing asked is covered.
        return 0.0, (focus, *[m for m in missing if m != focus])
    # One specific need left unmet (a stipend, a degree, a calculator) is what makes a near-miss
    # unanswerable, however many other words match; so the most specific missing need counts twice.
    # A question of numbers only ("12345", "₹500") has no weighted word: nothing to penalise.
    penalty = MISSING_KEY_PENALTY * heaviest_missing / heaviest if heaviest else 0.0
    return (found / total) * (1.0 - penalty), tuple(missing)


def _apart(query: str, found_weights: dict[str, float], terms_by_text: list[set[str]]) -> Optional[str]:
    """The question's two weightiest needs, when no single evidence chunk holds both.

    "Is the make-up test fee refunded if I don't turn up?" finds "make-up" in the make-up test
    section and "refund" in the examination-fee section: every word is covered, but nothing says
    whether the make-up fee is refunded. One question's main needs are stated together; a
    question with two parts (pipeline.question_parts) may draw each from its own section.
    """
    if len(found_weights) < 2 or len(terms_by_text) < 2 or question_parts(query):
        return None
    first, second = sorted(found_weights, key=found_weights.get, reverse=True)[:2]
    if any(first in terms and second in terms for terms in terms_by_text):
        return None
    return f"{first} and {second} together"


class SupportPostprocessor(BaseNodePostprocessor):
    """Scores how well the retrieved chunks support an answer, and decides whether to give one.

    Converts Chroma scores to cosine, keeps the chunks within `evidence_margin` of the best one,
    computes σ and its three parts, and attaches them to every kept node's metadata
    (`support_sim`, `support_coverage`, `support_consistency`, `support_sigma`). `gate()` returns
    the structured decision; `_postprocess_nodes` returns the evidence (empty when σ < τ).
    """

    lambda_sim: float = Field(default=0.55, description="Weight of the best retrieval similarity.")
    lambda_coverage: float = Field(default=0.35, description="Weight of query-need coverage.")
    lambda_consistency: float = Field(default=0.10, description="Weight of evidence consistency.")
    tau: float = Field(default=0.5, description="Answer only when σ ≥ τ.")
    evidence_margin: float = Field(default=0.12, description="Keep chunks this close to the best.")
    evidence_limit: int = Field(default=3, description="At most this many chunks as evidence.")
    clarify_max_terms: int = Field(default=2, description="A query this short may be vague.")
    clarify_margin: float = Field(default=0.12, description="Topics this close count as a split.")
    clarify_max_sim: float = Field(default=0.6, description="A closer match than this is not vague.")
    pool_margin: float = Field(default=0.2, description="Chunks this close to the best may give sentences.")
    pool_limit: int = Field(default=5, description="At most this many chunks give sentences.")
    _stats: TermStats = PrivateAttr()

    def __init__(self, stats: TermStats, **kwargs) -> None:
        super().__init__(**kwargs)
        self._stats = stats

    @classmethod
    def class_name(cls) -> str:
        return "SupportPostprocessor"

    def score(self, query: str, nodes: list[NodeWithScore]) -> tuple[SupportScore, list[NodeWithScore]]:
        for node in nodes:
            if node.node.metadata.get("support_cosine") is None:
                node.node.metadata["support_cosine"] = chroma_cosine(node.score)
                node.score = node.node.metadata["support_cosine"]
        nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
        evidence = _evidence_window(nodes, self.evidence_margin, self.evidence_limit)
        sim = evidence[0].score if evidence else 0.0
        texts = [self._text(n) for n in evidence]
        coverage, missing = coverage_of(query, texts, self._stats) if evidence else (0.0, ())
        consistency = consistency_of([n.node.get_content() for n in evidence]) if evidence else 1.0
        sigma = self.lambda_sim * sim + self.lambda_coverage * coverage + self.lambda_consistency * consistency
        support = SupportScore(
            sigma=round(sigma, 4), sim=round(sim, 4), coverage=round(coverage, 4),
            consistency=round(consistency, 4), tau=self.tau, missing_terms=missing,
        )
        for node in evidence:
            node.node.metadata.update(
                support_sigma=support.sigma, support_sim=node.score, support_coverage=support.coverage,
                support_consistency=support.consistency,
            )
        return support, evidence

    def synthesis_pool(self, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        """The chunks the answer's sentences may come from: wider than the evidence σ is judged on
        (measured on dev: the gold section is cited more often, σ is unchanged)."""
        nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
        return _evidence_window(nodes, self.pool_margin, self.pool_limit)

    @staticmethod
    def _text(node: NodeWithScore) -> str:
        meta = node.node.metadata
        return f"{meta.get('title', '')}. {meta.get('section', '')}. {node.node.get_content()}"

    def gate(self, query: str, nodes: list[NodeWithScore]) -> GateResult:
        support, evidence = self.score(query, nodes)
        if self._is_vague_split(query, nodes, support):
            return GateResult("clarify", support, evidence, "the question is short and the closest "
                              "policies are about different things")
        if evidence and support.sigma >= self.tau:
            return GateResult("answer", support, evidence, f"σ {support.sigma:.2f} ≥ τ {self.tau:.2f}")
        if not evidence:
            reason = "nothing was retrieved"
        elif support.missing_terms:
            reason = (f"σ {support.sigma:.2f} < τ {self.tau:.2f}; the policies do not mention: "
                      + ", ".join(support.missing_terms[:5]))
        else:
            reason = f"σ {support.sigma:.2f} < τ {self.tau:.2f}; the closest sections are only loosely related"
        return GateResult("abstain", support, evidence, reason)

    def ungated(self, query: str, nodes: list[NodeWithScore]) -> GateResult:
        """The baseline's decision: answer from whatever was retrieved."""
        support, evidence = self.score(query, nodes)
        decision = "answer" if evidence else "abstain"
        return GateResult(decision, support, evidence, "ungated baseline: always answers")

    def _is_vague_split(self, query: str, nodes: list[NodeWithScore], support: SupportScore) -> bool:
        """A short query that fits chunks of two or more documents equally well.

        Each candidate must contain every specific term of the query: then the query gives no
        way to choose between them ("What is the fee?"), while "What is the late fee?"
        does.
        """
        terms, numbers = query_needs(query)
        specific = [t for t in terms if not is_generic(t)]
        if numbers or not specific or len(specific) > self.clarify_max_terms or not nodes:
            return False
        best = nodes[0].score or 0.0
        if best >= self.clarify_max_sim:
            return False
        docs = set()
        for node in nodes:
            if (node.score or 0.0) < best - self.clarify_margin:
                break
            if set(specific) <= set(canonical_terms(self._text(node))):
                docs.add(node.node.metadata.get("doc_id"))
        return len(docs) >= 2

    def _postprocess_nodes(
        self, nodes: List[NodeWithScore], query_bundle: Optional[QueryBundle] = None
    ) -> List[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("SupportPostprocessor needs the query")
        result = self.gate(query_bundle.query_str, list(nodes))
        return result.evidence if result.decision == "answer" else []
