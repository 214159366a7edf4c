"""Spelling correction against the corpus's own vocabulary: "revalution" is searched as "revaluation".

A misspelt key word finds nothing to match in BM25 and weakens the question's embedding, so a
question that the documents answer could abstain. Each word of the question that the corpus
does not use is looked up with SymSpell (`symspellpy`, MIT: symmetric-delete edit distance over
a frequency dictionary) in the words the active chunks are written in (pipeline.ingest.term_stats),
the glossary's words and the English function words, and replaced by the nearest one, the most
frequent of equals.

Left alone, so that correction never changes what a question asks:
- a word the corpus or the glossary uses, in any inflection the stemmer folds ("revaluations");
- a word common in English (Zipf ≥ 3 in wordfreq's list: "hostel", "parking"): a question about
  something the documents do not cover must still abstain, not be turned into one they do;
- names and codes: a capitalised word inside a sentence, an all-capital word, and anything
  with digits, dots or apostrophes ("Venkat", "ERP", "CS101", "M.Tech", "don't");
- words of up to three letters ("wht": "what", "who" or "why"?), and words with no suggestion
  close enough (one edit for words of up to five letters, two for longer ones).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pipeline.language import glossary as _glossary
from pipeline.language.text import STOPWORDS, canonical_terms, tokens
from pipeline.language.word_rarity import zipf

KNOWN_ZIPF = 3.0  # a word at least this common in English is a word, not a typo
_MIN_LENGTH = 4  # "wht" is as near to "what" as to "who" and "why": too short to tell
# A plain word: letters (and inner hyphens), not part of a code, an abbreviation or a contraction.
_WORD = re.compile(r"(?<![\w.'’-])[A-Za-z]+(?:-[A-Za-z]+)*(?![\w'’-]|\.\w)")
# A sentence starts the text, or follows "?", "!", a line break, or a full stop after a lower-case
# word (not "Dr." or "Rs.": a capitalised word after those is a name).
_SENTENCE_START = re.compile(r"(?:^|[!?:;]\s+|\b[a-z]\w*[.]\s+|\n\s*)$")


@dataclass(frozen=True)
class Correction:
    """The text with its misspellings corrected, and each change as (as written, corrected)."""

    text: str
    changes: tuple[tuple[str, str], ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def describe(self) -> str:
        """ "revalution → revaluation, deadlin → deadline"; "" when nothing changed."""
        return ", ".join(f"{wrong} → {right}" for wrong, right in self.changes)


def _glossary_words(words: _glossary.Glossary) -> set[str]:
    """Every word the glossary writes: synonyms, named groups and their aliases, generic terms, offices."""
    phrases: list[str] = [*words.generic_terms, *words.offices, *words.topics]
    for canonical, variants in words.synonyms.items():
        phrases += [canonical, *variants]
    for names in words.named_groups.values():
        for name, aliases in names.items():
            phrases += [name, *aliases]
    return {w for phrase in phrases for w in tokens(phrase) if w.isalpha()}


class SpellingCorrector:
    """Corrects a question's unknown words to the nearest word of `words` (corpus word → count).

    `knows_term(canonical term)` says whether the corpus holds a word's stem, so an inflection of
    a corpus word is never "corrected". The SymSpell dictionary is built on first need: most
    questions have no unknown word and never pay for it."""

    def __init__(self, words: Mapping[str, int], knows_term: Callable[[str], bool] | None = None) -> None:
        self._counts = dict(words)
        self._knows_term = knows_term or (lambda _term: False)
        self._vocabulary = set(self._counts) | _glossary_words(_glossary.active()) | set(STOPWORDS)
        self._symspell = None
        self._lock = threading.Lock()

    def correct(self, text: str) -> Correction:
        changes: list[tuple[str, str]] = []

        def fix(match: re.Match[str]) -> str:
            word = match.group(0)
            better = self._suggest(word, at_sentence_start=bool(_SENTENCE_START.search(text[: match.start()])))
            if better:
                changes.append((word, better))
                return better
            return word

        corrected = _WORD.sub(fix, text)
        return Correction(corrected, tuple(changes))

    def _needs_correction(self, word: str, at_sentence_start: bool) -> bool:
        low = word.lower()
        if len(low) < _MIN_LENGTH or low in self._vocabulary:
            return False
        if word.isupper() or (word[0].isupper() and not at_sentence_start):
            return False  # an acronym, a code or a name
        if any(self._knows_term(t) for t in canonical_terms(low)):
            return False  # an inflection of a word the corpus uses
        return zipf(low) < KNOWN_ZIPF

    def _suggest(self, word: str, at_sentence_start: bool) -> str:
        if not self._needs_correction(word, at_sentence_start):
            return ""
        from symspellpy import Verbosity

        low = word.lower()
        distance = 1 if len(low) <= 5 else 2
        found = self._dictionary().lookup(low, Verbosity.CLOSEST, max_edit_distance=distance)
        if not found:
            return ""
        best = max(found, key=lambda s: (-s.distance, s.count, s.term))
        return best.term.capitalize() if word[0].isupper() else best.term

    def _dictionary(self):
        """The SymSpell index over the vocabulary, built once (under a lock: the engine is shared)."""
        with self._lock:
            if self._symspell is None:
                from symspellpy import SymSpell

                symspell = SymSpell(max_dictionary_edit_distance=2)
                for word in self._vocabulary:
                    if len(word) >= _MIN_LENGTH:
                        symspell.create_dictionary_entry(word, self._counts.get(word, 1))
                self._symspell = symspell
            return self._symspell
