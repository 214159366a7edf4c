"""Where a claim and an active chunk disagree: an amount, percentage, count, week, date or polarity.

Each contradiction is a pair of spans (the claim's words and the chunk's words, with offsets) so a
reviewer sees exactly what differs. Pairing is by kind and by context: a claimed "Rs. 2,000 late
fee" is compared with the chunk's amount in the sentence that shares most words with the claim,
not with any amount in the chunk.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import asdict, dataclass

from pipeline.language import glossary
from pipeline.language.text import AMOUNT, content_terms, money_patterns, split_sentences

WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
}
_NUM = r"(?:" + AMOUNT + r"|(?P<word>" + "|".join(WORD_NUMBERS) + r"))"
# What a count after a number counts, as general English has it ("3 days", "2 members"). A corpus's
# own units come from its glossary: `count_units` ("3 credits") and `counts_as`, which files one
# unit under another ("30 advisees" are students), so a claim is compared with the policy's count.
_GENERIC_FAMILIES = {
    "day": "days",
    "week": "weeks",
    "month": "months",
    "year": "years",
    "hour": "hours",
    "minute": "minutes",
    "member": "people",
    "time": "times",
    "page": "pages",
    "attempt": "attempts",
}


@functools.lru_cache(maxsize=1)
def _unit_families() -> dict[str, str]:
    """Unit as written (singular and plural) → the family it is compared within, for the active
    glossary. A `counts_as` chain is followed to its end (a loop stops where it closes)."""
    words = glossary.active()
    counts_as = words.counts_as

    def family(unit: str) -> str:
        seen = {unit}
        while unit not in _GENERIC_FAMILIES and counts_as.get(unit, unit) not in seen:
            unit = counts_as[unit]
            seen.add(unit)
        return _GENERIC_FAMILIES.get(unit, unit + "s")

    units = {*_GENERIC_FAMILIES, *words.count_units, *counts_as}
    return {written: family(unit) for unit in units for written in (unit, unit + "s")}


@functools.lru_cache(maxsize=1)
def _count_pattern() -> re.Pattern[str]:
    return re.compile(
        r"\b" + _NUM + r"(?:\s++(?:calendar|working|academic|teaching|consecutive))?\s++"
        r"(?P<unit>" + "|".join(re.escape(u) for u in sorted(_unit_families(), key=len, reverse=True)) + r")\b",
        re.IGNORECASE,
    )


glossary.on_change(_unit_families.cache_clear)
glossary.on_change(_count_pattern.cache_clear)


def counts_corpus_unit(kind: str) -> bool:
    """A value kind of `extract_values` that counts one of the corpus's own units (its glossary's
    `count_units`: "count:points" where it counts points), not a unit of general English (days,
    people, pages, attempts, times)."""
    return kind.startswith("count:") and kind[6:] not in _GENERIC_COUNTS


_GENERIC_COUNTS = frozenset({*_GENERIC_FAMILIES.values(), "times"})


_PATTERNS: list[tuple[str, re.Pattern]] = [
    (
        "date",
        re.compile(
            r"(?P<num>\d{4}-\d{2}-\d{2}|\d{1,2}\s++(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
            r"[a-z]*+\s++\d{4})",
            re.IGNORECASE,
        ),
    ),
    ("percent", re.compile(r"(?<!\d)(?P<num>\d++(?:\.\d++)?+)\s*+(?:%|percent\b|per\s++cent\b)", re.IGNORECASE)),
    ("week_number", re.compile(r"\bweek\s++(?P<num>\d++)\b", re.IGNORECASE)),
    ("times", re.compile(r"\b(?P<num>twice|thrice|once)\b", re.IGNORECASE)),
]
_NEGATION = re.compile(
    r"\b(no longer|not|never|no|none|abolished|scrapped|removed|excluded|"
    r"isn't|aren't|doesn't|don't|cannot|can't)\b",
    re.IGNORECASE,
)
TIMES_WORDS = {"once": 1, "twice": 2, "thrice": 3}


@dataclass(frozen=True)
class Value:
    kind: str  # amount | percent | week_number | date | count:<unit family>
    value: str  # normalised, e.g. "2000", "50", "2026-08-15"
    text: str
    start: int
    end: int
    num_start: int
    num_end: int


@dataclass(frozen=True)
class Contradiction:
    kind: str  # the value kind, or "polarity"
    chunk_id: str
    section: str
    claim_span: dict  # {"text", "start", "end"} in the claim statement
    chunk_span: dict  # {"text", "start", "end"} in the chunk text
    claim_value: str
    chunk_value: str
    replacement: str  # what the chunk span becomes if the claim is true
    score: int = 0  # words the claim shares with the chunk sentence: how surely they talk of the same thing

    def to_dict(self) -> dict:
        return asdict(self)


def _normalise(raw: str) -> str:
    low = raw.lower().replace(",", "")
    if low in WORD_NUMBERS:
        return str(WORD_NUMBERS[low])
    if low in TIMES_WORDS:
        return str(TIMES_WORDS[low])
    return re.sub(r"\s+", " ", low)


def extract_values(text: str) -> list[Value]:
    """Every comparable value in `text` with its span; overlapping matches keep the first kind."""
    found: list[Value] = []
    starts: list[int] = []  # the spans taken so far, disjoint and in order: a lookup, not a scan
    ends: list[int] = []
    # dates first, then amounts of money as this corpus writes them (its glossary's currency)
    money = [("amount", p) for p in money_patterns()]
    for kind, pattern in [_PATTERNS[0], *money, *_PATTERNS[1:], ("count", _count_pattern())]:
        for m in pattern.finditer(text):
            at = bisect.bisect_left(starts, m.end())  # spans starting before this match ends
            if at and ends[at - 1] > m.start():
                continue
            if kind == "count":
                label = f"count:{_unit_families()[m.group('unit').lower()]}"
            elif kind == "times":
                label = "count:times"
            else:
                label = kind
            starts.insert(at, m.start())
            ends.insert(at, m.end())
            num = "num" if m.group("num") is not None else "word"  # "3 days" or "three days"
            found.append(
                Value(label, _normalise(m.group(num)), m.group(0), m.start(), m.end(), m.start(num), m.end(num))
            )
    return sorted(found, key=lambda v: v.start)


def _sentence_spans(text: str) -> list[tuple[int, int, str]]:
    spans, cursor = [], 0
    for sentence in split_sentences(text):
        head = sentence[: min(len(sentence), 25)]
        at = text.find(head, cursor)
        if at < 0:
            continue
        end = at + len(sentence) if text[at : at + len(sentence)] == sentence else _sentence_end(text, at)
        spans.append((at, end, text[at:end]))
        cursor = end
    return spans


def _sentence_end(text: str, start: int) -> int:
    m = re.compile(r"[.!?](?=\s|$)|\n\s*\n").search(text, start)
    return m.end() if m else len(text)


def _overlap(a: set[str], sentence: str) -> int:
    return len(a & set(content_terms(sentence)))


def _render(chunk_value: Value, claim_value: Value, chunk_text: str) -> str:
    """The chunk's span with the claimed number put in place of its own (keeps the chunk's style)."""
    span = chunk_text[chunk_value.start : chunk_value.end]
    offset = chunk_value.num_start - chunk_value.start
    length = chunk_value.num_end - chunk_value.num_start
    if claim_value.text.lower() in TIMES_WORDS:
        return claim_value.text  # "twice" replaces all of "three times"
    raw = claim_value.text[claim_value.num_start - claim_value.start : claim_value.num_end - claim_value.start]
    return span[:offset] + raw + span[offset + length :]


def find_contradictions(statement: str, chunk_id: str, chunk_text: str, section: str = "") -> list[Contradiction]:
    """The differences between a claim statement and one chunk (empty when they agree or are unrelated)."""
    claim_terms = set(content_terms(statement))
    sentences = _sentence_spans(chunk_text)
    chunk_values = extract_values(chunk_text)
    out: list[Contradiction] = []
    for claimed in extract_values(statement):
        candidates = []
        for value in chunk_values:
            if value.kind != claimed.kind:
                continue
            sentence = next((s for s in sentences if s[0] <= value.start < s[1]), (0, len(chunk_text), chunk_text))
            candidates.append((_overlap(claim_terms, sentence[2]), value))
        if not candidates:
            continue
        best = max(score for score, _ in candidates)
        if best < 2:
            continue  # the chunk mentions such a value, but about something else
        closest = [value for score, value in candidates if score == best]
        if any(value.value == claimed.value for value in closest):
            continue  # the claim agrees with the chunk
        target = closest[0]
        out.append(
            Contradiction(
                kind=claimed.kind,
                chunk_id=chunk_id,
                section=section,
                claim_span={"text": claimed.text, "start": claimed.start, "end": claimed.end},
                chunk_span={"text": target.text, "start": target.start, "end": target.end},
                claim_value=claimed.value,
                chunk_value=target.value,
                replacement=_render(target, claimed, chunk_text),
                score=best,
            )
        )
    if not out:
        polarity = _polarity_contradiction(statement, claim_terms, chunk_id, chunk_text, section, sentences)
        if polarity is not None:
            out.append(polarity)
    return out


def _polarity_contradiction(
    statement: str,
    claim_terms: set[str],
    chunk_id: str,
    chunk_text: str,
    section: str,
    sentences: list[tuple[int, int, str]],
) -> Contradiction | None:
    negated = _NEGATION.search(statement)
    if negated is None or not sentences:
        return None
    score, (start, end, sentence) = max(((_overlap(claim_terms, s[2]), s) for s in sentences), key=lambda x: x[0])
    if score < 2 or _NEGATION.search(sentence):
        return None
    replacement = statement.strip()
    if not replacement.endswith("."):
        replacement += "."
    return Contradiction(
        kind="polarity",
        chunk_id=chunk_id,
        section=section,
        claim_span={"text": negated.group(0), "start": negated.start(), "end": negated.end()},
        chunk_span={"text": sentence, "start": start, "end": end},
        claim_value="negative",
        chunk_value="positive",
        replacement=replacement,
        score=score,
    )


def closest(contradictions: list[Contradiction]) -> list[Contradiction]:
    """Only those about the same thing as the claim: the ones sharing the most words with it.

    "The revaluation fee is now Rs. 800" differs from the photocopy fee too, but the revaluation
    sentence shares more words with the claim; a policy stated in two documents ties and both stay.
    """
    if not contradictions:
        return []
    best = max(c.score for c in contradictions)
    return [c for c in contradictions if c.score == best]


def propose_replacement(chunk_text: str, contradictions: list[Contradiction | dict]) -> str:
    """The chunk text with each contradicted span replaced by the claimed version."""
    items = [c.to_dict() if isinstance(c, Contradiction) else c for c in contradictions]
    text = chunk_text
    for item in sorted(items, key=lambda c: c["chunk_span"]["start"], reverse=True):
        span = item["chunk_span"]
        if text[span["start"] : span["end"]] == span["text"]:
            text = text[: span["start"]] + item["replacement"] + text[span["end"] :]
    return text
