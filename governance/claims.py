"""Detecting a claim that a policy changed. STUB to be built by the governance issue (#6)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    text: str
    subject: str = ""


def detect_claim(text: str) -> Claim | None:
    """A statement (not a question) asserting a policy differs from what it is. STUB: never."""
    return None
