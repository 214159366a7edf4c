"""Obvious personal data taken out of a question before reviewers read it (the knowledge gaps).

Users ask things like "I'm roll no. CS21B1034, my number is +91 98765 43210, can I defer?"; policy
owners need the question, not the person. `redact_personal` replaces e-mail addresses, phone-like
and other long numbers, identifiers that mix letters and digits, numeric dates (dates of birth) and
a name given as "my name is …" with a bracketed label, and leaves the rest - amounts and counts
of up to six digits ("Rs. 50,000", "30 credits") stay, as the topic is in them.

Plain patterns, not a library: the PII detectors on PyPI (presidio and others) need spaCy models
downloaded at run time, and nothing here may download. The patterns cannot find every personal
detail (a name mentioned in passing stays); they find the obvious ones, which is what the chat's
notice promises. Every pattern runs in linear time (each starts only at the edge of what it
reads, and takes it at once).
"""

from __future__ import annotations

import re

_REDACTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)++"), "[email]"),
    (re.compile(r"(?<![\w/.-])\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}(?![\w/.-])"), "[date]"),
    # seven digits or more, spaces, hyphens or dots between them allowed: phone, account, roll numbers
    (re.compile(r"(?<![\w+])\+?\d(?:[ .-]?\d){6,}(?!\w)"), "[number]"),
    # a word with both letters and at least two digits: student, staff, passport and ticket ids
    (re.compile(r"\b(?=[A-Za-z]*\d[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{5,}\b"), "[id]"),
    (re.compile(r"(?i:\b(my name is|name:)\s+)[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}"), r"\1 [name]"),
)


def redact_personal(text: str) -> str:
    """`text` with its obvious personal data replaced by [email], [date], [number], [id], [name]."""
    for pattern, label in _REDACTIONS:
        text = pattern.sub(label, text)
    return text
