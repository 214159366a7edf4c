"""A word broken across two lines at a hyphen, joined back as it was written.

A typesetter breaks "revaluation" as "re-" / "valuation" and "examinations" as "examina-" /
"tions"; a compound that has a hyphen of its own ("no-dues", "full-time", "self-assessment") may
break at it. The line break does not say which, so English does: the joined word is taken when it
is a word (in wordfreq's English list) and the pieces are not both words of their own, or when it
is a common word ("any-" / "one" is "anyone"), or when the first piece is a prefix that English
writes closed ("re", "pre", "non", ...); otherwise the hyphen is kept.
"""

from __future__ import annotations

from functools import lru_cache

HYPHENS = ("-", "\u2010", "\u00ad")  # hyphen-minus, hyphen, soft hyphen
# Prefixes English writes closed ("revaluation", "preregistration"), and which as wordfreq tokens
# look like common words ("re" from "re:", "co" from "& Co", "non" from "non-").
_CLOSED_PREFIXES = frozenset(
    {"re", "pre", "post", "co", "non", "un", "sub", "de", "dis", "mis", "semi", "anti", "inter", "under", "over"}
)
_COMMON = 4.0  # Zipf: a word met at least 10 times per million words
_KNOWN = 1.0
_WORD = 3.0  # a piece this common is a word in its own right, not a fragment


@lru_cache(maxsize=65536)
def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency  # imported on first use: it takes a second or two

    return zipf_frequency(word.lower(), "en")


def join_line_break(first: str, second: str) -> str:
    """`first` (ending in a hyphen at a line's end) and `second` (the next line's first word) as one
    word: "re-" + "valuation" → "revaluation", "no-" + "dues" → "no-dues"."""
    stem = first.rstrip("".join(HYPHENS))
    head = stem.rsplit("-", 1)[-1]  # "part-time-" + "student": judge "time" + "student"
    if not head.isalpha() or not second[:1].islower():
        return f"{stem}-{second}"
    tail = "".join(ch for ch in second if ch.isalpha())
    joined = _zipf(head + tail)
    if joined >= _COMMON:
        return stem + second
    if joined >= _KNOWN and (head.lower() in _CLOSED_PREFIXES or min(_zipf(head), _zipf(tail)) < _WORD):
        return stem + second
    return f"{stem}-{second}"
