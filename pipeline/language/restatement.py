"""Whether two sentences state the same thing: the same text, nearly the same words with the same
amounts, or the same amounts with most of the words of the shorter one ("The minimum attendance is
75% per course." said again in a second section is one fact, not two).

Read by the synthesiser (no fact twice in an answer) and the gate's clarify rule (sentences of two
documents that answer alike are one answer, not a choice to offer); `distinct` keeps one copy of a
sentence that stands word for word in two chunks, for both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pipeline.language.text import canonical_terms, quantities

T = TypeVar("T")


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


def distinct(items: list[T], sentence_of: Callable[[T], str]) -> list[T]:
    """The first of the items that hold the same sentence, case and spacing aside (a policy quoting
    another puts one sentence in two chunks), in their order."""
    seen: set[str] = set()
    kept = []
    for item in items:
        key = " ".join(sentence_of(item).lower().split())
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
