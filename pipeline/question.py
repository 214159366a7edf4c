"""One question, analysed once: its terms, quantities, sentences and parts, as one record.

A question's text used to be tokenised, split into sentences and searched for quantities again by
each step it passed through (the gate, coverage, the answer-type rules, the two-part split, the
synthesiser). `analyse_question` does that work once and the steps read the record. The language
work itself stays in `pipeline.text`; this module only decides what a question needs of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.question_parts import QuestionPart, parts_of_sentences
from pipeline.text import canonical_terms_with_surface, quantities, split_sentences, tokens

# A sentence that asks a yes/no question opens with an auxiliary ("Can the viva be held online?").
_POLAR = re.compile(r"^(?:is|are|am|can|could|will|would|does|do|did|may|might|should|must|shall)\b", re.I)


@dataclass(frozen=True)
class Question:
    """The analysis of one question text; build it with `analyse_question`.

    `terms_with_surface` keeps every content word (repeats included) as
    `canonical_terms_with_surface` returns it; `terms` are its distinct canonical terms in order,
    which is what `canonical_terms` gives for the same text, without tokenising it again.
    `words` are all its lower-case word tokens, stop words included.
    `polar` is the last sentence that asks a yes/no question ("" when none), with its words in
    `polar_terms`."""

    text: str
    words: frozenset[str]
    terms: tuple[str, ...]
    terms_with_surface: tuple[tuple[str, str], ...]
    quantities: frozenset[str]
    sentences: tuple[str, ...]
    parts: tuple[QuestionPart, ...]
    polar: str
    polar_terms: tuple[tuple[str, str], ...]


def _polar_terms(polar: str, text: str, with_surface: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    if not polar:
        return ()
    return with_surface if polar == text else tuple(canonical_terms_with_surface(polar))


def analyse_question(text: str | Question) -> Question:
    """The record of `text`; a record passed in is returned as it is, so an entry point that
    accepts either analyses a string once and passes the record on."""
    if isinstance(text, Question):
        return text
    with_surface = tuple(canonical_terms_with_surface(text))
    sentences = tuple(split_sentences(text))
    # question_parts reads the text without its surrounding whitespace; the engine's has none,
    # so one split serves both.
    stripped = text.strip()
    parts_from = sentences if stripped == text else tuple(split_sentences(stripped))
    asking = [s for s in sentences if s.rstrip().endswith("?") and _POLAR.match(s)]
    polar = asking[-1] if asking else ""
    return Question(
        text=text,
        words=frozenset(tokens(text)),
        terms=tuple(dict.fromkeys(term for term, _ in with_surface)),
        terms_with_surface=with_surface,
        quantities=frozenset(quantities(text)),
        sentences=sentences,
        parts=tuple(parts_of_sentences(list(parts_from) or [stripped])),
        polar=polar,
        polar_terms=_polar_terms(polar, text, with_surface),
    )
