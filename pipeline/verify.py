"""Checks every answer sentence against the chunk it cites; unsupported sentences are dropped.

Three checks, all of which must hold: lexical (the sentence's content words are in the chunk),
numbers (every number in the sentence appears in the chunk), and polarity (a sentence that is
not a verbatim quote must not flip a negation of its closest chunk sentence). An extractive
sentence passes trivially; the verifier earns its keep when answers are reworded.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.synthesis import CitedSentence
from pipeline.text import content_terms, has_negation, normalise_text, numbers, split_sentences


@dataclass(frozen=True)
class Verdict:
    sentence: CitedSentence
    supported: bool
    reason: str


def _squash(text: str) -> str:
    return " ".join(normalise_text(text).lower().split())


def check_sentence(sentence: str, chunk_text: str) -> tuple[bool, str]:
    if _squash(sentence) in _squash(chunk_text):
        return True, "quoted verbatim"
    terms = set(content_terms(sentence))
    chunk_terms = set(content_terms(chunk_text))
    if not terms:
        return False, "no content to check"
    lexical = len(terms & chunk_terms) / len(terms)
    if lexical < 0.8:
        return False, f"only {lexical:.0%} of its words are in the cited chunk"
    missing = numbers(sentence) - numbers(chunk_text)
    if missing:
        return False, f"numbers not in the cited chunk: {', '.join(sorted(missing))}"
    closest = max(split_sentences(chunk_text), key=lambda s: len(set(content_terms(s)) & terms), default="")
    if has_negation(closest) != has_negation(sentence):
        return False, "negation differs from the cited text"
    return True, "words, numbers and polarity match"


def verify(sentences: list[CitedSentence], chunk_texts: dict[str, str]) -> list[Verdict]:
    return [Verdict(s, *check_sentence(s.text, chunk_texts.get(s.chunk_id, ""))) for s in sentences]
