"""Checks every answer sentence against the chunk it cites; unsupported sentences are dropped.

Three checks, all of which must hold: lexical (the sentence's content words are in the chunk),
numbers (every number in the sentence appears in the chunk, and one stated with a unit appears
with that unit: "6 working days" is not held by "3 working days during a 6-week internship"),
and polarity (a sentence that is
not a verbatim quote must not flip a negation of its closest chunk sentence). An extractive
sentence passes trivially; the verifier earns its keep when answers are reworded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.answer.synthesis import CitedSentence
from pipeline.language.text import content_terms, has_negation, normalise_text, numbers, quantities, split_sentences


@dataclass(frozen=True)
class Verdict:
    sentence: CitedSentence
    supported: bool
    reason: str


def _squash(text: str) -> str:
    return " ".join(normalise_text(text).lower().split())


# "6-week", "3-day": a number joined to its unit by a hyphen is read with that unit.
_HYPHENATED_UNIT = re.compile(r"(?<=\d)-(?=[a-z])", re.IGNORECASE)


def _amounts_not_held(sentence: str, chunk_text: str, strict: bool = False) -> list[str]:
    """Quantities the sentence states with a unit ("day:6", "money:500") that the chunk holds
    neither with that unit nor as a bare number. `strict` (the one sentence a sentence rewords):
    a quantity with a unit must be there with that unit, and a bare number in any form."""
    held = quantities(_HYPHENATED_UNIT.sub(" ", chunk_text))
    values = {q.split(":", 1)[1] for q in held}
    bare = values if strict else {q.split(":", 1)[1] for q in held if q.startswith("n:")}
    stated = quantities(_HYPHENATED_UNIT.sub(" ", sentence))
    return sorted(
        q.replace(":", " ")
        for q in stated
        if q not in held
        and (q.split(":", 1)[1] not in values if q.startswith("n:") else (strict or q.split(":", 1)[1] not in bare))
    )


_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def _figures(text: str) -> set[str]:
    """Every figure as written, section numbers too ("6.2"): a changed reference is a changed fact."""
    return {f.rstrip(".,").replace(",", "") for f in _FIGURE.findall(text)}


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
    missing = (numbers(sentence) | _figures(sentence)) - (numbers(chunk_text) | _figures(chunk_text))
    if missing:
        return False, f"numbers not in the cited chunk: {', '.join(sorted(missing))}"
    unheld = _amounts_not_held(sentence, chunk_text)
    if unheld:
        return False, f"amounts not stated so in the cited chunk: {', '.join(unheld)}"
    shared, closest = max(
        ((len(set(content_terms(s)) & terms), s) for s in split_sentences(chunk_text)),
        key=lambda pair: pair[0],  # the first of equals, as before
        default=(0, ""),
    )
    if shared >= 0.8 * len(terms):
        # a rewording of one sentence of the chunk: its numbers are that sentence's, not ones
        # found elsewhere in the chunk ("within 5 working days" where it says 2, and 5 elsewhere)
        elsewhere = _amounts_not_held(sentence, closest, strict=True) + sorted(_figures(sentence) - _figures(closest))
        if elsewhere:
            return False, f"numbers not in the sentence it rewords: {', '.join(sorted(set(elsewhere)))}"
    if has_negation(closest) != has_negation(sentence):
        return False, "negation differs from the cited text"
    return True, "words, numbers and polarity match"


def verify(sentences: list[CitedSentence], chunk_texts: dict[str, str]) -> list[Verdict]:
    return [Verdict(s, *check_sentence(s.text, chunk_texts.get(s.chunk_id, ""))) for s in sentences]
