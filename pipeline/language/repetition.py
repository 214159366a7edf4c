"""A message that says the same thing more than once is read as if it said it once.

A clause pasted thirty times ("the committee shall consider the matter at its next meeting and
the committee shall consider …") is not a longer question: its embedding drifts from the clause's
own, and the reader sees only its first tokens. Read once, that clause abstains (σ 0.27); read
thirty times, it was answered with σ 0.63 from an unrelated section. So before anything reads a
message, a message that is one passage repeated (the last copy may be cut short) keeps one copy,
and a sentence (of three words or more) said again word for word is dropped.

Why no library: this is string periodicity, not language. It is found in linear time with the
Knuth–Morris–Pratt prefix function, over the words (a back-referencing regex such as `^(.+?)\\1+$`
backtracks, and patterns run on user text must be linear; SECURITY.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.language.text import split_sentences


@dataclass(frozen=True)
class ReadOnce:
    text: str  # the message with its repeats left out
    repeats: int  # how many copies of a passage or sentence were left out


def _smallest_period(items: list[str]) -> int:
    """The length of the shortest prefix of `items` that, repeated, gives `items` (the last copy
    may be cut short): the KMP prefix function's last value, taken from the length."""
    border = [0] * len(items)
    k = 0
    for i in range(1, len(items)):
        while k and items[i] != items[k]:
            k = border[k - 1]
        if items[i] == items[k]:
            k += 1
        border[i] = k
    return len(items) - border[-1] if items else 0


def _repeats_a_phrase(words: list[str]) -> bool:
    """Whether some three words come twice: only then can a sentence of three words or more
    repeat, so most messages are never split into sentences here (the question is split once, in
    `pipeline.language.question`)."""
    phrases = list(zip(words, words[1:], words[2:], strict=False))
    return len(set(phrases)) < len(phrases)


def read_once(message: str) -> ReadOnce:
    """`message` with a passage that repeats through the whole message kept once, and any sentence
    of three words or more said again word for word (ignoring case and spacing) left out. A
    message with no repeats comes back unchanged, character for character."""
    words = message.split()
    folded = [w.casefold() for w in words]
    period = _smallest_period(folded)
    left_out = 0
    text = message
    if words and period * 2 <= len(words):  # at least two whole copies
        left_out = -(-len(words) // period) - 1
        text = " ".join(words[:period])
        folded = folded[:period]
    if not _repeats_a_phrase(folded):
        return ReadOnce(text if left_out else message, left_out)
    sentences = split_sentences(text)
    kept: list[str] = []
    seen: set[str] = set()
    for sentence in sentences:
        key = " ".join(sentence.casefold().split())
        if key in seen:
            continue
        seen.add(key)
        kept.append(sentence)
    if len(kept) < len(sentences):
        left_out += len(sentences) - len(kept)
        text = " ".join(kept)
    return ReadOnce(text if left_out else message, left_out)
