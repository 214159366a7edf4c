"""Grounded extractive synthesis: the answer is made of the evidence's own sentences, each cited.

Which sentences, and in which order, is the reader's call (pipeline.gate.reader): the one it rates
most likely to answer the question leads, and another joins only when the reader rates it as
answering too (or as answering a part of the question). A sentence that merely shares the
question's words is not cited.
"""

from __future__ import annotations

from dataclasses import dataclass

from llama_index.core.schema import NodeWithScore

from pipeline.gate.readings import Reading
from pipeline.ground.records import AnswerStyle, Citation
from pipeline.ingest.term_stats import TermStats
from pipeline.language.question import Question, analyse_question
from pipeline.language.restatement import repeats
from pipeline.language.text import first_named, named_in

_SENTENCES_FOR_LENGTH = {"brief": 1, "standard": 3, "detailed": 6}
# A sentence joins the lead only when the reader rates it as answering too: at least ANSWERS, and at
# least RELATIVE of the lead's probability (so a strong answer is not diluted by weaker ones).
# Chosen on the tuning data (docs/evaluation.md, "The answer's sentences").
ANSWERS = 0.5
RELATIVE = 0.5
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


class ExtractiveSynthesizer:
    """Picks the evidence sentences the reader rates as answering the question, leads with the best,
    and cites each one."""

    def __init__(self, stats: TermStats) -> None:
        self._stats = stats

    def select(
        self,
        query: str | Question,
        evidence: list[NodeWithScore],
        style: AnswerStyle,
        readings: list[Reading],
        parts: list[tuple[str, list[Reading]]] | None = None,
    ) -> list[CitedSentence]:
        """The answer's sentences: the reader's best first; each part's best (for a question that
        asks several things, pipeline.language.question_parts); then others the reader rates as
        answering too, up to the style's length. `readings` are the gate's (most probable first);
        only sentences of `evidence` chunks are used, the same statement once."""
        question = analyse_question(query)
        in_pool = {n.node.node_id for n in evidence}
        ranked = [r for r in readings if r.chunk_id in in_pool]
        if not ranked:
            return []
        lead = ranked[0]
        chosen = [lead]
        for _, part_readings in parts or []:
            best = next((r for r in part_readings if r.chunk_id in in_pool), None)
            if best and best.probability >= ANSWERS and not repeats(best.sentence, [c.sentence for c in chosen]):
                chosen.append(best)
        limit = _SENTENCES_FOR_LENGTH[style.length] + max(len(chosen) - 1, 0)
        floor = max(ANSWERS, RELATIVE * lead.probability)
        for r in ranked[1:]:
            if len(chosen) >= limit:
                break
            if r.probability >= floor and not repeats(r.sentence, [c.sentence for c in chosen]):
                chosen.append(r)
        # A question that names a programme has said which rules it wants; the profile's programme
        # only orders the answer to a question that names none: its rule goes first.
        key = "" if programme_key(question.text) else programme_key(style.programme)
        if key:
            own = next((r for r in ranked if _mentions_programme(r.sentence, key) and r.probability >= floor), None)
            if own is not None and own not in chosen:
                chosen = [own, *chosen][: limit + 1]
            chosen.sort(key=lambda r: not _mentions_programme(r.sentence, key))
        numbering: dict[str, int] = {}
        result = []
        for r in chosen:
            n = numbering.setdefault(r.chunk_id, len(numbering) + 1)
            result.append(CitedSentence(r.sentence, n, r.chunk_id))
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
