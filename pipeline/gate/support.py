"""The support score σ and the answer / clarify / abstain decision.

σ = λ_sim·sim + λ_reader·reader + λ_coverage·coverage + λ_consistency·consistency, where
- reader is the probability, from the trained reader (pipeline.gate.reader), that the best
  candidate sentence of the retrieved chunks answers the question: the one part that reads the
  question and a sentence together (pipeline.gate.readings picks the candidates and keeps every
  verdict, which the answer then quotes from, most probable first),
- sim is how closely the best single sentence of the closest chunks matches the question (cosine
  of the question's embedding and the stored sentence embeddings, pipeline.ingest.sentence_vectors),
  or, without sentence vectors, the best chunk's cosine,
- coverage is the idf-weighted share of the question's terms found in the evidence chunks, zeroed
  (rule `answer_type`) when the question's focal need (pipeline.gate.answer_type) is absent,
- consistency is 1 unless the evidence disagrees with itself: the same statement with different
  amounts, dates or counts, or the same statement with and without a negation.

λ and τ come from `models/gate.json` (`python -m pipeline.eval --calibrate`) unless the environment
overrides them (pipeline.ground.config). The hand rules are named (`RULES`); those in force (`rules`) can
be switched one by one and measured (`python -m pipeline.eval --outside … --ablate NAME`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import Field, PrivateAttr

from pipeline.gate.answer_type import unmet_focus_in
from pipeline.gate.reader import Reader
from pipeline.gate.readings import CANDIDATE_LIMIT, Reading, read
from pipeline.ground.records import SupportScore
from pipeline.ingest.index import chunk_words
from pipeline.ingest.sentence_vectors import SentenceVectorStore, sentence_cosines
from pipeline.ingest.term_stats import TermStats
from pipeline.language.question import Question, analyse_question
from pipeline.language.restatement import restates
from pipeline.language.statements import Statement, statement_of
from pipeline.language.text import (
    canonical_terms,
    has_negation,
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
    "clarify": "ask to clarify when a short question fits chunks of several documents equally well",
    "consistency": "σ's consistency part: conflicting amounts or negations between evidence chunks",
}


def _say_different(a: str, b: str) -> bool:
    """Two answering sentences that cannot both be the answer: each states amounts, dates or counts
    and they share none ("Rs. 500 per course" / "Rs. 1,000"), or one says what the other denies.
    Sentences in other words with a value in common agree on it ("6 books for 30 days" / a table
    row "8 items, 30 days" for a loan period): not different."""
    if restates(a, b):
        return False
    qa, qb = set(quantities(a)), set(quantities(b))
    if qa and qb:
        return not (qa & qb)
    return not qa and not qb and has_negation(a) != has_negation(b)


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
    readings: tuple[Reading, ...] = ()  # the reader's verdicts, most probable answer first
    options: tuple[NodeWithScore, ...] = ()  # for "clarify": the chunks whose answers differ


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


def term_weight(term: str, surface: str, stats: TermStats) -> float:
    """How much a query term says: corpus idf times its specificity in general English."""
    weight = stats.idf(term) * specificity(surface)
    return weight * (0.5 if is_generic(term) else 1.0)


def coverage_of(
    query: str | Question, evidence_texts: list[str], stats: TermStats, rules: frozenset[str] = frozenset(RULES)
) -> tuple[float, tuple[str, ...]]:
    """Weighted share of the query's needs found in the evidence, and the needs not found.

    With `rules` naming "answer_type", an unmet focal need zeroes the share."""
    question = analyse_question(query)
    evidence_terms: set[str] = set().union(*(set(canonical_terms(text)) for text in evidence_texts))
    evidence_quantities: set[str] = set()
    for text in evidence_texts:
        evidence_quantities.update(quantities(text))
    evidence_numbers = {q.split(":", 1)[1] for q in evidence_quantities}
    total = found = 0.0
    missing: list[str] = []
    seen: set[str] = set()
    for term, surface in question.terms_with_surface:
        if term in seen or is_number(term):
            continue
        seen.add(term)
        weight = term_weight(term, surface, stats)
        total += weight
        if term in evidence_terms:
            found += weight
        else:
            missing.append(surface)
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
    focus = unmet_focus_in(question, evidence_terms, evidence_quantities) if "answer_type" in rules else None
    if focus is not None:
        # The one thing the question asks for is not in the evidence: nothing asked is covered.
        return 0.0, (focus, *[m for m in missing if m != focus])
    return found / total, tuple(missing)


class SupportPostprocessor(BaseNodePostprocessor):
    """Scores how well the retrieved chunks support an answer, and decides whether to give one.

    Converts Chroma scores to cosine, keeps the chunks within `evidence_margin` of the best one,
    has the reader (pipeline.gate.reader) read the sentences of the retrieved chunks closest to the
    question (pipeline.gate.readings), computes σ and its parts, and attaches them to every kept
    node's metadata (`support_sim`, `support_reader`, `support_coverage`, `support_consistency`,
    `support_sigma`). `gate()` returns the structured decision with the reader's readings (the
    synthesiser picks the answer's sentences from them); `_postprocess_nodes` returns the evidence
    (empty when σ < τ). The question comes as its text or as its record
    (pipeline.language.question): text is analysed once, on the way in.
    """

    lambda_sim: float = Field(default=0.3, ge=0.0, le=1.0, description="Weight of the best sentence's cosine.")
    lambda_reader: float = Field(default=0.5, ge=0.0, le=1.0, description="Weight of the reader's best probability.")
    lambda_coverage: float = Field(default=0.15, ge=0.0, le=1.0, description="Weight of word coverage.")
    lambda_consistency: float = Field(default=0.05, ge=0.0, le=1.0, description="Weight of evidence consistency.")
    tau: float = Field(default=0.5, ge=0.0, le=1.0, description="Answer only when σ ≥ τ.")
    rules: frozenset = Field(default=frozenset(RULES), description="Names of the hand rules in force (RULES).")
    evidence_margin: float = Field(default=0.12, description="Keep chunks this close to the best.")
    evidence_limit: int = Field(default=3, description="At most this many chunks as evidence.")
    candidate_limit: int = Field(default=CANDIDATE_LIMIT, ge=1, description="Sentences the reader reads.")
    clarify_max_terms: int = Field(default=2, description="A query this short may be vague.")
    clarify_margin: float = Field(default=0.12, description="Topics this close count as a split.")
    clarify_max_sim: float = Field(default=0.6, description="A closer match than this is not vague.")
    clarify_min_reader: float = Field(default=0.5, description="Differing answers count from this reader probability.")
    clarify_share: float = Field(default=0.8, description="…and from this share of the best one's.")
    pool_margin: float = Field(default=0.2, description="Chunks this close to the best may give sentences.")
    pool_limit: int = Field(default=5, description="At most this many chunks give sentences.")
    sim_chunks: int = Field(
        default=3, ge=0, description="sim: the best sentence of this many closest chunks (0: the best chunk's cosine)."
    )
    _stats: TermStats = PrivateAttr()
    _reader: Reader | None = PrivateAttr(default=None)
    _sentence_vectors: SentenceVectorStore | None = PrivateAttr(default=None)

    def __init__(
        self,
        stats: TermStats,
        reader: Reader | None = None,
        sentence_vectors: SentenceVectorStore | None = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self._stats = stats
        self._reader = reader
        self._sentence_vectors = sentence_vectors

    @classmethod
    def class_name(cls) -> str:
        return "SupportPostprocessor"

    def score(
        self, query: str | Question, nodes: list[NodeWithScore], query_vec: list[float] | None = None
    ) -> tuple[SupportScore, list[NodeWithScore], list[Reading]]:
        """σ and its parts, the evidence chunks, and the reader's readings (most probable first)."""
        question = analyse_question(query)
        for node in nodes:
            if node.node.metadata.get("support_cosine") is None:
                node.node.metadata["support_cosine"] = chroma_cosine(node.score)
                node.score = node.node.metadata["support_cosine"]
        nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
        evidence = _evidence_window(nodes, self.evidence_margin, self.evidence_limit)
        cosines = self._cosines(nodes, query_vec)
        sim = self._sentence_sim(nodes, cosines) if evidence else 0.0
        readings: list[Reading] = []
        if evidence and self._reader is not None:
            readings = read(self._reader, question.text, nodes, cosines, self.candidate_limit)
        reader = readings[0].probability if readings else 0.0
        texts = [chunk_words(n) for n in evidence]
        coverage, missing = coverage_of(question, texts, self._stats, self.rules) if evidence else (0.0, ())
        consistency = 1.0
        if evidence and "consistency" in self.rules:
            consistency = consistency_of([n.node.get_content() for n in evidence])
        sigma = (
            self.lambda_sim * sim
            + self.lambda_reader * reader
            + self.lambda_coverage * coverage
            + self.lambda_consistency * consistency
        )
        support = SupportScore(
            sigma=round(sigma, 4),
            sim=round(sim, 4),
            coverage=round(coverage, 4),
            consistency=round(consistency, 4),
            tau=self.tau,
            missing_terms=missing,
            best_chunk=round(nodes[0].score or 0.0, 4) if nodes else 0.0,
            reader=round(reader, 4),
        )
        for node in evidence:
            node.node.metadata.update(
                support_sigma=support.sigma,
                support_sim=node.score,
                support_reader=support.reader,
                support_coverage=support.coverage,
                support_consistency=support.consistency,
            )
        return support, evidence, readings

    def _cosines(self, nodes: list[NodeWithScore], query_vec: list[float] | None) -> dict[str, list[float]]:
        """The question's cosine with each stored sentence of the chunks (chunk id → one per sentence)."""
        if self._sentence_vectors is None or query_vec is None or not nodes:
            return {}
        vectors = self._sentence_vectors.get([(n.node.node_id, n.node.get_content()) for n in nodes])
        return sentence_cosines(vectors, query_vec)

    def _sentence_sim(self, nodes: list[NodeWithScore], cosines: dict[str, list[float]]) -> float:
        """The best cosine between the question and one sentence of the `sim_chunks` closest chunks
        (sorted best first); the best chunk's own cosine when there are no sentence vectors.

        A chunk that is one sentence counts its own cosine too: its vector is that sentence read
        with its title and heading, which a FAQ's short answer needs ("In zone C." under "Where do
        visitors park?" is 0.27 from that question alone, 0.76 with its heading)."""
        chunk_sim = nodes[0].score or 0.0  # no score ranks as 0, as in the sort
        if not cosines or self.sim_chunks == 0:
            return chunk_sim
        best = []
        for node in nodes[: self.sim_chunks]:
            found = cosines.get(node.node.node_id) or []
            if found:
                best.append(max(found[0], node.score or 0.0) if len(found) == 1 else max(found))
        return max(0.0, min(1.0, max(best))) if best else chunk_sim

    def synthesis_pool(self, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        """The chunks the answer's sentences may come from: wider than the evidence σ is judged on
        (measured on dev: the gold section is cited more often, σ is unchanged)."""
        nodes = sorted(nodes, key=lambda n: n.score or 0.0, reverse=True)
        return _evidence_window(nodes, self.pool_margin, self.pool_limit)

    def gate(
        self, query: str | Question, nodes: list[NodeWithScore], query_vec: list[float] | None = None
    ) -> GateResult:
        question = analyse_question(query)
        support, evidence, readings = self.score(question, nodes, query_vec)
        found = tuple(readings)
        if "clarify" in self.rules:
            differing = self._answers_differ(question, readings, nodes)
            if differing:
                return GateResult(
                    "clarify",
                    support,
                    evidence,
                    "sentences of different policies answer it, and they say different things",
                    found,
                    tuple(differing),
                )
            if self._is_vague_split(question, nodes, support):
                return GateResult(
                    "clarify",
                    support,
                    evidence,
                    "the question is short and the closest policies are about different things",
                    found,
                )
        if evidence and support.sigma >= self.tau:
            return GateResult("answer", support, evidence, f"σ {support.sigma:.3f} ≥ τ {self.tau:.3f}", found)
        if not evidence:
            reason = "nothing was retrieved"
        elif support.missing_terms:
            reason = f"σ {support.sigma:.3f} < τ {self.tau:.3f}; the policies do not mention: " + ", ".join(
                support.missing_terms[:5]
            )
        else:
            reason = f"σ {support.sigma:.3f} < τ {self.tau:.3f}; no sentence of the closest sections answers it"
        return GateResult("abstain", support, evidence, reason, found)

    def ungated(
        self, query: str | Question, nodes: list[NodeWithScore], query_vec: list[float] | None = None
    ) -> GateResult:
        """The baseline's decision: answer from whatever was retrieved."""
        support, evidence, readings = self.score(query, nodes, query_vec)
        decision = "answer" if evidence else "abstain"
        return GateResult(decision, support, evidence, "ungated baseline: always answers", tuple(readings))

    def _answers_differ(
        self, question: Question, readings: list[Reading], nodes: list[NodeWithScore]
    ) -> list[NodeWithScore]:
        """The chunks of two or more documents whose sentences the reader rates as answering the
        question about equally well while saying different things (`_say_different`: "What is the
        fee?": Rs. 500 for revaluation, Rs. 1,000 for late registration); empty when they agree or
        one stands out. A question in several parts is answered part by part instead."""
        if question.parts or not readings or readings[0].probability < self.clarify_min_reader:
            return []
        floor = max(self.clarify_min_reader, self.clarify_share * readings[0].probability)
        by_id = {n.node.node_id: n for n in nodes}
        first_of_doc: dict[str, Reading] = {}
        for r in readings:
            if r.probability < floor:
                break
            doc = str(by_id[r.chunk_id].node.metadata.get("doc_id", "")) if r.chunk_id in by_id else ""
            first_of_doc.setdefault(doc, r)
        lead, *others = list(first_of_doc.values())
        differing = [r for r in others if _say_different(lead.sentence, r.sentence)]
        if not differing:
            return []
        return [by_id[r.chunk_id] for r in [lead, *differing][:3]]

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
