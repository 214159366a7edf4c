"""The support score σ and the answer / clarify / abstain decision.

σ = λ1·sim + λ2·coverage + λ3·consistency, where
- sim is how closely the best single sentence of the closest chunks matches the question (cosine
  of the question's embedding and the stored sentence embeddings, pipeline.ingest.sentence_vectors), or,
  without sentence vectors, the best chunk's cosine. A whole chunk's vector blurs the one sentence
  that answers with its neighbours; measured on corpora the gate was not written from, the best
  sentence ranks answerable above unanswerable better than the best chunk (docs/evaluation.md:
  "Sentence similarity"),
- coverage is how much of what the question asks for the evidence holds. By default (config's
  WARRANT_COVERAGE=rules) it is the word rules: the idf-weighted share of the question's terms
  found in the evidence chunks, zeroed (rule `answer_type`) when the question's focal need
  (pipeline.gate.answer_type) is absent. With WARRANT_COVERAGE=model and a trained model installed, it is the learned
  answerability (pipeline.gate.answerability): the combined probability that the best sentence
  window of the retrieved chunks answers the question. The hand rules are named (`RULES`), and
  those in force (`rules`) can be switched one by one and measured
  (`python -m pipeline.eval --outside … --ablate NAME`),
- consistency is 1 unless the evidence disagrees with itself: the same statement with different
  amounts, dates or counts, or the same statement with and without a negation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import Field, PrivateAttr

from pipeline.gate.answer_type import unmet_focus_in
from pipeline.gate.answerability import AnswerabilityCoverage
from pipeline.ground.records import SupportScore
from pipeline.ingest.index import chunk_words
from pipeline.ingest.sentence_vectors import SentenceVectorStore, sentence_cosines
from pipeline.ingest.term_stats import TermStats
from pipeline.language.question import Question, analyse_question
from pipeline.language.statements import Statement, statement_of
from pipeline.language.text import (
    canonical_terms,
    is_generic,
    is_number,
    quantities,
    split_sentences,
)
from pipeline.language.word_rarity import specificity

# The hand rules, by name: what each catches. `SupportPostprocessor.rules` lists those in force;
# `python -m pipeline.eval --ablate NAME` measures the system without one (docs/evaluation.md, "Which rules stay").
RULES: dict[str, str] = {
    "answer_type": "coverage 0 when the question's focal need (money, the head noun of 'how many X', "
    "a named group, an if-clause's situation, a yes/no question's specific words) is absent",
    "apart": "coverage 0 when the question's two weightiest words occur only in different chunks",
    "missing_key": "rules coverage: the most specific missing word counts twice",
    "clarify": "ask to clarify when a short question fits chunks of several documents equally well",
    "consistency": "σ's consistency part: conflicting amounts or negations between evidence chunks",
}


def chroma_cosine(score: float | None) -> float:
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


def _statement_conflicts(a: Statement, b: Statement) -> bool:
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
    statements = [[statement_of(s) for s in split_sentences(t)] for t in texts]
    conflicts = 0
    for i in range(len(statements)):
        for j in range(i + 1, len(statements)):
            if any(_statement_conflicts(a, b) for a in statements[i] for b in statements[j]):
                conflicts += 1
    return 1.0 / (1.0 + conflicts)


def query_needs(query: str | Question) -> tuple[list[str], set[str]]:
    """The information needs of a query: its distinct content terms and its quantities."""
    question = analyse_question(query)
    return list(question.terms), set(question.quantities)


MISSING_KEY_PENALTY = 0.5


def term_weight(term: str, surface: str, stats: TermStats) -> float:
    """How much a query term says: corpus idf times its specificity in general English."""
    weight = stats.idf(term) * specificity(surface)
    return weight * (0.5 if is_generic(term) else 1.0)


def coverage_of(
    query: str | Question, evidence_texts: list[str], stats: TermStats, rules: frozenset[str] = frozenset(RULES)
) -> tuple[float, tuple[str, ...]]:
    """Weighted share of the query's needs found in the evidence, and the needs not found.

    With `rules` naming "answer_type" / "apart", an unmet focal need zeroes the share; with
    "missing_key", the most specific missing word counts twice."""
    question = analyse_question(query)
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
    for term, surface in question.terms_with_surface:
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
    low = question.text.lower()
    # in the order the question says them, so the abstention names them the same way every run
    for q in sorted(question.quantities, key=lambda q: (low.find(q.split(":", 1)[1]), q)):
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
    focus = unmet_need(question, rules, evidence_terms, evidence_quantities, found_weights, terms_by_text)
    if focus is not None:
        # The one thing the question asks for is not in the evidence: nothing asked is covered.
        return 0.0, (focus, *[m for m in missing if m != focus])
    # One specific need left unmet (a stipend, a degree, a calculator) is what makes a near-miss
    # unanswerable, however many other words match; so the most specific missing need counts twice.
    penalty = MISSING_KEY_PENALTY * heaviest_missing / heaviest if "missing_key" in rules and heaviest else 0.0
    return (found / total) * (1.0 - penalty), tuple(missing)


def unmet_need(
    question: Question,
    rules: frozenset[str],
    evidence_terms: set[str],
    evidence_quantities: set[str],
    found_weights: dict[str, float],
    terms_by_text: list[set[str]],
) -> str | None:
    """The focal need the evidence lacks, by the answer-type and apart rules in force; else None."""
    focus = unmet_focus_in(question, evidence_terms, evidence_quantities) if "answer_type" in rules else None
    if focus is None and "apart" in rules:
        focus = _apart(question, found_weights, terms_by_text)
    return focus


def _apart(question: Question, found_weights: dict[str, float], terms_by_text: list[set[str]]) -> str | None:
    """The question's two weightiest needs, when no single evidence chunk holds both.

    "Is the make-up test fee refunded if I don't turn up?" finds "make-up" in the make-up test
    section and "refund" in the examination-fee section: every word is covered, but nothing says
    whether the make-up fee is refunded. One question's main needs are stated together; a
    question with two parts (pipeline.language.question_parts) may draw each from its own section.
    """
    if len(found_weights) < 2 or len(terms_by_text) < 2 or question.parts:
        return None
    first, second = sorted(found_weights, key=lambda term: found_weights[term], reverse=True)[:2]
    if any(first in terms and second in terms for terms in terms_by_text):
        return None
    return f"{first} and {second} together"


class SupportPostprocessor(BaseNodePostprocessor):
    """Scores how well the retrieved chunks support an answer, and decides whether to give one.

    Converts Chroma scores to cosine, keeps the chunks within `evidence_margin` of the best one,
    computes σ and its three parts, and attaches them to every kept node's metadata
    (`support_sim`, `support_coverage`, `support_consistency`, `support_sigma`). `gate()` returns
    the structured decision; `_postprocess_nodes` returns the evidence (empty when σ < τ).
    With `coverage_source="model"` and a trained model given (the engine gives one only under
    WARRANT_COVERAGE=model), coverage is the answerability model's probability and the chunk holding
    its best window joins the evidence; without a model the word rules' coverage is used.
    The question comes as its text or as its record (pipeline.language.question): text is analysed once, on
    the way in, and every rule below reads the record.
    """

    lambda_sim: float = Field(default=0.55, ge=0.0, le=1.0, description="Weight of the best retrieval similarity.")
    lambda_coverage: float = Field(default=0.35, ge=0.0, le=1.0, description="Weight of coverage.")
    lambda_consistency: float = Field(default=0.10, ge=0.0, le=1.0, description="Weight of evidence consistency.")
    tau: float = Field(default=0.5, ge=0.0, le=1.0, description="Answer only when σ ≥ τ.")
    coverage_source: str = Field(default="model", description='"model" (learned answerability) or "rules".')
    rules: frozenset = Field(default=frozenset(RULES), description="Names of the hand rules in force (RULES).")
    evidence_margin: float = Field(default=0.12, description="Keep chunks this close to the best.")
    evidence_limit: int = Field(default=3, description="At most this many chunks as evidence.")
    clarify_max_terms: int = Field(default=2, description="A query this short may be vague.")
    clarify_margin: float = Field(default=0.12, description="Topics this close count as a split.")
    clarify_max_sim: float = Field(default=0.6, description="A closer match than this is not vague.")
    pool_margin: float = Field(default=0.2, description="Chunks this close to the best may give sentences.")
    pool_limit: int = Field(default=5, description="At most this many chunks give sentences.")
    sim_chunks: int = Field(
        default=3, ge=0, description="sim: the best sentence of this many closest chunks (0: the best chunk's cosine)."
    )
    _stats: TermStats = PrivateAttr()
    _answerability: AnswerabilityCoverage | None = PrivateAttr(default=None)
    _sentence_vectors: SentenceVectorStore | None = PrivateAttr(default=None)

    def __init__(
        self,
        stats: TermStats,
        answerability: AnswerabilityCoverage | None = None,
        sentence_vectors: SentenceVectorStore | None = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self._stats = stats
        self._answerability = answerability
        self._sentence_vectors = sentence_vectors
        if answerability is None:
            self.coverage_source = "rules"

    @classmethod
    def class_name(cls) -> str:
        return "SupportPostprocessor"

    def score(
        self, query: str | Question, nodes: list[NodeWithScore], query_vec: list[float] | None = None
    ) -> tuple[SupportScore, list[NodeWithScore]]:
        question = analyse_question(query)
        for node in nodes:
            if node.node.metadata.get("support_cosine") is None:
                node.node.metadata["support_cosine"] = chroma_cosine(node.score)
                node.score = node.node.metadata["support_cosine"]
        nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
        evidence = _evidence_window(nodes, self.evidence_margin, self.evidence_limit)
        sim = self._sentence_sim(nodes, query_vec) if evidence else 0.0
        texts = [chunk_words(n) for n in evidence]
        coverage, missing = coverage_of(question, texts, self._stats, self.rules) if evidence else (0.0, ())
        if evidence and self.coverage_source == "model" and self._answerability is not None:
            coverage, evidence = self._model_coverage(question, query_vec, nodes, evidence, missing)
        consistency = 1.0
        if evidence and "consistency" in self.rules:
            consistency = consistency_of([n.node.get_content() for n in evidence])
        sigma = self.lambda_sim * sim + self.lambda_coverage * coverage + self.lambda_consistency * consistency
        support = SupportScore(
            sigma=round(sigma, 4),
            sim=round(sim, 4),
            coverage=round(coverage, 4),
            consistency=round(consistency, 4),
            tau=self.tau,
            missing_terms=missing,
            best_chunk=round(nodes[0].score or 0.0, 4) if nodes else 0.0,
        )
        for node in evidence:
            node.node.metadata.update(
                support_sigma=support.sigma,
                support_sim=node.score,
                support_coverage=support.coverage,
                support_consistency=support.consistency,
            )
        return support, evidence

    def _sentence_sim(self, nodes: list[NodeWithScore], query_vec: list[float] | None) -> float:
        """The best cosine between the question and one sentence of the `sim_chunks` closest chunks
        (sorted best first); the best chunk's own cosine when there are no sentence vectors.

        A chunk that is one sentence counts its own cosine too: its vector is that sentence read
        with its title and heading, which a FAQ's short answer needs ("In zone C." under "Where do
        visitors park?" is 0.27 from that question alone, 0.76 with its heading)."""
        chunk_sim = nodes[0].score or 0.0  # no score ranks as 0, as in the sort
        if self._sentence_vectors is None or query_vec is None or self.sim_chunks == 0:
            return chunk_sim
        closest = nodes[: self.sim_chunks]
        vectors = self._sentence_vectors.get([(n.node.node_id, n.node.get_content()) for n in closest])
        cosines = sentence_cosines(vectors, query_vec)
        best = []
        for node in closest:
            found = cosines.get(node.node.node_id) or []
            if found:
                best.append(max(found[0], node.score or 0.0) if len(found) == 1 else max(found))
        return max(0.0, min(1.0, max(best))) if best else chunk_sim

    def _model_coverage(
        self,
        question: Question,
        query_vec: list[float] | None,
        nodes: list[NodeWithScore],
        evidence: list[NodeWithScore],
        missing: tuple[str, ...],
    ) -> tuple[float, list[NodeWithScore]]:
        """The model's coverage over the retrieved chunks; its best window's chunk joins the evidence.
        A rule in force that finds the focal need unmet (rules coverage 0 with a named need) vetoes."""
        assert self._answerability is not None
        result = self._answerability(question.text, query_vec, nodes)
        if result.chunk_id and all(n.node.node_id != result.chunk_id for n in evidence):
            evidence = evidence + [n for n in nodes if n.node.node_id == result.chunk_id]
        vetoed = bool(self.rules & {"answer_type", "apart"}) and missing and self._focus_unmet(question, evidence)
        return (0.0 if vetoed else result.coverage), evidence

    def _focus_unmet(self, query: str | Question, evidence: list[NodeWithScore]) -> bool:
        question = analyse_question(query)
        terms_by_text = [set(canonical_terms(chunk_words(n))) for n in evidence]
        evidence_terms: set[str] = set().union(*terms_by_text)
        evidence_quantities: set[str] = set()
        for n in evidence:
            evidence_quantities.update(quantities(chunk_words(n)))
        found = {t: term_weight(t, s, self._stats) for t, s in question.terms_with_surface if t in evidence_terms}
        return unmet_need(question, self.rules, evidence_terms, evidence_quantities, found, terms_by_text) is not None

    def synthesis_pool(self, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        """The chunks the answer's sentences may come from: wider than the evidence σ is judged on
        (measured on dev: the gold section is cited more often, σ is unchanged)."""
        nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
        return _evidence_window(nodes, self.pool_margin, self.pool_limit)

    def gate(
        self, query: str | Question, nodes: list[NodeWithScore], query_vec: list[float] | None = None
    ) -> GateResult:
        question = analyse_question(query)
        support, evidence = self.score(question, nodes, query_vec)
        if "clarify" in self.rules and self._is_vague_split(question, nodes, support):
            return GateResult(
                "clarify",
                support,
                evidence,
                "the question is short and the closest policies are about different things",
            )
        if evidence and support.sigma >= self.tau:
            return GateResult("answer", support, evidence, f"σ {support.sigma:.2f} ≥ τ {self.tau:.2f}")
        if not evidence:
            reason = "nothing was retrieved"
        elif support.missing_terms:
            reason = f"σ {support.sigma:.2f} < τ {self.tau:.2f}; the policies do not mention: " + ", ".join(
                support.missing_terms[:5]
            )
        else:
            reason = f"σ {support.sigma:.2f} < τ {self.tau:.2f}; the closest sections are only loosely related"
        return GateResult("abstain", support, evidence, reason)

    def ungated(
        self, query: str | Question, nodes: list[NodeWithScore], query_vec: list[float] | None = None
    ) -> GateResult:
        """The baseline's decision: answer from whatever was retrieved."""
        support, evidence = self.score(query, nodes, query_vec)
        decision = "answer" if evidence else "abstain"
        return GateResult(decision, support, evidence, "ungated baseline: always answers")

    def _is_vague_split(self, query: str | Question, nodes: list[NodeWithScore], support: SupportScore) -> bool:
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
            if set(specific) <= set(canonical_terms(chunk_words(node))):
                docs.add(node.node.metadata.get("doc_id"))
        return len(docs) >= 2

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("SupportPostprocessor needs the query")
        result = self.gate(query_bundle.query_str, list(nodes), query_bundle.embedding)
        return result.evidence if result.decision == "answer" else []
