"""The English stemmer every word comparison goes through: Snowball (Porter2), with codes kept.

Its own module because both the glossary (which checks that its synonyms stem apart) and the
text functions (pipeline.language.text) stem words, and the text functions read the glossary.
"""

from __future__ import annotations

import functools

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball (Porter2) English stem of a lower-case word: fee/fees, register/registered.

    Words of three letters or fewer and words with digits, dots or hyphens ("covid-19", "cut-off")
    are kept as they are: they are codes or compounds, not inflected English."""
    if len(word) <= 3 or not word.isalpha():
        return word
    return _STEMMER.stemWord(word)
