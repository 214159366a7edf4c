"""What an answer to a message of several questions says about the parts it cannot answer.

Each part of such a message (pipeline.language.question_parts) is judged by the support gate on
its own evidence, and on the whole message's evidence; a part that passes neither is named at
the end of the answer instead of being dropped silently: "The policies I can search do not cover:
is there a hostel curfew?". The line states what was searched, not a policy fact, so it carries
no citation (the evaluation counts it as no answer sentence: pipeline.evaluation.golden).
"""

from __future__ import annotations

NOT_COVERED = "The policies I can search do not cover:"


def uncovered_note(parts: list[str]) -> str:
    """The line naming the parts not covered ("" for none), each as the message asked it."""
    asked = [p.strip().rstrip("?!. ") for p in parts if p.strip()]
    return f"{NOT_COVERED} {'; '.join(asked)}?" if asked else ""


def with_uncovered_parts(text: str, parts: list[str]) -> str:
    """The answer text with the uncovered parts' line after it."""
    note = uncovered_note(parts)
    return f"{text}\n\n{note}" if note else text
