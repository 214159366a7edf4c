"""Grounded extractive synthesis: the answer is made of the evidence's own sentences, each cited.

The sentences are ranked by their words, the unit the question asks for and their similarity to
the question; the reader (pipeline.gate.reader) then chooses the lead: the sentence it rates most
likely to answer the question goes first, even where the word ranking left it out ("Who
approves …?": the sentence naming the approver, not its word-sharing neighbour). Measured on
policy-dev, letting the reader choose *every* sentence lost gold answers (docs/evaluation.md,
"The answer's sentences"), so the rest keep the word ranking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from llama_index.core.schema import NodeWithScore

from pipeline.gate.readings import Reading, is_fragment
from pipeline.ground.records import AnswerStyle, Citation
from pipeline.ingest.term_stats import TermStats
from pipeline.language.question import Question, analyse_question
from pipeline.language.restatement import distinct
from pipeline.language.text import (
    canonical_terms,
    corpus_unit_kinds,
    first_named,
    is_generic,
    named_in,
    quantities,
    split_sentences,
)

# What kind of number a question asks for, so the sentence that holds that kind ranks first.
# "Until when" asks for a point in time (week 2, a month), "how long" for a span (within 7 days).
# The last field names the glossary's own units that also answer ("count": credits, "time":
# semesters; pipeline.language.glossary), so no corpus's words are written here.
_WANTED_UNITS = (
    (
        re.compile(r"\b(how long|how soon|within|how many (days|weeks|months|hours))\b", re.I),
        ("day", "week", "month", "year", "hour"),
        "",
    ),
    (
        re.compile(r"\b(when|by when|until when|deadline|last (day|date|week)|up to which week|which week)\b", re.I),
        ("week#", "month"),
        "time",
    ),
    (re.compile(r"\b(how much|fee|cost|charge|price|pay)\b", re.I), ("money",), ""),
    (re.compile(r"\b(percentage|percent|%|share|weight|weightage)\b", re.I), ("pct",), ""),
    (re.compile(r"\bhow many\b", re.I), ("n", "attempt", "member"), "count"),
)
# How many sentences an answer of each length holds at most (a brief one is cut from the standard
# one by _brief).
_SENTENCES_FOR_LENGTH = {"standard": 3, "detailed": 6}
# Share of a sentence's score that comes from its embedding similarity to the question (the rest
# is weighted word overlap and the unit it holds); chosen on the dev split.
SEMANTIC_WEIGHT = 0.4
# The reader's best sentence leads the answer from this probability (its own even odds).
LEAD_AT = 0.5
# The glossary's programmes (pipeline.language.glossary, `named_groups.programmes`): rules that differ by
# programme are ordered by the one the user is in.
_PROGRAMMES = "programmes"


@dataclass(frozen=True)
class CitedSentence:
    text: str
    citation: int  # the [n] marker
    chunk_id: str


def programme_key(programme: str) -> str:
    """The glossary's name for the programme that `programme` mentions first, or ""."""
    found = first_named(programme, _PROGRAMMES)
    return found[0] if found else ""


def _mentions_programme(sentence: str, key: str) -> bool:
    return bool(key) and key in named_in(sentence, _PROGRAMMES)


def _reader_lead(readings: list[Reading], candidates: list) -> tuple | None:
    """The candidate holding the reader's best sentence of the pool, if it reaches LEAD_AT."""
    by_sentence = {(c[4], c[3]): c for c in candidates}
    for r in readings:
        match = by_sentence.get((r.chunk_id, r.sentence))
        if match is not None:
            return match if r.probability >= LEAD_AT else None
    return None


def _brief(chosen: list[tuple], part_bests: list[tuple], reader_leads: bool) -> list[tuple]:
    """A brief answer cut from the standard answer `chosen` (in answer order): the reader's lead
    where it leads, else the best-scored sentence of the section the answer leads with (not the best
    of all: a sentence of a lower-ranked section that shares more words with the question is not
    what the standard answer puts first); a second sentence, the best-scored of the rest, only when
    the lead is short. A question of two parts keeps each part's best sentence (and the reader's lead)."""
    if part_bests:
        return [c for i, c in enumerate(chosen) if c in part_bests or (i == 0 and reader_leads)]
    lead = chosen[0] if reader_leads else max((c for c in chosen if c[4] == chosen[0][4]), key=lambda c: c[0])
    rest = [c for c in chosen if c is not lead]
    if len(lead[3].split()) > 18 or not rest:
        return [lead]
    return [lead, max(rest, key=lambda c: c[0])]


