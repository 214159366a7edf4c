"""How specific a word is in general English, from wordfreq's bundled frequency list.

Corpus idf alone cannot tell "happen" (a word every question may use, absent from a policy
corpus) from "stipend" (a specific thing the corpus does not mention): both are unseen. General
English frequency can. wordfreq ships its lists inside the package, so nothing is downloaded;
its "small" English list holds every word at Zipf 3 or above, which is all `specificity` needs
(rarer words count as fully specific anyway) and loads in milliseconds.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """log10 occurrences per billion words (the Zipf scale); 0 for words the list does not know."""
    from wordfreq import zipf_frequency  # imported on first use: it takes a second or two

    return zipf_frequency(word.lower(), "en", wordlist="small")


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
