"""A reply to a clarifying question: which of its options it picks, and the question it continues.

When the gate asks "Do you mean A, B or C?", the next message usually answers that question
rather than asking a new one: "the second one", "2", "the examination one", or the option's own
label (what a click on an option button sends). `pick_option` says which option such a reply
picks, or None when the reply reads as a question of its own; `scoped_question` is the original
question narrowed to the picked option, which the engine then searches within that option's
document only (`AnswerEngine.ask(..., within_doc=...)`).

Options are told apart by the words only one of them has (words every option shares, such as
"fee" after "fees?", pick nothing); a reply with a word that no option has, or one that opens like
a question ("When is the deadline?"), is a new question. Ordinals are a closed set of English words written out
here: a number-word library would add a dependency for nine words.
"""

from __future__ import annotations

import re

from pipeline.language.question import opener_pattern
from pipeline.language.text import term_set, tokens

# A reply longer than this (in content words) is a new question, not a choice among options.
MAX_CHOICE_WORDS = 6
# Ordinals only: "one" is as often a pronoun ("the revaluation one") as a number.
_ORDINALS = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3, "fifth": 4}
_NUMBER_REPLY = re.compile(r"^\s*(?:option|number|no\.?|#)?\s*(\d{1,2})\s*[.)]?\s*$", re.I)
_LAST = re.compile(r"\b(last|final)\b", re.I)
# A reply that opens like a question asks a new one ("When is the deadline?" after "What is the
# fee?" shares a word with an option "Deadline and Fee", and is still a question of its own).
_ASKS = opener_pattern()
# Words a reply may use to point at an option besides the option's own words.
_CHOICE_WORDS = " ".join([*_ORDINALS, "last", "final", "option", "choice", "mean", "meant", "about"])


def option_label(option: dict) -> str:
    """How an option is shown on its button, and what a click on it sends back."""
    title, section = str(option.get("title") or "").strip(), str(option.get("section") or "").strip()
    return f"{title}, {section}" if title and section else title or section


def _normal(text: str) -> str:
    return " ".join(tokens(text))


def pick_option(reply: str, options: list[dict]) -> int | None:
    """The index of the option `reply` picks, or None when it picks none (or more than one)."""
    if not options or not (reply or "").strip():
        return None
    said = _normal(reply)
    for i, option in enumerate(options):  # a click sends the option's label
        if said and said == _normal(option_label(option)):
            return i
    number = _NUMBER_REPLY.match(reply)
    if number:
        i = int(number.group(1)) - 1
        return i if 0 <= i < len(options) else None
    content = term_set(reply)
    if not content or len(content) > MAX_CHOICE_WORDS or _ASKS.match(reply):
        return None
    option_terms = [term_set(option_label(o)) for o in options]
    if content - set().union(*option_terms) - term_set(_CHOICE_WORDS):
        return None  # a word of no option ("what is the *late* fee for withdrawal?"): a new question
    ordinal = [_ORDINALS[w] for w in tokens(reply) if w in _ORDINALS]
    if _LAST.search(reply):
        ordinal.append(len(options) - 1)
    if ordinal:
        return ordinal[0] if len(set(ordinal)) == 1 and ordinal[0] < len(options) else None
    shared = set.intersection(*option_terms)
    scores = [len((content & terms) - shared) for terms in option_terms]
    best = max(scores)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best)


def scoped_question(question: str, option: dict) -> str:
    """The original question narrowed to the option: "fees: <document title>, <section name>?"
    (measured on the demo's "fees?" options: with the title, each picked document's own fee leads
    the answer; with the section name alone, one of three led with a sentence about deadlines)."""
    section = re.sub(r"^\s*[\d.]+\s*", "", str(option.get("section") or "")).strip()
    where = ", ".join(p for p in (str(option.get("title") or "").strip(), section) if p)
    base = (question or "").strip().rstrip("?").strip()
    if not where:
        return f"{base}?" if base else ""
    return f"{base}: {where}?" if base else f"{where}?"