class ExtractiveSynthesizer:
    """Picks the evidence sentences that answer the query, orders them, and cites each one."""

    def __init__(self, stats: TermStats) -> None:
        self._stats = stats

    def _sentence_score(self, query_terms: list[str], sentence: str, wanted_units: set[str]) -> float:
        terms = set(canonical_terms(sentence))
        if not terms:
            return 0.0
        total = sum(self._weight(t) for t in query_terms) or 1.0
        hit = sum(self._weight(t) for t in query_terms if t in terms)
        score = hit / total
        if wanted_units:
            kinds = {q.split(":", 1)[0] for q in quantities(sentence)}
            if kinds & wanted_units:
                score += 0.25
            elif kinds:
                score += 0.08
        return score

    def _weight(self, term: str) -> float:
        return self._stats.idf(term) * (0.4 if is_generic(term) else 1.0)

    def _candidates(
        self, question: Question, evidence: list[NodeWithScore], similarity: dict[str, list[float]]
    ) -> list[tuple[float, int, int, str, str]]:
        """(score, chunk rank, sentence position, sentence, chunk id), best first, repeats removed."""
        query_terms = list(question.terms)
        wanted_units = next(
            (
                set(units) | corpus_unit_kinds(own)
                for pattern, units, own in _WANTED_UNITS
                if pattern.search(question.text)
            ),
            set(),
        )
        candidates: list[tuple[float, int, int, str, str]] = []
        for rank, node in enumerate(evidence):
            heading = str(node.node.metadata.get("section") or "")
            relevance = node.score or 0.0
            sentences = split_sentences(node.node.get_content())
            cosines = similarity.get(node.node.node_id)
            if cosines is not None and len(cosines) != len(sentences):
                cosines = None
            for position, sentence in enumerate(sentences):
                if is_fragment(sentence, heading, len(sentences)):
                    continue
                lexical = self._sentence_score(query_terms, sentence, wanted_units)
                if cosines is not None:
                    lexical = (1 - SEMANTIC_WEIGHT) * lexical + SEMANTIC_WEIGHT * cosines[position]
                score = 0.75 * lexical + 0.25 * relevance - 0.03 * rank
                candidates.append((score, rank, position, sentence, node.node.node_id))
        return distinct(sorted(candidates, key=lambda c: c[0], reverse=True), lambda c: c[3])

    def select(
        self,
        query: str | Question,
        evidence: list[NodeWithScore],
        style: AnswerStyle,
        similarity: dict[str, list[float]] | None = None,
        parts: list[tuple[str, dict[str, list[float]]]] | None = None,
        readings: list[Reading] | None = None,
    ) -> list[CitedSentence]:
        """`similarity`: chunk id → the question's cosine with each sentence of that chunk.
        `parts`: for a question that asks two things (pipeline.language.question_parts), each part with
        its own similarities; each part's best sentence is in the answer before the rest fill up.
        `readings`: the gate's reader verdicts, most probable first; the best one of an `evidence`
        chunk leads the answer when it reaches LEAD_AT."""
        question = analyse_question(query)
        candidates = self._candidates(question, evidence, similarity or {})
        if not candidates:
            return []
        best = candidates[0][0]
        # A brief answer is cut from the standard one (_brief), so asking for brevity never moves
        # the answer to another section.
        brief = style.length == "brief"
        limit = _SENTENCES_FOR_LENGTH["standard" if brief else style.length]
        chosen = []
        for part, part_similarity in parts or []:
            # the part's best sentence, scored as the whole question scores it
            top = next(iter(self._candidates(analyse_question(part), evidence, part_similarity)), None)
            match = next((c for c in candidates if top and c[3] == top[3]), None)
            if match and match not in chosen:
                chosen.append(match)
        answered_parts = len(chosen)
        part_bests = list(chosen)
        # Two parts get one more sentence each than one question would.
        limit = max(limit, answered_parts) + max(answered_parts - 1, 0)
        chosen += [c for c in candidates if c[0] >= 0.7 * best and c not in chosen][: limit - len(chosen)]
        # Evidence split over two chunks (questions needing two sections): keep each chunk's best.
        for rank in range(1, len(evidence)):
            if not any(c[1] == rank for c in chosen):
                top = next((c for c in candidates if c[1] == rank), None)
                if top and top[0] >= 0.55 * best and len(chosen) < limit + 1:
                    chosen.append(top)
        # A question that names a programme has said which rules it wants (its words rank them);
        # the profile's programme only orders the answer to a question that names none.
        key = "" if programme_key(question.text) else programme_key(style.programme)
        chosen.sort(key=lambda c: (not _mentions_programme(c[3], key), c[1], c[2]))
        if key:  # a programme-specific rule the user is in goes first, even if ranked lower
            extra = next(
                (c for c in candidates if _mentions_programme(c[3], key) and c not in chosen and c[0] >= 0.6 * best),
                None,
            )
            if extra:
                chosen.insert(0, extra)
                chosen = chosen[: limit + 1]
        lead = _reader_lead(readings or [], candidates)
        reader_leads = False
        if lead is not None and not (key and not _mentions_programme(lead[3], key)):
            chosen = [lead, *[c for c in chosen if c[3] != lead[3]]][: max(limit, len(chosen))]
            reader_leads = True
        if brief:
            chosen = _brief(chosen, part_bests if answered_parts >= 2 else [], reader_leads)
        numbering: dict[str, int] = {}
        result = []
        for c in chosen:
            n = numbering.setdefault(c[4], len(numbering) + 1)
            result.append(CitedSentence(c[3], n, c[4]))
        return result

    @staticmethod
    def render(sentences: list[CitedSentence], style: AnswerStyle) -> str:
        if style.format == "bullets":
            return "\n".join(f"- {s.text} [{s.citation}]" for s in sentences)
        return " ".join(f"{s.text} [{s.citation}]" for s in sentences)

    @staticmethod
    def citations(sentences: list[CitedSentence], evidence: list[NodeWithScore]) -> list[Citation]:
        by_id = {n.node.node_id: n for n in evidence}
        out: dict[int, Citation] = {}
        quotes: dict[int, list[str]] = {}
        for s in sentences:
            quotes.setdefault(s.citation, []).append(s.text)
            if s.citation not in out:
                meta = by_id[s.chunk_id].node.metadata
                out[s.citation] = Citation(
                    n=s.citation,
                    doc_id=meta.get("doc_id", ""),
                    chunk_id=s.chunk_id,
                    title=meta.get("title", ""),
                    section=meta.get("section", ""),
                    quote="",
                    source=meta.get("source", ""),
                    version=str(meta.get("version", "")),
                )
        return [
            Citation(**{**c.__dict__, "quote": " ".join(quotes[n]), "quotes": tuple(quotes[n])})
            for n, c in sorted(out.items())
        ]
