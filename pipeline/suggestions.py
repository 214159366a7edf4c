"""Example questions for the empty chat, drawn from the indexed documents themselves.

Each example is made from one section heading of an active document ("2. Revaluation Fee" →
"What does the policy say about revaluation fee?"), taking sections that state something
concrete (an amount, a count, a period) under a heading of two to four words first and one document at a time, so the examples
show the breadth of the corpus. An example is kept only when the engine answers it (σ ≥ τ,
asked without logging): the first screen never suggests a question Warrant then refuses. No
organisation's words are written here; they all come from the headings.
"""

from __future__ import annotations

import re
from itertools import zip_longest

from pipeline.engine import AnswerEngine
from pipeline.ingest.index import ACTIVE
from pipeline.language.text import content_terms, quantities

MAX_CANDIDATES = 12  # questions tried (each is one gated ask) before giving up on more examples
_NUMBER = re.compile(r"^\s*(?:section\s+)?[\d.]+[.)]?\s*", re.I)


def example_question(section: str) -> str:
    """The question an example asks of one section heading ("" when the heading has no words)."""
    topic = _NUMBER.sub("", section or "").strip().rstrip(":.").strip()
    if not topic or not content_terms(topic) or topic.lower().startswith("part "):
        return ""
    # Title Case words are lowered; acronyms and mixed-case names ("MCA", "B.Tech") are kept.
    topic = " ".join(w.lower() if w[:1].isupper() and w[1:].islower() else w for w in topic.split())
    return f"What does the policy say about {topic}?"


def _candidates(engine: AnswerEngine) -> list[str]:
    """Questions from headings: per document, concrete sections first; then documents in turn."""
    got = engine.index.collection.get(where={"status": ACTIVE}, include=["metadatas", "documents"])
    by_doc: dict[str, list[tuple[bool, int, str]]] = {}
    for meta, text in zip(got["metadatas"] or [], got["documents"] or [], strict=False):
        section = str(meta.get("section", ""))
        question = example_question(section)
        if question:
            # Concrete sections (an amount, a count, a period) with a heading of a few words first.
            concrete = bool(quantities(text or "")) and 2 <= len(content_terms(section)) <= 4
            by_doc.setdefault(str(meta.get("doc_id", "")), []).append(
                (not concrete, int(str(meta.get("position") or 0)), question)
            )
    per_doc = [[q for _, _, q in sorted(rows)] for _, rows in sorted(by_doc.items())]
    ordered = [q for round_ in zip_longest(*per_doc) for q in round_ if q]
    return list(dict.fromkeys(ordered))


def example_questions(engine: AnswerEngine, limit: int = 4) -> list[str]:
    """Up to `limit` questions from the documents' headings that the engine answers."""
    kept: list[str] = []
    for question in _candidates(engine)[:MAX_CANDIDATES]:
        if engine.ask(question, log=False).decision == "answer":
            kept.append(question)
            if len(kept) == limit:
                break
    return kept
