"""One question, analysed once: its terms, quantities, sentences and parts, as one record.

A question's text used to be tokenised, split into sentences and searched for quantities again by
each step it passed through (the gate, coverage, the answer-type rules, the two-part split, the
synthesiser). `analyse_question` does that work once and the steps read the record. The language
work itself stays in `pipeline.language.text`; this module only decides what a question needs of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from pipeline.language.question_parts import QuestionPart, parts_of_sentences
from pipeline.language.text import canonical_terms_with_surface, quantities, split_sentences, tokens

# The words a message that asks something opens with: a question word or an auxiliary.
QUESTION_OPENERS = (
    "what", "when", "where", "which", "who", "whom", "whose", "why", "how", "can", "could", "do", "does",
    "did", "is", "are", "was", "were", "will", "would", "should", "may", "must", "shall",
)  # fmt: skip


def opener_pattern(*extra: str) -> re.Pattern[str]:
    """Matches text that opens with one of QUESTION_OPENERS or of `extra` (case aside)."""
    words = "|".join(re.escape(w) for w in (*QUESTION_OPENERS, *extra))
    return re.compile(rf"^\s*(?:{words})\b", re.I)


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
    `polar_terms`. `parts` are worked out when first read: a part's own record (the synthesiser
    ranks sentences on it) never needs them."""

    text: str
    words: frozenset[str]
    terms: tuple[str, ...]
    terms_with_surface: tuple[tuple[str, str], ...]
    quantities: frozenset[str]
    sentences: tuple[str, ...]
    polar: str
    polar_terms: tuple[tuple[str, str], ...]

    @cached_property
    def parts(self) -> tuple[QuestionPart, ...]:
        """The two-part split (pipeline.language.question_parts), from the sentences already split: it reads
        the text without its surrounding whitespace, and the engine's text has none."""
        stripped = self.text.strip()
        sentences = self.sentences if stripped == self.text else tuple(split_sentences(stripped))
        return tuple(parts_of_sentences(list(sentences) or [stripped]))


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
    asking = [s for s in sentences if s.rstrip().endswith("?") and _POLAR.match(s)]
    polar = asking[-1] if asking else ""
    return Question(
        text=text,
        words=frozenset(tokens(text)),
        terms=tuple(dict.fromkeys(term for term, _ in with_surface)),
        terms_with_surface=with_surface,
        quantities=frozenset(quantities(text)),
        sentences=sentences,
        polar=polar,
        polar_terms=_polar_terms(polar, text, with_surface),
    )
