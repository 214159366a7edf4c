"""Whether two sentences state the same thing: the same text, nearly the same words with the same
amounts, or the same amounts with most of the words of the shorter one ("The minimum attendance is
75% per course." said again in a second section is one fact, not two).

Read by the synthesiser (no fact twice in an answer) and the gate's clarify rule (sentences of two
documents that answer alike are one answer, not a choice to offer).
"""

from __future__ import annotations

from pipeline.language.text import canonical_terms, quantities


def _key(text: str) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(canonical_terms(text)), frozenset(quantities(text))


def restates(sentence: str, other: str) -> bool:
    """True when `sentence` says what `other` says."""
    if " ".join(sentence.lower().split()) == " ".join(other.lower().split()):
        return True
    words, amounts = _key(sentence)
    other_words, other_amounts = _key(other)
    shared = len(words & other_words)
    if shared / max(1, len(words | other_words)) >= 0.7 and amounts == other_amounts:
        return True
    return bool(amounts) and amounts <= other_amounts and shared / max(1, min(len(words), len(other_words))) >= 0.6


def repeats(sentence: str, chosen: list[str]) -> bool:
    """True when `sentence` says what one of `chosen` says."""
    return any(restates(sentence, other) for other in chosen)
