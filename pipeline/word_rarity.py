"""How specific a word is in general English, from pyspellchecker's bundled frequency list.

Corpus idf alone cannot tell "happen" (a word every question may use, absent from a policy
corpus) from "stipend" (a specific thing the corpus does not mention): both are unseen. General
English frequency can. The list ships inside the package, so nothing is downloaded.
"""

from __future__ import annotations

import math
from functools import lru_cache

_FREQUENCIES = None


def _frequencies():
    global _FREQUENCIES
    if _FREQUENCIES is None:
        from spellchecker import SpellChecker

        _FREQUENCIES = SpellChecker(distance=1).word_frequency
    return _FREQUENCIES


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """log10 occurrences per billion words; 0 for words the list does not know."""
    frequencies = _frequencies()
    count = frequencies[word.lower()]
    if not count:
        return 0.0
    return math.log10(count / frequencies.total_words * 1e9)


@lru_cache(maxsize=65536)
def specificity(word: str) -> float:
    """1.0 for rare or unknown words (stipend, calculator, ERP), down to 0.05 for everyday ones."""
    if not word.isalpha():
        return 1.0  # numbers, codes, hyphenated compounds: specific by nature
    z = zipf(word)
    if z == 0.0 or z <= 3.0:
        return 1.0
    if z >= 5.5:
        return 0.05
    return round(1.0 - 0.95 * (z - 3.0) / 2.5, 4)
