"""Claim detection: golden claims are found, every other golden question is left alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from governance.claims import detect_claim, is_question

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden"


def _golden() -> list[dict]:
    files = [GOLDEN / "dev.jsonl", GOLDEN / "test.jsonl"]
    if not all(f.exists() for f in files):
        files = sorted((GOLDEN / "parts").glob("*.jsonl"))
    rows = []
    for f in files:
        rows += [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows


def test_no_false_alarm_on_golden_non_claims():
    others = [r for r in _golden() if r["type"] != "claim"]
    flagged = [r["question"] for r in others if detect_claim(r["question"])]
    assert len(others) >= 50
    assert flagged == []


def test_detects_every_golden_claim():
    claims = [r for r in _golden() if r["type"] == "claim"]
    missed = [r["question"] for r in claims if detect_claim(r["question"]) is None]
    assert len(claims) >= 10
    assert missed == []


@pytest.mark.parametrize(
    "text",
    [
        "the revaluation fee is now 800",
        "I heard add/drop moved to week 3",
        "labs no longer count towards the internal mark",
        "Apparently the photocopy fee has been raised to Rs. 400.",
    ],
)
def test_detects_issue_examples(text):
    assert detect_claim(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Is the revaluation fee now 800?",
        "Has add/drop moved to week 3",
        "What is the fee now",
        "Tell me whether labs no longer count",
        "I am a B.Tech student now",
        "I prefer bullet points now",
        "Thanks, that helps",
        "Explain how the late fee was raised to Rs. 1,000",
        "revaluation fee",
    ],
)
def test_questions_requests_and_personal_statements_are_not_claims(text):
    assert detect_claim(text) is None


def test_reported_claim_keeps_the_statement_without_the_hearsay():
    claim = detect_claim("I heard that the add/drop period now runs until the end of week 3.")
    assert claim is not None and claim.reported
    assert claim.statement.startswith("The add/drop period now runs")
    assert is_question("How long is add/drop") and not is_question(claim.statement)
