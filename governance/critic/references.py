"""References by number or letter ("see section 9", "Appendix B", "clause 4.2") to parts the
document does not have. References to another document's parts ("Section 4.2 of the IT Security
Guide") cannot be checked here and are left alone."""

from __future__ import annotations

import re
from collections.abc import Iterator

from governance.critic.reading import PolicyText
from governance.critic.records import Finding

_KINDS = (
    "sections|section|clauses|clause|paragraphs|paragraph|para|parts|part|appendices|appendix|annexes|annex|"
    "schedules|schedule|tables|table|figures|figure|chapters|chapter|articles|article|attachment|exhibit"
)
_REFERENCE = re.compile(
    rf"(?i:\b({_KINDS}))\s+([0-9]+[A-Z]?(?:\.[0-9]+)*|[A-Z]{{1,2}}\b|[IVX]{{1,5}}\b)|§\s*([0-9]+(?:\.[0-9]+)*)"
)
# Words that are also ordinary English ("schedule 3 meetings", "part 2 of the course"): a reference
# only when capitalised or after a word that introduces one.
_AMBIGUOUS = {"part", "parts", "schedule", "schedules", "table", "tables", "figure", "figures", "article", "articles"}
_INTRODUCERS = {"in", "see", "under", "at", "of", "per", "to", "and", "from", "by", "on", "with"}
_ANOTHER_DOCUMENT = re.compile(
    r"^\s*,?\s*(?:(?:of|to|in)\s+(?!this\b|these\b)(?:the\s+|its\s+|their\s+)?[\w\"'“]|(?:issued|published)\s+by\b)",
    re.I,
)
_NUMBERED = {"section", "clause", "paragraph", "para", "chapter", "article"}
_SINGULAR = {"appendices": "appendix", "annexes": "annex", "sections": "section", "paragraphs": "paragraph"}


def _kind(word: str) -> str:
    low = word.lower()
    return _SINGULAR.get(low, low[:-1] if low.endswith("s") and low[:-1] in _NUMBERED | _AMBIGUOUS else low)


def _named_document_before(before: str) -> bool:
    """ "the General Records Schedule 3.1": the part is named after another document's title."""
    words = before.rsplit(None, 2)  # its last two words (the whole prefix split for each reference was quadratic)
    return len(words) >= 2 and words[-1][:1].isupper() and words[-2].lower() not in _INTRODUCERS | {"the", "a"}


def _own_part_references(sentence: str) -> Iterator[tuple[str, str, str]]:
    """Each reference in `sentence` to a part of its own document: (words, kind, label)."""
    for m in _REFERENCE.finditer(sentence):
        if m.group(3):
            kind, label = "section", m.group(3)
        else:
            word, label = m.group(1), m.group(2)
            kind = _kind(word)
            before = sentence[: m.start()].rsplit(None, 1)  # only its last word is read
            if (
                word.lower() in _AMBIGUOUS
                and not word[0].isupper()
                and (not before or before[-1].lower() not in _INTRODUCERS)
            ):
                continue
        if _ANOTHER_DOCUMENT.match(sentence[m.end() :]) or _named_document_before(sentence[: m.start()]):
            continue
        yield m.group(0), kind, label


def dangling_references(sentence: str, document: PolicyText) -> Finding | None:
    """The first reference in `sentence` to a part `document` lacks, as a finding."""
    for words, kind, label in _own_part_references(sentence):
        exists = document.has_number(label) if kind in _NUMBERED else document.has_part(kind, label)
        if not exists:
            return Finding(
                "dangling_reference",
                words,
                f"This document has no {words}: add it, or correct the reference.",
            )
    return None
